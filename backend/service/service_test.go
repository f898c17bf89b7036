package service

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// recorder notes the order in which services start and stop.
type recorder struct {
	mu     sync.Mutex
	events []string
}

func (r *recorder) add(e string) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

func (r *recorder) list() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.events, " ")
}

// polite waits for cancellation, then takes stopIn of (synctest) time to
// stop. The tests give services started earlier shorter stops, so a
// supervisor that cancelled them all at once would record them in start
// order, never in the reverse order the tests want.
func polite(name string, stopIn time.Duration, rec *recorder, started *sync.WaitGroup) Service {
	started.Add(1)
	return Func{ServiceName: name, Fn: func(ctx context.Context) error {
		started.Done()
		<-ctx.Done()
		<-time.After(stopIn)
		rec.add("stop:" + name)
		return ctx.Err()
	}}
}

func TestStopsInReverseOrderOnCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &recorder{}
		var started sync.WaitGroup
		sup := &Supervisor{Services: []Service{polite("a", time.Millisecond, rec, &started), polite("b", 2*time.Millisecond, rec, &started), polite("c", 3*time.Millisecond, rec, &started)}}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- sup.Run(ctx) }()
		started.Wait()
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("clean stop returned %v", err)
		}
		if got := rec.list(); got != "stop:c stop:b stop:a" {
			t.Fatalf("stop order = %q, want c b a", got)
		}
	})
}

func TestFailingServiceStopsOthersAndIsReported(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &recorder{}
		var started sync.WaitGroup
		boom := errors.New("port in use")
		failing := Func{ServiceName: "web", Fn: func(ctx context.Context) error {
			started.Wait()
			return boom
		}}
		sup := &Supervisor{Services: []Service{polite("a", time.Millisecond, rec, &started), failing, polite("c", 3*time.Millisecond, rec, &started)}}
		err := sup.Run(context.Background())
		if !errors.Is(err, boom) || !strings.Contains(err.Error(), "web") {
			t.Fatalf("error = %v, want the web service's failure", err)
		}
		if got := rec.list(); got != "stop:c stop:a" {
			t.Fatalf("others not stopped in reverse order: %q", got)
		}
	})
}

func TestPanicBecomesError(t *testing.T) {
	sup := &Supervisor{Services: []Service{Func{ServiceName: "oops", Fn: func(context.Context) error { panic("nil map") }}}}
	err := sup.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "panic: nil map") {
		t.Fatalf("got %v", err)
	}
}

// On synctest's clock the supervisor gives up exactly when the stop
// timeout has passed.
func TestStopTimeoutAbandonsStuckServices(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &recorder{}
		var started sync.WaitGroup
		release := make(chan struct{})
		defer close(release)
		stuck := Func{ServiceName: "stuck", Fn: func(ctx context.Context) error {
			<-release // ignores its context
			return nil
		}}
		const timeout = 100 * time.Millisecond
		sup := &Supervisor{
			Services:    []Service{polite("first", time.Millisecond, rec, &started), stuck},
			StopTimeout: timeout,
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- sup.Run(ctx) }()
		started.Wait()
		begin := time.Now()
		cancel()
		err := <-done
		if elapsed := time.Since(begin); elapsed != timeout {
			t.Fatalf("gave up after %v; the timeout is %v", elapsed, timeout)
		}
		if !errors.Is(err, ErrStopTimeout) || !strings.Contains(err.Error(), "stuck") {
			t.Fatalf("error = %v, want ErrStopTimeout naming stuck", err)
		}
		// The service after the stuck one is still told to stop.
		<-time.After(time.Millisecond) // synctest's clock: first's stop takes 1 ms
		synctest.Wait()                // and first has recorded it
		if rec.list() != "stop:first" {
			t.Fatalf("remaining services were not cancelled: %q", rec.list())
		}
	})
}

func TestDefaultStopTimeoutIsTwoSeconds(t *testing.T) {
	if DefaultStopTimeout != 2*time.Second {
		t.Fatalf("DefaultStopTimeout = %v", DefaultStopTimeout)
	}
}
