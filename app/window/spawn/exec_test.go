package spawn

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lets-app/lets/app/window"
	"github.com/lets-app/lets/app/window/geometry"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

const helperEnv = "LETS_SPAWN_TEST_HELPER"

// TestMain lets the test binary play `lets window` for ExecStarter: it
// reads its Launch from stdin like the real one and behaves as the title
// says.
func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "1" {
		os.Exit(fakeWindowMain())
	}
	if os.Getenv(parentEnv) == "1" {
		os.Exit(fakeLetsMain())
	}
	os.Exit(m.Run())
}

const parentEnv = "LETS_SPAWN_TEST_PARENT"

// fakeLetsMain plays Lets: it opens one window through ExecStarter, prints
// the window's pid and waits to be killed (or for its stdin to close, when
// the test that started it is gone).
func fakeLetsMain() int {
	exe, err := os.Executable()
	if err != nil {
		return 9
	}
	ready := os.Getenv("LETS_SPAWN_TEST_READY")
	env := []string{helperEnv + "=1", "LETS_SPAWN_TEST_MODE=wait", "LETS_SPAWN_TEST_READY=" + ready}
	s := New(Options{Start: ExecStarter(ExecOptions{Path: exe, Env: env})})
	l := launch("w1", "hello")
	l.Title = "wait"
	if err := s.Open(l); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 9
	}
	// The window must be up (its launch read) before this Lets dies.
	if !testutil.Poll(testutil.EventuallyTimeout, func() bool { _, err := os.Stat(ready + "/w1"); return err == nil }) {
		fmt.Fprintln(os.Stderr, "the window process did not start")
		return 9
	}
	s.mu.Lock()
	fmt.Println(s.children["w1"].child.PID())
	s.mu.Unlock()
	_, _ = io.Copy(io.Discard, os.Stdin)
	return 0
}

// TestWindowEndsWhenLetsDies: a Lets killed without closing its windows
// (SIGKILL, a crash) takes them with it; no orphan window stays open.
func TestWindowEndsWhenLetsDies(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	parent := exec.Command(exe)
	parent.Env = append(os.Environ(), parentEnv+"=1", "LETS_SPAWN_TEST_READY="+t.TempDir())
	out, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	// Its stdin stays open while the test runs.
	stdin, err := parent.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = parent.Process.Kill(); _ = parent.Wait() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("the fake Lets printed no window pid: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = parent.Wait()
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) }) // should it outlive the test
	testutil.Eventually(t, "the window process ends with its Lets", func() bool {
		// The orphan is reaped by init (or a subreaper); until then it is
		// a zombie, which counts as ended.
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return true
		}
		i := strings.LastIndexByte(string(stat), ')')
		return i > 0 && i+2 < len(stat) && stat[i+2] == 'Z'
	})
}

func fakeWindowMain() int {
	signal.Ignore(syscall.SIGINT)
	terms := make(chan os.Signal, 1)
	if strings.HasPrefix(os.Getenv("LETS_SPAWN_TEST_MODE"), "ignore") {
		signal.Ignore(syscall.SIGTERM)
	} else {
		signal.Notify(terms, syscall.SIGTERM)
	}
	l, err := window.ReadLaunch(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 9
	}
	if dir := os.Getenv("LETS_SPAWN_TEST_READY"); dir != "" {
		// Signal handlers are in place now.
		_ = os.WriteFile(dir+"/"+l.Window, nil, 0o600)
	}
	reports := os.NewFile(3, "reports")
	fmt.Fprintf(reports, `{"type":"loaded"}`+"\n")
	switch l.Title {
	case "present":
		// Lets' control lines come after the launch, on the same stdin.
		sc := bufio.NewScanner(os.Stdin)
		n := 0
		for sc.Scan() {
			if sc.Text() == window.ControlPresent {
				n++
				_ = os.WriteFile(fmt.Sprintf("%s/%s.presented-%d", os.Getenv("LETS_SPAWN_TEST_READY"), l.Window, n), nil, 0o600)
			}
		}
		return 0 // stdin closed: Lets is gone
	case "exit0":
		fmt.Fprintf(reports, `{"type":"geometry","geometry":{"x":1,"y":2,"width":640,"height":480}}`+"\n")
		return 0
	case "exit3":
		return 3
	}
	select {
	case <-terms:
		fmt.Fprintf(reports, `{"type":"geometry","geometry":{"x":3,"y":4,"width":650,"height":490}}`+"\n")
		return 0
	case <-time.After(20 * time.Second):
		return 4
	}
}

