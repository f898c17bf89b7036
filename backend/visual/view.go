package visual

import (
	"github.com/lets-app/lets/backend/control"
	"github.com/lets-app/lets/backend/wire"
)

// View is the input of the compiler: the SurfaceView of §3. It is a plain
// value; use Equal to compare two views (Sessions is a slice).
type View struct {
	// Selected is the state drawn on the canvas; "" means no selection and
	// shows the idle dash.
	Selected wire.State
	// Frame is the producer's render counter; only the running activity
	// motion uses it (frame mod 3 picks the lit dot).
	Frame int
	// Sessions are the visible agents, one per occupied slot.
	Sessions []Indicator
	// Available are the actions a press would deliver now.
	Available ActionSet
	// OverflowCount is the number of agents without a slot.
	OverflowCount int
	// ActivityMotion enables the optional running-dot motion.
	ActivityMotion bool
}

// Indicator is one visible agent (SessionIndicator of §3).
type Indicator struct {
	// Slot is the selector slot, 0-based (0 = top row, "Scene 1").
	Slot int
	// State is the agent's state, drawn as its summary token.
	State wire.State
	// Selected marks the selected agent (brighter Scene light).
	Selected bool
	// Accent is the identity accent name.
	Accent string
	// Label is a display label (browser only).
	Label string
}

// ActionSet is a set of control actions (bit i = ActionOrder()[i]).
type ActionSet uint8

// Actions returns the set holding the given actions (unknown names are
// ignored).
func Actions(actions ...wire.Action) ActionSet {
	var s ActionSet
	for _, a := range actions {
		s = s.With(a)
	}
	return s
}

// With returns s plus a (s unchanged for an unknown action).
func (s ActionSet) With(a wire.Action) ActionSet {
	if i := ActionIndex(a); i >= 0 {
		return s | 1<<i
	}
	return s
}

// Has reports whether a is in s.
func (s ActionSet) Has(a wire.Action) bool {
	i := ActionIndex(a)
	return i >= 0 && s&(1<<i) != 0
}

// Len returns the number of actions in s.
func (s ActionSet) Len() int {
	n := 0
	for i := 0; i < 4; i++ {
		if s&(1<<i) != 0 {
			n++
		}
	}
	return n
}

// Sorted returns the actions of s sorted by name (approve, reject, retry,
// stop), the order of the browser's available_actions list.
func (s ActionSet) Sorted() []wire.Action {
	out := make([]wire.Action, 0, 4)
	for _, a := range [4]wire.Action{wire.ActionApprove, wire.ActionReject, wire.ActionRetry, wire.ActionStop} {
		if s.Has(a) {
			out = append(out, a)
		}
	}
	return out
}

// Equal reports whether v and o have equal fields (value semantics of §3;
// the action set compares as a set, sessions in order).
func (v View) Equal(o View) bool {
	if v.Selected != o.Selected || v.Frame != o.Frame || v.Available != o.Available ||
		v.OverflowCount != o.OverflowCount || v.ActivityMotion != o.ActivityMotion ||
		len(v.Sessions) != len(o.Sessions) {
		return false
	}
	for i := range v.Sessions {
		if v.Sessions[i] != o.Sessions[i] {
			return false
		}
	}
	return true
}

// FromControl adapts the control plane's view to the compiler's input.
// frame is the producer's render counter (the daemon counts its renders;
// §8). Identities are dropped: a surface never sees them.
func FromControl(cv control.View, frame int) View {
	v := View{
		Selected:       cv.Centre,
		Frame:          frame,
		Available:      Actions(cv.Available...),
		OverflowCount:  cv.OverflowCount,
		ActivityMotion: cv.ActivityMotion,
	}
	if len(cv.Indicators) > 0 {
		v.Sessions = make([]Indicator, len(cv.Indicators))
		for i, in := range cv.Indicators {
			v.Sessions[i] = Indicator{Slot: in.Slot, State: in.State, Selected: in.Selected, Accent: in.Accent, Label: in.Label}
		}
	}
	return v
}

// MotionDue reports whether a surface showing v must be re-rendered at now
// (seconds) only to advance the running activity motion, given the time of
// the last render (§8): motion is on, the selected state is running, and
// ActivityInterval has passed.
func MotionDue(v View, lastRender, now float64) bool {
	return v.ActivityMotion && v.Selected == wire.StateRunning && now >= lastRender+ActivityInterval
}
