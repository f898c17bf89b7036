// Package visual is the Pad-Lattice Visual Protocol 1 compiler
// (visual-protocol-1 §2–§8): a pure, deterministic function from a surface
// view (who is visible, what the selected agent is doing, which actions a
// press would deliver now) to a hardware-independent Frame of semantic light
// tokens. Surfaces never interpret a view themselves: a MIDI surface resolves
// the Frame's tokens through its device profile, the browser surface sends
// the Frame as JSON (§4.3).
//
// The package has no clocks, no I/O and no mutable globals. Time enters only
// as the render counter View.Frame and as seconds passed to MotionDue.
package visual

import (
	"fmt"
	"strings"

	"github.com/lets-app/lets/backend/wire"
)

// Constants of §1.4 and the reference layout of §2.
const (
	// ProtocolVersion is the Visual Protocol version.
	ProtocolVersion = 1
	// CanvasWidth and CanvasHeight are the size of the state canvas: matrix
	// columns 0…6, rows 0…7. Column 7 is the status column.
	CanvasWidth  = 7
	CanvasHeight = 8
	// GridSize is the side of the reference 8×8 matrix.
	GridSize = 8
	// RailLength is the number of controls on the top and right rails.
	RailLength = 8
	// StatusColumn is the matrix column of the status pads.
	StatusColumn = 7
	// MaxSelectors is the largest selector capacity.
	MaxSelectors = 8
	// ActivityInterval is how often (seconds) a surface showing the running
	// activity motion is re-rendered at least.
	ActivityInterval = 1.5
)

// Top rail positions of the reference layout (§2). Positions 2, 3 and 5 are
// reserved: never lit in semantic mode.
const (
	TopApprove  = 0
	TopReject   = 1
	TopOverflow = 4
	TopRetry    = 6
	TopStop     = 7
)

// Token names a semantic light colour (§4.1). A surface maps a token to a
// hardware value (palette index) or a screen colour.
//
//	off
//	idle
//	activity
//	state:<agent_state>:primary        canvas glyph colour
//	state:<agent_state>:summary        status pad colour
//	action:<control_action>:enabled    available action
//	accent:<accent_name>:selected      Scene of the selected agent
//	accent:<accent_name>:unselected    Scene of another visible agent
//	system:overflow
type Token string

// The tokens without parameters.
const (
	Off      Token = "off"
	Idle     Token = "idle"
	Activity Token = "activity"
	Overflow Token = "system:overflow"
)

// TokenKind classifies a token.
type TokenKind uint8

// The nine token kinds of §4.1.
const (
	KindInvalid TokenKind = iota
	KindOff
	KindIdle
	KindActivity
	KindStatePrimary
	KindStateSummary
	KindActionEnabled
	KindAccentSelected
	KindAccentUnselected
	KindOverflow
)

// TokenInfo is a parsed token. State is set for the two state kinds, Action
// for KindActionEnabled, Accent for the two accent kinds.
type TokenInfo struct {
	Kind   TokenKind
	State  wire.State
	Action wire.Action
	Accent string
}

// Selected reports whether an accent token is the selected variant.
func (i TokenInfo) Selected() bool { return i.Kind == KindAccentSelected }

// StatePrimary returns the canvas token of state s: "state:<s>:primary".
func StatePrimary(s wire.State) Token {
	if i := stateIndex(s); i >= 0 {
		return primaryTokens[i]
	}
	return Token("state:" + string(s) + ":primary")
}

// StateSummary returns the status pad token of state s: "state:<s>:summary".
func StateSummary(s wire.State) Token {
	if i := stateIndex(s); i >= 0 {
		return summaryTokens[i]
	}
	return Token("state:" + string(s) + ":summary")
}

// ActionEnabled returns the token of an available action:
// "action:<a>:enabled".
func ActionEnabled(a wire.Action) Token {
	if i := ActionIndex(a); i >= 0 {
		return actionTokens[i]
	}
	return Token("action:" + string(a) + ":enabled")
}

// AccentToken returns "accent:<name>:selected" or "accent:<name>:unselected".
func AccentToken(name string, selected bool) Token {
	if i := accentIndex(name); i >= 0 {
		if selected {
			return accentSelectedTokens[i]
		}
		return accentUnselectedTokens[i]
	}
	if selected {
		return Token("accent:" + name + ":selected")
	}
	return Token("accent:" + name + ":unselected")
}

