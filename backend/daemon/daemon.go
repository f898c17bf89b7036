// Package daemon serves Pad-Lattice Wire Protocol 1 on a Unix socket
// (wire-protocol-1 §2, §3, §11): it claims the socket path, checks each
// client's uid, frames lines exactly like the reference daemon, and runs the
// pure control plane (package control) on one owner goroutine that also
// drives the surface.
//
// # Goroutines
//
//   - one acceptor: accepts, checks the peer uid, hands the connection over;
//   - one reader per connection: reads 4096-byte chunks, frames them, and
//     posts complete lines (then a final "closed" or "overflow" event) to
//     the owner, so lines are handled in order and before the disconnect
//     cleanup (§11.1, §11.5, §11.6);
//   - one owner: the only goroutine that touches the control plane and the
//     surface; it decodes lines, applies them, queues replies, ticks at
//     least every 30 ms and renders after changes;
//   - one writer per connection, only while that connection has output
//     pending: it writes the queue in order with a write deadline.
//
// Other goroutines reach the control plane only through the owner:
// Answer (a window's approval card answering its agent session) and
// Answerable post a call to the owner loop and wait for it (answer.go).
//
// # Clients that stop reading
//
// Output is queued without blocking the owner. A connection whose unsent
// output exceeds MaxQueuedBytes, or whose peer accepts nothing for
// WriteTimeout during a write, is closed and cleaned up exactly as if the
// peer had disconnected (§9.12). The reference buffers without bound; this
// bound protects every other client from one stuck peer.
//
// # Differences from the reference worth knowing
//
//   - At EOF the reference drops replies it has not sent yet; this daemon
//     still writes them (bounded by WriteTimeout), which only matters to a
//     client that half-closes its socket and keeps reading.
//   - The reference's crashes (§13.2) are ordinary protocol errors here, and
//     a failing accept is retried with backoff.
//   - An unsolicited message (action, session_lease_bound) too large for a
//     frame is dropped and logged rather than replaced by an error line the
//     recipient would not expect (§13.3 allows this).
//   - The socket file is created with mode 0600 from the start (fchmod
//     before bind on Linux), not chmod-ed after bind.
//   - The accent-preference file (§9.8) is written behind the owner loop,
//     at most a second after a change and at shutdown, not inside every
//     remember (identitystore.go); a crash loses at most that second of
//     colour changes, never the file.
package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lets-app/lets/backend/changes"
	"github.com/lets-app/lets/backend/clock"
	"github.com/lets-app/lets/backend/control"
	"github.com/lets-app/lets/backend/experience"
	"github.com/lets-app/lets/backend/identitystore"
	"github.com/lets-app/lets/backend/service"
	"github.com/lets-app/lets/backend/surface"
	"github.com/lets-app/lets/backend/visual"
	"github.com/lets-app/lets/backend/wire"
)

// ServiceName is the daemon's name as a service.Service.
const ServiceName = "wire daemon"

var _ service.Service = (*Daemon)(nil)

// DefaultTickInterval is the longest time between two control-plane ticks
// (§1 "daemon poll interval").
const DefaultTickInterval = time.Duration(wire.DaemonPollInterval * float64(time.Second))

// stopTimeout bounds how long Run waits for its goroutines when stopping.
const stopTimeout = 5 * time.Second

