package testutil

import (
	"testing"
	"time"
)

// EventuallyTimeout is how long Eventually waits by default. It is a limit
// for a condition that never comes true (the test then fails), not a
// tolerance: a passing test returns as soon as its condition holds, so a
// loaded machine makes it slower, never red.
const EventuallyTimeout = 30 * time.Second

// eventuallyPoll is how often Eventually looks again. Conditions are cheap
// reads (a field under a lock, a file, a DOM query), so 5 ms keeps a waiting
// test responsive without spinning.
const eventuallyPoll = 5 * time.Millisecond

// Eventually waits until cond returns true, polling it, and fails the test
// with what (a phrase such as "the session is running") if it does not
// within EventuallyTimeout. It is the one wait every test uses: no test
// writes its own sleep loop.
func Eventually(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	if !eventually(EventuallyTimeout, cond) {
		tb.Fatalf("timed out after %v waiting until %s", EventuallyTimeout, what)
	}
}

// EventuallyWithin is Eventually with a limit of its own, for a wait whose
// whole point is a bound (a deadline the product promises), or a condition
// whose absence is expected and checked by the caller.
func EventuallyWithin(tb testing.TB, limit time.Duration, what string, cond func() bool) {
	tb.Helper()
	if !eventually(limit, cond) {
		tb.Fatalf("timed out after %v waiting until %s", limit, what)
	}
}

// EventuallyNoError waits until f returns nil and fails the test with the
// last error if it does not within EventuallyTimeout.
func EventuallyNoError(tb testing.TB, what string, f func() error) {
	tb.Helper()
	var last error
	if !eventually(EventuallyTimeout, func() bool { last = f(); return last == nil }) {
		tb.Fatalf("timed out after %v waiting until %s: %v", EventuallyTimeout, what, last)
	}
}

// Poll reports whether cond came true within limit, without failing the
// test: for a caller that words its own failure.
func Poll(limit time.Duration, cond func() bool) bool { return eventually(limit, cond) }

func eventually(limit time.Duration, cond func() bool) bool {
	if cond() {
		return true
	}
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	tick := time.NewTicker(eventuallyPoll)
	defer tick.Stop()
	for {
		select {
		case <-deadline.C:
			return cond()
		case <-tick.C:
			if cond() {
				return true
			}
		}
	}
}

// Wait receives one value from ch, or fails the test after
// EventuallyTimeout saying what it waited for.
func Wait[T any](tb testing.TB, what string, ch <-chan T) T {
	tb.Helper()
	t := time.NewTimer(EventuallyTimeout)
	defer t.Stop()
	select {
	case v := <-ch:
		return v
	case <-t.C:
		tb.Fatalf("timed out after %v waiting for %s", EventuallyTimeout, what)
		var zero T
		return zero
	}
}
