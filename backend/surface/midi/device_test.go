package midi

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/control"
	"github.com/lets-app/lets/backend/surface"
	"github.com/lets-app/lets/backend/surface/midi/miditest"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/backend/wire"
)

const (
	proIn  = "Launchpad Pro:Launchpad Pro Standalone Port 20:1"
	proOut = "Launchpad Pro:Launchpad Pro Standalone Port 20:1"
)

type testDevice struct {
	t    *testing.T
	bus  *miditest.Bus
	s    *Surface
	tick chan time.Time
}

func openTestDevice(t *testing.T, ro ResolveOptions, opts Options) *testDevice {
	t.Helper()
	d := &testDevice{t: t, bus: miditest.New(), tick: make(chan time.Time)}
	d.bus.Plug(proIn, proOut)
	d.bus.Plug("Launchpad Pro:Launchpad Pro Live Port 20:0", "Launchpad Pro:Launchpad Pro Live Port 20:0")
	opts.Backend = d.bus
	opts.Ticker = func(time.Duration) (<-chan time.Time, func()) { return d.tick, func() {} }
	if opts.Sleep == nil {
		opts.Sleep = func(time.Duration) {}
	}
	s, err := Open(context.Background(), catalog(t), ro, opts)
	if err != nil {
		t.Fatal(err)
	}
	d.s = s
	t.Cleanup(func() { s.Close() })
	return d
}

// waitSent waits until the output has at least n messages and takes them.
func (d *testDevice) waitSent(name string, n int) [][]byte {
	d.t.Helper()
	if !d.bus.WaitFor(testutil.EventuallyTimeout, func() bool { return len(d.bus.Sent(name)) >= n }) {
		d.t.Fatalf("waited for %d messages on %s, got %d", n, name, len(d.bus.Sent(name)))
	}
	return d.bus.Take(name)
}

func (d *testDevice) rescan() {
	d.t.Helper()
	select {
	case d.tick <- time.Now():
	case <-time.After(testutil.EventuallyTimeout):
		d.t.Fatal("device goroutine did not take the rescan tick")
	}
}

func (d *testDevice) waitConnected(want bool) {
	d.t.Helper()
	if !d.bus.WaitFor(testutil.EventuallyTimeout, func() bool { return d.s.Connected() == want }) {
		d.t.Fatalf("connected never became %v", want)
	}
}

func waitingView() control.View {
	return control.View{Centre: wire.StateWaitingForApproval, Capacity: 8, Available: []wire.Action{wire.ActionApprove, wire.ActionReject},
		Indicators: []control.Indicator{{Slot: 0, State: wire.StateWaitingForApproval, Selected: true, Accent: "cyan"}}}
}

func TestSurfaceOpenRenderPress(t *testing.T) {
	d := openTestDevice(t, ResolveOptions{}, Options{})
	if in, out := d.s.Ports(); in != proIn || out != proOut {
		t.Fatal(in, out)
	}
	desc := d.s.Describe()
	if desc.Profile != "novation/launchpad/pro-mk1" || len(desc.Descriptors) != 1 || desc.Descriptors[0].Kind != "midi" || desc.Descriptors[0].Input != proIn {
		t.Fatalf("%+v", desc)
	}
	if d.s.Capacity() != 8 || len(d.s.Accents()) != 8 {
		t.Fatal("capacity")
	}
	if err := d.s.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	init := d.waitSent(proOut, 82)
	if hexMsg(init[0]) != "F0 00 20 29 02 10 21 01 F7" {
		t.Fatal(hexMsg(init[0]))
	}
	// Render hands the view to the device goroutine and returns: it must
	// not wait for the device (a hang guard, not a speed check).
	rendered := make(chan error, 1)
	go func() { rendered <- d.s.Render(waitingView()) }()
	select {
	case err := <-rendered:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(testutil.EventuallyTimeout):
		t.Fatal("Render blocked")
	}
	// 6 glyph cells + selector + status + approve + reject.
	msgs := d.waitSent(proOut, 10)
	vals := lastValues(msgs)
	if vals[cc(91)] != 21 || vals[cc(92)] != 5 || vals[cc(89)] != 37 || vals[note(88)] != 11 {
		t.Fatal(hexAll(msgs))
	}
	d.bus.Press(proIn, []byte{0xB0, 91, 127, 0xB0, 91, 0, 0xF8, 0xB0, 79, 127})
	for _, want := range []surface.Event{surface.ActionPressed{Action: wire.ActionApprove}, surface.SessionSelected{Slot: 1}} {
		select {
		case ev := <-d.s.Events():
			if ev != want {
				t.Fatalf("event %v, want %v", ev, want)
			}
		case <-time.After(testutil.EventuallyTimeout):
			t.Fatal("no event")
		}
	}
	if err := d.s.Close(); err != nil {
		t.Fatal(err)
	}
	closing := d.bus.Take(proOut)
	if len(closing) != 82 || hexMsg(closing[81]) != "F0 00 20 29 02 10 21 00 F7" || d.bus.Listening(proIn) {
		t.Fatalf("close: %d", len(closing))
	}
	if err := d.s.Close(); err != nil || len(d.bus.Take(proOut)) != 0 {
		t.Fatal("second close did something")
	}
}

