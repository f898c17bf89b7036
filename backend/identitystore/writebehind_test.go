package identitystore

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/atomicfile"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// waitFor bounds every wait of these tests for something that must happen.
// It is a failure detector, not a budget: the one limit every wait uses,
// so a loaded machine never fails a correct store.
const waitFor = testutil.EventuallyTimeout

// fakeAfter hands Run channels that fire only when the test says so, and
// records the delays Run asked for.
type fakeAfter struct {
	mu    sync.Mutex
	asked []time.Duration
	chans []chan time.Time
	calls chan int // index of each request, in order
}

func newFakeAfter() *fakeAfter { return &fakeAfter{calls: make(chan int, 64)} }

func (f *fakeAfter) After(d time.Duration) <-chan time.Time {
	f.mu.Lock()
	c := make(chan time.Time, 1)
	f.asked = append(f.asked, d)
	f.chans = append(f.chans, c)
	i := len(f.chans) - 1
	f.mu.Unlock()
	f.calls <- i
	return c
}

// next waits for Run's next request and returns its index and delay.
func (f *fakeAfter) next(t *testing.T) (int, time.Duration) {
	t.Helper()
	select {
	case i := <-f.calls:
		f.mu.Lock()
		defer f.mu.Unlock()
		return i, f.asked[i]
	case <-time.After(waitFor):
		t.Fatal("the writer never asked to wait before writing")
		return 0, 0
	}
}

func (f *fakeAfter) fire(i int) {
	f.mu.Lock()
	c := f.chans[i]
	f.mu.Unlock()
	c <- time.Time{}
}

// recordingWriter writes through atomicfile and reports every attempt.
type recordingWriter struct {
	mu       sync.Mutex
	attempts int
	fail     func(attempt int) error // nil: every write goes to disk
	wrote    chan []byte             // data of each attempt
}

func newRecordingWriter() *recordingWriter { return &recordingWriter{wrote: make(chan []byte, 64)} }

func (w *recordingWriter) write(path string, data []byte, perm fs.FileMode) error {
	w.mu.Lock()
	w.attempts++
	n := w.attempts
	w.mu.Unlock()
	var err error
	if w.fail != nil {
		err = w.fail(n)
	}
	if err == nil {
		err = atomicfile.Write(path, data, perm)
	}
	w.wrote <- bytes.Clone(data)
	return err
}

func (w *recordingWriter) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.attempts
}

func (w *recordingWriter) waitWrite(t *testing.T) []byte {
	t.Helper()
	select {
	case data := <-w.wrote:
		return data
	case <-time.After(waitFor):
		t.Fatal("the writer did not write the file")
		return nil
	}
}

// runStore runs s's writer and returns a stop function that cancels it and
// waits for Run to return.
func runStore(t *testing.T, s *Store) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	stopped := false
	stop = func() {
		t.Helper()
		if stopped {
			return
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(waitFor):
			t.Error("Run did not return after its context ended")
		}
	}
	t.Cleanup(stop)
	return stop
}

func fileKeys(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read the store: %v", err)
	}
	var doc struct {
		Version    int `json:"version"`
		Identities map[string]struct {
			Accent string `json:"accent"`
		} `json:"identities"`
	}
	if err := json.Unmarshal(data, &doc); err != nil || doc.Version != Version {
		t.Fatalf("the store is not a version-1 JSON file (%v):\n%s", err, data)
	}
	out := map[string]string{}
	for k, v := range doc.Identities {
		out[k] = v.Accent
	}
	return out
}

// Write-behind, coalescing: a hundred changes made while the writer waits
// reach the disk in one write that holds all of them, in the same format
// as before (the bytes are Encode's).
func TestWriteBehindCoalescesChangesIntoOneWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", FileName)
	after, w := newFakeAfter(), newRecordingWriter()
	s := Open(path, Options{FlushDelay: time.Second, After: after.After, WriteFile: w.write})
	stop := runStore(t, s)

	for i := range 100 {
		if err := s.Remember("codex", "agent-"+strconv.Itoa(i), "cyan"); err != nil {
			t.Fatalf("Remember returned %v; write-behind never reports a write at Remember", err)
		}
	}
	i, _ := after.next(t)
	if n := w.count(); n != 0 {
		t.Fatalf("%d writes before the delay ended, want none", n)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the file exists before the delay ended (%v)", err)
	}
	after.fire(i)
	data := w.waitWrite(t)
	if !bytes.Equal(data, s.Encode()) {
		t.Fatalf("the write is not the store's encoding:\n%s", data)
	}
	if keys := fileKeys(t, path); len(keys) != 100 {
		t.Fatalf("the file holds %d identities, want 100", len(keys))
	}
	stop() // the final flush finds nothing new
	if n := w.count(); n != 1 {
		t.Fatalf("%d writes for 100 changes, want 1", n)
	}
}

