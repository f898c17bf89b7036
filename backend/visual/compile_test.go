package visual

import (
	"reflect"
	"strings"
	"testing"

	"github.com/lets-app/lets/backend/wire"
)

func cells(cs ...Cell) map[Cell]bool {
	m := map[Cell]bool{}
	for _, c := range cs {
		m[c] = true
	}
	return m
}

// cellsWith returns the canvas cells holding tok.
func cellsWith(f *Frame, tok Token) map[Cell]bool {
	m := map[Cell]bool{}
	for y := range f.State {
		for x, t := range f.State[y] {
			if t == tok {
				m[Cell{x, y}] = true
			}
		}
	}
	return m
}

func offTokens(n int) []Token {
	out := make([]Token, n)
	for i := range out {
		out[i] = Off
	}
	return out
}

func TestV07_NoSelectionShowsIdleDash(t *testing.T) {
	f := Compile(View{}, 8)
	lit := litCells(&f)
	if len(lit) != 3 {
		t.Fatalf("lit %v", lit)
	}
	for _, c := range []Cell{{2, 4}, {3, 4}, {4, 4}} {
		if lit[c] != Idle {
			t.Errorf("cell %v = %q, want idle", c, lit[c])
		}
	}
}

func TestV08_ReplyAndApprovalDiffer(t *testing.T) {
	a := Compile(View{Selected: wire.StateWaitingForReply}, 8)
	b := Compile(View{Selected: wire.StateWaitingForApproval}, 8)
	if a.State == b.State {
		t.Fatal("canvases are equal")
	}
	if len(cellsWith(&a, "state:waiting_for_reply:primary")) == 0 {
		t.Error("reply canvas lacks its primary token")
	}
	if len(cellsWith(&b, "state:waiting_for_approval:primary")) == 0 {
		t.Error("approval canvas lacks its primary token")
	}
}

func TestV09toV13_ActivityMotion(t *testing.T) {
	for _, tc := range []struct {
		cas      int
		state    wire.State
		frame    int
		motion   bool
		activity map[Cell]bool
	}{
		{9, wire.StateRunning, 2, false, cells()},
		{10, wire.StateRunning, 2, true, cells(Cell{5, 3}, Cell{5, 4})},
		{11, wire.StateRunning, 1, true, cells(Cell{3, 3}, Cell{3, 4})},
		{12, wire.StateRunning, 0, true, cells(Cell{1, 3}, Cell{1, 4})},
		{13, wire.StateError, 1, true, cells()},
		// Python modulo for frames the producer never makes.
		{12, wire.StateRunning, 3, true, cells(Cell{1, 3}, Cell{1, 4})},
		{10, wire.StateRunning, -1, true, cells(Cell{5, 3}, Cell{5, 4})},
		{11, wire.StateRunning, -2, true, cells(Cell{3, 3}, Cell{3, 4})},
	} {
		f := Compile(View{Selected: tc.state, Frame: tc.frame, ActivityMotion: tc.motion}, 8)
		if got := cellsWith(&f, Activity); !reflect.DeepEqual(got, tc.activity) {
			t.Errorf("V%02d frame %d: activity cells %v, want %v", tc.cas, tc.frame, got, tc.activity)
		}
		if tc.state == wire.StateRunning {
			// The other four dots keep the running primary.
			prim := cellsWith(&f, StatePrimary(wire.StateRunning))
			if len(prim)+len(tc.activity) != 6 {
				t.Errorf("V%02d: %d primary + %d activity cells, want 6", tc.cas, len(prim), len(tc.activity))
			}
			for c := range tc.activity {
				if prim[c] {
					t.Errorf("V%02d: %v both primary and activity", tc.cas, c)
				}
			}
			if tc.cas == 11 {
				for _, c := range []Cell{{1, 3}, {1, 4}, {5, 3}, {5, 4}} {
					if !prim[c] {
						t.Errorf("V11: %v is not state:running:primary", c)
					}
				}
			}
		}
	}
	// No selection never animates.
	f := Compile(View{ActivityMotion: true, Frame: 1}, 8)
	if len(cellsWith(&f, Activity)) != 0 {
		t.Error("idle dash animated")
	}
}

