package spawn

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lets-app/lets/app/window"
	"github.com/lets-app/lets/app/window/geometry"
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

type goneRec struct {
	window, reason string
}

func newTestSpawner(t *testing.T, f *fakeStarter, store *geometry.Store) (*Spawner, chan goneRec) {
	t.Helper()
	gone := make(chan goneRec, 8)
	s := New(Options{Start: f.start, Gone: func(w, r string) { gone <- goneRec{w, r} }, Geometry: store, Grace: 100 * time.Millisecond})
	t.Cleanup(s.StopAll)
	return s, gone
}

func launch(id, unique string) window.Launch {
	return window.Launch{Window: id, Unique: unique, Title: unique + " title", URL: "http://127.0.0.1:4000/w/" + id + "/?t=secret"}
}

func waitGone(t *testing.T, gone chan goneRec) goneRec {
	t.Helper()
	select {
	case g := <-gone:
		return g
	case <-time.After(10 * time.Second): // real helper processes start slowly on a busy machine
		t.Fatal("the host was not told the window ended")
		return goneRec{}
	}
}

// TestSpawnerExitReasons: a window process that exits 0 was closed by the
// person ("human"); any other end (a status, a signal) is a "crash".
func TestSpawnerExitReasons(t *testing.T) {
	for _, tc := range []struct {
		name string
		exit Exit
		want string
	}{
		{"closed by the person", Exit{Code: 0}, ReasonHuman},
		{"exit status 1", Exit{Code: 1}, ReasonCrash},
		{"exit status 2", Exit{Code: 2}, ReasonCrash},
		{"killed by a signal", Exit{Code: -1, Signal: "killed"}, ReasonCrash},
		{"segfault", Exit{Code: -1, Signal: "segmentation fault"}, ReasonCrash},
		{"not reapable", Exit{Code: -1, Err: errors.New("wait: no child")}, ReasonCrash},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeStarter{}
			s, gone := newTestSpawner(t, f, nil)
			if err := s.Open(launch("w1", "hello")); err != nil {
				t.Fatal(err)
			}
			f.child(0).end(tc.exit)
			if tc.exit.Err == nil && tc.exit.Signal == "" && tc.exit.Code != 0 {
				// It failed before its page loaded: tried once more,
				// and that try fails the same way.
				waitChildren(t, f, 2)
				f.child(1).end(tc.exit)
			}
			g := waitGone(t, gone)
			if g.window != "w1" || g.reason != tc.want {
				t.Fatalf("gone %+v, want w1 %s", g, tc.want)
			}
			if n := len(s.Windows()); n != 0 {
				t.Fatalf("%d windows still tracked after the process was reaped", n)
			}
		})
	}
}