// Parse classifies t by the grammar of §4.1. States and actions must be
// known names; an accent name must be one of the eight identity accents.
// The error says which part is wrong.
func (t Token) Parse() (TokenInfo, error) {
	switch t {
	case Off:
		return TokenInfo{Kind: KindOff}, nil
	case Idle:
		return TokenInfo{Kind: KindIdle}, nil
	case Activity:
		return TokenInfo{Kind: KindActivity}, nil
	case Overflow:
		return TokenInfo{Kind: KindOverflow}, nil
	}
	parts := strings.Split(string(t), ":")
	if len(parts) != 3 {
		return TokenInfo{}, fmt.Errorf("visual token %q: want off, idle, activity, system:overflow or kind:name:variant", string(t))
	}
	switch parts[0] {
	case "state":
		st, ok := wire.ParseState(parts[1])
		if !ok {
			return TokenInfo{}, fmt.Errorf("visual token %q: unknown agent state %q", string(t), parts[1])
		}
		switch parts[2] {
		case "primary":
			return TokenInfo{Kind: KindStatePrimary, State: st}, nil
		case "summary":
			return TokenInfo{Kind: KindStateSummary, State: st}, nil
		}
		return TokenInfo{}, fmt.Errorf("visual token %q: state variant must be primary or summary", string(t))
	case "action":
		a, ok := wire.ParseAction(parts[1])
		if !ok {
			return TokenInfo{}, fmt.Errorf("visual token %q: unknown action %q", string(t), parts[1])
		}
		if parts[2] != "enabled" {
			return TokenInfo{}, fmt.Errorf("visual token %q: action variant must be enabled", string(t))
		}
		return TokenInfo{Kind: KindActionEnabled, Action: a}, nil
	case "accent":
		if accentIndex(parts[1]) < 0 {
			return TokenInfo{}, fmt.Errorf("visual token %q: unknown accent %q (want one of %s)", string(t), parts[1], strings.Join(wire.IdentityAccents(), ", "))
		}
		switch parts[2] {
		case "selected":
			return TokenInfo{Kind: KindAccentSelected, Accent: parts[1]}, nil
		case "unselected":
			return TokenInfo{Kind: KindAccentUnselected, Accent: parts[1]}, nil
		}
		return TokenInfo{}, fmt.Errorf("visual token %q: accent variant must be selected or unselected", string(t))
	}
	return TokenInfo{}, fmt.Errorf("visual token %q: unknown kind %q", string(t), parts[0])
}

// Valid reports whether t parses.
func (t Token) Valid() bool { _, err := t.Parse(); return err == nil }

// Frame is a compiled VisualFrame (§4): every light of the reference surface
// as a semantic token. It is a comparable value: two frames compiled from
// equal views are ==, which a surface can use to skip a repaint.
//
// Coordinates: x = column (0 left), y = row (0 top); State is indexed
// [y][x]. Selectors and Statuses are indexed by slot; entries at Capacity
// and beyond are always Off and are not part of the frame's JSON form.
type Frame struct {
	// State is the 7×8 canvas: the selected agent's glyph, the idle dash, or
	// the glyph plus two activity cells.
	State [CanvasHeight][CanvasWidth]Token
	// Capacity is the number of selector slots, 0…MaxSelectors.
	Capacity int
	// Selectors are the Scene (identity) lights, index = slot.
	Selectors [MaxSelectors]Token
	// Statuses are the status pads (matrix column 7), index = slot.
	Statuses [MaxSelectors]Token
	// Actions are the action lights in ActionOrder (approve, reject, stop,
	// retry); use Action to look one up by name.
	Actions [4]Token
	// Overflow is the overflow indicator.
	Overflow Token
}

// ActionOrder is the canonical action order (§1.2): approve, reject, stop,
// retry. Frame.Actions is indexed in this order.
func ActionOrder() [4]wire.Action {
	return [4]wire.Action{wire.ActionApprove, wire.ActionReject, wire.ActionStop, wire.ActionRetry}
}

// ActionIndex returns the index of a in ActionOrder, or -1.
func ActionIndex(a wire.Action) int {
	switch a {
	case wire.ActionApprove:
		return 0
	case wire.ActionReject:
		return 1
	case wire.ActionStop:
		return 2
	case wire.ActionRetry:
		return 3
	}
	return -1
}

