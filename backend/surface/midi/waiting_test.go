package midi

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/lets-app/lets/backend/control"
	"github.com/lets-app/lets/backend/surface"
	"github.com/lets-app/lets/backend/surface/midi/miditest"
	"github.com/lets-app/lets/backend/testenv/conformance"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/backend/wire"
)

const (
	miniID  = "novation/launchpad/mini-mk3"
	miniIn  = "Launchpad Mini MK3:Launchpad Mini MK3 LPMiniMK3 MIDI 20:1"
	miniOut = miniIn
	miniDAW = "Launchpad Mini MK3:Launchpad Mini MK3 LPMiniMK3 DAW 20:0"
)

// waitRig is a waiting surface on an empty in-memory bus with an injected
// rescan clock and a log it records.
type waitRig struct {
	t       *testing.T
	bus     *miditest.Bus
	tick    chan time.Time
	stopped atomic.Int32
	s       *Surface
	logMu   sync.Mutex
	log     bytes.Buffer
}

func newWaitRig(t *testing.T, cat *Catalog, ro ResolveOptions) *waitRig {
	t.Helper()
	r := &waitRig{t: t, bus: miditest.New(), tick: make(chan time.Time)}
	if cat == nil {
		cat = catalog(t)
	}
	s, err := OpenWaiting(context.Background(), cat, ro, Options{
		Backend: r.bus,
		Ticker: func(time.Duration) (<-chan time.Time, func()) {
			return r.tick, func() { r.stopped.Add(1) }
		},
		Sleep: func(time.Duration) {},
		Log:   slog.New(slog.NewTextHandler(lockedWriter{&r.logMu, &r.log}, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	r.s = s
	t.Cleanup(func() { s.Close() })
	return r
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (r *waitRig) logText() string {
	r.logMu.Lock()
	defer r.logMu.Unlock()
	return r.log.String()
}

// waitLog waits until the log holds want.
func (r *waitRig) waitLog(want string) {
	r.t.Helper()
	if !testutil.Poll(testutil.EventuallyTimeout, func() bool { return strings.Contains(r.logText(), want) }) {
		r.t.Fatalf("the log never said %q:\n%s", want, r.logText())
	}
}

func (r *waitRig) rescan() {
	r.t.Helper()
	select {
	case r.tick <- time.Now():
	case <-time.After(testutil.EventuallyTimeout):
		r.t.Fatal("the surface did not take the rescan tick")
	}
}

func (r *waitRig) waitConnected(want bool) {
	r.t.Helper()
	if !r.bus.WaitFor(testutil.EventuallyTimeout, func() bool { return r.s.Connected() == want }) {
		r.t.Fatalf("connected never became %v", want)
	}
}

// waitSent waits until the output has at least n messages and takes them.
func (r *waitRig) waitSent(name string, n int) [][]byte {
	r.t.Helper()
	if !r.bus.WaitFor(testutil.EventuallyTimeout, func() bool { return len(r.bus.Sent(name)) >= n }) {
		r.t.Fatalf("waited for %d messages on %s, got %d", n, name, len(r.bus.Sent(name)))
	}
	return r.bus.Take(name)
}

// expected is what a fresh driver of the profile sends for "enter
// programmer mode, then show these views" (the golden scenarios' way).
func expected(t *testing.T, id string, views ...control.View) []string {
	t.Helper()
	rec := &recorder{}
	g := NewGrid(builtin(t, id), rec)
	g.Sleep = func(time.Duration) {}
	if err := g.Initialize(); err != nil {
		t.Fatal(err)
	}
	c := surface.NewCounter(8)
	for _, v := range views {
		_, f := c.Next(v)
		if err := g.Render(&f); err != nil {
			t.Fatal(err)
		}
	}
	return hexAll(rec.take())
}

// goldenSection reads one section of a profile's golden MIDI file.
func goldenSection(t *testing.T, id, name string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "golden", strings.ReplaceAll(id, "/", "_")+".midi.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	in := false
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "# ") {
			in = strings.HasPrefix(line, "# "+name+" (")
			continue
		}
		if in && line != "" {
			out = append(out, line)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no golden section %q for %s", name, id)
	}
	return out
}

// validStatus checks a status carrying d against the reference schema.
func validStatus(t *testing.T, d control.Surface) {
	t.Helper()
	schema := conformance.Schema(t, "socket-protocol-v1.json")
	cfg := control.DefaultConfig(8)
	cfg.Surface = d
	p, err := control.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	line, err := p.Status().Encode()
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
}

func TestWaitingStartsWithoutDevice(t *testing.T) {
	r := newWaitRig(t, nil, ResolveOptions{})
	if r.s.Connected() || r.s.Profile() != nil {
		t.Fatal("connected without a device")
	}
	d := r.s.Describe()
	if d.Profile != WaitingProfile || d.Input != NotConnectedPort || d.Output != NotConnectedPort ||
		len(d.Descriptors) != 1 || d.Descriptors[0].Kind != wire.SurfaceKindMIDI || d.Descriptors[0].Profile != WaitingProfile ||
		d.Descriptors[0].Input != NotConnectedPort || d.Descriptors[0].VisualProtocol != wire.VisualProtocolVersion {
		t.Fatalf("%+v", d)
	}
	validStatus(t, d)
	if r.s.Capacity() != 8 || !slices.Equal(r.s.Accents(), wire.AccentPalette(8)) {
		t.Fatal(r.s.Capacity(), r.s.Accents())
	}
	// Every bundled profile fits the waiting surface.
	for _, id := range profileIDs {
		if err := r.s.fits(builtin(t, id)); err != nil {
			t.Error(err)
		}
	}
	if err := r.s.Render(waitingView()); err != nil {
		t.Fatal(err)
	}
	if err := r.s.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.rescan()
	r.rescan()
	if r.s.Connected() || r.logText() != "" {
		t.Fatalf("nothing is plugged in, yet: connected=%v log=%q", r.s.Connected(), r.logText())
	}
}

// The brief's scenario on a Launchpad Mini Mk3: plugged in after start,
// one rescan later it is in programmer mode showing the last frame,
// byte for byte; unplug and replug work as for any opened pad. The Mini
// Mk3 profile is experimental, so (§3.2) it is chosen by id here.
func TestWaitingMiniMk3PluggedLater(t *testing.T) {
	r := newWaitRig(t, nil, ResolveOptions{ProfileID: miniID})
	if d := r.s.Describe(); d.Profile != miniID || d.Input != NotConnectedPort {
		t.Fatalf("%+v", d)
	}
	validStatus(t, r.s.Describe())
	r.s.Open(context.Background())
	first := waitingView()
	first.Centre = wire.StateRunning
	r.s.Render(first)
	r.rescan()
	latest := waitingView()
	r.s.Render(latest)
	r.rescan() // the device goroutine has taken both frames

	r.bus.Plug(miniDAW, miniDAW)
	r.bus.Plug(miniIn, miniOut)
	r.rescan()
	r.waitConnected(true)
	want := expected(t, miniID, latest)
	got := hexAll(r.waitSent(miniOut, len(want)))
	if !slices.Equal(got, want) {
		t.Fatalf("after plugging in:\n got %v\nwant %v", got, want)
	}
	if golden := goldenSection(t, miniID, "enter programmer mode"); !slices.Equal(got[:len(golden)], golden) {
		t.Fatalf("programmer mode differs from the golden file: %v", got[:len(golden)])
	}
	if len(r.bus.Sent(miniDAW)) != 0 || r.bus.Listening(miniDAW) {
		t.Fatal("the DAW port was used")
	}
	d := r.s.Describe()
	if d.Profile != miniID || d.Input != miniIn || d.Output != miniOut || d.Descriptors[0].Profile != miniID {
		t.Fatalf("%+v", d)
	}
	validStatus(t, d)
	if r.s.Profile().ID != miniID {
		t.Fatal(r.s.Profile().ID)
	}
	// Logged after the frame is sent: the test may see the frame first.
	r.waitLog("Launchpad connected")
	// Presses reach the daemon (the Approve address from the profile).
	var approve *Address
	for _, c := range builtin(t, miniID).Controls {
		if c.Action == wire.ActionApprove {
			approve = &c.Address
		}
	}
	if approve == nil {
		t.Fatal("no approve button")
	}
	r.bus.Press(miniIn, pressBytes(*approve))
	select {
	case ev := <-r.s.Events():
		if ev != (surface.ActionPressed{Action: wire.ActionApprove}) {
			t.Fatal(ev)
		}
	case <-time.After(testutil.EventuallyTimeout):
		t.Fatal("no press")
	}

	// Unplug, a new frame meanwhile, replug: programmer mode and the
	// newest frame in full again.
	r.bus.Unplug(miniIn, miniOut)
	r.rescan()
	r.waitConnected(false)
	if r.s.Describe().Input != miniIn {
		t.Fatal("descriptor changed while unplugged")
	}
	third := waitingView()
	third.OverflowCount = 2
	r.s.Render(third)
	r.rescan()
	r.bus.Take(miniOut)
	r.bus.Plug(miniIn, miniOut)
	r.rescan()
	r.waitConnected(true)
	want = expected(t, miniID, third)
	if got := hexAll(r.waitSent(miniOut, len(want))); !slices.Equal(got, want) {
		t.Fatalf("after replug:\n got %v\nwant %v", got, want)
	}
	// Logged after the frame is sent: the test may see the frame first.
	r.waitLog("the MIDI pad is back")
}

func pressBytes(a Address) []byte {
	if a.Kind == KindCC {
		return []byte{0xB0 | a.Channel, a.Number, 127}
	}
	return []byte{0x90 | a.Channel, a.Number, 127}
}

// Auto-detection while waiting uses the rules of OpenAuto: a supported
// profile (Pro Mk1) is found, an experimental one alone (Mini Mk3) is
// not, and that is said once in the log.
func TestWaitingAutoDetectUsesSupportedProfiles(t *testing.T) {
	r := newWaitRig(t, nil, ResolveOptions{})
	r.s.Open(context.Background())
	r.s.Render(waitingView())
	r.bus.Plug(miniIn, miniOut)
	r.rescan()
	r.rescan()
	r.rescan()
	if r.s.Connected() || r.bus.OpenOutputs(miniOut) != 0 {
		t.Fatal("an experimental profile was auto-detected")
	}
	if n := strings.Count(r.logText(), "only experimental device profiles matched (novation/launchpad/mini-mk3)"); n != 1 {
		t.Fatalf("logged %d times: %s", n, r.logText())
	}
	r.bus.Unplug(miniIn, miniOut)
	r.bus.Plug(proIn, proOut)
	r.rescan()
	r.waitConnected(true)
	want := expected(t, "novation/launchpad/pro-mk1", waitingView())
	if got := hexAll(r.waitSent(proOut, len(want))); !slices.Equal(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
	if d := r.s.Describe(); d.Profile != "novation/launchpad/pro-mk1" || d.Input != proIn {
		t.Fatalf("%+v", d)
	}
}

func TestWaitingNonMatchingPortNeverOpens(t *testing.T) {
	r := newWaitRig(t, nil, ResolveOptions{})
	r.s.Open(context.Background())
	others := []string{"Midi Through:Midi Through Port-0 14:0", "Launchpad Pro:Launchpad Pro Live Port 20:0", "USB Keyboard MIDI 1"}
	for _, p := range others {
		r.bus.Plug(p, p)
	}
	for i := 0; i < 3; i++ {
		r.rescan()
	}
	if r.s.Connected() {
		t.Fatal("connected")
	}
	for _, p := range others {
		if r.bus.OpenOutputs(p) != 0 || r.bus.Listening(p) || len(r.bus.Sent(p)) != 0 {
			t.Fatalf("%s was opened", p)
		}
	}
	if r.logText() != "" {
		t.Fatalf("logged for ports of no known pad: %s", r.logText())
	}
}

func TestWaitingAmbiguousIsRefusedOnce(t *testing.T) {
	r := newWaitRig(t, nil, ResolveOptions{})
	r.s.Open(context.Background())
	const other = "Launchpad Pro:Launchpad Pro Standalone Port 24:1"
	r.bus.Plug(proIn, proOut)
	r.bus.Plug(other, other)
	r.rescan()
	r.rescan()
	if r.s.Connected() || r.bus.OpenOutputs(proOut) != 0 {
		t.Fatal("opened one of two pads")
	}
	if n := strings.Count(r.logText(), "multiple MIDI device candidates matched"); n != 1 {
		t.Fatalf("logged %d times: %s", n, r.logText())
	}
	r.bus.Unplug(other, other)
	r.rescan()
	r.waitConnected(true)
}

// A profile with another capacity than the daemon started with is logged
// and refused, never opened.
func TestWaitingRefusesOtherCapacity(t *testing.T) {
	small := mutate(t, proMk1(t), func(m map[string]any) {
		m["id"], m["model"] = "novation/launchpad/small-pad", "Small Pad"
		m["ports"] = map[string]any{"input": []any{"^Small Pad"}, "output": []any{"^Small Pad"}}
		s := sub(m, "surface")
		s["agent_selectors"] = s["agent_selectors"].([]any)[:4]
		s["agent_statuses"] = s["agent_statuses"].([]any)[:4]
		m["accents"] = m["accents"].([]any)[:4]
	})
	p, err := ParseProfile(small, "small.json")
	if err != nil {
		t.Fatal(err)
	}
	if p.SelectorCapacity() != 4 {
		t.Fatal(p.SelectorCapacity())
	}
	ps, err := BuiltinProfiles()
	if err != nil {
		t.Fatal(err)
	}
	cat, err := NewCatalog(append(ps, p))
	if err != nil {
		t.Fatal(err)
	}
	r := newWaitRig(t, cat, ResolveOptions{})
	r.s.Open(context.Background())
	r.bus.Plug("Small Pad MIDI", "Small Pad MIDI")
	r.rescan()
	r.rescan()
	if r.s.Connected() || r.bus.OpenOutputs("Small Pad MIDI") != 0 || r.s.Capacity() != 8 {
		t.Fatal("a pad of another capacity was opened")
	}
	if n := strings.Count(r.logText(), "novation/launchpad/small-pad has 4 agent slots"); n != 1 {
		t.Fatalf("logged %d times: %s", n, r.logText())
	}
}

func TestWaitingCloseStopsRescans(t *testing.T) {
	r := newWaitRig(t, nil, ResolveOptions{})
	r.s.Open(context.Background())
	r.rescan()
	if err := r.s.Close(); err != nil {
		t.Fatal(err)
	}
	if r.stopped.Load() != 1 {
		t.Fatal("the rescan clock was not stopped")
	}
	select {
	case <-r.s.done:
	default:
		t.Fatal("the device goroutine still runs")
	}
	select {
	case r.tick <- time.Now():
		t.Fatal("something still takes rescan ticks")
	case <-time.After(50 * time.Millisecond):
	}
	// Plugged after Close: nothing opens.
	r.bus.Plug(proIn, proOut)
	if r.bus.OpenOutputs(proOut) != 0 {
		t.Fatal("opened after Close")
	}
	// Close before Open starts nothing either.
	r2 := newWaitRig(t, nil, ResolveOptions{})
	if err := r2.s.Close(); err != nil || r2.stopped.Load() != 0 {
		t.Fatal(err)
	}
}

// A pad that is there at start is opened at once, like OpenAuto does; the
// surface may later switch to another matching pad.
func TestWaitingDeviceAlreadyThere(t *testing.T) {
	bus := miditest.New()
	bus.Plug(proIn, proOut)
	s, err := OpenWaiting(context.Background(), catalog(t), ResolveOptions{}, Options{Backend: bus, Sleep: func(time.Duration) {}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !s.Connected() || s.Describe().Profile != "novation/launchpad/pro-mk1" || s.Capacity() != 8 {
		t.Fatalf("%+v", s.Describe())
	}
}

func TestOpenWaitingBadOptions(t *testing.T) {
	bus := miditest.New()
	opts := Options{Backend: bus}
	if _, err := OpenWaiting(context.Background(), catalog(t), ResolveOptions{ProfileID: "nope/nope"}, opts); err == nil || !IsProfileError(err) {
		t.Fatal(err)
	}
	if _, err := OpenWaiting(context.Background(), catalog(t), ResolveOptions{ProfileID: miniID, ProfileFile: "x"}, opts); err == nil {
		t.Fatal("both accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := OpenWaiting(ctx, catalog(t), ResolveOptions{}, opts); err == nil {
		t.Fatal("cancelled ctx accepted")
	}
	// A profile file is loaded once and waited for by its id.
	path := writeTemp(t, "p.json", builtinRaw(t, miniID))
	s, err := OpenWaiting(context.Background(), catalog(t), ResolveOptions{ProfileFile: path}, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Describe().Profile != miniID {
		t.Fatal(s.Describe().Profile)
	}
}
