package midi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/lets-app/lets/backend/control"
	"github.com/lets-app/lets/backend/surface"
	"github.com/lets-app/lets/backend/visual"
	"github.com/lets-app/lets/backend/wire"
)

// Defaults of the Surface.
const (
	// DefaultRescanInterval is how often the surface checks that its
	// device is still there and, once it is gone, looks for it again.
	DefaultRescanInterval = 2 * time.Second
	// EventBuffer is how many presses wait for the daemon; further presses
	// are dropped (the browser surface has the same bound).
	EventBuffer = 256
	// closeTimeout bounds how long Close waits for the device goroutine.
	closeTimeout = 5 * time.Second
)

// Options configure a Surface.
type Options struct {
	// Backend lists and opens ports; nil means SystemBackend().
	Backend Backend
	// Greeting is scrolled when the surface opens ("" = none, the
	// default here; the CLI passes DefaultGreeting unless --no-greeting).
	Greeting string
	// ScrollDelay is the time per greeting frame; 0 = DefaultScrollDelay.
	ScrollDelay time.Duration
	// RescanInterval is the hot-plug check interval; 0 = 2 s.
	RescanInterval time.Duration
	// Ticker starts the rescan clock; nil uses time.NewTicker. Tests pass
	// a channel they drive.
	Ticker func(d time.Duration) (<-chan time.Time, func())
	// Sleep waits during the greeting; nil sleeps for real (and wakes
	// early when the surface closes).
	Sleep func(time.Duration)
	// Log receives operational logs; nil discards them.
	Log *slog.Logger
}

// Surface is the MIDI grid as a daemon surface (surface.Surface): Render
// compiles the view on the caller's goroutine and hands the frame to the
// device goroutine, which writes only the changed lights. Input presses
// arrive on Events. When the device disappears the surface goes quiet,
// looks for it every RescanInterval, reopens it by name (or by the
// profile's port patterns when the name changed and the ports were not
// given explicitly), re-enters programmer mode and repaints the last frame.
//
// A surface made by OpenWaiting may start with no device at all: it then
// looks for one every RescanInterval (see waiting.go).
type Surface struct {
	backend  Backend
	opts     Options
	log      *slog.Logger
	explicit bool // port names were given, do not re-match by pattern
	counter  *surface.Counter
	events   chan surface.Event
	// capacity and accents are fixed when the surface is made: the daemon
	// reads them once at start.
	capacity int
	accents  []string
	// wait is set by OpenWaiting: how to find a device in the catalog.
	wait *waitSpec

	// Device goroutine only (and the constructors before it starts).
	grid    *Grid // nil until a device was opened
	greeted bool  // the greeting was offered once
	notice  string

	mu        sync.Mutex
	profile   *Profile // nil while waiting for a first device
	inName    string
	outName   string
	connected bool
	out       OutPort
	in        io.Closer
	pending   *paint
	last      paint
	hasLast   bool
	opened    bool
	closed    bool
	dropped   int

	wake      chan struct{}
	quit      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
	closeErr  error
}

// paint is one thing to show: a semantic frame or a Show frame.
type paint struct {
	frame visual.Frame
	show  *visual.ShowFrame
}

var _ surface.Surface = (*Surface)(nil)
var _ surface.ShowRenderer = (*Surface)(nil)

// Open resolves a device the way the CLI does (§3.2) and opens its ports
// (output first, then input). It does not initialize the device; the
// daemon's call to (*Surface).Open does. When nothing matching is plugged
// in the error wraps ErrNoDevice, so `lets serve` can carry on without a
// pad:
//
//	s, err := midi.Open(ctx, cat, midi.ResolveOptions{}, midi.Options{Greeting: midi.DefaultGreeting})
//	if errors.Is(err, midi.ErrNoDevice) { /* no pad: web surface only */ }
func Open(ctx context.Context, cat *Catalog, ro ResolveOptions, opts Options) (*Surface, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if opts.Backend == nil {
		opts.Backend = SystemBackend()
	}
	if cat == nil {
		var err error
		if cat, err = LoadCatalog(CatalogOptions{}); err != nil {
			return nil, err
		}
	}
	c, err := Resolve(cat, opts.Backend, ro)
	if err != nil {
		return nil, err
	}
	return OpenCandidate(c, ro.Input != "" && ro.Output != "", opts)
}