// Options configure a Daemon.
type Options struct {
	// SocketPath is where to listen; required. Use SocketPath() for the
	// protocol's default.
	SocketPath string
	// Surface is rendered to and read from; nil means NoSurface(). The
	// daemon owns it and closes it when it stops (or fails to start).
	Surface surface.Surface
	// Control configures the control plane; nil means
	// control.DefaultConfig. Capacity, Accents, Surface and Store are
	// always taken from the surface and IdentityStore.
	Control *control.Config
	// IdentityStore is the accent-preference file (§9.8); "" keeps
	// preferences in memory only.
	IdentityStore string
	// Clock is the daemon's time: control-plane time is the seconds passed
	// on it since New, and the owner loop's periodic tick and experience
	// cue timer run on it. nil is the wall clock. Tests pass a *clock.Fake
	// and move it; the timers that fall due fire by themselves, in order.
	// Safety bounds that no behaviour depends on (the accept backoff, the
	// shutdown wait, write deadlines) stay on the wall clock, so a fake
	// clock cannot hang them.
	Clock clock.Clock
	// TickInterval is the longest time between ticks; 0 means
	// DefaultTickInterval. Values above it are lowered to it.
	TickInterval time.Duration
	// PeerUID returns the uid of a connected client; nil reads
	// SO_PEERCRED (Linux) or LOCAL_PEERCRED (macOS). Tests inject it.
	PeerUID func(*net.UnixConn) (int, error)
	// Log receives operational logs; nil discards them.
	Log *slog.Logger
	// MaxConnections caps open client connections; 0 means
	// DefaultMaxConnections. The reference has no cap and dies when it
	// runs out of file descriptors; past the cap a new connection is closed
	// at once and the ones already open keep working.
	MaxConnections int
	// Demo and Show are the experiences a browser administrator can start;
	// nil means Lets' built-in ones (experience.LoadDefault), loaded at the
	// first request.
	Demo *experience.Demo
	Show *experience.Performance
	// SoundtrackAsset overrides the Show's audio_asset reported to
	// browsers ("" = "experiences/" + the manifest's audio.asset).
	SoundtrackAsset string
	// ExperienceAudio plays Demo earcons and the Show soundtrack on this
	// machine when Control.AudioFeedback is on; nil plays nothing.
	ExperienceAudio ExperienceAudio

	// identityStore holds a test's write-behind options for the identity
	// store (set through export_identitystore_test.go).
	identityStore identitystore.Options
}

// DefaultMaxConnections is far above what agents and hooks use (one
// connection per hook call, one per subscribed agent) and well under the
// usual 1024 soft file-descriptor limit raised by Go to the hard limit.
const DefaultMaxConnections = 4096

// SocketPath returns the default socket path of §2.1 for this process.
func SocketPath(getenv func(string) string) string {
	return wire.ResolveSocketPath(getenv, os.Getuid())
}

// Daemon is the Wire Protocol 1 daemon; it implements service.Service.
type Daemon struct {
	opts     Options
	log      *slog.Logger
	surface  surface.Surface
	plane    *control.Plane
	store    *identitystore.Store // written behind the owner loop (identitystore.go)
	clk      clock.Clock
	start    time.Time // control-plane time 0 on clk
	peerUID  func(*net.UnixConn) (int, error)
	euid     int
	tick     time.Duration
	maxConns int64
	active   atomic.Int64 // open client connections
	lastFull time.Time    // acceptor only: when "too many" was last logged

	mu       sync.Mutex
	ln       *listener
	running  bool
	finished bool
	cancel   context.CancelFunc
	done     chan struct{}

	surfaceOnce sync.Once
	surfaceErr  error

	// Owned by the owner goroutine while Run runs.
	events    chan event
	stopping  chan struct{}
	wg        sync.WaitGroup
	conns     map[int64]*conn
	lingering map[int64]*conn // removed from the plane, still flushing
	nextID    int64
	lastTick  float64
	ticked    bool
	rendered  uint64
	// changes tells in-process listeners (the tray) that the sessions
	// changed; notified is the plane version they last heard of.
	changes  changes.Feed
	notified uint64
	// lastRender is the control-plane time of the last render.
	lastRender float64
	renderErr  bool

	// Experiences (experience.go), owned by the owner goroutine.
	exp           *experience.Controller
	expLoaded     bool
	audioFeedback bool
	// restoreLive asks for an authoritative live render at the end of the
	// loop iteration (an experience just ended).
	restoreLive bool

	// Lets' report order and settled questions (settle.go).
	asks map[int64]ask
	seqs seqs
}

