package daemon_test

import (
	"sync"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/daemon"
)

// fakeLoopTimer is a daemon.Timer that fires only when the test says so
// (or at once when reset to a duration ≤ 0, as a real timer would).
type fakeLoopTimer struct {
	mu      sync.Mutex
	c       chan time.Time
	armed   bool
	d       time.Duration
	nResets int
	changed chan struct{} // signalled on every Reset
}

var _ daemon.Timer = (*fakeLoopTimer)(nil)

func newFakeLoopTimer(armed bool) *fakeLoopTimer {
	return &fakeLoopTimer{c: make(chan time.Time, 1), armed: armed, changed: make(chan struct{}, 1)}
}

func (f *fakeLoopTimer) C() <-chan time.Time { return f.c }

func (f *fakeLoopTimer) Reset(d time.Duration) {
	f.mu.Lock()
	f.drain()
	f.d, f.armed = d, true
	f.nResets++
	if d <= 0 {
		f.armed = false
		f.c <- time.Time{}
	}
	f.mu.Unlock()
	select {
	case f.changed <- struct{}{}:
	default:
	}
}

func (f *fakeLoopTimer) Stop() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.drain()
	f.armed = false
}

// drain drops a value that was not received (Reset and Stop discard it,
// like time.Timer's since Go 1.23); f.mu must be held.
func (f *fakeLoopTimer) drain() {
	select {
	case <-f.c:
	default:
	}
}

// fire delivers the timer's value now; the timer is no longer armed.
func (f *fakeLoopTimer) fire() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.drain()
	f.armed = false
	f.c <- time.Time{}
}

// waitArmed waits until the daemon has armed the timer and returns the
// duration it asked for.
func (f *fakeLoopTimer) waitArmed(t *testing.T) time.Duration {
	t.Helper()
	deadline := time.After(ioTimeout)
	for {
		f.mu.Lock()
		armed, d := f.armed, f.d
		f.mu.Unlock()
		if armed {
			return d
		}
		select {
		case <-f.changed:
		case <-deadline:
			t.Fatal("the daemon did not arm its timer")
			return 0
		}
	}
}

// fireUntil fires the timer and waits until done says the daemon acted on
// it. A real timer re-armed with a duration read just before the clock
// moved fires again a moment later; this fake one has no time of its own,
// so when the daemon re-arms it after the fire without having acted, it is
// fired again (the clock has not moved, so only what is due now happens).
func (f *fakeLoopTimer) fireUntil(t *testing.T, what string, done func() bool) {
	t.Helper()
	f.fire()
	deadline := time.Now().Add(ioTimeout)
	for !done() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s after the timer fired", what)
		}
		f.mu.Lock()
		rearmed := f.armed && len(f.c) == 0
		f.mu.Unlock()
		if rearmed {
			f.fire()
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func (f *fakeLoopTimer) resets() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.nResets
}
