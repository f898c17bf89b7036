package spawn

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lets-app/lets/app/window"
	"github.com/lets-app/lets/app/window/geometry"
	"github.com/lets-app/lets/backend/clock"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// fakeChild is a window process that ends when the test says, or when it
// is signalled (unless it ignores SIGTERM).
type fakeChild struct {
	pid        int
	launch     window.Launch
	reportsR   *io.PipeReader
	reportsW   *io.PipeWriter
	ignoreTerm bool

	mu         sync.Mutex
	exited     chan struct{}
	exit       Exit
	terminated bool
	terms      int
	killed     bool
}

func newFakeChild(pid int, l window.Launch) *fakeChild {
	r, w := io.Pipe()
	return &fakeChild{pid: pid, launch: l, reportsR: r, reportsW: w, exited: make(chan struct{})}
}

func (c *fakeChild) PID() int           { return c.pid }
func (c *fakeChild) Reports() io.Reader { return c.reportsR }
func (c *fakeChild) Wait() Exit {
	<-c.exited
	return c.exit
}

// end makes the process exit with e, closing its report pipe first.
func (c *fakeChild) end(e Exit) {
	c.mu.Lock()
	defer c.mu.Unlock()
	select {
	case <-c.exited:
		return
	default:
	}
	c.exit = e
	_ = c.reportsW.Close()
	close(c.exited)
}

func (c *fakeChild) report(line string) {
	_, _ = io.WriteString(c.reportsW, line+"\n")
}

func (c *fakeChild) Terminate() error {
	c.mu.Lock()
	c.terminated = true
	c.terms++
	ignore := c.ignoreTerm
	c.mu.Unlock()
	if !ignore {
		// A window saves its place and quits: exit 0.
		c.report(`{"type":"geometry","geometry":{"x":5,"y":6,"width":700,"height":500}}`)
		c.end(Exit{Code: 0})
	}
	return nil
}

func (c *fakeChild) Kill() error {
	c.mu.Lock()
	c.killed = true
	c.mu.Unlock()
	c.end(Exit{Code: -1, Signal: "killed"})
	return nil
}

// fakeStarter records every launch and hands out fake children.
type fakeStarter struct {
	mu       sync.Mutex
	children []*fakeChild
	fail     error
	ignore   bool
}

func (f *fakeStarter) start(l window.Launch) (Child, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail != nil {
		return nil, f.fail
	}
	c := newFakeChild(1000+len(f.children), l)
	c.ignoreTerm = f.ignore
	f.children = append(f.children, c)
	return c, nil
}

func (f *fakeStarter) child(i int) *fakeChild {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.children[i]
}

// started is how many processes f started.
func (f *fakeStarter) started() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.children)
}

// waitStarted waits until f started n processes.
func (f *fakeStarter) waitStarted(t *testing.T, n int) {
	t.Helper()
	testutil.Eventually(t, "the spawner started the window process", func() bool { return f.started() >= n })
}

func (c *fakeChild) state() (terminated, killed bool, terms int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.terminated, c.killed, c.terms
}

func (c *fakeChild) hasExited() bool {
	select {
	case <-c.exited:
		return true
	default:
		return false
	}
}

type goneRec struct {
	window, reason string
}

// testRig is a Spawner of fake window processes on a fake clock.
type testRig struct {
	s    *Spawner
	f    *fakeStarter
	clk  *clock.Fake
	gone chan goneRec
	logs *testutil.SyncBuffer
}

func newRig(t *testing.T, f *fakeStarter, o Options) *testRig {
	t.Helper()
	r := &testRig{f: f, clk: clock.NewFake(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)), gone: make(chan goneRec, 8), logs: &testutil.SyncBuffer{}}
	o.Start = f.start
	o.Gone = func(w, reason string) { r.gone <- goneRec{w, reason} }
	o.Clock = r.clk
	o.Log = slog.New(slog.NewTextHandler(r.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	r.s = New(o)
	t.Cleanup(r.s.StopAll)
	return r
}

// blockUntil waits until the spawner armed n timers on the fake clock.
func (r *testRig) blockUntil(t *testing.T, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testutil.EventuallyTimeout)
	defer cancel()
	if err := r.clk.BlockUntil(ctx, n); err != nil {
		t.Fatal(err)
	}
}

