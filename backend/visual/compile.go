package visual

import (
	"github.com/lets-app/lets/backend/wire"
)

// Cell is one canvas coordinate (X column, Y row; 0,0 = top left).
type Cell struct{ X, Y int }

// glyphs are the normative bitmaps of §5, in the canonical coordinate order
// of the golden fixture, indexed like wire.States(). Never modified.
var glyphs = [7][]Cell{
	// running: steady blue ellipsis (x-major).
	{{1, 3}, {1, 4}, {3, 3}, {3, 4}, {5, 3}, {5, 4}},
	// waiting_for_reply: white question mark.
	{{1, 0}, {2, 0}, {3, 0}, {4, 0}, {5, 0}, {0, 1}, {6, 1}, {6, 2}, {5, 2}, {5, 3}, {4, 3}, {4, 4}, {3, 5}, {3, 7}},
	// user_typing: cyan chevron.
	{{1, 1}, {2, 2}, {3, 3}, {4, 4}, {3, 5}, {2, 6}, {1, 7}},
	// waiting_for_approval: restrained amber exclamation mark.
	{{3, 0}, {3, 1}, {3, 2}, {3, 3}, {3, 4}, {3, 7}},
	// success: green happy face.
	{{1, 2}, {5, 2}, {0, 4}, {1, 5}, {2, 6}, {3, 7}, {4, 6}, {5, 5}, {6, 4}},
	// error: red X (sorted by x, then y).
	{{0, 0}, {0, 7}, {1, 1}, {1, 6}, {2, 2}, {2, 5}, {3, 3}, {3, 4}, {4, 2}, {4, 5}, {5, 1}, {5, 6}, {6, 0}, {6, 7}},
	// cancelled: gray hollow square (sorted by x, then y).
	{{1, 1}, {1, 2}, {1, 3}, {1, 4}, {1, 5}, {1, 6}, {2, 1}, {2, 6}, {3, 1}, {3, 6}, {4, 1}, {4, 6}, {5, 1}, {5, 2}, {5, 3}, {5, 4}, {5, 5}, {5, 6}},
}

// idleDash is the "no selection" image: three dim pads on row 4.
var idleDash = [3]Cell{{2, 4}, {3, 4}, {4, 4}}

// activityDots are the top cells of the three running dots; frame mod 3
// picks one, and it and the cell below it show Activity.
var activityDots = [3]Cell{{1, 3}, {3, 3}, {5, 3}}

// Token tables for the known names, so that compiling allocates nothing.
var (
	primaryTokens = [7]Token{
		"state:running:primary", "state:waiting_for_reply:primary", "state:user_typing:primary",
		"state:waiting_for_approval:primary", "state:success:primary", "state:error:primary",
		"state:cancelled:primary",
	}
	summaryTokens = [7]Token{
		"state:running:summary", "state:waiting_for_reply:summary", "state:user_typing:summary",
		"state:waiting_for_approval:summary", "state:success:summary", "state:error:summary",
		"state:cancelled:summary",
	}
	actionTokens = [4]Token{
		"action:approve:enabled", "action:reject:enabled", "action:stop:enabled", "action:retry:enabled",
	}
	accentSelectedTokens = [8]Token{
		"accent:cyan:selected", "accent:magenta:selected", "accent:lime:selected", "accent:orange:selected",
		"accent:violet:selected", "accent:teal:selected", "accent:rose:selected", "accent:sky:selected",
	}
	accentUnselectedTokens = [8]Token{
		"accent:cyan:unselected", "accent:magenta:unselected", "accent:lime:unselected", "accent:orange:unselected",
		"accent:violet:unselected", "accent:teal:unselected", "accent:rose:unselected", "accent:sky:unselected",
	}
)

