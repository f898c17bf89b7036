package midi

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/control"
	"github.com/lets-app/lets/backend/surface/midi/miditest"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/backend/visual"
	"github.com/lets-app/lets/backend/wire"
	"gitlab.com/gomidi/midi/v2/drivers/testdrv"
)

// Delta frames send only the lights that changed; these counts are the
// number of LEDs written for common state changes after the first frame.
func TestDeltaLEDCounts(t *testing.T) {
	one := func(st wire.State, sel bool, avail ...wire.Action) visual.View {
		return visual.View{Selected: st, Sessions: []visual.Indicator{{Slot: 0, State: st, Selected: sel, Accent: "cyan"}}, Available: visual.Actions(avail...)}
	}
	cases := []struct {
		name     string
		from, to visual.View
		leds     int
	}{
		// glyphs share (5,3) (note 56, recoloured once): 5 off + 14 on,
		// the status pad, and stop going dark.
		{"running → waiting_for_reply", one(wire.StateRunning, true, wire.ActionStop), one(wire.StateWaitingForReply, true), 5 + 14 + 1 + 1},
		{"waiting_for_reply → waiting_for_approval", one(wire.StateWaitingForReply, true), one(wire.StateWaitingForApproval, true, wire.ActionApprove, wire.ActionReject), 0},
		{"same view", one(wire.StateRunning, true), one(wire.StateRunning, true), 0},
		{"overflow on", one(wire.StateRunning, true), func() visual.View { v := one(wire.StateRunning, true); v.OverflowCount = 1; return v }(), 1},
		{"action becomes available", one(wire.StateRunning, true), one(wire.StateRunning, true, wire.ActionStop), 1},
		{"deselect", one(wire.StateRunning, true), one(wire.StateRunning, false), 1},
	}
	// The approval case: the question mark and the exclamation mark share
	// (3,7) only, so 13 off + 5 on + status + approve + reject.
	cases[1].leds = 13 + 5 + 1 + 2
	for _, c := range cases {
		g, rec := newGrid(t, "novation/launchpad/pro-mk1")
		mustRender(t, g, c.from)
		rec.take()
		mustRender(t, g, c.to)
		if n := len(rec.take()); n != c.leds {
			t.Errorf("%s: %d LEDs sent, want %d", c.name, n, c.leds)
		}
	}
}

// BenchmarkStateChangeToMIDI measures a state change from the daemon's
// Render call until the device has received the last byte of the delta
// frame, through the asynchronous Surface; it reports p50/p99.
func BenchmarkStateChangeToMIDI(b *testing.B) {
	bus := miditest.New()
	bus.Plug(proIn, proOut)
	s, err := Open(context.Background(), nil, ResolveOptions{}, Options{Backend: bus, Sleep: func(time.Duration) {}})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	s.Open(context.Background())
	bus.WaitFor(testutil.EventuallyTimeout, func() bool { return len(bus.Sent(proOut)) >= 82 })
	views := []control.View{
		{Centre: wire.StateRunning, Capacity: 8, Available: []wire.Action{wire.ActionStop}, Indicators: []control.Indicator{{Slot: 0, State: wire.StateRunning, Selected: true, Accent: "cyan"}}},
		{Centre: wire.StateWaitingForApproval, Capacity: 8, Available: []wire.Action{wire.ActionApprove, wire.ActionReject}, Indicators: []control.Indicator{{Slot: 0, State: wire.StateWaitingForApproval, Selected: true, Accent: "cyan"}}},
	}
	// The last light of both deltas is the stop light (CC 98: lit, then dark).
	got := make(chan struct{}, 1)
	bus.OnSend(func(_ string, m []byte) {
		if len(m) == 3 && m[0] == 0xB0 && m[1] == 98 {
			select {
			case got <- struct{}{}:
			default:
			}
		}
	})
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		s.Render(views[i%2])
		select {
		case <-got:
		case <-time.After(testutil.EventuallyTimeout):
			b.Fatal("no MIDI")
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

// BenchmarkGridDelta is the synchronous driver alone: compile + diff +
// encode of one state change.
func BenchmarkGridDelta(b *testing.B) {
	g := NewGrid(builtin(b, "novation/launchpad/pro-mk1"), discard{})
	views := []visual.View{
		{Selected: wire.StateRunning, Available: visual.Actions(wire.ActionStop)},
		{Selected: wire.StateWaitingForApproval, Available: visual.Actions(wire.ActionApprove)},
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := g.RenderView(views[i%2]); err != nil {
			b.Fatal(err)
		}
	}
}

type discard struct{}

func (discard) Send([]byte) error { return nil }

// The gomidi adapter works with a gomidi driver (testdrv loops its output
// back to its input).
func TestDriverBackendWithTestdrv(t *testing.T) {
	drv := testdrv.New("pad")
	b := &DriverBackend{Driver: drv}
	ins, err := b.Inputs()
	if err != nil || len(ins) != 1 || ins[0] != "pad-in" {
		t.Fatal(ins, err)
	}
	outs, _ := b.Outputs()
	if len(outs) != 1 || outs[0] != "pad-out" {
		t.Fatal(outs)
	}
	got := make(chan []byte, 4)
	in, err := b.OpenInput("pad-in", func(m []byte) { got <- append([]byte(nil), m...) })
	if err != nil {
		t.Fatal(err)
	}
	out, err := b.OpenOutput("pad-out")
	if err != nil {
		t.Fatal(err)
	}
	if err := out.Send([]byte{0xB0, 91, 127}); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-got:
		if hexMsg(m) != "B0 5B 7F" {
			t.Fatal(hexMsg(m))
		}
	case <-time.After(testutil.EventuallyTimeout):
		t.Fatal("nothing looped back")
	}
	if err := in.Close(); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.OpenOutput("nope"); err == nil {
		t.Fatal("opened a missing port")
	}
	if _, err := b.OpenInput("nope", func([]byte) {}); err == nil {
		t.Fatal("opened a missing port")
	}
}

// Without an ALSA sequencer (this machine) the system backend has no ports
// and says why, instead of failing.
func TestSystemBackendWithoutMIDI(t *testing.T) {
	b := SystemBackend()
	u, ok := b.(interface{ Unavailable() string })
	if !ok {
		t.Fatal("no Unavailable")
	}
	if u.Unavailable() == "" {
		t.Skip("this machine has a MIDI system")
	}
	ins, err := b.Inputs()
	if err != nil || len(ins) != 0 {
		t.Fatal(ins, err)
	}
	if _, err := OpenAuto(context.Background(), Options{Backend: b}); err == nil {
		t.Fatal("opened a device on a machine without MIDI")
	}
}