// settle waits until every reaper of the spawner returned (StopAll waits
// for them), so whatever the host was to hear is in r.gone.
func (r *testRig) settle() { r.s.StopAll() }

// noGone fails when the host heard of a window ending.
func (r *testRig) noGone(t *testing.T, why string) {
	t.Helper()
	select {
	case g := <-r.gone:
		t.Fatalf("the host heard %+v: %s", g, why)
	default:
	}
}

func newTestSpawner(t *testing.T, f *fakeStarter, store *geometry.Store) (*Spawner, chan goneRec) {
	t.Helper()
	r := newRig(t, f, Options{Geometry: store, Grace: 100 * time.Millisecond})
	return r.s, r.gone
}

func launch(id, unique string) window.Launch {
	return window.Launch{Window: id, Unique: unique, Title: unique + " title", URL: "http://127.0.0.1:4000/w/" + id + "/?t=secret"}
}

func waitGone(t *testing.T, gone chan goneRec) goneRec {
	t.Helper()
	return testutil.Wait(t, "the host to be told the window ended", gone)
}

func waitExited(t *testing.T, c *fakeChild) {
	t.Helper()
	testutil.Wait(t, "the window process to end", c.exited)
}

// TestSpawnerExitReasons: a window process that exits 0 was closed by the
// person ("human"); any other end (a status, a signal) is a "crash",
// reported at once without a second start; only a window whose GTK could
// not start (window.ExitNoGTK) is started once more, and when that fails
// the same way it is a crash.
func TestSpawnerExitReasons(t *testing.T) {
	for _, tc := range []struct {
		name  string
		exit  Exit
		want  string
		tries int
	}{
		{"closed by the person", Exit{Code: 0}, ReasonHuman, 1},
		{"exit status 1", Exit{Code: 1}, ReasonCrash, 1},
		{"exit status 2 (a Go panic)", Exit{Code: 2}, ReasonCrash, 1},
		{"killed by a signal", Exit{Code: -1, Signal: "killed"}, ReasonCrash, 1},
		{"segfault", Exit{Code: -1, Signal: "segmentation fault"}, ReasonCrash, 1},
		{"not reapable", Exit{Code: -1, Err: errors.New("wait: no child")}, ReasonCrash, 1},
		{"GTK could not start, twice", Exit{Code: window.ExitNoGTK}, ReasonCrash, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeStarter{}
			r := newRig(t, f, Options{})
			if err := r.s.Open(launch("w1", "hello")); err != nil {
				t.Fatal(err)
			}
			f.child(0).end(tc.exit)
			if tc.tries == 2 {
				r.blockUntil(t, 1) // the pause before the second start
				r.clk.Advance(RetryPause)
				f.waitStarted(t, 2)
				f.child(1).end(tc.exit)
			}
			g := waitGone(t, r.gone)
			if g.window != "w1" || g.reason != tc.want {
				t.Fatalf("gone %+v, want w1 %s", g, tc.want)
			}
			if n := len(r.s.Windows()); n != 0 {
				t.Fatalf("%d windows still tracked after the process was reaped", n)
			}
			r.settle()
			if n := f.started(); n != tc.tries {
				t.Fatalf("%d processes started for the window, want %d", n, tc.tries)
			}
			if n := r.s.Retries(); n != tc.tries-1 {
				t.Fatalf("Retries() = %d, want %d", n, tc.tries-1)
			}
		})
	}
}

