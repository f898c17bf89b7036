// Package spawn runs the app's window processes: one `lets window` child
// per open window. It starts them with their Launch on stdin, keeps their
// reported geometry, reaps them, tells the host how each one ended (the
// person closed it: "human"; it died: "crash"), ends the one the host
// closed within a second, and ends them all when Lets quits.
package spawn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/lets-app/lets/app/window"
	"github.com/lets-app/lets/app/window/geometry"
	"github.com/lets-app/lets/backend/clock"
)

// Reasons a window process ended, as session.closed reports them.
const (
	ReasonHuman = "human"
	ReasonCrash = "crash"
)

// DefaultCloseWait is how long a window asked to close (session.close)
// gets to close by itself (its shell acknowledges and goes) before Lets
// ends its process; with the grace it stays under one second.
const DefaultCloseWait = 450 * time.Millisecond

// DefaultGrace is how long a window gets between SIGTERM (it saves its
// place and closes) and SIGKILL. Twice it stays under the one second the
// host promises for session.close.
const DefaultGrace = 400 * time.Millisecond

// Exit is how a child process ended.
type Exit struct {
	Code   int    // exit status; -1 when a signal ended it
	Signal string // the signal that ended it, "" for a normal exit
	Err    error  // waiting failed (the process could not be reaped)
}

// Clean says the process ended on its own with status 0: the person
// closed the window.
func (e Exit) Clean() bool { return e.Err == nil && e.Code == 0 && e.Signal == "" }

func (e Exit) String() string {
	switch {
	case e.Err != nil:
		return e.Err.Error()
	case e.Signal != "":
		return "ended by a signal (" + e.Signal + ")"
	case e.Code == window.ExitNoGTK:
		return fmt.Sprintf("GTK could not start (exit status %d)", e.Code)
	}
	return fmt.Sprintf("exit status %d", e.Code)
}

// Child is one started window process.
type Child interface {
	PID() int
	// Reports is the child's report pipe. It ends once the child ended
	// and Wait returned (what the child wrote before is still read).
	Reports() io.Reader
	// Wait blocks until the process ended and was reaped. It is called
	// once.
	Wait() Exit
	// Terminate asks the process to close (SIGTERM).
	Terminate() error
	// Kill ends it at once (SIGKILL).
	Kill() error
}

// Presenter is a Child that can be asked to come to the front: the
// window process brings its window up and focuses it (SIGUSR1).
type Presenter interface {
	Present() error
}

// ErrNotRunning means no process runs for the window Present was asked
// to raise (it was never opened, or it closed).
var ErrNotRunning = errors.New("that window is not open")

// Starter starts the window process for a launch.
type Starter func(l window.Launch) (Child, error)

// Options configure a Spawner.
type Options struct {
	Start Starter
	// Gone tells the host a window's process ended by itself, with the
	// reason; it is not called for windows the host closed or at quit.
	Gone func(window, reason string)
	// Geometry keeps each unique's window place; nil keeps none.
	Geometry *geometry.Store
	Log      *slog.Logger
	// Grace is the SIGTERM→SIGKILL delay; 0 means DefaultGrace.
	Grace time.Duration
	// CloseWait is how long Closing waits before ending the process; 0
	// means DefaultCloseWait.
	CloseWait time.Duration
	// Clock times the grace, the close wait and the pause before a
	// window is started again; nil is the real clock.
	Clock clock.Clock
}

// Spawner tracks the window processes. Create it with New; Run it as a
// service so quitting ends every window.
type Spawner struct {
	o Options

	mu       sync.Mutex
	children map[string]*tracked
	stopping bool
	// stopped is closed when StopAll begins: a pause before a second
	// start ends there.
	stopped chan struct{}
	retries int
	wg      sync.WaitGroup
}

type tracked struct {
	launch window.Launch
	child  Child
	done   chan struct{} // closed once reaped
	// ended is set when Lets ended the process itself (the host closed
	// the window, or Lets quits): its exit is then nobody's news.
	ended   bool
	exit    Exit
	started time.Time
	// retried says this process is the second try of its launch.
	retried bool
	// stopping makes Close, Closing and StopAll signal a process once,
	// whichever comes first.
	stopping sync.Once
}

// RetryPause is how long the spawner waits before it starts a window
// again whose process exited with window.ExitNoGTK (GTK could not open the
// display). That is the only exit tried again, and only once: any other
// end is reported at once.
const RetryPause = 300 * time.Millisecond

// RetryMessage is what the spawner logs (at warning level) when it starts
// a window again. Tests of real windows fail when their Lets logged it: on
// a test display a window must start the first time.
const RetryMessage = "a window process could not start GTK; starting it once more"