// New validates the options and builds the control plane. It does not touch
// the socket; Listen or Run does. On error the surface is closed.
func New(opts Options) (*Daemon, error) {
	d := &Daemon{opts: opts, surface: opts.Surface, euid: os.Geteuid()}
	if d.surface == nil {
		d.surface = NoSurface()
	}
	d.log = opts.Log
	if d.log == nil {
		d.log = slog.New(slog.DiscardHandler)
	}
	fail := func(err error) (*Daemon, error) {
		d.closeSurface()
		return nil, err
	}
	if opts.SocketPath == "" {
		return fail(errors.New("daemon: no socket path given (use daemon.SocketPath for the default)"))
	}
	cfg := control.DefaultConfig(0)
	if opts.Control != nil {
		cfg = *opts.Control
	}
	cfg.Capacity = d.surface.Capacity()
	cfg.Accents = append([]string(nil), d.surface.Accents()...)
	cfg.Surface = d.surface.Describe()
	d.store = d.openIdentityStore()
	cfg.Store = d.store
	plane, err := control.New(cfg)
	if err != nil {
		return fail(fmt.Errorf("daemon: the surface does not fit the control plane: %w", err))
	}
	d.plane = plane
	d.audioFeedback = cfg.AudioFeedback
	d.exp = experience.NewController(experience.Options{Demo: opts.Demo, Show: opts.Show, SoundtrackAsset: opts.SoundtrackAsset})
	d.expLoaded = opts.Demo != nil && opts.Show != nil
	d.clk = clock.Or(opts.Clock)
	d.start = d.clk.Now()
	d.peerUID = opts.PeerUID
	if d.peerUID == nil && peerCheckAvailable {
		d.peerUID = peerUID
	}
	d.maxConns = int64(opts.MaxConnections)
	if d.maxConns <= 0 {
		d.maxConns = DefaultMaxConnections
	}
	d.tick = opts.TickInterval
	if d.tick <= 0 || d.tick > DefaultTickInterval {
		d.tick = DefaultTickInterval
	}
	return d, nil
}

// Listen is New followed by (*Daemon).Listen: it returns a daemon that owns
// the socket path, ready for Run.
func Listen(opts Options) (*Daemon, error) {
	d, err := New(opts)
	if err != nil {
		return nil, err
	}
	if err := d.Listen(); err != nil {
		return nil, err
	}
	return d, nil
}

// Name implements service.Service.
func (d *Daemon) Name() string { return ServiceName }

// SocketPath returns the path the daemon listens on: once it has claimed
// it, the path it bound, which is the private fallback when another user
// held the protocol's default path (see claim); before, the path it was
// given.
func (d *Daemon) SocketPath() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.ln != nil {
		return d.ln.path
	}
	return d.opts.SocketPath
}

// Listen claims the socket path (§2.2) if that has not happened yet. On
// failure the surface is closed, as the reference does.
func (d *Daemon) Listen() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.finished {
		return errors.New("daemon: already stopped")
	}
	if d.ln != nil {
		return nil
	}
	ln, err := claim(d.opts.SocketPath)
	if err != nil {
		d.finished = true
		d.closeSurface()
		return err
	}
	d.ln = ln
	if ln.moved != nil {
		// The protocol's default path was taken by another user (claim):
		// Lets' own clients find the private path by themselves, the
		// unchanged Python client only through the variable.
		d.log.Warn(fmt.Sprintf("agent daemon: %v; listening on the private path %s instead. Lets finds it there by itself; other Pad-Lattice clients need PAD_LATTICE_SOCKET=%s", ln.moved, ln.path, ln.path),
			"socket", ln.path, "taken", ln.moved.Path, "owner", ln.moved.Owner)
	}
	return nil
}