func TestSurfaceGreetingThenFrame(t *testing.T) {
	d := openTestDevice(t, ResolveOptions{}, Options{Greeting: "HI"})
	d.s.Render(waitingView())
	d.s.Open(context.Background())
	// 2 startup + 80 clear + scroll + 80 clear, then the frame.
	if !d.bus.WaitFor(testutil.EventuallyTimeout, func() bool {
		m := d.bus.Sent(proOut)
		return len(m) > 0 && hexMsg(m[len(m)-1]) == "B0 5C 05"
	}) {
		t.Fatal("frame after greeting never came")
	}
}

// Hot-plug: unplug → quiet and disconnected; replug → programmer mode and
// the full latest frame again.
func TestSurfaceHotPlug(t *testing.T) {
	d := openTestDevice(t, ResolveOptions{}, Options{})
	d.s.Open(context.Background())
	d.waitSent(proOut, 82)
	d.s.Render(waitingView())
	d.waitSent(proOut, 10)

	d.bus.Unplug(proIn, proOut)
	d.rescan()
	d.waitConnected(false)
	desc := d.s.Describe()
	if desc.Descriptors[0].Input != proIn {
		t.Fatal("descriptor changed while disconnected")
	}
	// Renders while unplugged are remembered, nothing fails.
	v := waitingView()
	v.OverflowCount = 1
	if err := d.s.Render(v); err != nil {
		t.Fatal(err)
	}
	d.rescan() // nothing plugged: stays quiet
	if d.s.Connected() {
		t.Fatal("connected without a device")
	}
	// Presses on the old port no longer reach anyone.
	if d.bus.Press(proIn, []byte{0xB0, 91, 127}) != 0 {
		t.Fatal("listener survived the unplug")
	}

	d.bus.Plug(proIn, proOut)
	d.rescan()
	d.waitConnected(true)
	msgs := d.waitSent(proOut, 82+11)
	hex := hexAll(msgs)
	if hex[0] != "F0 00 20 29 02 10 21 01 F7" || hex[1] != "F0 00 20 29 02 10 2C 03 F7" {
		t.Fatal(hex[:2])
	}
	vals := lastValues(msgs[82:])
	if len(msgs) != 93 || vals[cc(95)] != 9 || vals[cc(91)] != 21 || vals[note(84)] != 9 {
		t.Fatalf("repaint: %d %v", len(msgs), hex[82:])
	}
	// Input works again.
	d.bus.Press(proIn, []byte{0xB0, 92, 100})
	select {
	case ev := <-d.s.Events():
		if ev != (surface.ActionPressed{Action: wire.ActionReject}) {
			t.Fatal(ev)
		}
	case <-time.After(testutil.EventuallyTimeout):
		t.Fatal("no event after replug")
	}
}

// A replugged device often gets another ALSA client number; without
// explicit port names the profile's patterns find it again.
func TestSurfaceReplugUnderNewName(t *testing.T) {
	d := openTestDevice(t, ResolveOptions{}, Options{})
	d.s.Open(context.Background())
	d.waitSent(proOut, 82)
	d.bus.Unplug(proIn, proOut)
	d.rescan()
	d.waitConnected(false)
	const renamed = "Launchpad Pro:Launchpad Pro Standalone Port 24:1"
	d.bus.Plug(renamed, renamed)
	d.rescan()
	d.waitConnected(true)
	if in, out := d.s.Ports(); in != renamed || out != renamed {
		t.Fatal(in, out)
	}
	if d.s.Describe().Input != renamed {
		t.Fatal("status does not show the new port")
	}
	d.waitSent(renamed, 82)
}