// Action returns the token of action a (Off for an unknown action).
func (f *Frame) Action(a wire.Action) Token {
	if i := ActionIndex(a); i >= 0 {
		return f.Actions[i]
	}
	return Off
}

// Lights is the reference 80-light layout of §2: the 8×8 matrix (canvas in
// columns 0…6, status pads in column 7), the top rail (approve, reject,
// reserved, reserved, overflow, reserved, retry, stop) and the right rail
// (Scene selectors, slot 0 at the top). Indexing is Grid[y][x], y = 0 top.
type Lights struct {
	Grid  [GridSize][GridSize]Token
	Top   [RailLength]Token
	Right [RailLength]Token
}

// Lights lays the frame out on the reference surface. Unused lights
// (reserved rail positions, slots beyond Capacity) are Off.
func (f *Frame) Lights() Lights {
	var l Lights
	for y := 0; y < GridSize; y++ {
		for x := 0; x < CanvasWidth; x++ {
			l.Grid[y][x] = orOff(f.State[y][x])
		}
		l.Grid[y][StatusColumn] = orOff(f.Statuses[y])
		l.Right[y] = orOff(f.Selectors[y])
		l.Top[y] = Off
	}
	l.Top[TopApprove] = orOff(f.Actions[0])
	l.Top[TopReject] = orOff(f.Actions[1])
	l.Top[TopStop] = orOff(f.Actions[2])
	l.Top[TopRetry] = orOff(f.Actions[3])
	l.Top[TopOverflow] = orOff(f.Overflow)
	return l
}

func orOff(t Token) Token {
	if t == "" {
		return Off
	}
	return t
}

// Compile compiles view for a surface with capacity selector slots
// (§4.2). It is pure and deterministic and never fails: capacity is
// clamped to 0…MaxSelectors, an unknown selected state shows the idle dash,
// sessions outside 0…capacity-1 or with an unknown state are skipped, and an
// unknown accent is replaced by the slot's identity accent (see Compile's
// implementation notes in compile.go).
func Compile(view View, capacity int) Frame {
	var f Frame
	compileInto(&f, &view, capacity)
	return f
}

// Validate checks the invariants of a compiled frame (§12): Capacity is
// 0…MaxSelectors; canvas cells are off, idle, activity or a primary state
// token; selectors are off or accent tokens and statuses off or summary
// tokens, and both are off beyond Capacity; each action light is off or
// that action's enabled token; the overflow light is off or
// system:overflow. Every token must parse (§4.1). The zero Frame is
// invalid (its tokens are empty); a compiled one is always valid.
func (f *Frame) Validate() error {
	if f.Capacity < 0 || f.Capacity > MaxSelectors {
		return fmt.Errorf("visual frame: capacity %d outside 0…%d", f.Capacity, MaxSelectors)
	}
	check := func(where string, t Token, kinds ...TokenKind) (TokenInfo, error) {
		info, err := t.Parse()
		if err != nil {
			return info, fmt.Errorf("visual frame %s: %w", where, err)
		}
		for _, k := range kinds {
			if info.Kind == k {
				return info, nil
			}
		}
		return info, fmt.Errorf("visual frame %s: token %q is not allowed there", where, string(t))
	}
	for y := range f.State {
		for x, t := range f.State[y] {
			if _, err := check(fmt.Sprintf("canvas (%d,%d)", x, y), t, KindOff, KindIdle, KindActivity, KindStatePrimary); err != nil {
				return err
			}
		}
	}
	for i := range f.Selectors {
		if i >= f.Capacity {
			if f.Selectors[i] != Off || f.Statuses[i] != Off {
				return fmt.Errorf("visual frame: slot %d is beyond capacity %d but lit", i, f.Capacity)
			}
			continue
		}
		if _, err := check(fmt.Sprintf("selector %d", i), f.Selectors[i], KindOff, KindAccentSelected, KindAccentUnselected); err != nil {
			return err
		}
		if _, err := check(fmt.Sprintf("status %d", i), f.Statuses[i], KindOff, KindStateSummary); err != nil {
			return err
		}
	}
	for i, a := range ActionOrder() {
		info, err := check("action "+string(a), f.Actions[i], KindOff, KindActionEnabled)
		if err != nil {
			return err
		}
		if info.Kind == KindActionEnabled && info.Action != a {
			return fmt.Errorf("visual frame: action %s shows %q", a, string(f.Actions[i]))
		}
	}
	_, err := check("overflow", f.Overflow, KindOff, KindOverflow)
	return err
}
