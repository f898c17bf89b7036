package midi_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/control"
	"github.com/lets-app/lets/backend/daemon"
	"github.com/lets-app/lets/backend/surface/midi"
	"github.com/lets-app/lets/backend/surface/midi/miditest"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/backend/wire"
	"github.com/lets-app/lets/backend/wireclient"
)

const (
	port     = "Launchpad Pro:Launchpad Pro Standalone Port 20:1"
	quiet    = 200 * time.Millisecond
	deadline = testutil.EventuallyTimeout // a failure detector for something that must happen, not a budget
)

// rig is the real daemon on a Unix socket with a MIDI surface on an
// in-memory Launchpad Pro Mk1.
type rig struct {
	t      *testing.T
	bus    *miditest.Bus
	tick   chan time.Time
	s      *midi.Surface
	client *wireclient.Client
	ctx    context.Context
}

func newRig(t *testing.T, debounce float64) *rig {
	t.Helper()
	dir, err := os.MkdirTemp("", "lm")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	r := &rig{t: t, bus: miditest.New(), tick: make(chan time.Time)}
	r.bus.Plug(port, port)
	s, err := midi.OpenAuto(context.Background(), midi.Options{
		Backend: r.bus,
		Ticker:  func(time.Duration) (<-chan time.Time, func()) { return r.tick, func() {} },
		Sleep:   func(time.Duration) {},
	})
	if err != nil {
		t.Fatal(err)
	}
	cfg := control.DefaultConfig(0)
	cfg.ActionDebounce = debounce
	r.serve(dir, s, cfg)
	// Programmer mode + clear, then the first (idle) frame.
	r.waitFor("initialize", func(v map[[2]byte]byte, n int) bool { return n >= 82 })
	return r
}

// lights replays everything sent so far into the last value per address.
func (r *rig) lights() (map[[2]byte]byte, int) {
	msgs := r.bus.Sent(port)
	out := map[[2]byte]byte{}
	for _, m := range msgs {
		if len(m) == 3 {
			out[[2]byte{m[0], m[1]}] = m[2]
		}
	}
	return out, len(msgs)
}

// serve runs the real daemon with s on a socket in dir until the test ends
// and connects r's client to it.
func (r *rig) serve(dir string, s *midi.Surface, cfg control.Config) {
	t := r.t
	t.Helper()
	r.s = s
	sock := filepath.Join(dir, "s")
	d, err := daemon.Listen(daemon.Options{SocketPath: sock, Surface: s, Control: &cfg})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testutil.EventuallyTimeout)
	r.ctx = ctx
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Error(err)
			}
		case <-time.After(deadline):
			t.Error("daemon did not stop")
		}
	})
	r.client = wireclient.New(sock)
}

func (r *rig) waitFor(what string, cond func(map[[2]byte]byte, int) bool) {
	r.t.Helper()
	if !r.bus.WaitFor(deadline, func() bool { v, n := r.lights(); return cond(v, n) }) {
		v, n := r.lights()
		r.t.Fatalf("waiting for %s: %d messages, lights %v", what, n, v)
	}
}

func (r *rig) rescan() {
	r.t.Helper()
	select {
	case r.tick <- time.Now():
	case <-time.After(deadline):
		r.t.Fatal("surface did not take the rescan tick")
	}
}

func (r *rig) subscribe(id wire.Identity, actions ...wire.Action) *wireclient.Subscription {
	r.t.Helper()
	sub, err := r.client.Subscribe(r.ctx, wire.SubscribeActionsCommand{Agent: id, Actions: actions})
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { sub.Close() })
	return sub
}

func (r *rig) state(id wire.Identity, st wire.State) wire.StateAck {
	r.t.Helper()
	ack, err := r.client.ReportStateReply(r.ctx, wire.StateCommand{Agent: id, State: st})
	if err != nil {
		r.t.Fatal(err)
	}
	return ack
}

func (r *rig) press(cc byte) {
	r.t.Helper()
	if r.bus.Press(port, []byte{0xB0, cc, 127, 0xB0, cc, 0}) != 1 {
		r.t.Fatal("nobody listens on the pad input")
	}
}

// actions waits for want actions on sub (bounded by deadline, a hang
// guard), then collects what else arrives within quiet. The quiet window
// only bounds how long an extra action is looked for: it can miss a late
// extra, never fail a correct daemon.
func actions(t *testing.T, sub *wireclient.Subscription, want int) []wire.ActionEvent {
	t.Helper()
	var got []wire.ActionEvent
	guard := time.NewTimer(deadline)
	defer guard.Stop()
	for len(got) < want {
		select {
		case ev, ok := <-sub.Actions():
			if !ok {
				return got
			}
			got = append(got, ev)
		case <-guard.C:
			t.Fatalf("%d of %d actions arrived within %v: %+v", len(got), want, deadline, got)
		}
	}
	extra := time.NewTimer(quiet)
	defer extra.Stop()
	for {
		select {
		case ev, ok := <-sub.Actions():
			if !ok {
				return got
			}
			got = append(got, ev)
		case <-extra.C:
			return got
		}
	}
}