func execSpawner(t *testing.T, mode string, store *geometry.Store) (*Spawner, chan goneRec) {
	s, gone, _ := execSpawnerReady(t, mode, store)
	return s, gone
}

// execSpawnerReady also returns a function that waits until a window's
// helper process has its signal handlers in place.
func execSpawnerReady(t *testing.T, mode string, store *geometry.Store) (*Spawner, chan goneRec, func(window string)) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ready := t.TempDir()
	env := append(os.Environ(), helperEnv+"=1", "LETS_SPAWN_TEST_MODE="+mode, "LETS_SPAWN_TEST_READY="+ready)
	var stderr bytes.Buffer
	gone := make(chan goneRec, 4)
	o := Options{Start: ExecStarter(ExecOptions{Path: exe, Env: env, Stderr: &stderr}), Geometry: store, Gone: func(w, r string) { gone <- goneRec{w, r} }}
	if mode == "wait" {
		// A helper that takes SIGTERM gets as long as a test waits for
		// anything: on a loaded machine (or under -race) it may need more
		// than the grace to save its place, and the test is about what it
		// does, not how fast (BenchmarkExecStarterClose is).
		o.Grace = testutil.EventuallyTimeout
	}
	s := New(o)
	t.Cleanup(s.StopAll)
	waitReady := func(window string) {
		t.Helper()
		testutil.Eventually(t, "the helper window "+window+" has its signal handlers in place", func() bool {
			_, err := os.Stat(ready + "/" + window)
			return err == nil
		})
	}
	return s, gone, waitReady
}

// TestExecStarterKeepsURLOffArgv: the real process gets its one-time URL
// on stdin; its command line is only "<lets> window", so the window key
// never shows in `ps`.
func TestExecStarterKeepsURLOffArgv(t *testing.T) {
	s, gone, waitReady := execSpawnerReady(t, "wait", nil)
	l := launch("w1", "hello")
	l.Title = "wait"
	if err := s.Open(l); err != nil {
		t.Fatal(err)
	}
	// Start returns once the kernel has switched the child to the new
	// program, but its command line is filled in a moment later; read it
	// once the program runs (it said so), not before (CI once read "").
	waitReady("w1")
	s.mu.Lock()
	pid := s.children["w1"].child.PID()
	s.mu.Unlock()
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	args := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
	if len(args) != 2 || args[1] != "window" || strings.Contains(string(cmdline), "secret") || strings.Contains(string(cmdline), "127.0.0.1") {
		t.Fatalf("window command line %q: must be only `<lets> window`", args)
	}
	environ, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err == nil && strings.Contains(string(environ), "secret") {
		t.Fatal("the one-time URL is in the window's environment; it goes on stdin only")
	}
	s.Close("w1")
	s.StopAll() // waits until every window process was reaped
	select {
	case g := <-gone:
		t.Fatalf("reported %+v for a window the host closed", g)
	default:
	}
}