// TestSpawnerRetriesOnlyWhenGTKCouldNotStart: a window process that exits
// with window.ExitNoGTK (the display refused GTK) is started once more
// with the same launch RetryPause later, and says so in the log
// (RetryMessage) and in Retries; the host hears nothing until that one
// ends. Any other early failure is a crash at once, as is one after the
// page loaded; a window the host closed during the pause, or one whose
// Lets quits then, is not started again.
func TestSpawnerRetriesOnlyWhenGTKCouldNotStart(t *testing.T) {
	f := &fakeStarter{}
	r := newRig(t, f, Options{Grace: 100 * time.Millisecond})
	s := r.s
	if err := s.Open(launch("w1", "hello")); err != nil {
		t.Fatal(err)
	}
	f.child(0).end(Exit{Code: window.ExitNoGTK})
	r.blockUntil(t, 1)
	if n := f.started(); n != 1 {
		t.Fatalf("%d processes before the pause ended", n)
	}
	if ws := s.Windows(); len(ws) != 1 {
		t.Fatalf("tracked windows %v during the pause, want w1", ws)
	}
	r.clk.Advance(RetryPause - time.Millisecond)
	if n := f.started(); n != 1 {
		t.Fatalf("started again %v before the pause ended", RetryPause-time.Millisecond)
	}
	r.clk.Advance(time.Millisecond)
	f.waitStarted(t, 2)
	if l := f.child(1).launch; l.Window != "w1" || l.URL != launch("w1", "hello").URL {
		t.Fatalf("the second try got launch %+v", l)
	}
	r.noGone(t, "before the second try ended")
	if ws := s.Windows(); len(ws) != 1 {
		t.Fatalf("tracked windows %v, want w1 once", ws)
	}
	if n := s.Retries(); n != 1 {
		t.Fatalf("Retries() = %d, want 1", n)
	}
	if logs := r.logs.String(); !strings.Contains(logs, RetryMessage) || !strings.Contains(logs, "GTK could not start (exit status 75)") {
		t.Fatalf("the retry is not in the log:\n%s", logs)
	}
	f.child(1).report(`{"type":"loaded"}`)
	f.child(1).end(Exit{Code: 0})
	if g := waitGone(t, r.gone); g.window != "w1" || g.reason != ReasonHuman {
		t.Fatalf("gone %+v, want w1 human", g)
	}

	// Another early failure: a crash at once, no second try.
	if err := s.Open(launch("w2", "hello")); err != nil {
		t.Fatal(err)
	}
	f.child(2).end(Exit{Code: 1})
	if g := waitGone(t, r.gone); g.window != "w2" || g.reason != ReasonCrash {
		t.Fatalf("gone %+v, want w2 crash", g)
	}

	// Failed after loading: a crash at once, no second try.
	if err := s.Open(launch("w3", "hello")); err != nil {
		t.Fatal(err)
	}
	f.child(3).report(`{"type":"loaded"}`)
	f.child(3).end(Exit{Code: 2})
	if g := waitGone(t, r.gone); g.window != "w3" || g.reason != ReasonCrash {
		t.Fatalf("gone %+v, want w3 crash", g)
	}
	if n := f.started(); n != 4 {
		t.Fatalf("%d processes started, want 4 (only w1 tried twice)", n)
	}

	// Closed by the host during the pause: nothing is started again and
	// nothing is reported.
	if err := s.Open(launch("w4", "hello")); err != nil {
		t.Fatal(err)
	}
	f.child(4).end(Exit{Code: window.ExitNoGTK})
	r.blockUntil(t, 1)
	s.Close("w4")
	r.clk.Advance(RetryPause)
	testutil.Eventually(t, "the closed window is forgotten", func() bool { return len(s.Windows()) == 0 })
	if n := f.started(); n != 5 {
		t.Fatalf("%d processes started, want no second try for a window the host closed", n)
	}
	r.noGone(t, "for a window the host closed")

	// Lets quits during the pause: quitting does not wait for the pause,
	// and nothing is started or reported.
	if err := s.Open(launch("w5", "hello")); err != nil {
		t.Fatal(err)
	}
	f.child(5).end(Exit{Code: window.ExitNoGTK})
	r.blockUntil(t, 1)
	s.StopAll() // the fake clock stays put: StopAll must not need it
	if n := f.started(); n != 6 {
		t.Fatalf("%d processes started, want no second try when Lets quits", n)
	}
	r.noGone(t, "for a window ended at quit")
	if n := s.Retries(); n != 3 {
		t.Fatalf("Retries() = %d, want 3 (w1, w4, w5)", n)
	}
}