func cc(n byte) [2]byte   { return [2]byte{0xB0, n} }
func note(n byte) [2]byte { return [2]byte{0x90, n} }

// The brief's end-to-end: a waiting_for_approval agent lights Approve, one
// press on CC 91 delivers exactly one action, unplug + replug restores the
// full frame.
func TestEndToEndApproveAndHotPlug(t *testing.T) {
	r := newRig(t, wire.DefaultActionDebounce)
	agent := wire.Identity{Backend: "test", SessionID: "a1"}
	sub := r.subscribe(agent, wire.ActionApprove, wire.ActionReject)
	ack := r.state(agent, wire.StateWaitingForApproval)
	if ack.Slot != 0 {
		t.Fatalf("slot %d", ack.Slot)
	}
	lit := func(v map[[2]byte]byte, _ int) bool {
		return v[cc(91)] == 21 && v[cc(92)] == 5 && v[cc(89)] == 37 && v[note(88)] == 11 && v[note(84)] == 9
	}
	r.waitFor("approve lit", lit)

	r.press(91)
	got := actions(t, sub, 1)
	if len(got) != 1 || got[0].Action != wire.ActionApprove || got[0].Agent != agent {
		t.Fatalf("actions %+v", got)
	}

	st, err := r.client.Status(r.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Surfaces) != 1 || st.Surfaces[0].Kind != "midi" || st.Surfaces[0].Input != port || st.Profile != "novation/launchpad/pro-mk1" {
		t.Fatalf("status %+v", st)
	}

	// Unplug: the daemon keeps serving; the surface goes quiet.
	r.bus.Unplug(port, port)
	r.rescan()
	if !r.bus.WaitFor(deadline, func() bool { return !r.s.Connected() }) {
		t.Fatal("still connected")
	}
	if err := r.client.Ping(r.ctx); err != nil {
		t.Fatal("daemon failed with the pad gone:", err)
	}
	r.bus.Take(port)
	r.bus.Plug(port, port)
	r.rescan()
	r.waitFor("full frame after replug", func(v map[[2]byte]byte, n int) bool { return n >= 82 && lit(v, n) })
	msgs := r.bus.Sent(port)
	if fmt.Sprintf("% X", msgs[0]) != "F0 00 20 29 02 10 21 01 F7" {
		t.Fatalf("replug did not re-enter programmer mode: % X", msgs[0])
	}
	// And input works again.
	r.press(92)
	if got := actions(t, sub, 1); len(got) != 1 || got[0].Action != wire.ActionReject {
		t.Fatalf("after replug %+v", got)
	}
}

func TestCaseM54_DebounceWindow(t *testing.T) {
	r := newRig(t, 60)
	agent := wire.Identity{Backend: "test", SessionID: "a"}
	sub := r.subscribe(agent, wire.ActionStop)
	r.state(agent, wire.StateRunning)
	r.waitFor("stop lit", func(v map[[2]byte]byte, _ int) bool { return v[cc(98)] == 5 })
	r.press(98)
	r.press(98)
	if got := actions(t, sub, 1); len(got) != 1 || got[0].Action != wire.ActionStop {
		t.Fatalf("%+v", got)
	}
}

func TestCaseM55_DebouncePerIdentity(t *testing.T) {
	r := newRig(t, 60)
	a := wire.Identity{Backend: "test", SessionID: "a"}
	b := wire.Identity{Backend: "test", SessionID: "b"}
	// States first (each answered), so A surely has slot 0 and B slot 1:
	// subscriptions on separate connections have no order between them.
	r.state(a, wire.StateRunning)
	ackB := r.state(b, wire.StateRunning)
	subA := r.subscribe(a, wire.ActionStop)
	subB := r.subscribe(b, wire.ActionStop)
	r.waitFor("stop lit", func(v map[[2]byte]byte, _ int) bool { return v[cc(98)] == 5 })
	r.press(98)
	// Select agent B with its Scene button.
	r.press(byte(89 - 10*ackB.Slot))
	r.waitFor("B selected", func(v map[[2]byte]byte, _ int) bool { return v[cc(byte(89-10*ackB.Slot))] == 53 })
	r.waitFor("stop lit for B", func(v map[[2]byte]byte, _ int) bool { return v[cc(98)] == 5 })
	r.press(98)
	gotA, gotB := actions(t, subA, 1), actions(t, subB, 1)
	if len(gotA) != 1 || len(gotB) != 1 || gotB[0].Agent != b {
		t.Fatalf("A %+v B %+v", gotA, gotB)
	}
}

func TestCaseM56_UnavailableActionNotDispatched(t *testing.T) {
	r := newRig(t, wire.DefaultActionDebounce)
	agent := wire.Identity{Backend: "test", SessionID: "a"}
	sub := r.subscribe(agent, wire.ActionApprove)
	r.state(agent, wire.StateRunning) // approve is not available while running
	r.waitFor("running glyph", func(v map[[2]byte]byte, _ int) bool { return v[note(54)] == 45 })
	r.press(91)
	if got := actions(t, sub, 0); len(got) != 0 {
		t.Fatalf("%+v", got)
	}
}
