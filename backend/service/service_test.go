package service

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
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

// polite waits for cancellation, then takes a little time to stop, so a
// wrong stop order would show.
func polite(name string, rec *recorder, started *sync.WaitGroup) Service {
	started.Add(1)
	return Func{ServiceName: name, Fn: func(ctx context.Context) error {
		started.Done()
		<-ctx.Done()
		time.Sleep(5 * time.Millisecond)
		rec.add("stop:" + name)
		return ctx.Err()
	}}
}

func TestStopsInReverseOrderOnCancel(t *testing.T) {
	rec := &recorder{}
	var started sync.WaitGroup
	sup := &Supervisor{Services: []Service{polite("a", rec, &started), polite("b", rec, &started), polite("c", rec, &started)}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- sup.Run(ctx) }()
	started.Wait()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("clean stop returned %v", err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("supervisor did not stop")
	}
	if got := rec.list(); got != "stop:c stop:b stop:a" {
		t.Fatalf("stop order = %q, want c b a", got)
	}
}

func TestFailingServiceStopsOthersAndIsReported(t *testing.T) {
	rec := &recorder{}
	var started sync.WaitGroup
	boom := errors.New("port in use")
	failing := Func{ServiceName: "web", Fn: func(ctx context.Context) error {
		started.Wait()
		return boom
	}}
	sup := &Supervisor{Services: []Service{polite("a", rec, &started), failing, polite("c", rec, &started)}}
	err := sup.Run(context.Background())
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "web") {
		t.Fatalf("error = %v, want the web service's failure", err)
	}
	if got := rec.list(); got != "stop:c stop:a" {
		t.Fatalf("others not stopped in reverse order: %q", got)
	}
}

func TestPanicBecomesError(t *testing.T) {
	sup := &Supervisor{Services: []Service{Func{ServiceName: "oops", Fn: func(context.Context) error { panic("nil map") }}}}
	err := sup.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "panic: nil map") {
		t.Fatalf("got %v", err)
	}
}

func TestStopTimeoutAbandonsStuckServices(t *testing.T) {
	rec := &recorder{}
	var started sync.WaitGroup
	release := make(chan struct{})
	defer close(release)
	stuck := Func{ServiceName: "stuck", Fn: func(ctx context.Context) error {
		<-release // ignores its context
		return nil
	}}
	sup := &Supervisor{
		Services:    []Service{polite("first", rec, &started), stuck},
		StopTimeout: 100 * time.Millisecond,
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- sup.Run(ctx) }()
	started.Wait()
	begin := time.Now()
	cancel()
	var err error
	select {
	case err = <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("supervisor did not give up on the stuck service")
	}
	elapsed := time.Since(begin)
	if !errors.Is(err, ErrStopTimeout) || !strings.Contains(err.Error(), "stuck") {
		t.Fatalf("error = %v, want ErrStopTimeout naming stuck", err)
	}
	if elapsed > time.Second {
		t.Fatalf("took %v; the timeout is 100ms", elapsed)
	}
	// The service after the stuck one is still told to stop.
	deadline := time.Now().Add(2 * time.Second)
	for rec.list() != "stop:first" && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if rec.list() != "stop:first" {
		t.Fatalf("remaining services were not cancelled: %q", rec.list())
	}
}

func TestDefaultStopTimeoutIsTwoSeconds(t *testing.T) {
	if DefaultStopTimeout != 2*time.Second {
		t.Fatalf("DefaultStopTimeout = %v", DefaultStopTimeout)
	}
}