// waitChildren waits until f started n processes.
func waitChildren(t *testing.T, f *fakeStarter, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		f.mu.Lock()
		got := len(f.children)
		f.mu.Unlock()
		if got >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d window processes started, want %d", got, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSpawnerRetriesAWindowThatFailedToStart: a window process that exits
// with an error before its page loaded (GTK could not open the display for
// a moment) is started once more with the same launch; the host hears
// nothing until that one ends. A process that failed after its page loaded
// is not tried again, nor is one the host closed during the pause.
func TestSpawnerRetriesAWindowThatFailedToStart(t *testing.T) {
	f := &fakeStarter{}
	s, gone := newTestSpawner(t, f, nil)
	if err := s.Open(launch("w1", "hello")); err != nil {
		t.Fatal(err)
	}
	f.child(0).end(Exit{Code: 2})
	waitChildren(t, f, 2)
	if l := f.child(1).launch; l.Window != "w1" || l.URL != launch("w1", "hello").URL {
		t.Fatalf("the second try got launch %+v", l)
	}
	select {
	case g := <-gone:
		t.Fatalf("the host heard %+v before the second try ended", g)
	default:
	}
	if ws := s.Windows(); len(ws) != 1 {
		t.Fatalf("tracked windows %v, want w1 once", ws)
	}
	f.child(1).report(`{"type":"loaded"}`)
	time.Sleep(50 * time.Millisecond)
	f.child(1).end(Exit{Code: 0})
	if g := waitGone(t, gone); g.window != "w1" || g.reason != ReasonHuman {
		t.Fatalf("gone %+v, want w1 human", g)
	}

	// Failed after loading: a crash at once, no second try.
	if err := s.Open(launch("w2", "hello")); err != nil {
		t.Fatal(err)
	}
	f.child(2).report(`{"type":"loaded"}`)
	time.Sleep(50 * time.Millisecond)
	f.child(2).end(Exit{Code: 2})
	if g := waitGone(t, gone); g.window != "w2" || g.reason != ReasonCrash {
		t.Fatalf("gone %+v, want w2 crash", g)
	}

	// Closed by the host during the pause: nothing is started again and
	// nothing is reported.
	if err := s.Open(launch("w3", "hello")); err != nil {
		t.Fatal(err)
	}
	f.child(3).end(Exit{Code: 2})
	time.Sleep(RetryPause / 3)
	s.Close("w3")
	time.Sleep(RetryPause + 200*time.Millisecond)
	f.mu.Lock()
	n := len(f.children)
	f.mu.Unlock()
	if n != 4 {
		t.Fatalf("%d processes started, want no second try for a window the host closed", n)
	}
	select {
	case g := <-gone:
		t.Fatalf("the host heard %+v for a window it closed", g)
	default:
	}
	if ws := s.Windows(); len(ws) != 0 {
		t.Fatalf("still tracked: %v", ws)
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
// (session.close), its process is asked to end, and its exit is not
// reported back as a human close or a crash.
func TestSpawnerCloseEndsProcessQuietly(t *testing.T) {
	f := &fakeStarter{}
	s, gone := newTestSpawner(t, f, nil)
	if err := s.Open(launch("w1", "hello")); err != nil {
		t.Fatal(err)
	}
	s.Close("w1")
	c := f.child(0)
	select {
	case <-c.exited:
	case <-time.After(time.Second):
		t.Fatal("the window process did not end within 1 s of the host closing it")
	}
	if !c.terminated || c.killed {
		t.Fatalf("terminated %v killed %v: a cooperative window gets SIGTERM only", c.terminated, c.killed)
	}
	select {
	case g := <-gone:
		t.Fatalf("a window the host closed was reported again: %+v", g)
	case <-time.After(150 * time.Millisecond):
	}
	s.Close("w9") // unknown: nothing happens
}

// TestSpawnerCloseKillsStubbornProcess: a window that ignores SIGTERM is
// killed after the grace, within 1 s.
func TestSpawnerCloseKillsStubbornProcess(t *testing.T) {
	f := &fakeStarter{ignore: true}
	s := New(Options{Start: f.start, Grace: DefaultGrace})
	if err := s.Open(launch("w1", "hello")); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	s.Close("w1")
	c := f.child(0)
	select {
	case <-c.exited:
	case <-time.After(time.Second):
		t.Fatal("a window that ignores SIGTERM still runs 1 s after the host closed it")
	}
	if !c.terminated || !c.killed {
		t.Fatalf("terminated %v killed %v", c.terminated, c.killed)
	}
	if d := time.Since(start); d < DefaultGrace/2 {
		t.Fatalf("killed after %v: SIGTERM must get its grace first", d)
	}
}

// TestSpawnerQuitEndsAllWithinOneSecond: when Lets quits (Run's context
// ends), every window process ends, stubborn ones too, within 1 s, none is
// reported, and no new window opens.
func TestSpawnerQuitEndsAllWithinOneSecond(t *testing.T) {
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
	go func() { ran <- s.Run(ctx) }()
	start := time.Now()
	cancel()
	select {
	case err := <-ran:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Second):
		t.Fatal("quitting took more than 1 s")
	}
	t.Logf("all windows ended %v after quit", time.Since(start))
	for i := range 3 {
		select {
		case <-f.child(i).exited:
		default:
			t.Fatalf("window %d still runs after quit", i+1)
		}
	}
	select {
	case g := <-gone:
		t.Fatalf("a window ended at quit was reported: %+v", g)
	default:
	}
	if err := s.Open(launch("w4", "hello")); !errors.Is(err, ErrStopping) {
		t.Fatalf("open after quit: %v", err)
	}
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
// never goes (a hung page) is ended anyway, within 1 s of the request, and
// not reported back.
func TestSpawnerClosingEndsHungWindow(t *testing.T) {
	f := &fakeStarter{}
	s, gone := newTestSpawner(t, f, nil)
	if err := s.Open(launch("w1", "hello")); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	s.Closing("w1")
	c := f.child(0)
	select {
	case <-c.exited:
	case <-time.After(time.Second):
		t.Fatal("the window still runs 1 s after session.close")
	}
	if d := time.Since(start); d < DefaultCloseWait/2 {
		t.Fatalf("ended after %v: the shell must get its moment to close by itself", d)
	}
	select {
	case g := <-gone:
		t.Fatalf("reported %+v for a window the host closed", g)
	case <-time.After(100 * time.Millisecond):
	}
	s.Closing("w1") // gone already: nothing happens
}

// TestSpawnerSignalsOnce: Close, Closing and quit racing for the same
// window signal its process once.
func TestSpawnerSignalsOnce(t *testing.T) {
	f := &fakeStarter{}
	s := New(Options{Start: f.start, CloseWait: time.Millisecond})
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
	s.StopAll()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.terms != 1 {
		t.Fatalf("SIGTERM sent %d times, want once", c.terms)
	}
}
