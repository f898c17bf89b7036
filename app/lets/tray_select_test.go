package lets

import (
	"testing"

	"github.com/lets-app/lets/backend/daemon"
	"github.com/lets-app/lets/backend/surface"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// pressSurface is a surface with input: NoSurface plus an events channel.
type pressSurface struct {
	surface.Surface
	events chan surface.Event
	closed int
}

func (p *pressSurface) Events() <-chan surface.Event { return p.events }
func (p *pressSurface) Close() error                 { p.closed++; return nil }

func nextEvent(t *testing.T, ch <-chan surface.Event) surface.Event {
	t.Helper()
	return testutil.Wait(t, "the next surface event", ch)
}

// Point: the tray's selections reach the daemon as a pad's Scene press
// would, merged with the presses of the real surface, and closing stops
// both.
func TestTraySelectorMergesTrayAndPadPresses(t *testing.T) {
	inner := &pressSurface{Surface: daemon.NoSurface(), events: make(chan surface.Event, 4)}
	sel := newTraySelector(inner)
	events := sel.Events()

	inner.events <- surface.ActionPressed{Action: "approve"}
	if ev := nextEvent(t, events); ev != (surface.ActionPressed{Action: "approve"}) {
		t.Fatalf("pad press came through as %#v", ev)
	}
	if !sel.selectSlot(2) {
		t.Fatal("the tray's selection was refused")
	}
	if ev := nextEvent(t, events); ev != (surface.SessionSelected{Slot: 2}) {
		t.Fatalf("tray selection came through as %#v", ev)
	}
	if err := sel.Close(); err != nil {
		t.Fatal(err)
	}
	if inner.closed != 1 {
		t.Fatalf("the wrapped surface was closed %d times", inner.closed)
	}
	if sel.selectSlot(0) {
		t.Fatal("a selection was taken after Close")
	}
	_ = sel.Close() // idempotent
}

// Point: without a surface the tray still selects (the daemon's
// placeholder surface has no input of its own).
func TestTraySelectorWithoutASurface(t *testing.T) {
	sel := newTraySelector(nil)
	if sel.Capacity() != daemon.NoSurface().Capacity() {
		t.Fatalf("capacity %d", sel.Capacity())
	}
	events := sel.Events()
	if !sel.selectSlot(0) {
		t.Fatal("refused")
	}
	if ev := nextEvent(t, events); ev != (surface.SessionSelected{Slot: 0}) {
		t.Fatalf("got %#v", ev)
	}
	_ = sel.Close()
}

// Point (#24): Close waits for the goroutine Events started, so nothing
// reads the wrapped surface once Close returns.
func TestTraySelectorCloseWaitsForItsForwarder(t *testing.T) {
	inner := &pressSurface{Surface: daemon.NoSurface(), events: make(chan surface.Event, 1)}
	sel := newTraySelector(inner)
	events := sel.Events()
	inner.events <- surface.ActionPressed{Action: "stop"}
	if ev := nextEvent(t, events); ev != (surface.ActionPressed{Action: "stop"}) {
		t.Fatalf("pad press came through as %#v", ev)
	}
	if err := sel.Close(); err != nil {
		t.Fatal(err)
	}
	inner.events <- surface.ActionPressed{Action: "retry"}
	if len(inner.events) != 1 {
		t.Fatal("a press was read from the surface after Close returned")
	}
}