// TestSpawnerLaunchCarriesURLAndGeometry: the child gets the one-time URL
// in its Launch (which goes on stdin, see TestExecStarterKeepsURLOffArgv)
// and the unique's remembered place; the place it reports on closing is
// remembered for the next window of that unique.
func TestSpawnerLaunchCarriesURLAndGeometry(t *testing.T) {
	store := geometry.NewStore(t.TempDir(), nil)
	if err := store.Put("hello", geometry.Rect{X: 10, Y: 20, Width: 800, Height: 600}); err != nil {
		t.Fatal(err)
	}
	f := &fakeStarter{}
	s, gone := newTestSpawner(t, f, store)
	l := launch("w1", "hello")
	if err := s.Open(l); err != nil {
		t.Fatal(err)
	}
	c := f.child(0)
	if c.launch.URL != l.URL || c.launch.Title != "hello title" {
		t.Fatalf("launch %+v", c.launch)
	}
	if g := c.launch.Geometry; g == nil || *g != (geometry.Rect{X: 10, Y: 20, Width: 800, Height: 600}) {
		t.Fatalf("launch geometry %+v", g)
	}
	c.report(`{"type":"loaded"}`)
	c.report(`not json at all`)
	c.report(`{"type":"geometry","geometry":{"x":30,"y":40,"width":900,"height":700}}`)
	c.end(Exit{Code: 0})
	if g := waitGone(t, gone); g.reason != ReasonHuman {
		t.Fatalf("gone %+v", g)
	}
	got, ok := store.Get("hello")
	if !ok || got != (geometry.Rect{X: 30, Y: 40, Width: 900, Height: 700}) {
		t.Fatalf("remembered %+v %v", got, ok)
	}
}

// TestSpawnerCloseEndsProcessQuietly: when the host closed a window
// (session.close), its process is asked to end (SIGTERM only, for a
// window that goes), and its exit is not reported back as a human close
// or a crash.
func TestSpawnerCloseEndsProcessQuietly(t *testing.T) {
	f := &fakeStarter{}
	r := newRig(t, f, Options{Grace: 100 * time.Millisecond})
	if err := r.s.Open(launch("w1", "hello")); err != nil {
		t.Fatal(err)
	}
	r.s.Close("w1")
	c := f.child(0)
	waitExited(t, c)
	if terminated, killed, _ := c.state(); !terminated || killed {
		t.Fatalf("terminated %v killed %v: a cooperative window gets SIGTERM only", terminated, killed)
	}
	r.settle()
	r.noGone(t, "for a window the host closed")
	r.s.Close("w9") // unknown: nothing happens
}

// TestSpawnerCloseKillsStubbornProcess: a window that ignores SIGTERM is
// killed when the grace has passed, not before.
func TestSpawnerCloseKillsStubbornProcess(t *testing.T) {
	f := &fakeStarter{ignore: true}
	r := newRig(t, f, Options{})
	if err := r.s.Open(launch("w1", "hello")); err != nil {
		t.Fatal(err)
	}
	r.s.Close("w1")
	c := f.child(0)
	r.blockUntil(t, 1) // SIGTERM sent, the grace armed
	if terminated, killed, _ := c.state(); !terminated || killed {
		t.Fatalf("terminated %v killed %v: SIGTERM comes first, and gets its grace", terminated, killed)
	}
	r.clk.Advance(DefaultGrace - time.Millisecond)
	if c.hasExited() {
		t.Fatalf("killed %v before the grace of %v ended", DefaultGrace-time.Millisecond, DefaultGrace)
	}
	r.clk.Advance(time.Millisecond)
	waitExited(t, c)
	if _, killed, _ := c.state(); !killed {
		t.Fatal("a window that ignores SIGTERM was not killed after the grace")
	}
}

// TestCloseBudgets: the promise that a window the host closed is gone
// within one second holds by construction: SIGTERM, then SIGKILL after
// the grace, and for session.close the wait before that. (How long a
// real process takes is BenchmarkExecStarterClose.)
func TestCloseBudgets(t *testing.T) {
	if 2*DefaultGrace >= time.Second {
		t.Errorf("twice the grace (%v) is not under the second the host promises", 2*DefaultGrace)
	}
	if DefaultCloseWait+DefaultGrace >= time.Second {
		t.Errorf("close wait + grace (%v) is not under one second", DefaultCloseWait+DefaultGrace)
	}
}