// Write-behind, the bound: the writer waits exactly FlushDelay after the
// first unsaved change (the daemon's default is at most one second), writes
// when that time has come, and a change made after a write gets a write of
// its own.
func TestWriteBehindWritesWithinTheDelay(t *testing.T) {
	if DefaultFlushDelay <= 0 || DefaultFlushDelay > time.Second {
		t.Fatalf("DefaultFlushDelay = %v, want within (0, 1s]", DefaultFlushDelay)
	}
	path := filepath.Join(t.TempDir(), FileName)
	after, w := newFakeAfter(), newRecordingWriter()
	const delay = 700 * time.Millisecond
	s := Open(path, Options{FlushDelay: delay, After: after.After, WriteFile: w.write})
	runStore(t, s)

	_ = s.Remember("codex", "a", "cyan")
	i, d := after.next(t)
	if d != delay {
		t.Fatalf("the writer waits %v after a change, want %v", d, delay)
	}
	after.fire(i)
	w.waitWrite(t)
	if got := fileKeys(t, path)[Key("codex", "a")]; got != "cyan" {
		t.Fatalf("a = %q on disk, want cyan", got)
	}

	_ = s.Remember("codex", "b", "magenta")
	i, d = after.next(t)
	if d != delay {
		t.Fatalf("second wait %v, want %v", d, delay)
	}
	after.fire(i)
	w.waitWrite(t)
	keys := fileKeys(t, path)
	if keys[Key("codex", "a")] != "cyan" || keys[Key("codex", "b")] != "magenta" {
		t.Fatalf("file after the second write: %v", keys)
	}
}

// Write-behind with real timers: a change reaches the disk by itself,
// without a stop or an explicit Flush.
func TestWriteBehindRealTimerWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	w := newRecordingWriter()
	s := Open(path, Options{FlushDelay: 20 * time.Millisecond, WriteFile: w.write})
	runStore(t, s)
	_ = s.Remember("codex", "a", "lime")
	w.waitWrite(t)
	if got := Open(path, Options{}).Lookup("codex", "a"); got != "lime" {
		t.Fatalf("reopened store says %q, want lime", got)
	}
}

// Write-behind, stop: ending Run writes what is unsaved at once, even long
// before the delay would have ended.
func TestWriteBehindWritesOnStop(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	s := Open(path, Options{FlushDelay: time.Hour})
	stop := runStore(t, s)
	_ = s.Remember("codex", "a", "violet")
	stop()
	if got := Open(path, Options{}).Lookup("codex", "a"); got != "violet" {
		t.Fatalf("after stop the file says %q, want violet", got)
	}
}

// Write-behind, the owner never waits for the disk: while a write is stuck,
// Remember, Lookup, Len and Encode still return at once; the stuck write's
// successor (at stop) saves everything.
func TestWriteBehindRememberDoesNotWaitForABlockedWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	entered, release := make(chan struct{}, 8), make(chan struct{})
	blocking := func(p string, data []byte, perm fs.FileMode) error {
		entered <- struct{}{}
		<-release
		return atomicfile.Write(p, data, perm)
	}
	now := func(time.Duration) <-chan time.Time {
		c := make(chan time.Time, 1)
		c <- time.Time{}
		return c
	}
	s := Open(path, Options{FlushDelay: time.Second, After: now, WriteFile: blocking})
	stop := runStore(t, s)
	_ = s.Remember("codex", "first", "cyan")
	select {
	case <-entered:
	case <-time.After(waitFor):
		t.Fatal("the writer never started writing")
	}

	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 1000 {
			id := "agent-" + strconv.Itoa(i)
			_ = s.Remember("codex", id, "magenta")
			if s.Lookup("codex", id) != "magenta" {
				t.Errorf("lookup of %s lost its accent", id)
				return
			}
		}
		_ = s.Len()
		_ = s.Encode()
	}()
	select {
	case <-done:
	case <-time.After(waitFor):
		close(release)
		t.Fatal("Remember/Lookup waited for a write that was stuck on the disk")
	}
	close(release)
	stop()
	if keys := fileKeys(t, path); len(keys) != 256 { // capacity
		t.Fatalf("after stop the file holds %d identities, want 256", len(keys))
	}
}