// OpenAuto is Open with auto-detection over the built-in and user
// profiles: what `lets serve` calls. errors.Is(err, ErrNoDevice) means no
// supported pad is plugged in.
func OpenAuto(ctx context.Context, opts Options) (*Surface, error) {
	cat, err := LoadCatalog(CatalogOptions{User: true})
	if err != nil {
		return nil, err
	}
	return Open(ctx, cat, ResolveOptions{}, opts)
}

// OpenCandidate opens the ports of a resolved candidate (§3.3). explicit
// says the port names were given by the user (a reconnect then only looks
// for those names).
func OpenCandidate(c Candidate, explicit bool, opts Options) (*Surface, error) {
	if c.Profile.Driver != DriverPaletteGrid {
		return nil, &DeviceError{Msg: "unknown driver: " + c.Profile.Driver}
	}
	if opts.Backend == nil {
		opts.Backend = SystemBackend()
	}
	if opts.ScrollDelay <= 0 {
		opts.ScrollDelay = DefaultScrollDelay
	}
	if opts.RescanInterval <= 0 {
		opts.RescanInterval = DefaultRescanInterval
	}
	s := newSurface(c.Profile.SelectorCapacity(), c.Profile.AccentNames(), explicit, opts)
	s.profile, s.inName, s.outName = c.Profile, c.Input, c.Output
	s.grid = s.newGrid(c.Profile)
	if err := s.openPorts(s.grid, c.Input, c.Output); err != nil {
		return nil, err
	}
	s.connected = true
	return s, nil
}

// newSurface makes a surface with no device; opts has its defaults.
func newSurface(capacity int, accents []string, explicit bool, opts Options) *Surface {
	s := &Surface{
		backend:  opts.Backend,
		opts:     opts,
		log:      opts.Log,
		explicit: explicit,
		counter:  surface.NewCounter(capacity),
		events:   make(chan surface.Event, EventBuffer),
		capacity: capacity,
		accents:  append([]string(nil), accents...),
		wake:     make(chan struct{}, 1),
		quit:     make(chan struct{}),
		done:     make(chan struct{}),
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	return s
}

// newGrid makes the driver of a profile, writing to the current output.
func (s *Surface) newGrid(p *Profile) *Grid {
	g := NewGrid(p, senderFunc(s.send))
	g.ScrollDelay = s.opts.ScrollDelay
	g.Sleep = s.sleep
	return g
}

type senderFunc func([]byte) error

func (f senderFunc) Send(b []byte) error { return f(b) }

// send writes to the current output (device goroutine or Close only).
func (s *Surface) send(b []byte) error {
	s.mu.Lock()
	out := s.out
	s.mu.Unlock()
	if out == nil {
		return errDisconnected
	}
	return out.Send(b)
}

var errDisconnected = errors.New("the MIDI device is not connected")

// openPorts opens output then input (§3.3) and installs them; presses
// are read with g.
func (s *Surface) openPorts(g *Grid, inName, outName string) error {
	out, err := s.backend.OpenOutput(outName)
	if err != nil {
		return wrapOpen(fmt.Sprintf("could not open MIDI output '%s'", outName), err)
	}
	parser := &InputParser{}
	in, err := s.backend.OpenInput(inName, func(raw []byte) { s.onInput(g, parser, raw) })
	if err != nil {
		out.Close()
		return wrapOpen(fmt.Sprintf("could not open MIDI input '%s'", inName), err)
	}
	s.mu.Lock()
	s.out, s.in, s.inName, s.outName = out, in, inName, outName
	s.mu.Unlock()
	return nil
}

func wrapOpen(msg string, err error) error {
	if errors.Is(err, ErrNoDevice) {
		return &noDeviceError{DeviceError{Msg: msg + ": " + err.Error()}}
	}
	return &DeviceError{Msg: msg + ": " + err.Error()}
}

// onInput runs on the backend's input goroutine.
func (s *Surface) onInput(g *Grid, p *InputParser, raw []byte) {
	for _, m := range p.Feed(raw) {
		e, ok := g.EventFor(m)
		if !ok {
			continue
		}
		var ev surface.Event = surface.SessionSelected{Slot: e.Slot}
		if e.Action != "" {
			ev = surface.ActionPressed{Action: e.Action}
		}
		select {
		case s.events <- ev:
		default:
			s.mu.Lock()
			s.dropped++
			s.mu.Unlock()
		}
	}
}

// Profile returns the profile of the device in use (or last used); nil
// while a surface made by OpenWaiting has not found a device yet.
func (s *Surface) Profile() *Profile {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.profile
}

// Capacity implements surface.Surface. It never changes: a device whose
// profile has another capacity is refused (see OpenWaiting).
func (s *Surface) Capacity() int { return s.capacity }

// Accents implements surface.Surface; fixed like Capacity.
func (s *Surface) Accents() []string { return append([]string(nil), s.accents...) }

// Ports returns the input and output port names in use (or last used).
func (s *Surface) Ports() (input, output string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inName, s.outName
}

// Connected reports whether the device is plugged in and open. It is not
// part of the Wire status (the reference schema allows no extra field in
// status.surfaces); `lets pad daemon --midi` logs it.
func (s *Surface) Connected() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.connected
}