// TestExecStarterReasonsAndGeometry: with real processes, exit 0 is a
// human close (and its reported place is kept), exit 3 a crash, SIGKILL a
// crash.
func TestExecStarterReasonsAndGeometry(t *testing.T) {
	store := geometry.NewStore(t.TempDir(), nil)
	s, gone := execSpawner(t, "wait", store)

	l := launch("w1", "hello")
	l.Title = "exit0"
	if err := s.Open(l); err != nil {
		t.Fatal(err)
	}
	if g := waitGone(t, gone); g != (goneRec{"w1", ReasonHuman}) {
		t.Fatalf("exit 0: %+v", g)
	}
	if r, ok := store.Get("hello"); !ok || r != (geometry.Rect{X: 1, Y: 2, Width: 640, Height: 480}) {
		t.Fatalf("remembered %+v %v", r, ok)
	}

	l = launch("w2", "hello")
	l.Title = "exit3"
	if err := s.Open(l); err != nil {
		t.Fatal(err)
	}
	if g := waitGone(t, gone); g != (goneRec{"w2", ReasonCrash}) {
		t.Fatalf("exit 3: %+v", g)
	}

	l = launch("w3", "hello")
	l.Title = "wait"
	if err := s.Open(l); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	pid := s.children["w3"].child.PID()
	s.mu.Unlock()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if g := waitGone(t, gone); g != (goneRec{"w3", ReasonCrash}) {
		t.Fatalf("SIGKILL: %+v", g)
	}
}

// TestExecStarterClose: a real window process told to close ends, saving
// its place on the way; one that ignores SIGTERM is killed after the
// grace. (How long that takes is BenchmarkExecStarterClose.)
func TestExecStarterClose(t *testing.T) {
	for _, mode := range []string{"wait", "ignore"} {
		t.Run(mode, func(t *testing.T) {
			store := geometry.NewStore(t.TempDir(), nil)
			s, _, waitReady := execSpawnerReady(t, mode, store)
			l := launch("w1", "hello")
			l.Title = "wait"
			if err := s.Open(l); err != nil {
				t.Fatal(err)
			}
			s.mu.Lock()
			tr := s.children["w1"]
			s.mu.Unlock()
			waitReady("w1")
			s.Close("w1")
			testutil.Wait(t, "the window process to end after the host closed it", tr.done)
			switch mode {
			case "wait":
				if !tr.exit.Clean() {
					t.Fatalf("a window that takes SIGTERM ended with %v, want exit status 0", tr.exit)
				}
				if r, ok := store.Get("hello"); !ok || r.Width != 650 {
					t.Fatalf("the place reported on SIGTERM was not kept: %+v %v", r, ok)
				}
			case "ignore":
				if tr.exit.Signal == "" {
					t.Fatalf("a window that ignores SIGTERM ended with %v, want killed", tr.exit)
				}
			}
		})
	}
}

// BenchmarkExecStarterClose measures how long a real window process takes
// to end after the host closed it: one that takes SIGTERM, and one that
// ignores it and is killed after DefaultGrace. Both must stay under the
// second the host promises for session.close.
func BenchmarkExecStarterClose(b *testing.B) {
	for _, mode := range []string{"wait", "ignore"} {
		b.Run(mode, func(b *testing.B) {
			exe, err := os.Executable()
			if err != nil {
				b.Fatal(err)
			}
			ready := b.TempDir()
			env := append(os.Environ(), helperEnv+"=1", "LETS_SPAWN_TEST_MODE="+mode, "LETS_SPAWN_TEST_READY="+ready)
			s := New(Options{Start: ExecStarter(ExecOptions{Path: exe, Env: env})})
			defer s.StopAll()
			var total, worst time.Duration
			for i := range b.N {
				id := fmt.Sprintf("w%d", i)
				l := launch(id, "hello")
				l.Title = "wait"
				if err := s.Open(l); err != nil {
					b.Fatal(err)
				}
				s.mu.Lock()
				tr := s.children[id]
				s.mu.Unlock()
				testutil.Eventually(b, "the helper window is up", func() bool { _, err := os.Stat(ready + "/" + id); return err == nil })
				start := time.Now()
				s.Close(id)
				<-tr.done
				d := time.Since(start)
				total += d
				worst = max(worst, d)
			}
			b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms-to-closed")
			b.ReportMetric(float64(worst.Milliseconds()), "ms-worst")
			testutil.TimeBudget(b, worst >= time.Second, "a closed window took %v to end, over the second the host promises", worst)
		})
	}
}