// lockedBuffer collects log output from the writer goroutine.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// waitLog waits until the log holds want.
func waitLog(t *testing.T, logs *lockedBuffer, want string) {
	t.Helper()
	testutil.Eventually(t, fmt.Sprintf("the log says %q", want), func() bool { return strings.Contains(logs.String(), want) })
}

// §9.8 in write-behind: a failed write is logged (once while failures
// last), changes nothing in memory, and the next change writes everything
// that is unsaved; recovery is logged too.
func TestWriteBehindFailureIsLoggedAndRetried(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	after, w := newFakeAfter(), newRecordingWriter()
	w.fail = func(n int) error {
		if n <= 2 {
			return errors.New("no space left on device")
		}
		return nil
	}
	var logs lockedBuffer
	s := Open(path, Options{FlushDelay: time.Second, After: after.After, WriteFile: w.write,
		Log: slog.New(slog.NewTextHandler(&logs, nil))})
	runStore(t, s)

	for n, id := range []string{"a", "b"} {
		_ = s.Remember("codex", id, "cyan")
		i, _ := after.next(t)
		after.fire(i)
		w.waitWrite(t)
		if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("failed write %d left a file (%v)", n+1, err)
		}
		if s.Lookup("codex", id) != "cyan" {
			t.Fatalf("failed write %d lost the change in memory", n+1)
		}
	}
	waitLog(t, &logs, "no space left on device")

	_ = s.Remember("codex", "c", "lime")
	i, _ := after.next(t)
	after.fire(i)
	w.waitWrite(t)
	keys := fileKeys(t, path)
	if keys[Key("codex", "a")] != "cyan" || keys[Key("codex", "b")] != "cyan" || keys[Key("codex", "c")] != "lime" {
		t.Fatalf("the retry did not save every unsaved change: %v", keys)
	}
	waitLog(t, &logs, "accent preferences are saved again")
	if n := strings.Count(logs.String(), "could not save accent preferences"); n != 1 {
		t.Fatalf("two failures in a row were logged %d times, want once:\n%s", n, logs.String())
	}
}

// crashChildEnv makes the test binary a child that rewrites a store in a
// loop until it is killed.
const crashChildEnv = "LETS_IDENTITYSTORE_CRASH_CHILD"

// TestCrashChild is the child process of TestCrashMidWriteLeavesAValidFile
// (the usual helper-process pattern); in a normal run it returns at once.
func TestCrashChild(t *testing.T) {
	path := os.Getenv(crashChildEnv)
	if path == "" {
		return // not started as the child
	}
	s := Open(path, Options{FlushDelay: time.Hour})
	// A full store makes each write big enough to be killed inside.
	for round := 0; round < 100000; round++ {
		for i := range 8 {
			_ = s.Remember("codex", fmt.Sprintf("agent-%d-%d", round, i), "cyan")
		}
		if err := s.Flush(); err != nil {
			fmt.Println("error", err)
			os.Exit(2)
		}
		fmt.Println("flushed", round)
	}
	os.Exit(0)
}

// Crash safety: a process killed (SIGKILL) while it rewrites the store
// leaves a complete, loadable file every time; only a temporary file may be
// left over, which atomicfile recognises.
func TestCrashMidWriteLeavesAValidFile(t *testing.T) {
	leftovers := 0
	for attempt := range 5 {
		dir := t.TempDir()
		path := filepath.Join(dir, FileName)
		ctx, cancel := context.WithTimeout(context.Background(), waitFor)
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), crashChildEnv+"="+path)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Kill at a different point of the write loop each attempt: while
		// the child writes on after a later round each time.
		r := bufio.NewReader(out)
		want := fmt.Sprintf("flushed %d", 3+attempt*7)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				cancel()
				_ = cmd.Wait()
				t.Fatalf("child stopped before %q: %q %v", want, line, err)
			}
			if strings.TrimSpace(line) == want {
				break
			}
		}
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		cancel()

		keys := fileKeys(t, path)
		if len(keys) < 32 {
			t.Fatalf("attempt %d: the file holds %d identities, want at least the 32 written before the kill", attempt, len(keys))
		}
		if got := Open(path, Options{}).Len(); got != len(keys) {
			t.Fatalf("attempt %d: the store loads %d of the file's %d identities", attempt, got, len(keys))
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.Name() == FileName {
				continue
			}
			if !atomicfile.IsTemp(e.Name()) {
				t.Fatalf("attempt %d: unexpected file %s next to the store", attempt, e.Name())
			}
			leftovers++
		}
	}
	// How often the kill landed between create and rename (timing decides;
	// informative only).
	t.Logf("%d of 5 kills left a temporary file behind, i.e. hit a write in progress", leftovers)
}