func TestV14_SelectedSession(t *testing.T) {
	f := Compile(View{Selected: wire.StateWaitingForApproval, Sessions: []Indicator{
		{Slot: 0, State: wire.StateWaitingForApproval, Selected: true, Accent: "cyan"},
	}}, 8)
	if f.Selectors[0] != "accent:cyan:selected" || f.Statuses[0] != "state:waiting_for_approval:summary" {
		t.Fatalf("selector %q status %q", f.Selectors[0], f.Statuses[0])
	}
	for i := 1; i < 8; i++ {
		if f.Selectors[i] != Off || f.Statuses[i] != Off {
			t.Errorf("slot %d lit", i)
		}
	}
}

func TestV15_ActionsLightOnlyWhenAvailable(t *testing.T) {
	f := Compile(View{Selected: wire.StateWaitingForApproval, Available: Actions(wire.ActionApprove)}, 8)
	want := map[wire.Action]Token{
		wire.ActionApprove: "action:approve:enabled", wire.ActionReject: Off, wire.ActionStop: Off, wire.ActionRetry: Off,
	}
	for a, tok := range want {
		if got := f.Action(a); got != tok {
			t.Errorf("%s = %q, want %q", a, got, tok)
		}
	}
	// All four, in the canonical order approve, reject, stop, retry.
	all := Compile(View{Available: Actions(wire.Actions()...)}, 8)
	if all.Actions != [4]Token{"action:approve:enabled", "action:reject:enabled", "action:stop:enabled", "action:retry:enabled"} {
		t.Errorf("all actions: %v", all.Actions)
	}
	// The compiler does not gate by state (§4.2): gating is the producer's.
	g := Compile(View{Selected: wire.StateSuccess, Available: Actions(wire.ActionStop)}, 8)
	if g.Action(wire.ActionStop) != "action:stop:enabled" {
		t.Error("compiler gated an action by state")
	}
	if f.Action("launch") != Off {
		t.Error("unknown action not off")
	}
}

func TestV16_Overflow(t *testing.T) {
	for _, tc := range []struct {
		count int
		want  Token
	}{{1, Overflow}, {0, Off}, {5, Overflow}, {-1, Overflow}} {
		if f := Compile(View{OverflowCount: tc.count}, 8); f.Overflow != tc.want {
			t.Errorf("V16 count %d: %q, want %q", tc.count, f.Overflow, tc.want)
		}
	}
}

func TestV17_UnselectedSession(t *testing.T) {
	f := Compile(View{Sessions: []Indicator{
		{Slot: 1, State: wire.StateWaitingForApproval, Accent: "magenta"},
	}}, 8)
	if f.Selectors[1] != "accent:magenta:unselected" || f.Statuses[1] != "state:waiting_for_approval:summary" {
		t.Fatalf("selector %q status %q", f.Selectors[1], f.Statuses[1])
	}
}

func TestV18_OutOfRangeSlotsIgnored(t *testing.T) {
	for _, slot := range []int{8, -1, 100} {
		f := Compile(View{Sessions: []Indicator{{Slot: slot, State: wire.StateRunning, Accent: "cyan"}}}, 8)
		if !reflect.DeepEqual(f.Selectors[:], offTokens(8)) || !reflect.DeepEqual(f.Statuses[:], offTokens(8)) {
			t.Errorf("V18 slot %d: %v %v", slot, f.Selectors, f.Statuses)
		}
	}
	// Slot 3 with capacity 3 is out of range too.
	f := Compile(View{Sessions: []Indicator{{Slot: 3, State: wire.StateRunning, Accent: "orange"}}}, 3)
	if f.Selectors[3] != Off || f.Statuses[3] != Off {
		t.Error("slot beyond capacity drawn")
	}
}

