package clock

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

var epoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func received(c <-chan time.Time) (time.Time, bool) {
	select {
	case v := <-c:
		return v, true
	default:
		return time.Time{}, false
	}
}

func TestFakeTimerFiresOnlyWhenItsDeadlinePasses(t *testing.T) {
	f := NewFake(epoch)
	tm := f.NewTimer(time.Second)
	f.Advance(999 * time.Millisecond)
	if _, ok := received(tm.C()); ok {
		t.Fatal("fired before its deadline")
	}
	f.Advance(time.Millisecond)
	at, ok := received(tm.C())
	if !ok || !at.Equal(epoch.Add(time.Second)) {
		t.Fatalf("fired %v at %v; want once at the deadline", ok, at)
	}
	f.Advance(time.Hour)
	if _, ok := received(tm.C()); ok {
		t.Fatal("a one-shot timer fired twice")
	}
}

func TestFakeFiresInDeadlineOrderWithTheClockAtEachDeadline(t *testing.T) {
	f := NewFake(epoch)
	seen := make(chan time.Duration, 3)
	for _, d := range []time.Duration{3 * time.Second, time.Second, 2 * time.Second} {
		f.AfterFunc(d, func() { seen <- d })
	}
	f.Advance(5 * time.Second)
	got := map[time.Duration]bool{}
	for range 3 {
		got[<-seen] = true
	}
	if len(got) != 3 {
		t.Fatalf("callbacks ran: %v; want each once", got)
	}
	// AfterFunc runs in goroutines, so channel timers show the order:
	a, b := f.NewTimer(2*time.Second), f.NewTimer(time.Second)
	f.Advance(2 * time.Second)
	va, _ := received(a.C())
	vb, _ := received(b.C())
	if !vb.Before(va) {
		t.Fatalf("timer values %v, %v: the earlier deadline must read the earlier time", vb, va)
	}
	if f.Now() != epoch.Add(7*time.Second) {
		t.Fatalf("now = %v", f.Now())
	}
}

func TestFakeStopAndResetDropStaleValues(t *testing.T) {
	f := NewFake(epoch)
	tm := f.NewTimer(time.Second)
	f.Advance(time.Second) // fired, value waiting in the channel
	if tm.Stop() {
		t.Fatal("Stop reported a pending timer after it fired")
	}
	if _, ok := received(tm.C()); ok {
		t.Fatal("a value from before Stop was received")
	}
	tm.Reset(time.Second)
	f.Advance(time.Second)
	tm.Reset(time.Second) // value from the previous setting must go
	if _, ok := received(tm.C()); ok {
		t.Fatal("a value from before Reset was received")
	}
	if !tm.Stop() {
		t.Fatal("Stop of a pending timer reported false")
	}
	if f.Pending() != 0 {
		t.Fatalf("pending = %d", f.Pending())
	}
}

func TestFakeTickerFiresEveryPeriodAndDropsForASlowReader(t *testing.T) {
	f := NewFake(epoch)
	k := f.NewTicker(time.Second)
	f.Advance(time.Second)
	if _, ok := received(k.C()); !ok {
		t.Fatal("no tick after one period")
	}
	f.Advance(5 * time.Second) // five ticks, one buffered
	if _, ok := received(k.C()); !ok {
		t.Fatal("no tick after five periods")
	}
	if _, ok := received(k.C()); ok {
		t.Fatal("missed ticks were queued")
	}
	k.Stop()
	f.Advance(time.Hour)
	if _, ok := received(k.C()); ok {
		t.Fatal("a stopped ticker ticked")
	}
}

func TestFakeAfterFuncRunsOnceAndStopPreventsIt(t *testing.T) {
	f := NewFake(epoch)
	var ran atomic.Int32
	done := make(chan struct{})
	f.AfterFunc(time.Second, func() { ran.Add(1); close(done) })
	stopped := f.AfterFunc(time.Second, func() { ran.Add(100) })
	if !stopped.Stop() {
		t.Fatal("Stop of a pending AfterFunc reported false")
	}
	f.Advance(time.Second)
	<-done
	f.Advance(time.Hour)
	if ran.Load() != 1 {
		t.Fatalf("ran = %d", ran.Load())
	}
}

func TestFakeBlockUntilWaitsForTheCodeUnderTestToArm(t *testing.T) {
	f := NewFake(epoch)
	armed := make(chan Timer)
	go func() { armed <- f.NewTimer(time.Minute) }()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := f.BlockUntil(ctx, 1); err != nil {
		t.Fatal(err)
	}
	tm := <-armed
	f.Advance(time.Minute)
	if _, ok := received(tm.C()); !ok {
		t.Fatal("armed timer did not fire")
	}
	short, cancel2 := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel2()
	if err := f.BlockUntil(short, 5); err == nil {
		t.Fatal("BlockUntil returned without five timers")
	}
}

func TestFakeTimerArmedByAFiringCallbackFiresInTheSameAdvance(t *testing.T) {
	f := NewFake(epoch)
	// A zero-duration timer fires at once.
	tm := f.NewTimer(0)
	if _, ok := received(tm.C()); !ok {
		t.Fatal("a zero timer did not fire at once")
	}
	// A timer armed for the past after an Advance still waits for the
	// next Advance past its deadline only if it is in the future.
	tm2 := f.NewTimer(time.Second)
	f.Set(epoch.Add(time.Second))
	if _, ok := received(tm2.C()); !ok {
		t.Fatal("Set to the deadline did not fire")
	}
}

func TestRealClockTimers(t *testing.T) {
	c := Or(nil)
	tm := c.NewTimer(time.Millisecond)
	<-tm.C()
	done := make(chan struct{})
	at := c.AfterFunc(time.Millisecond, func() { close(done) })
	<-done
	if at.C() != nil {
		t.Fatal("AfterFunc timer has a channel")
	}
	k := c.NewTicker(time.Millisecond)
	<-k.C()
	k.Stop()
	if c.Now().IsZero() {
		t.Fatal("zero time")
	}
}