// stateIndex returns the index of s in wire.States(), or -1.
func stateIndex(s wire.State) int {
	switch s {
	case wire.StateRunning:
		return 0
	case wire.StateWaitingForReply:
		return 1
	case wire.StateUserTyping:
		return 2
	case wire.StateWaitingForApproval:
		return 3
	case wire.StateSuccess:
		return 4
	case wire.StateError:
		return 5
	case wire.StateCancelled:
		return 6
	}
	return -1
}

// accentIndex returns the index of name in the identity accents, or -1.
func accentIndex(name string) int {
	switch name {
	case wire.AccentCyan:
		return 0
	case wire.AccentMagenta:
		return 1
	case wire.AccentLime:
		return 2
	case wire.AccentOrange:
		return 3
	case wire.AccentViolet:
		return 4
	case wire.AccentTeal:
		return 5
	case wire.AccentRose:
		return 6
	case wire.AccentSky:
		return 7
	}
	return -1
}

// Glyph returns the cells of state s's glyph in canonical order (a fresh
// slice), or nil for an unknown state.
func Glyph(s wire.State) []Cell {
	i := stateIndex(s)
	if i < 0 {
		return nil
	}
	return append([]Cell(nil), glyphs[i]...)
}

// IdleDash returns the three cells of the no-selection dash.
func IdleDash() []Cell { d := idleDash; return d[:] }

// ActionStates returns the action gating table of §1.5: the states in which
// a press of a is delivered, in state enum order. The producer (control
// plane) applies it; the compiler does not.
func ActionStates(a wire.Action) []wire.State {
	var out []wire.State
	for _, s := range wire.States() {
		if wire.Permits(s, a) {
			out = append(out, s)
		}
	}
	return out
}

// compileInto is the algorithm of §4.2. Deviations from the reference, all
// for inputs the producer never makes, so that every frame is renderable:
//   - capacity is clamped to 0…MaxSelectors;
//   - an unknown selected state shows the idle dash (the reference fails);
//   - a session with an unknown state is skipped (the reference would emit
//     a token no palette resolves);
//   - an unknown or empty accent becomes the slot's identity accent (the
//     reference copies it and fails at MIDI render time; open question 4);
//   - frame uses Python's non-negative modulo; overflow lights for any
//     non-zero count, as the reference does.
func compileInto(f *Frame, v *View, capacity int) {
	for y := range f.State {
		for x := range f.State[y] {
			f.State[y][x] = Off
		}
	}
	if si := stateIndex(v.Selected); si < 0 {
		for _, c := range idleDash {
			f.State[c.Y][c.X] = Idle
		}
	} else {
		tok := primaryTokens[si]
		for _, c := range glyphs[si] {
			f.State[c.Y][c.X] = tok
		}
		if si == 0 && v.ActivityMotion {
			d := activityDots[((v.Frame%3)+3)%3]
			f.State[d.Y][d.X] = Activity
			f.State[d.Y+1][d.X] = Activity
		}
	}

	if capacity < 0 {
		capacity = 0
	}
	if capacity > MaxSelectors {
		capacity = MaxSelectors
	}
	f.Capacity = capacity
	for i := range f.Selectors {
		f.Selectors[i] = Off
		f.Statuses[i] = Off
	}
	for i := range v.Sessions {
		s := &v.Sessions[i]
		if s.Slot < 0 || s.Slot >= capacity {
			continue
		}
		si := stateIndex(s.State)
		if si < 0 {
			continue
		}
		ai := accentIndex(s.Accent)
		if ai < 0 {
			ai = s.Slot
		}
		if s.Selected {
			f.Selectors[s.Slot] = accentSelectedTokens[ai]
		} else {
			f.Selectors[s.Slot] = accentUnselectedTokens[ai]
		}
		f.Statuses[s.Slot] = summaryTokens[si]
	}

	for i := range f.Actions {
		if v.Available&(1<<i) != 0 {
			f.Actions[i] = actionTokens[i]
		} else {
			f.Actions[i] = Off
		}
	}
	if v.OverflowCount != 0 {
		f.Overflow = Overflow
	} else {
		f.Overflow = Off
	}
}