func TestV19_CapacityThreeAllOff(t *testing.T) {
	f := Compile(View{}, 3)
	if f.Capacity != 3 {
		t.Fatalf("capacity %d", f.Capacity)
	}
	if !reflect.DeepEqual(f.Selectors[:f.Capacity], offTokens(3)) || !reflect.DeepEqual(f.Statuses[:f.Capacity], offTokens(3)) {
		t.Fatalf("%v %v", f.Selectors, f.Statuses)
	}
	js := string(f.AppendJSON(nil))
	if want := `"selectors":["off","off","off"],"statuses":["off","off","off"]`; !strings.Contains(js, want) {
		t.Fatalf("JSON %s lacks %s", js, want)
	}
}

func TestV20_SuccessGlyph(t *testing.T) {
	f := Compile(View{Selected: wire.StateSuccess}, 8)
	lit := litCells(&f)
	want := []Cell{{1, 2}, {5, 2}, {0, 4}, {1, 5}, {2, 6}, {3, 7}, {4, 6}, {5, 5}, {6, 4}}
	if len(lit) != len(want) {
		t.Fatalf("lit %v", lit)
	}
	for _, c := range want {
		if lit[c] != "state:success:primary" {
			t.Errorf("%v = %q", c, lit[c])
		}
	}
}

func TestV21_CellCounts(t *testing.T) {
	want := []int{6, 14, 7, 6, 9, 14, 18}
	for i, s := range wire.States() {
		f := Compile(View{Selected: s}, 8)
		if n := len(litCells(&f)); n != want[i] {
			t.Errorf("%s: %d cells, want %d", s, n, want[i])
		}
	}
}

// The canvas never touches the status column, and the Lights layout puts
// every role where §2 says.
func TestLightsReferenceLayout(t *testing.T) {
	v := View{
		Selected: wire.StateError,
		Sessions: []Indicator{
			{Slot: 0, State: wire.StateError, Selected: true, Accent: "cyan"},
			{Slot: 7, State: wire.StateRunning, Accent: "sky"},
		},
		Available:     Actions(wire.ActionRetry, wire.ActionApprove, wire.ActionReject, wire.ActionStop),
		OverflowCount: 2,
	}
	f := Compile(v, 8)
	l := f.Lights()
	if l.Grid[0][StatusColumn] != "state:error:summary" || l.Grid[7][StatusColumn] != "state:running:summary" {
		t.Errorf("status column %q %q", l.Grid[0][7], l.Grid[7][7])
	}
	if l.Right[0] != "accent:cyan:selected" || l.Right[7] != "accent:sky:unselected" || l.Right[3] != Off {
		t.Errorf("right rail %v", l.Right)
	}
	wantTop := [8]Token{"action:approve:enabled", "action:reject:enabled", Off, Off, Overflow, Off, "action:retry:enabled", "action:stop:enabled"}
	if l.Top != wantTop {
		t.Errorf("top rail %v", l.Top)
	}
	if l.Grid[0][0] != "state:error:primary" || l.Grid[0][6] != "state:error:primary" {
		t.Errorf("canvas corners %q %q", l.Grid[0][0], l.Grid[0][6])
	}
	// Only statuses in column 7 for every state.
	for _, s := range wire.States() {
		f := Compile(View{Selected: s}, 8)
		l := f.Lights()
		for y := 0; y < 8; y++ {
			if l.Grid[y][StatusColumn] != Off {
				t.Errorf("%s touches the status column at row %d", s, y)
			}
		}
	}
	// The zero Frame lays out as all off.
	var zero Frame
	zl := zero.Lights()
	for y := 0; y < 8; y++ {
		for x := 0; x < 8; x++ {
			if zl.Grid[y][x] != Off {
				t.Fatal("zero frame has a lit light")
			}
		}
	}
}

func TestDuplicateSlotLaterWins(t *testing.T) {
	f := Compile(View{Sessions: []Indicator{
		{Slot: 2, State: wire.StateRunning, Accent: "lime"},
		{Slot: 2, State: wire.StateError, Selected: true, Accent: "rose"},
	}}, 8)
	if f.Selectors[2] != "accent:rose:selected" || f.Statuses[2] != "state:error:summary" {
		t.Fatalf("%q %q", f.Selectors[2], f.Statuses[2])
	}
}