// Run opens the surface, serves until ctx ends or Close is called, then
// closes every connection (with disconnect cleanup), removes the socket
// file it created and closes the surface. It returns nil after a normal
// stop; when the surface cannot be opened it releases the socket and the
// surface and returns that error.
func (d *Daemon) Run(ctx context.Context) error {
	if err := d.Listen(); err != nil {
		return err
	}
	d.mu.Lock()
	if d.running || d.finished {
		d.mu.Unlock()
		return errors.New("daemon: Run called on a daemon that is running, already ran, or was closed")
	}
	d.running = true
	ctx, cancel := context.WithCancel(ctx)
	d.cancel = cancel
	d.done = make(chan struct{})
	// Set under mu: Answer reads them from other goroutines.
	d.events = make(chan event, 256)
	d.stopping = make(chan struct{})
	ln := d.ln
	d.mu.Unlock()
	defer cancel()

	d.conns = map[int64]*conn{}
	d.lingering = map[int64]*conn{}
	stopStoreWriter := d.startStoreWriter()
	var err error
	if oerr := d.surface.Open(ctx); oerr != nil {
		err = fmt.Errorf("daemon: could not open the surface %q (check that the device is connected and not used by another program): %w",
			d.surface.Describe().Profile, oerr)
	} else {
		d.rendered = d.plane.Version()
		d.renderNow()

		d.log.Info("agent daemon listening", "socket", ln.path)
		d.wg.Add(1)
		go d.acceptLoop(ln.ln)
		err = d.serve(ctx)
		// §7.1: a running experience reports daemon_stopped while the
		// browsers are still connected.
		d.stopExperience(experience.ReasonDaemonStopped)
	}
	d.stop(ln)
	stopStoreWriter() // after the disconnect cleanups, which can assign slots

	d.mu.Lock()
	d.running = false
	d.finished = true
	close(d.done)
	d.mu.Unlock()
	return err
}

// Close stops a running daemon and waits for it, or releases the socket
// and surface of one that never ran. It is idempotent.
func (d *Daemon) Close() error {
	d.mu.Lock()
	if d.running {
		cancel, done := d.cancel, d.done
		d.mu.Unlock()
		cancel()
		<-done
		return nil
	}
	var err error
	if !d.finished {
		d.finished = true
		if d.ln != nil {
			d.ln.closeAndUnlink()
		}
		err = d.closeSurface()
	}
	d.mu.Unlock()
	return err
}

// clock returns control-plane time: seconds since New on the daemon's
// clock (monotonic on the wall clock).
func (d *Daemon) clock() float64 { return d.clk.Now().Sub(d.start).Seconds() }

func (d *Daemon) closeSurface() error {
	d.surfaceOnce.Do(func() { d.surfaceErr = d.surface.Close() })
	return d.surfaceErr
}

// event is what readers and the acceptor tell the owner.
type event struct {
	kind  eventKind
	c     *conn
	nc    *net.UnixConn
	lines [][]byte
	call  *loopCall // evCall
}

type eventKind uint8

const (
	evAccept   eventKind = iota // nc was accepted and passed the uid check
	evLines                     // c sent complete lines
	evOverflow                  // c sent more than 64 KiB without a newline
	evClosed                    // c reached EOF or failed
	evCall                      // run call on the owner goroutine (answer.go)
)

// post hands an event to the owner unless the daemon is stopping.
func (d *Daemon) post(ev event) bool {
	select {
	case d.events <- ev:
		return true
	case <-d.stopping:
		return false
	}
}

func (d *Daemon) acceptLoop(ln *net.UnixListener) {
	defer d.wg.Done()
	backoff := 5 * time.Millisecond
	for {
		nc, err := ln.AcceptUnix()
		if err != nil {
			select {
			case <-d.stopping:
				return
			default:
			}
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// Transient (EMFILE, ENFILE, ECONNABORTED …): the reference
			// crashes here (§13.2); keep serving the others.
			d.log.Warn("accepting an agent connection failed; retrying", "err", err, "retry_in", backoff)
			select {
			case <-time.After(backoff):
			case <-d.stopping:
				return
			}
			backoff = min(2*backoff, time.Second)
			continue
		}
		backoff = 5 * time.Millisecond
		if !d.peerAllowed(nc) {
			// §2.3: closed at once, nothing written, nothing logged.
			nc.Close()
			continue
		}
		if d.active.Load() >= d.maxConns {
			nc.Close()
			if time.Since(d.lastFull) > 10*time.Second {
				d.lastFull = time.Now()
				d.log.Warn("too many agent connections; refusing new ones until some close", "limit", d.maxConns)
			}
			continue
		}
		d.active.Add(1)
		if !d.post(event{kind: evAccept, nc: nc}) {
			d.active.Add(-1)
			nc.Close()
			return
		}
	}
}