// TestSpawnerQuitEndsAll: when Lets quits (Run's context ends), every
// window process ends, a stubborn one when the grace has passed; none is
// reported, and no new window opens. It runs in a synctest bubble: three
// windows arm three graces at once, and the bubble's clock moves only when
// every one of them waits.
func TestSpawnerQuitEndsAll(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeStarter{}
		gone := make(chan goneRec, 8)
		s := New(Options{Start: f.start, Gone: func(w, r string) { gone <- goneRec{w, r} }})
		for _, id := range []string{"w1", "w2"} {
			if err := s.Open(launch(id, "hello")); err != nil {
				t.Fatal(err)
			}
		}
		f.mu.Lock()
		f.ignore = true
		f.mu.Unlock()
		if err := s.Open(launch("w3", "hello")); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		ran := make(chan error, 1)
		start := time.Now()
		go func() { ran <- s.Run(ctx) }()
		cancel()
		synctest.Wait()
		if !f.child(0).hasExited() || !f.child(1).hasExited() {
			t.Fatal("the windows that take SIGTERM still run after quit")
		}
		if f.child(2).hasExited() {
			t.Fatal("the stubborn window ended before its grace")
		}
		if err := <-ran; err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d != DefaultGrace {
			t.Fatalf("quitting took %v, want the grace of the stubborn window, %v", d, DefaultGrace)
		}
		for i := range 3 {
			if !f.child(i).hasExited() {
				t.Fatalf("window %d still runs after quit", i+1)
			}
		}
		select {
		case g := <-gone:
			t.Fatalf("the host heard %+v for a window ended at quit", g)
		default:
		}
		if err := s.Open(launch("w4", "hello")); !errors.Is(err, ErrStopping) {
			t.Fatalf("open after quit: %v", err)
		}
	})
}

// TestSpawnerStartFailure: a window process that cannot start is an error
// for the host (which then gives the URL to the browser), and nothing is
// tracked.
func TestSpawnerStartFailure(t *testing.T) {
	f := &fakeStarter{fail: errors.New("exec: no such file")}
	s, _ := newTestSpawner(t, f, nil)
	err := s.Open(launch("w1", "hello"))
	if err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Fatalf("err %v", err)
	}
	if n := len(s.Windows()); n != 0 {
		t.Fatalf("%d windows tracked", n)
	}
}

// TestSpawnerClosingEndsHungWindow: a window asked to close whose shell
// never goes (a hung page) is ended anyway once the close wait passed,
// not before, and not reported back.
func TestSpawnerClosingEndsHungWindow(t *testing.T) {
	f := &fakeStarter{}
	r := newRig(t, f, Options{})
	if err := r.s.Open(launch("w1", "hello")); err != nil {
		t.Fatal(err)
	}
	r.s.Closing("w1")
	c := f.child(0)
	r.blockUntil(t, 1) // the close wait
	r.clk.Advance(DefaultCloseWait - time.Millisecond)
	if terminated, _, _ := c.state(); terminated {
		t.Fatal("the window was ended before its shell had its moment to close by itself")
	}
	r.clk.Advance(time.Millisecond)
	waitExited(t, c)
	r.settle()
	r.noGone(t, "for a window the host closed")
	r.s.Closing("w1") // gone already: nothing happens
}

// TestSpawnerSignalsOnce: Close, Closing and quit racing for the same
// window signal its process once.
func TestSpawnerSignalsOnce(t *testing.T) {
	f := &fakeStarter{}
	r := newRig(t, f, Options{})
	s := r.s
	if err := s.Open(launch("w1", "hello")); err != nil {
		t.Fatal(err)
	}
	c := f.child(0)
	c.mu.Lock()
	c.ignoreTerm = true // stays up, so every path finds it running
	c.mu.Unlock()
	s.Closing("w1")
	s.Close("w1")
	s.Close("w1")
	stopped := make(chan struct{})
	go func() { s.StopAll(); close(stopped) }()
	r.blockUntil(t, 2) // the close wait and the grace
	r.clk.Advance(DefaultCloseWait)
	testutil.Wait(t, "StopAll to return", stopped)
	if _, killed, terms := c.state(); terms != 1 || !killed {
		t.Fatalf("SIGTERM sent %d times (want once), killed %v (want after the grace)", terms, killed)
	}
}
