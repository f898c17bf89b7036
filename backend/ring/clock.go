package ring

import (
	"sync"
	"time"
)

// Clock is the time source of a Ring. SystemClock is the real one;
// ManualClock is for tests.
type Clock interface {
	Now() time.Time
	// NewTimer returns a timer that fires once after d.
	NewTimer(d time.Duration) Timer
}

// Timer is a one-shot timer made by a Clock.
type Timer interface {
	C() <-chan time.Time
	Stop() bool
}

// SystemClock is the wall clock.
type SystemClock struct{}

// Now is time.Now.
func (SystemClock) Now() time.Time { return time.Now() }

// NewTimer wraps time.NewTimer.
func (SystemClock) NewTimer(d time.Duration) Timer { return sysTimer{time.NewTimer(d)} }

type sysTimer struct{ t *time.Timer }

func (s sysTimer) C() <-chan time.Time { return s.t.C }
func (s sysTimer) Stop() bool          { return s.t.Stop() }

// ManualClock is a Clock that moves only when told (Advance, Set). Timers
// fire when the clock passes their deadline. Safe for concurrent use.
type ManualClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*manualTimer
}

// NewManualClock starts a manual clock at t.
func NewManualClock(t time.Time) *ManualClock { return &ManualClock{now: t} }

// Now returns the clock's time.
func (m *ManualClock) Now() time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.now
}

// Advance moves the clock forward by d and fires due timers.
func (m *ManualClock) Advance(d time.Duration) {
	m.mu.Lock()
	m.now = m.now.Add(d)
	now := m.now
	keep := m.timers[:0]
	var due []*manualTimer
	for _, t := range m.timers {
		if !t.at.After(now) {
			due = append(due, t)
		} else {
			keep = append(keep, t)
		}
	}
	m.timers = keep
	m.mu.Unlock()
	for _, t := range due {
		t.fire(now)
	}
}

// Timers is the number of pending timers (tests use it to know a listener
// is waiting).
func (m *ManualClock) Timers() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.timers)
}

// NewTimer returns a timer firing when the clock reaches now+d.
func (m *ManualClock) NewTimer(d time.Duration) Timer {
	t := &manualTimer{c: make(chan time.Time, 1), clock: m}
	m.mu.Lock()
	t.at = m.now.Add(d)
	if d <= 0 {
		m.mu.Unlock()
		t.fire(t.at)
		return t
	}
	m.timers = append(m.timers, t)
	m.mu.Unlock()
	return t
}

type manualTimer struct {
	at    time.Time
	c     chan time.Time
	clock *ManualClock
	once  sync.Once
}

func (t *manualTimer) C() <-chan time.Time { return t.c }

func (t *manualTimer) fire(now time.Time) {
	t.once.Do(func() { t.c <- now })
}

func (t *manualTimer) Stop() bool {
	m := t.clock
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, x := range m.timers {
		if x == t {
			m.timers = append(m.timers[:i], m.timers[i+1:]...)
			return true
		}
	}
	return false
}