// Describe implements surface.Surface.
//
// While a surface made by OpenWaiting has never found a device, it
// describes itself as WaitingProfile with NotConnectedPort as both port
// names (or the chosen profile's id when one was chosen).
func (s *Surface) Describe() control.Surface {
	s.mu.Lock()
	id, in, out := "", s.inName, s.outName
	if s.profile != nil {
		id = s.profile.ID
	}
	s.mu.Unlock()
	if id == "" {
		id, in, out = s.waitingID(), NotConnectedPort, NotConnectedPort
	}
	return control.Surface{
		Profile: id,
		Input:   in,
		Output:  out,
		Descriptors: []wire.SurfaceDescriptor{{
			Kind:           wire.SurfaceKindMIDI,
			Profile:        id,
			VisualProtocol: wire.VisualProtocolVersion,
			Input:          in,
			Output:         out,
		}},
	}
}

// Events implements surface.Surface.
func (s *Surface) Events() <-chan surface.Event { return s.events }

// Open implements surface.Surface: it starts the device goroutine, which
// enters programmer mode, blanks the device and scrolls the greeting, then
// shows the views it is given. It returns at once.
func (s *Surface) Open(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("midi surface: Open after Close")
	}
	if s.opened {
		return nil
	}
	s.opened = true
	go s.run()
	return nil
}

// Render implements surface.Surface: it compiles the view and hands the
// frame to the device goroutine; the newest frame wins.
func (s *Surface) Render(view control.View) error {
	_, f := s.counter.Next(view)
	s.post(paint{frame: f})
	return nil
}

// RenderShowFrame implements surface.ShowRenderer.
func (s *Surface) RenderShowFrame(f *visual.ShowFrame) error {
	c := *f
	s.post(paint{show: &c})
	return nil
}