func TestRobustInputs(t *testing.T) {
	// Unknown selected state: idle dash.
	f := Compile(View{Selected: "sleeping"}, 8)
	if len(cellsWith(&f, Idle)) != 3 || len(litCells(&f)) != 3 {
		t.Errorf("unknown state canvas %v", litCells(&f))
	}
	// Unknown state in a session: skipped.
	f = Compile(View{Sessions: []Indicator{{Slot: 0, State: "sleeping", Accent: "cyan"}}}, 8)
	if f.Selectors[0] != Off || f.Statuses[0] != Off {
		t.Error("session with unknown state drawn")
	}
	// Unknown or empty accent: the slot's identity accent.
	f = Compile(View{Sessions: []Indicator{
		{Slot: 3, State: wire.StateRunning, Accent: "plaid"},
		{Slot: 4, State: wire.StateRunning, Selected: true},
	}}, 8)
	if f.Selectors[3] != "accent:orange:unselected" || f.Selectors[4] != "accent:violet:selected" {
		t.Errorf("accent fallback %q %q", f.Selectors[3], f.Selectors[4])
	}
	// Capacity is clamped.
	if f := Compile(View{}, 12); f.Capacity != 8 {
		t.Errorf("capacity 12 → %d", f.Capacity)
	}
	if f := Compile(View{Sessions: []Indicator{{Slot: 0, State: wire.StateRunning}}}, -3); f.Capacity != 0 || f.Selectors[0] != Off {
		t.Errorf("capacity -3 → %d %q", f.Capacity, f.Selectors[0])
	}
	// Every token of every compiled frame parses.
	checkFrame(t, Compile(View{Selected: wire.StateRunning, ActivityMotion: true, Available: 0xff, OverflowCount: 3,
		Sessions: []Indicator{{Slot: 0, State: wire.StateCancelled, Accent: "x:y"}}}, 8))
}

// Compilation is deterministic and equal views give == frames.
func TestDeterministic(t *testing.T) {
	v := View{Selected: wire.StateRunning, Frame: 7, ActivityMotion: true, Available: Actions(wire.ActionStop),
		Sessions: []Indicator{{Slot: 1, State: wire.StateRunning, Selected: true, Accent: "magenta", Label: "a"}}}
	w := v
	w.Sessions = append([]Indicator(nil), v.Sessions...)
	if !v.Equal(w) || Compile(v, 8) != Compile(w, 8) {
		t.Fatal("equal views compile differently")
	}
	w.Sessions[0].Label = "b"
	if v.Equal(w) {
		t.Fatal("views with different labels are equal")
	}
	if Compile(v, 8) != Compile(w, 8) {
		t.Fatal("label changed the frame")
	}
	w.Frame = 8
	if Compile(v, 8) == Compile(w, 8) {
		t.Fatal("motion frame did not change")
	}
}

func TestActionSet(t *testing.T) {
	s := Actions(wire.ActionStop, wire.ActionRetry, "bogus", wire.ActionStop)
	if s.Len() != 2 || !s.Has(wire.ActionStop) || !s.Has(wire.ActionRetry) || s.Has(wire.ActionApprove) || s.Has("bogus") {
		t.Fatalf("set %b", s)
	}
	if got := s.Sorted(); !reflect.DeepEqual(got, []wire.Action{wire.ActionRetry, wire.ActionStop}) {
		t.Fatalf("sorted %v", got)
	}
	if Actions(wire.ActionApprove, wire.ActionReject) != Actions(wire.ActionReject, wire.ActionApprove) {
		t.Fatal("set equality depends on order")
	}
}

func TestMotionDue(t *testing.T) {
	run := View{Selected: wire.StateRunning, ActivityMotion: true}
	if MotionDue(run, 10, 11.4) || !MotionDue(run, 10, 11.5) {
		t.Error("interval is not 1.5 s")
	}
	if MotionDue(View{Selected: wire.StateRunning}, 0, 100) {
		t.Error("due without motion")
	}
	if MotionDue(View{Selected: wire.StateError, ActivityMotion: true}, 0, 100) {
		t.Error("due for error")
	}
}

// checkFrame fails unless every token of f parses and the slots beyond
// Capacity are off.
func checkFrame(t testing.TB, f Frame) {
	t.Helper()
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
}