func TestSurfaceExplicitPortsOnlyReopenByName(t *testing.T) {
	d := openTestDevice(t, ResolveOptions{ProfileID: "novation/launchpad/pro-mk1", Input: proIn, Output: proOut}, Options{})
	d.s.Open(context.Background())
	d.waitSent(proOut, 82)
	d.bus.Unplug(proIn, proOut)
	d.rescan()
	d.waitConnected(false)
	d.bus.Plug("Launchpad Pro:Launchpad Pro Standalone Port 24:1", "Launchpad Pro:Launchpad Pro Standalone Port 24:1")
	d.rescan()
	d.rescan()
	if d.s.Connected() {
		t.Fatal("explicit ports were re-matched by pattern")
	}
}

// A write error (device vanished between scans) also disconnects.
func TestSurfaceWriteErrorDisconnects(t *testing.T) {
	d := openTestDevice(t, ResolveOptions{}, Options{})
	d.s.Open(context.Background())
	d.waitSent(proOut, 82)
	d.bus.Unplug("", proOut) // output gone, listing still has the input
	d.s.Render(waitingView())
	d.waitConnected(false)
	if err := d.s.Close(); err != nil {
		t.Fatal("close of a disconnected surface must not fail:", err)
	}
}

func TestCaseM49_InputOpenFails(t *testing.T) {
	const in, out = "Launchpad Pro Standalone Port In", "Launchpad Pro Standalone Port Out"
	bus := miditest.New()
	bus.Plug(in, out)
	bus.FailOpen(in, errors.New("busy"))
	c := Candidate{Profile: builtin(t, "novation/launchpad/pro-mk1"), Input: in, Output: out}
	_, err := OpenCandidate(c, false, Options{Backend: bus})
	if err == nil || !strings.Contains(err.Error(), "could not open MIDI input 'Launchpad Pro Standalone Port In': busy") {
		t.Fatal(err)
	}
	if bus.OpenOutputs(out) != 0 {
		t.Fatal("the output was left open")
	}
	bus.FailOpen(out, errors.New("gone"))
	if _, err := OpenCandidate(c, false, Options{Backend: bus}); err == nil || err.Error() != "could not open MIDI output '"+out+"': gone" {
		t.Fatal(err)
	}
}

func TestSurfaceCloseWithoutOpen(t *testing.T) {
	d := openTestDevice(t, ResolveOptions{}, Options{})
	if err := d.s.Close(); err != nil {
		t.Fatal(err)
	}
	msgs := hexAll(d.bus.Take(proOut))
	if len(msgs) != 82 || msgs[81] != "F0 00 20 29 02 10 21 00 F7" {
		t.Fatal(len(msgs))
	}
	if err := d.s.Open(context.Background()); err == nil {
		t.Fatal("Open after Close")
	}
}

func TestOpenAutoNoDevice(t *testing.T) {
	_, err := OpenAuto(context.Background(), Options{Backend: miditest.New()})
	if !errors.Is(err, ErrNoDevice) {
		t.Fatal(err)
	}
}

func TestSurfaceShowFrame(t *testing.T) {
	d := openTestDevice(t, ResolveOptions{}, Options{})
	d.s.Open(context.Background())
	d.waitSent(proOut, 82)
	o := orange()
	d.s.RenderShowFrame(showFrame(o, o, o))
	msgs := d.waitSent(proOut, 2)
	if len(msgs) != 2 || msgs[0][0] != 0xF0 {
		t.Fatal(hexAll(msgs))
	}
}

func TestSurfaceDropsWhenNobodyReads(t *testing.T) {
	d := openTestDevice(t, ResolveOptions{}, Options{})
	for i := 0; i < EventBuffer+5; i++ {
		d.bus.Press(proIn, []byte{0xB0, 89, 1})
	}
	if d.s.Dropped() != 5 {
		t.Fatal(d.s.Dropped())
	}
}