func (s *Surface) post(p paint) {
	s.mu.Lock()
	s.pending = &p
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// sleep waits d or until the surface closes.
func (s *Surface) sleep(d time.Duration) {
	if s.opts.Sleep != nil {
		s.opts.Sleep(d)
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-s.quit:
	}
}

func (s *Surface) ticker() (<-chan time.Time, func()) {
	if s.opts.Ticker != nil {
		return s.opts.Ticker(s.opts.RescanInterval)
	}
	t := time.NewTicker(s.opts.RescanInterval)
	return t.C, t.Stop
}

// run is the device goroutine.
func (s *Surface) run() {
	defer close(s.done)
	tick, stop := s.ticker()
	defer stop()
	s.mu.Lock()
	connected := s.connected
	s.mu.Unlock()
	if connected {
		s.greeted = true
		s.grid.Greeting = s.opts.Greeting
		if err := s.grid.Initialize(); err != nil {
			s.lost(err)
		}
		s.grid.Greeting = ""
	}
	s.paintPending()
	for {
		select {
		case <-s.quit:
			return
		case <-s.wake:
			s.paintPending()
		case <-tick:
			s.check()
		}
	}
}

// paintPending shows the newest posted frame, if the device is there.
func (s *Surface) paintPending() {
	s.mu.Lock()
	p := s.pending
	s.pending = nil
	if p != nil {
		s.last, s.hasLast = *p, true
	}
	connected := s.connected
	s.mu.Unlock()
	if p == nil || !connected {
		return
	}
	if err := s.draw(p); err != nil {
		s.lost(err)
	}
}

func (s *Surface) draw(p *paint) error {
	if p.show != nil {
		return s.grid.RenderShowFrame(p.show)
	}
	return s.grid.Render(&p.frame)
}

// lost handles a failed write: the device is treated as unplugged.
func (s *Surface) lost(err error) {
	s.mu.Lock()
	if !s.connected {
		s.mu.Unlock()
		return
	}
	id := s.profile.ID
	s.mu.Unlock()
	s.log.Warn("the MIDI pad stopped answering; waiting for it to come back", "profile", id, "err", err)
	s.disconnect()
}

// disconnect closes the ports quietly and forgets the device state.
func (s *Surface) disconnect() {
	s.mu.Lock()
	in, out := s.in, s.out
	s.in, s.out, s.connected = nil, nil, false
	s.mu.Unlock()
	if in != nil {
		in.Close()
	}
	if out != nil {
		out.Close()
	}
	if s.grid != nil {
		s.grid.Forget()
	}
}

// check is the hot-plug check of every RescanInterval.
func (s *Surface) check() {
	ins, errIn := s.backend.Inputs()
	outs, errOut := s.backend.Outputs()
	s.mu.Lock()
	connected, inName, outName, prof := s.connected, s.inName, s.outName, s.profile
	s.mu.Unlock()
	if connected {
		if errIn == nil && errOut == nil && (!contains(ins, inName) || !contains(outs, outName)) {
			s.log.Warn("the MIDI pad was unplugged; looking for it every few seconds", "profile", prof.ID, "input", inName, "output", outName)
			s.disconnect()
		}
		return
	}
	if errIn != nil || errOut != nil {
		return
	}
	c, ok := s.find(ins, outs, prof, inName, outName)
	if !ok {
		return
	}
	g := s.grid
	if g == nil || c.Profile != prof {
		g = s.newGrid(c.Profile)
	}
	if err := s.openPorts(g, c.Input, c.Output); err != nil {
		s.log.Debug("the MIDI pad is listed but could not be opened yet", "err", err)
		return
	}
	s.notice = ""
	s.grid = g
	s.mu.Lock()
	s.profile = c.Profile
	s.connected = true
	last, hasLast := s.last, s.hasLast
	if s.pending != nil {
		last, hasLast = *s.pending, true
		s.last, s.pending = last, nil
	}
	s.mu.Unlock()
	g.Forget()
	first := !s.greeted
	if first {
		s.greeted = true
		g.Greeting = s.opts.Greeting
	}
	err := g.Initialize()
	g.Greeting = ""
	if err != nil {
		s.lost(err)
		return
	}
	if hasLast {
		if err := s.draw(&last); err != nil {
			s.lost(err)
			return
		}
	}
	if first {
		s.log.Info("Launchpad connected", "profile", c.Profile.ID, "input", c.Input, "output", c.Output)
		return
	}
	s.log.Info("the MIDI pad is back", "profile", c.Profile.ID, "input", c.Input, "output", c.Output)
}

// find chooses the ports to open while disconnected: the last ports by
// name; else (unless the names were given) the last profile's patterns;
// else, for a surface made by OpenWaiting, the catalog (§3.2 rules).
func (s *Surface) find(ins, outs []string, prof *Profile, inName, outName string) (Candidate, bool) {
	if prof != nil && contains(ins, inName) && contains(outs, outName) {
		return Candidate{Profile: prof, Input: inName, Output: outName}, true
	}
	if prof != nil && !s.explicit {
		mi := MatchingPorts(ins, prof.inputs)
		mo := MatchingPorts(outs, prof.outputs)
		if len(mi) == 1 && len(mo) == 1 {
			return Candidate{Profile: prof, Input: mi[0], Output: mo[0]}, true
		}
	}
	if s.wait == nil {
		return Candidate{}, false
	}
	return s.detect(ins, outs)
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// Dropped is the number of presses dropped because nobody read Events.
func (s *Surface) Dropped() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dropped
}

// Close implements surface.Surface: it stops the device goroutine, then
// blanks the device, sends the shutdown messages and closes input and
// output (§6.9), attempting every step. It is idempotent.
func (s *Surface) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		started := s.opened
		s.mu.Unlock()
		close(s.quit)
		if started {
			select {
			case <-s.done:
			case <-time.After(closeTimeout):
				s.closeErr = errors.New("midi surface: the device goroutine did not stop in time")
				return
			}
		}
		s.mu.Lock()
		in, out, connected, prof := s.in, s.out, s.connected, s.profile
		s.in, s.out, s.connected = nil, nil, false
		s.mu.Unlock()
		if !connected {
			return
		}
		// Close writes through a sender bound to the ports being closed.
		g := NewGrid(prof, out)
		s.closeErr = g.Close(in, out)
	})
	return s.closeErr
}