// ErrStopping means Lets is quitting and opens no more windows.
var ErrStopping = errors.New("Lets is quitting, so it opens no new windows")

// New returns a Spawner.
func New(o Options) *Spawner {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Grace <= 0 {
		o.Grace = DefaultGrace
	}
	if o.CloseWait <= 0 {
		o.CloseWait = DefaultCloseWait
	}
	if o.Gone == nil {
		o.Gone = func(string, string) {}
	}
	o.Clock = clock.Or(o.Clock)
	return &Spawner{o: o, children: map[string]*tracked{}, stopped: make(chan struct{})}
}

// Name is the service name.
func (s *Spawner) Name() string { return "windows" }

// Open starts the window process for l. An error means no process runs
// (the caller falls back to the browser).
func (s *Spawner) Open(l window.Launch) error {
	if l.Window == "" {
		return errors.New("open a window: the launch names no window")
	}
	if l.Geometry == nil && s.o.Geometry != nil {
		if g, ok := s.o.Geometry.Get(l.Unique); ok {
			l.Geometry = &g
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopping {
		return ErrStopping
	}
	if _, ok := s.children[l.Window]; ok {
		return fmt.Errorf("window %s already has a process", l.Window)
	}
	child, err := s.o.Start(l)
	if err != nil {
		return fmt.Errorf("start the window process for %s: %w", l.Unique, err)
	}
	t := &tracked{launch: l, child: child, done: make(chan struct{}), started: s.o.Clock.Now()}
	s.children[l.Window] = t
	s.wg.Add(1)
	go s.reap(t)
	s.o.Log.Info("window opened", "window", l.Window, "unique", l.Unique, "pid", child.PID())
	return nil
}

// reap follows one child to its end.
func (s *Spawner) reap(t *tracked) {
	defer s.wg.Done()
	read := make(chan struct{})
	go func() {
		defer close(read)
		err := window.ReadReports(t.child.Reports(), func(r window.Report) {
			if r.Type == window.ReportLoaded {
				s.o.Log.Debug("window page loaded", "window", t.launch.Window, "after", s.o.Clock.Now().Sub(t.started).Round(time.Millisecond))
			}
			if r.Type == window.ReportGeometry && r.Geometry != nil && s.o.Geometry != nil {
				if err := s.o.Geometry.Put(t.launch.Unique, *r.Geometry); err != nil {
					s.o.Log.Warn("the window's place could not be remembered", "unique", t.launch.Unique, "err", err)
				}
			}
		})
		if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
			s.o.Log.Debug("window report pipe failed", "window", t.launch.Window, "err", err)
		}
	}()
	exit := t.child.Wait()
	<-read
	if c, ok := t.child.Reports().(io.Closer); ok {
		_ = c.Close()
	}

	s.mu.Lock()
	t.exit = exit
	ended := t.ended
	retry := !ended && !t.retried && exit.Err == nil && exit.Signal == "" && exit.Code == window.ExitNoGTK
	if !retry {
		delete(s.children, t.launch.Window)
	}
	s.mu.Unlock()
	close(t.done)

	if ended {
		s.o.Log.Debug("window process ended as asked", "window", t.launch.Window, "exit", exit.String())
		return
	}
	if retry && s.retry(t) {
		return
	}
	reason := ReasonHuman
	if !exit.Clean() {
		reason = ReasonCrash
		s.o.Log.Warn("a window process ended unexpectedly", "window", t.launch.Window, "unique", t.launch.Unique, "exit", exit.String())
	} else {
		s.o.Log.Info("window closed", "window", t.launch.Window, "unique", t.launch.Unique)
	}
	s.o.Gone(t.launch.Window, reason)
}

// retry starts t's launch once more, in t's place, after RetryPause. It
// returns true when there is nothing more to report: the new process runs,
// or Lets closed the window or began quitting meanwhile. False means the
// start failed and the window is forgotten (the caller reports the crash).
func (s *Spawner) retry(t *tracked) bool {
	s.mu.Lock()
	s.retries++
	s.mu.Unlock()
	s.o.Log.Warn(RetryMessage, "window", t.launch.Window, "unique", t.launch.Unique, "exit", t.exit.String())
	pause := s.o.Clock.NewTimer(RetryPause)
	select {
	case <-pause.C():
	case <-s.stopped:
		pause.Stop()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.children[t.launch.Window] != t {
		return true
	}
	if t.ended || s.stopping {
		delete(s.children, t.launch.Window)
		return true
	}
	child, err := s.o.Start(t.launch)
	if err != nil {
		s.o.Log.Warn("the window process could not be started again", "window", t.launch.Window, "err", err)
		delete(s.children, t.launch.Window)
		return false
	}
	next := &tracked{launch: t.launch, child: child, done: make(chan struct{}), started: s.o.Clock.Now(), retried: true}
	s.children[t.launch.Window] = next
	s.wg.Add(1)
	go s.reap(next)
	s.o.Log.Info("window opened", "window", t.launch.Window, "unique", t.launch.Unique, "pid", child.PID(), "attempt", 2)
	return true
}

// Close ends the process of a window the host closed (session.close) or
// forgot: SIGTERM, then SIGKILL after the grace. It returns at once; the
// process is gone within twice the grace.
func (s *Spawner) Close(windowID string) {
	s.mu.Lock()
	t, ok := s.children[windowID]
	if ok {
		t.ended = true
	}
	s.mu.Unlock()
	if ok {
		go s.end(t)
	}
}

// Closing says the host asked the window to close (session.close): its
// shell normally goes within milliseconds and the host then calls Close;
// if it has not after CloseWait (a hung page), the process is ended
// anyway, so a closed window never outlives the request by a second.
func (s *Spawner) Closing(windowID string) {
	s.mu.Lock()
	t, ok := s.children[windowID]
	s.mu.Unlock()
	if !ok {
		return
	}
	go func() {
		timer := s.o.Clock.NewTimer(s.o.CloseWait)
		defer timer.Stop()
		select {
		case <-t.done:
		case <-timer.C():
			s.o.Log.Info("a window asked to close did not close by itself; ending it", "window", windowID)
			s.Close(windowID)
		}
	}()
}

// end terminates t and waits until it is reaped, killing it after the
// grace.
func (s *Spawner) end(t *tracked) {
	t.stopping.Do(func() { s.stop(t) })
	<-t.done
}

// stop is end's first and only signalling of t.
func (s *Spawner) stop(t *tracked) {
	if err := t.child.Terminate(); err != nil {
		s.o.Log.Debug("window process did not take SIGTERM", "window", t.launch.Window, "err", err)
	}
	timer := s.o.Clock.NewTimer(s.o.Grace)
	defer timer.Stop()
	select {
	case <-t.done:
		return
	case <-timer.C():
	}
	s.o.Log.Warn("a window process did not close when asked; ending it", "window", t.launch.Window, "pid", t.child.PID())
	if err := t.child.Kill(); err != nil {
		s.o.Log.Debug("window process could not be killed", "window", t.launch.Window, "err", err)
	}
}

// Present asks the process of windowID to bring its window to the front
// and focus it. ErrNotRunning means there is none (or it is closing), so
// the caller may open the window instead.
func (s *Spawner) Present(windowID string) error {
	s.mu.Lock()
	t, ok := s.children[windowID]
	closing := ok && t.ended
	s.mu.Unlock()
	if ok {
		select {
		case <-t.done:
			closing = true
		default:
		}
	}
	if !ok || closing {
		return fmt.Errorf("raise window %s: %w", windowID, ErrNotRunning)
	}
	p, ok := t.child.(Presenter)
	if !ok {
		return fmt.Errorf("raise window %s: its process cannot be asked to come to the front", windowID)
	}
	if err := p.Present(); err != nil {
		if errors.Is(err, os.ErrClosed) || errors.Is(err, syscall.EPIPE) {
			// The process ended (the person just closed the window) and
			// is not reaped yet.
			return fmt.Errorf("raise window %s: it is closing: %w", windowID, ErrNotRunning)
		}
		return fmt.Errorf("raise window %s: %w", windowID, err)
	}
	s.o.Log.Debug("window asked to come to the front", "window", windowID, "pid", t.child.PID())
	return nil
}

// Ended is closed once the process of windowID has ended and was reaped;
// nil when no process runs for it.
func (s *Spawner) Ended(windowID string) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, ok := s.children[windowID]; ok {
		return t.done
	}
	return nil
}

// Retries is how many windows were to be started a second time because
// their process exited with window.ExitNoGTK.
func (s *Spawner) Retries() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.retries
}

// Windows lists the windows that have a running process.
func (s *Spawner) Windows() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.children))
	for id := range s.children {
		out = append(out, id)
	}
	return out
}

// Run waits until ctx ends, then ends every window process (the app is
// quitting) and returns once all are reaped.
func (s *Spawner) Run(ctx context.Context) error {
	<-ctx.Done()
	s.StopAll()
	return nil
}

// StopAll ends every window process and waits for them; no window opens
// after it.
func (s *Spawner) StopAll() {
	s.mu.Lock()
	if !s.stopping {
		close(s.stopped)
	}
	s.stopping = true
	all := make([]*tracked, 0, len(s.children))
	for _, t := range s.children {
		t.ended = true
		all = append(all, t)
	}
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, t := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.end(t)
		}()
	}
	wg.Wait()
	s.wg.Wait()
}