func (d *Daemon) peerAllowed(nc *net.UnixConn) bool {
	if d.peerUID == nil {
		return true
	}
	uid, err := d.peerUID(nc)
	return err == nil && uid == d.euid
}

func (d *Daemon) readLoop(c *conn) {
	defer d.wg.Done()
	var f framer
	for {
		res, err := c.readOnce(&f)
		if res.overflow {
			d.post(event{kind: evOverflow, c: c})
			return
		}
		if len(res.lines) > 0 && !d.post(event{kind: evLines, c: c, lines: res.lines}) {
			return
		}
		if res.eof || err != nil {
			d.post(event{kind: evClosed, c: c})
			return
		}
	}
}

// serve is the owner loop. Timers that are due are handled before any
// further message or surface event, so what a message sees is never older
// than a tick that already fell due (and a test that moved a fake clock
// knows the loop acted on it before its next message).
func (d *Daemon) serve(ctx context.Context) error {
	ticker := d.clk.NewTimer(d.tick)
	defer ticker.Stop()
	// expTimer wakes the loop exactly at the running experience's next cue
	// change; the ticker alone would make cues late by up to a tick.
	expTimer := d.clk.NewTimer(time.Hour)
	expTimer.Stop()
	defer expTimer.Stop()
	var expDue <-chan time.Time
	onExp := func() {
		now := d.clock()
		d.tickIfDue(now)
		d.tickExperience(now)
	}
	onTick := func() {
		ticker.Reset(d.tick)
		now := d.clock()
		d.tickNow(now)
		d.tickExperience(now)
		d.pruneLingering()
	}
	// handleDue handles a timer that has fired, if any, and reports whether it
	// did.
	handleDue := func() bool {
		select {
		case <-expDue:
			onExp()
		case <-ticker.C():
			onTick()
		default:
			return false
		}
		return true
	}
	surfaceEvents := d.surface.Events()
	for {
		if !handleDue() {
			select {
			case <-ctx.Done():
				return nil
			case <-expDue:
				onExp()
			case ev := <-d.events:
				d.handle(ev)
				// Handle what is already waiting, then render once.
			drain:
				for range 64 {
					if handleDue() {
						break drain
					}
					select {
					case ev := <-d.events:
						d.handle(ev)
					default:
						break drain
					}
				}
			case se, ok := <-surfaceEvents:
				if !ok {
					surfaceEvents = nil
					continue
				}
				d.handleSurface(se)
			case <-ticker.C():
				onTick()
			}
		}
		d.renderIfChanged()
		if v := d.plane.Version(); v != d.notified {
			d.notified = v
			d.changes.Notify()
		}
		if due, ok := d.experienceDue(d.clock()); ok {
			expTimer.Reset(due)
			expDue = expTimer.C()
		} else if expDue != nil {
			expTimer.Stop()
			expDue = nil
		}
	}
}

// tickIfDue runs the periodic expiry before a message when the last tick is
// at least one tick interval old on the control-plane clock, so a message
// always sees the registry as of a recent tick (§11.8) and tests that move
// a fake clock see expiry deterministically.
func (d *Daemon) tickIfDue(now float64) {
	if !d.ticked || now < d.lastTick || now-d.lastTick >= d.tick.Seconds() {
		d.tickNow(now)
	}
}

func (d *Daemon) tickNow(now float64) {
	d.ticked, d.lastTick = true, now
	r := d.plane.Tick(now)
	d.apply(r, -1)
}

