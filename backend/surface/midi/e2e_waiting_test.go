package midi_test

import (
	"bytes"
	"context"
	"os"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/lets-app/lets/backend/control"
	"github.com/lets-app/lets/backend/surface/midi"
	"github.com/lets-app/lets/backend/surface/midi/miditest"
	"github.com/lets-app/lets/backend/testenv/conformance"
	"github.com/lets-app/lets/backend/wire"
)

// The real daemon on a waiting MIDI surface: an agent waits for approval
// before any pad is plugged in; status says so honestly and validates;
// once a Launchpad Pro is plugged in and one rescan ran, Approve is lit
// and a press reaches the agent.
func TestEndToEndPadPluggedInAfterStart(t *testing.T) {
	schema := conformance.Schema(t, "socket-protocol-v1.json")
	dir, err := os.MkdirTemp("", "lw")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	r := &rig{t: t, bus: miditest.New(), tick: make(chan time.Time)}
	s, err := midi.OpenWaiting(context.Background(), nil, midi.ResolveOptions{}, midi.Options{
		Backend: r.bus,
		Ticker:  func(time.Duration) (<-chan time.Time, func()) { return r.tick, func() {} },
		Sleep:   func(time.Duration) {},
	})
	if err != nil {
		t.Fatal(err)
	}
	if s.Connected() {
		t.Fatal("connected with no pad")
	}
	r.serve(dir, s, control.DefaultConfig(0))

	agent := wire.Identity{Backend: "test", SessionID: "late-pad"}
	sub := r.subscribe(agent, wire.ActionApprove, wire.ActionReject)
	if ack := r.state(agent, wire.StateWaitingForApproval); ack.Slot != 0 {
		t.Fatalf("slot %d", ack.Slot)
	}
	status := func() wire.Status {
		t.Helper()
		st, err := r.client.Status(r.ctx)
		if err != nil {
			t.Fatal(err)
		}
		line, err := st.Encode()
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(line))
		if err != nil {
			t.Fatal(err)
		}
		if err := schema.Validate(doc); err != nil {
			t.Fatalf("status does not validate: %v\n%s", err, line)
		}
		return st
	}
	st := status()
	if st.Profile != midi.WaitingProfile || len(st.Surfaces) != 1 || st.Surfaces[0].Kind != "midi" ||
		st.Surfaces[0].Input != midi.NotConnectedPort || st.Surfaces[0].Output != midi.NotConnectedPort {
		t.Fatalf("status while waiting %+v", st)
	}
	r.rescan() // still nothing plugged in
	if len(r.bus.Sent(port)) != 0 {
		t.Fatal("sent to a port that is not there")
	}

	r.bus.Plug(port, port)
	r.rescan()
	r.waitFor("approve lit after plugging in", func(v map[[2]byte]byte, n int) bool {
		return n >= 82 && v[cc(91)] == 21 && v[cc(92)] == 5 && v[cc(89)] == 37 && v[note(88)] == 11
	})
	if got := r.bus.Sent(port)[0]; !bytes.Equal(got, []byte{0xF0, 0x00, 0x20, 0x29, 0x02, 0x10, 0x21, 0x01, 0xF7}) {
		t.Fatalf("did not enter programmer mode first: % X", got)
	}
	st = status()
	if st.Profile != "novation/launchpad/pro-mk1" || st.Surfaces[0].Profile != "novation/launchpad/pro-mk1" || st.Surfaces[0].Input != port {
		t.Fatalf("status once connected %+v", st)
	}
	r.press(91)
	got := actions(t, sub, 1)
	if len(got) != 1 || got[0].Action != wire.ActionApprove || got[0].Agent != agent {
		t.Fatalf("actions %+v", got)
	}
}
