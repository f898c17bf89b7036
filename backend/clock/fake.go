package clock

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"
)

// Fake is a Clock that moves only when told (Advance, Set). Its timers and
// tickers fire when the clock reaches their deadline, earliest first, each
// with the clock reading its deadline. Safe for concurrent use.
//
// A test that moves the clock must know the code under test has armed the
// timer it means to fire: BlockUntil waits for a number of pending timers,
// and Advance fires only what is due, never "again, just in case".
type Fake struct {
	mu      sync.Mutex
	now     time.Time
	seq     uint64
	pending []*fakeTimer
	changed chan struct{} // closed and replaced whenever pending changes
}

// NewFake returns a fake clock reading t.
func NewFake(t time.Time) *Fake { return &Fake{now: t, changed: make(chan struct{})} }

// Now returns the fake time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// Advance moves the clock forward by d, firing every timer due on the way.
func (f *Fake) Advance(d time.Duration) {
	if d < 0 {
		panic(fmt.Sprintf("clock: Advance(%v): a clock does not go back", d))
	}
	f.mu.Lock()
	target := f.now.Add(d)
	f.mu.Unlock()
	f.Set(target)
}

// Set moves the clock to t (never back), firing every timer due by then.
func (f *Fake) Set(t time.Time) {
	for {
		f.mu.Lock()
		if t.Before(f.now) {
			f.mu.Unlock()
			panic(fmt.Sprintf("clock: Set(%v) is before now (%v)", t, f.now))
		}
		next := f.earliestLocked()
		if next == nil || next.at.After(t) {
			f.now = t
			f.mu.Unlock()
			return
		}
		f.now = next.at
		f.removeLocked(next)
		fire := next.fireLocked()
		f.mu.Unlock()
		fire()
	}
}

// Pending is the number of armed timers and tickers.
func (f *Fake) Pending() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.pending)
}

// NextDeadline is when the earliest armed timer fires, and whether there
// is one.
func (f *Fake) NextDeadline() (time.Time, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if e := f.earliestLocked(); e != nil {
		return e.at, true
	}
	return time.Time{}, false
}

// BlockUntil waits until at least n timers or tickers are armed: the code
// under test has reached the point where it waits on the clock. It returns
// an error when ctx ends first.
func (f *Fake) BlockUntil(ctx context.Context, n int) error {
	for {
		f.mu.Lock()
		have, ch := len(f.pending), f.changed
		f.mu.Unlock()
		if have >= n {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("clock: %d timers armed, waited for %d: %w", have, n, ctx.Err())
		}
	}
}

// NewTimer returns a timer that fires when the clock reaches now+d.
func (f *Fake) NewTimer(d time.Duration) Timer {
	t := &fakeTimer{clock: f, c: make(chan time.Time, 1)}
	t.Reset(d)
	return t
}

// NewTicker returns a ticker that fires every d of fake time.
func (f *Fake) NewTicker(d time.Duration) Ticker {
	if d <= 0 {
		panic("clock: NewTicker needs a positive interval")
	}
	t := &fakeTimer{clock: f, c: make(chan time.Time, 1), period: d}
	t.Reset(d)
	return fakeTicker{t}
}

// AfterFunc calls fn in its own goroutine when the clock reaches now+d.
func (f *Fake) AfterFunc(d time.Duration, fn func()) Timer {
	t := &fakeTimer{clock: f, fn: fn}
	t.Reset(d)
	return t
}

func (f *Fake) earliestLocked() *fakeTimer {
	if len(f.pending) == 0 {
		return nil
	}
	sort.SliceStable(f.pending, func(i, j int) bool {
		a, b := f.pending[i], f.pending[j]
		if !a.at.Equal(b.at) {
			return a.at.Before(b.at)
		}
		return a.seq < b.seq
	})
	return f.pending[0]
}

func (f *Fake) removeLocked(t *fakeTimer) bool {
	for i, x := range f.pending {
		if x == t {
			f.pending = append(f.pending[:i], f.pending[i+1:]...)
			f.notifyLocked()
			return true
		}
	}
	return false
}

func (f *Fake) addLocked(t *fakeTimer) {
	f.seq++
	t.seq = f.seq
	f.pending = append(f.pending, t)
	f.notifyLocked()
}

func (f *Fake) notifyLocked() {
	close(f.changed)
	f.changed = make(chan struct{})
}

type fakeTimer struct {
	clock  *Fake
	at     time.Time
	seq    uint64
	c      chan time.Time // nil for AfterFunc
	fn     func()
	period time.Duration // > 0 for a ticker
}

func (t *fakeTimer) C() <-chan time.Time { return t.c }

// fireLocked runs with the clock's lock held and returns what to do after
// it is released. A ticker re-arms itself at its next deadline.
func (t *fakeTimer) fireLocked() func() {
	at := t.at
	if t.period > 0 {
		t.at = t.at.Add(t.period)
		t.clock.addLocked(t)
	}
	if t.fn != nil {
		fn := t.fn
		return func() { go fn() }
	}
	select {
	case t.c <- at:
	default: // a slow receiver misses the tick, as with a real ticker
	}
	return func() {}
}

func (t *fakeTimer) drainLocked() {
	if t.c == nil {
		return
	}
	select {
	case <-t.c:
	default:
	}
}

func (t *fakeTimer) Stop() bool {
	f := t.clock
	f.mu.Lock()
	defer f.mu.Unlock()
	t.drainLocked()
	return f.removeLocked(t)
}

func (t *fakeTimer) Reset(d time.Duration) bool {
	f := t.clock
	f.mu.Lock()
	was := f.removeLocked(t)
	t.drainLocked()
	t.at = f.now.Add(d)
	if d <= 0 && t.period == 0 {
		fire := t.fireLocked()
		f.mu.Unlock()
		fire()
		return was
	}
	f.addLocked(t)
	f.mu.Unlock()
	return was
}

type fakeTicker struct{ t *fakeTimer }

func (k fakeTicker) C() <-chan time.Time { return k.t.c }
func (k fakeTicker) Stop()               { k.t.Stop() }
func (k fakeTicker) Reset(d time.Duration) {
	if d <= 0 {
		panic("clock: Ticker.Reset needs a positive interval")
	}
	k.t.clock.mu.Lock()
	k.t.period = d
	k.t.clock.mu.Unlock()
	k.t.Reset(d)
}