func (d *Daemon) handle(ev event) {
	switch ev.kind {
	case evAccept:
		d.nextID++
		raw, err := ev.nc.SyscallConn()
		if err != nil {
			d.active.Add(-1)
			ev.nc.Close()
			return
		}
		c := &conn{id: d.nextID, nc: ev.nc, rc: raw, wg: &d.wg, onClose: func() { d.active.Add(-1) }}
		d.conns[c.id] = c
		d.wg.Add(1)
		go d.readLoop(c)
	case evLines:
		d.handleLines(ev.c, ev.lines)
	case evOverflow:
		// §3.1 step 4: the error, then the connection closes once it is
		// written.
		if !ev.c.cleaned {
			d.write(ev.c, wire.ErrFrameTooLarge().Message(), true)
			d.cleanup(ev.c, true)
		}
		d.forget(ev.c)
	case evClosed:
		if !ev.c.cleaned {
			d.cleanup(ev.c, true)
		}
		d.forget(ev.c)
	case evCall:
		ev.call.run()
	}
}

// forget drops a connection whose reader has exited.
func (d *Daemon) forget(c *conn) {
	delete(d.conns, c.id)
	if !c.isClosed() {
		d.lingering[c.id] = c
	}
}

func (d *Daemon) pruneLingering() {
	for id, c := range d.lingering {
		if c.isClosed() {
			delete(d.lingering, id)
		}
	}
}

// cleanup runs the disconnect cleanup of §9.12 once and closes the socket
// (after writing what is queued when flush is set).
func (d *Daemon) cleanup(c *conn, flush bool) {
	if c.cleaned {
		return
	}
	c.cleaned = true
	delete(d.asks, c.id)
	r := d.plane.Disconnect(d.clock(), c.id)
	d.apply(r, -1)
	c.shutdown(flush)
}

func (d *Daemon) handleLines(c *conn, lines [][]byte) {
	for _, line := range lines {
		if c.cleaned {
			return
		}
		now := d.clock()
		d.tickIfDue(now)
		cmd, perr := wire.DecodeLine(line)
		if perr != nil {
			d.write(c, perr.Message(), false)
			continue
		}
		var r control.Result
		switch cmd := cmd.(type) {
		case wire.StateCommand:
			r = d.updateState(now, c, cmd)
			if c.cleaned {
				return
			}
		case wire.SessionEndCommand:
			r = d.plane.End(now, cmd.Agent)
		case wire.StatusCommand:
			d.plane.SetSurface(d.surface.Describe())
			d.write(c, d.plane.Status(), false)
			continue
		case wire.PingCommand:
			d.write(c, wire.Pong{}, false)
			continue
		case wire.SessionLeaseCommand:
			r = d.plane.RegisterLease(now, c.id, cmd)
		case wire.SubscribeActionsCommand:
			r = d.plane.Subscribe(now, c.id, cmd)
			d.noteSubscription(c.id, cmd)
		case wire.PreviewCommand:
			r = d.plane.SetPreview(now, c.id, cmd)
		case wire.PreviewEndCommand:
			r = d.plane.EndPreview(now, c.id, cmd.PreviewID)
		default:
			d.log.Error("decoded a message the daemon does not handle", "type", cmd.Type())
			continue
		}
		d.apply(r, c.id)
	}
}

func (d *Daemon) handleSurface(se surface.Event) {
	now := d.clock()
	d.tickIfDue(now)
	switch e := se.(type) {
	case surface.SessionSelected:
		if d.handleExperienceEvent(now, se) {
			return
		}
		d.apply(d.plane.SelectSlot(now, e.Slot), -1)
	case surface.ActionPressed:
		if d.handleExperienceEvent(now, se) {
			return
		}
		d.apply(d.plane.Press(now, e.Action), -1)
	case surface.ExperienceRequested:
		d.handleExperienceRequest(now, e.Kind)
	case surface.ExperienceStopRequested:
		d.stopExperience(experience.ReasonStopped)
	}
}

