package visual

import (
	"testing"

	"github.com/lets-app/lets/backend/control"
	"github.com/lets-app/lets/backend/wire"
)

// The producer side (§7; checklist V32–V38): the control plane fills the
// view, FromControl adapts it, and the compiled frame shows what a person
// sees. These tests drive the real control plane.

func newProducer(t *testing.T, capacity int) *control.Plane {
	t.Helper()
	cfg := control.DefaultConfig(capacity)
	cfg.ActionDebounce = 0
	p, err := control.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func agent(sid string) wire.Identity { return wire.Identity{Backend: "codex", SessionID: sid} }

func setState(p *control.Plane, now float64, sid string, s wire.State) {
	p.Update(now, 1000, wire.StateCommand{Agent: agent(sid), State: s})
}

func offer(p *control.Plane, now float64, conn int64, sid string, actions ...wire.Action) {
	p.Subscribe(now, conn, wire.SubscribeActionsCommand{Agent: agent(sid), Actions: actions})
}

func view(p *control.Plane, frame int) (View, Frame) {
	v := FromControl(p.View(), frame)
	return v, Compile(v, p.Capacity())
}

func TestV32_ProducerGatesActionsByState(t *testing.T) {
	p := newProducer(t, 8)
	setState(p, 1, "a", wire.StateRunning)
	offer(p, 2, 1, "a", wire.ActionApprove, wire.ActionStop)
	v, f := view(p, 0)
	if v.Available != Actions(wire.ActionStop) {
		t.Fatalf("available %v", v.Available.Sorted())
	}
	if f.Action(wire.ActionStop) != "action:stop:enabled" || f.Action(wire.ActionApprove) != Off {
		t.Fatalf("actions %v", f.Actions)
	}
}

func TestV33_ProducerActionsOfSelectedOnly(t *testing.T) {
	p := newProducer(t, 8)
	setState(p, 1, "a", wire.StateRunning)
	setState(p, 2, "b", wire.StateRunning)
	offer(p, 3, 1, "a", wire.ActionStop)
	offer(p, 3, 2, "b", wire.ActionRetry)
	v, f := view(p, 0)
	if v.Available != Actions(wire.ActionStop) || len(v.Sessions) != 2 || !v.Sessions[0].Selected || v.Sessions[1].Selected {
		t.Fatalf("view %+v", v)
	}
	if f.Selectors[0] != "accent:cyan:selected" || f.Selectors[1] != "accent:magenta:unselected" {
		t.Fatalf("selectors %v", f.Selectors)
	}
}

func TestV34_ProducerPreview(t *testing.T) {
	p := newProducer(t, 8)
	setState(p, 1, "a", wire.StateRunning)
	offer(p, 2, 1, "a", wire.ActionStop)
	p.SetPreview(3, 5, wire.PreviewCommand{PreviewID: "pv", State: wire.StateWaitingForApproval, TTL: 1.5})
	v, f := view(p, 0)
	if v.Selected != wire.StateWaitingForApproval || v.Available != 0 || v.ActivityMotion {
		t.Fatalf("during preview %+v", v)
	}
	if len(cellsWith(&f, StatePrimary(wire.StateWaitingForApproval))) != 6 || f.Action(wire.ActionStop) != Off {
		t.Fatal("preview not drawn")
	}
	p.EndPreview(4, 5, "pv")
	v, _ = view(p, 1)
	if v.Selected != wire.StateRunning || v.Available != Actions(wire.ActionStop) {
		t.Fatalf("after preview %+v", v)
	}
}

func TestV35_ProducerOverflow(t *testing.T) {
	p := newProducer(t, 4)
	for i, sid := range []string{"a", "b", "c", "d"} {
		setState(p, float64(i+1), sid, wire.StateWaitingForApproval)
	}
	setState(p, 5, "e", wire.StateRunning)
	v, f := view(p, 0)
	if v.OverflowCount != 1 || len(v.Sessions) != 4 || f.Overflow != Overflow {
		t.Fatalf("view %+v overflow %q", v, f.Overflow)
	}
	for _, s := range v.Sessions {
		if s.State != wire.StateWaitingForApproval {
			t.Errorf("slot %d shows %s; the running fifth must have no slot", s.Slot, s.State)
		}
	}
}

func TestV36_ProducerEviction(t *testing.T) {
	p := newProducer(t, 4)
	for i, sid := range []string{"s0", "s1", "s2", "s3"} {
		setState(p, float64(i+1), sid, wire.StateRunning)
	}
	setState(p, 5, "s1", wire.StateWaitingForApproval)
	setState(p, 6, "s4", wire.StateRunning)
	st := p.Status()
	slots := map[string]int{}
	for _, s := range st.Sessions {
		slots[s.SessionID] = s.Slot
	}
	if slots["s2"] != wire.NoSlot {
		t.Fatalf("s2 kept slot %d", slots["s2"])
	}
	for _, sid := range []string{"s0", "s1", "s4"} {
		if slots[sid] == wire.NoSlot {
			t.Errorf("%s lost its slot", sid)
		}
	}
	v, f := view(p, 0)
	if v.OverflowCount != 1 || f.Overflow != Overflow {
		t.Fatalf("overflow %d", v.OverflowCount)
	}
}

func TestV37_ProducerEndSelected(t *testing.T) {
	p := newProducer(t, 8)
	setState(p, 1, "a", wire.StateRunning)
	setState(p, 2, "b", wire.StateRunning)
	offer(p, 3, 1, "a", wire.ActionStop)
	p.End(4, agent("a"))
	v, f := view(p, 0)
	if v.Selected != "" || v.Available != 0 || len(v.Sessions) != 1 || v.Sessions[0].Selected {
		t.Fatalf("after end %+v", v)
	}
	if got := litCells(&f); len(got) != 3 || got[Cell{3, 4}] != Idle {
		t.Fatalf("canvas %v, want the idle dash", got)
	}
	// Its subscription is gone: selecting b and making a again offers nothing.
	setState(p, 5, "a", wire.StateRunning)
	p.SelectSlot(6, 0)
	if v, _ := view(p, 1); v.Available != 0 {
		t.Fatalf("old subscription survived: %v", v.Available.Sorted())
	}
}

func TestV38_ProducerTerminalHold(t *testing.T) {
	p := newProducer(t, 8)
	setState(p, 1, "a", wire.StateSuccess)
	if v, _ := view(p, 0); v.Selected != wire.StateSuccess {
		t.Fatalf("selected %s", v.Selected)
	}
	p.Tick(1 + wire.DefaultTerminalHold + 0.01)
	v, f := view(p, 1)
	if v.Selected != wire.StateWaitingForReply {
		t.Fatalf("after hold %s", v.Selected)
	}
	if len(cellsWith(&f, StatePrimary(wire.StateWaitingForReply))) != 14 {
		t.Fatal("question mark not drawn")
	}
}

func TestFromControl(t *testing.T) {
	cv := control.View{
		Centre:        wire.StateRunning,
		PreviewActive: false,
		Indicators: []control.Indicator{
			{Slot: 0, Identity: agent("a"), State: wire.StateRunning, Selected: true, Accent: "cyan", Label: "A"},
			{Slot: 2, Identity: agent("b"), State: wire.StateError, Accent: "lime", Label: "B"},
		},
		Available:      []wire.Action{wire.ActionStop, wire.ActionRetry},
		OverflowCount:  2,
		ActivityMotion: true,
		Capacity:       4,
	}
	v := FromControl(cv, 9)
	want := View{
		Selected: wire.StateRunning, Frame: 9,
		Sessions: []Indicator{
			{Slot: 0, State: wire.StateRunning, Selected: true, Accent: "cyan", Label: "A"},
			{Slot: 2, State: wire.StateError, Accent: "lime", Label: "B"},
		},
		Available: Actions(wire.ActionStop, wire.ActionRetry), OverflowCount: 2, ActivityMotion: true,
	}
	if !v.Equal(want) {
		t.Fatalf("got %+v\nwant %+v", v, want)
	}
	if e := FromControl(control.View{}, 0); e.Sessions != nil || e.Selected != "" {
		t.Fatalf("empty %+v", e)
	}
}
