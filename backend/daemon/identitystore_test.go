package daemon_test

import (
	"io/fs"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/atomicfile"
	"github.com/lets-app/lets/backend/daemon"
	"github.com/lets-app/lets/backend/identitystore"
)

// withStoreOptions gives the harness an identity store at path opened with
// the test's write-behind options.
func withStoreOptions(path string, so identitystore.Options) harnessOpt {
	return func(o *daemon.Options) {
		o.IdentityStore = path
		daemon.SetIdentityStoreOptions(o, so)
	}
}

// storeAfter hands the store's writer channels the test fires, and records
// the delays it asked for.
type storeAfter struct {
	mu    sync.Mutex
	asked []time.Duration
	chans []chan time.Time
	calls chan int
}

func newStoreAfter() *storeAfter { return &storeAfter{calls: make(chan int, 64)} }

func (a *storeAfter) After(d time.Duration) <-chan time.Time {
	a.mu.Lock()
	c := make(chan time.Time, 1)
	a.asked = append(a.asked, d)
	a.chans = append(a.chans, c)
	i := len(a.chans) - 1
	a.mu.Unlock()
	a.calls <- i
	return c
}

func (a *storeAfter) next(t *testing.T) (int, time.Duration) {
	t.Helper()
	select {
	case i := <-a.calls:
		a.mu.Lock()
		defer a.mu.Unlock()
		return i, a.asked[i]
	case <-time.After(ioTimeout):
		t.Fatal("the identity store's writer never asked to wait before writing")
		return 0, 0
	}
}

func (a *storeAfter) fire(i int) {
	a.mu.Lock()
	c := a.chans[i]
	a.mu.Unlock()
	c <- time.Time{}
}

// Write-behind in the daemon (issue #10): a remembered accent reaches the
// disk by itself, at most identitystore.DefaultFlushDelay (≤ 1 s) after the
// change, while the daemon keeps running; nothing is written before.
func TestIdentityStoreWrittenBehindWhileRunning(t *testing.T) {
	path := filepath.Join(shortDir(t), "state", identitystore.FileName)
	after := newStoreAfter()
	wrote := make(chan struct{}, 16)
	write := func(p string, data []byte, perm fs.FileMode) error {
		err := atomicfile.Write(p, data, perm)
		wrote <- struct{}{}
		return err
	}
	h := start(t, withStoreOptions(path, identitystore.Options{After: after.After, WriteFile: write}))
	h.update("codex", "abc", "running")
	i, d := after.next(t)
	if d != identitystore.DefaultFlushDelay || d > time.Second {
		t.Fatalf("the daemon writes %v after a change, want identitystore.DefaultFlushDelay (%v, at most 1 s)", d, identitystore.DefaultFlushDelay)
	}
	if got := identitystore.Open(path, identitystore.Options{}).Lookup("codex", "abc"); got != "" {
		t.Fatalf("the store was written before its delay ended (%q)", got)
	}
	after.fire(i)
	select {
	case <-wrote:
	case <-time.After(ioTimeout):
		t.Fatal("the delayed write did not happen")
	}
	if got := identitystore.Open(path, identitystore.Options{}).Lookup("codex", "abc"); got != "cyan" {
		t.Fatalf("while the daemon runs the store says %q for codex/abc, want cyan", got)
	}
}

// Write-behind in the daemon: a daemon stopped right after a change leaves
// the change on disk, although its write was not due for an hour.
func TestIdentityStoreWrittenOnDaemonStop(t *testing.T) {
	path := filepath.Join(shortDir(t), "state", identitystore.FileName)
	h := start(t, withStoreOptions(path, identitystore.Options{FlushDelay: time.Hour}))
	h.update("codex", "abc", "running")
	h.update("codex", "def", "running")
	h.stop()
	store := identitystore.Open(path, identitystore.Options{})
	if store.Lookup("codex", "abc") != "cyan" || store.Lookup("codex", "def") != "magenta" {
		t.Fatalf("after stop the store says abc=%q def=%q, want cyan and magenta",
			store.Lookup("codex", "abc"), store.Lookup("codex", "def"))
	}
}

// Write-behind in the daemon: the owner loop never waits for the disk.
// While the store's write hangs, 16 agents taking turns through 8 slots
// (every message moves one into a slot and remembers its accent) still get
// every state_ack; the hung write's successor saves them at shutdown.
func TestIdentityStoreBlockedDiskDoesNotDelayStateAcks(t *testing.T) {
	path := filepath.Join(shortDir(t), "state", identitystore.FileName)
	entered, release := make(chan struct{}, 64), make(chan struct{})
	var once sync.Once
	unblock := func() { once.Do(func() { close(release) }) }
	t.Cleanup(unblock)
	blocking := func(p string, data []byte, perm fs.FileMode) error {
		entered <- struct{}{}
		<-release
		return atomicfile.Write(p, data, perm)
	}
	immediately := func(time.Duration) <-chan time.Time {
		c := make(chan time.Time, 1)
		c <- time.Time{}
		return c
	}
	h := start(t,
		func(o *daemon.Options) { o.Surface = daemon.NoSurface() },
		withStoreOptions(path, identitystore.Options{After: immediately, WriteFile: blocking}))
	c := h.dial()
	c.send(stateMsg("codex", "agent-0", "running", `"reply":true`))
	if m := c.read(); m["type"] != "state_ack" {
		t.Fatalf("state answered %v", m)
	}
	select {
	case <-entered:
	case <-time.After(ioTimeout):
		t.Fatal("the store's writer never started its write")
	}

	// The write now hangs until release; every ack must still come back
	// (each read fails the test after ioTimeout).
	states := []string{"running", "waiting_for_reply"}
	for i := range 160 {
		sid := "agent-" + strconv.Itoa(i%16)
		c.send(stateMsg("codex", sid, states[(i/16)%2], `"reply":true`))
		m := c.read()
		if m["type"] != "state_ack" || m["accent"] == nil {
			t.Fatalf("message %d: want a state_ack with an accent while the disk hangs, got %v", i, m)
		}
	}
	unblock()
	h.stop()
	store := identitystore.Open(path, identitystore.Options{})
	if store.Len() != 16 {
		t.Fatalf("after stop the store holds %d identities, want all 16 agents", store.Len())
	}
}