// apply writes a result's messages in order. sender is the connection whose
// message produced r, or -1.
func (d *Daemon) apply(r control.Result, sender int64) {
	for _, out := range r.Out {
		c, ok := d.conns[out.Conn]
		if !ok || c.cleaned {
			continue
		}
		if _, isAction := out.Msg.(wire.ActionEvent); isAction {
			d.noteDelivered(out.Conn)
		}
		d.write(c, out.Msg, out.Conn != sender)
	}
	d.afterPlaneResult(r)
}

// write encodes msg and queues it for c. A reply too large for a frame is
// replaced by the frame_too_large error (§4); an unsolicited message
// (action, session_lease_bound) that is too large is dropped instead, since
// an error line would break the recipient's subscription (§12, §13.3).
func (d *Daemon) write(c *conn, msg wire.Message, unsolicited bool) {
	line, err := msg.Encode()
	if err != nil {
		if unsolicited {
			d.log.Warn("dropped an oversized message to an agent connection", "type", msg.Type(), "conn", c.id)
			return
		}
		line, _ = wire.ErrFrameTooLarge().Message().Encode()
	}
	if err := c.send(line); err != nil {
		d.log.Warn("closing an agent connection that stopped reading", "conn", c.id, "queued_limit_bytes", MaxQueuedBytes)
		d.cleanup(c, false)
	}
}

// renderIfChanged renders when the control plane changed, or when running
// activity motion needs its next step (Visual Protocol §8: at least every
// 1.5 s while the selected agent runs, no preview is active and motion is
// on).
func (d *Daemon) renderIfChanged() {
	if d.exp.Active() {
		// The experience owns the surfaces; agent changes show when it ends.
		return
	}
	if d.restoreLive {
		d.restoreLive = false
		d.rendered = d.plane.Version()
		d.renderNow()
		return
	}
	if v := d.plane.Version(); v != d.rendered {
		d.rendered = v
		d.renderNow()
		return
	}
	view := d.plane.View()
	if view.ActivityMotion && !view.PreviewActive && view.Centre == wire.StateRunning &&
		d.clock() >= d.lastRender+visual.ActivityInterval {
		d.renderView(view)
	}
}

// Subscribe returns a channel that receives a signal whenever the agent
// sessions (their states, labels, slots or the selection) changed, so an
// in-process view such as the tray menu can read Status again instead of
// polling. Signals are coalesced; the channel is closed when ctx ends.
func (d *Daemon) Subscribe(ctx context.Context) <-chan struct{} {
	return d.changes.Subscribe(ctx)
}

func (d *Daemon) renderNow() { d.renderView(d.plane.View()) }

func (d *Daemon) renderView(view control.View) {
	d.lastRender = d.clock()
	if err := d.surface.Render(view); err != nil {
		if !d.renderErr {
			d.log.Warn("the surface could not show the agents' state", "err", err)
		}
		d.renderErr = true
		return
	}
	d.renderErr = false
}

// stop is §2.4: every connection closed with its disconnect cleanup, the
// listener closed, the socket file removed if it is still ours, the surface
// closed.
func (d *Daemon) stop(ln *listener) {
	close(d.stopping)
	for _, c := range d.conns {
		d.cleanup(c, false)
		c.shutdown(false)
	}
	for _, c := range d.lingering {
		c.shutdown(false)
	}
	ln.closeAndUnlink()
	waited := make(chan struct{})
	go func() { d.wg.Wait(); close(waited) }()
	select {
	case <-waited:
		// Connections accepted but not yet registered were never seen by
		// anyone else: close them here.
		for {
			select {
			case ev := <-d.events:
				if ev.kind == evAccept {
					ev.nc.Close()
				}
				continue
			default:
			}
			break
		}
	case <-time.After(stopTimeout):
		d.log.Warn("agent connections did not close in time")
	}
	if err := d.closeSurface(); err != nil {
		d.log.Warn("closing the surface failed", "err", err)
	}
	d.log.Info("agent daemon stopped", "socket", ln.path)
}
