// Package clock is the one time source of Lets' long-running parts: the pad
// daemon, the web surface, the tray, the chat driver and the agent runner
// read the time and arm their timers through a Clock. Real is the wall
// clock; Fake moves only when a test moves it, and its timers fire when it
// passes their deadline, in deadline order, so timing is checked on the
// test's own clock rather than by measuring a loaded machine.
package clock

import "time"

// Clock reads the time and makes timers.
type Clock interface {
	Now() time.Time
	// NewTimer returns a timer that fires once, d from now.
	NewTimer(d time.Duration) Timer
	// NewTicker returns a ticker that fires every d; d must be positive.
	NewTicker(d time.Duration) Ticker
	// AfterFunc calls f in its own goroutine, d from now, unless the
	// returned timer is stopped first.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a one-shot timer. After Stop or Reset returns, no value from an
// earlier setting is received (time.Timer's behaviour since Go 1.23).
type Timer interface {
	// C is the channel the timer fires on (nil for an AfterFunc timer).
	C() <-chan time.Time
	// Stop reports whether it stopped a timer that had not fired yet.
	Stop() bool
	// Reset arms the timer again, d from now; it reports whether the timer
	// was still pending.
	Reset(d time.Duration) bool
}

// Ticker fires repeatedly; a slow receiver misses ticks rather than
// queueing them.
type Ticker interface {
	C() <-chan time.Time
	Stop()
	Reset(d time.Duration)
}

// Real returns the wall clock.
func Real() Clock { return realClock{} }

// Or returns c, or the wall clock when c is nil: the default for an
// Options field that tests set.
func Or(c Clock) Clock {
	if c == nil {
		return realClock{}
	}
	return c
}

type realClock struct{}

func (realClock) Now() time.Time                   { return time.Now() }
func (realClock) NewTimer(d time.Duration) Timer   { return realTimer{t: time.NewTimer(d)} }
func (realClock) NewTicker(d time.Duration) Ticker { return realTicker{t: time.NewTicker(d)} }
func (realClock) AfterFunc(d time.Duration, f func()) Timer {
	return realTimer{t: time.AfterFunc(d, f), fn: true}
}

type realTimer struct {
	t  *time.Timer
	fn bool
}

func (r realTimer) C() <-chan time.Time {
	if r.fn {
		return nil
	}
	return r.t.C
}
func (r realTimer) Stop() bool                 { return r.t.Stop() }
func (r realTimer) Reset(d time.Duration) bool { return r.t.Reset(d) }

type realTicker struct{ t *time.Ticker }

func (r realTicker) C() <-chan time.Time   { return r.t.C }
func (r realTicker) Stop()                 { r.t.Stop() }
func (r realTicker) Reset(d time.Duration) { r.t.Reset(d) }
