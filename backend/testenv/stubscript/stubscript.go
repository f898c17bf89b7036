// Package stubscript is what the scripted model stubs (claudestub,
// codexstub) share: a script of steps answered in order, a record of every
// request, waits on both, and a server on a free 127.0.0.1 port.
package stubscript

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// Script hands out steps S in order and records requests R. Its methods
// are safe for concurrent use.
type Script[S, R any] struct {
	mu       sync.Mutex
	steps    []S
	next     int
	requests []R
	ids      int
	changed  chan struct{} // closed and replaced on every step and request
}

// New returns a script of steps.
func New[S, R any](steps ...S) *Script[S, R] {
	return &Script[S, R]{steps: steps, changed: make(chan struct{})}
}

// Append adds steps to the end of the script.
func (s *Script[S, R]) Append(steps ...S) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.steps = append(s.steps, steps...)
}

// Take returns the next step, or false when the script is used up.
func (s *Script[S, R]) Take() (S, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var step S
	if s.next >= len(s.steps) {
		return step, false
	}
	step = s.steps[s.next]
	s.next++
	s.wake()
	return step, true
}

// Record adds a request to the record.
func (s *Script[S, R]) Record(req R) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, req)
	s.wake()
}

func (s *Script[S, R]) wake() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// Requests returns every request recorded so far, in order.
func (s *Script[S, R]) Requests() []R {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]R(nil), s.requests...)
}

// Used is how many steps have been taken.
func (s *Script[S, R]) Used() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.next
}

// NextID is 1, 2, 3, … for the ids a stub makes up.
func (s *Script[S, R]) NextID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ids++
	return s.ids
}

// WaitUsed waits until n steps have been taken, or the timeout.
func (s *Script[S, R]) WaitUsed(n int, timeout time.Duration) bool {
	return s.WaitUntil(func(used int, _ []R) bool { return used >= n }, timeout)
}

// WaitUntil waits until done holds for the steps taken and the requests
// recorded, or the timeout. done is asked again after every change.
func (s *Script[S, R]) WaitUntil(done func(used int, requests []R) bool, timeout time.Duration) bool {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		ok, ch := done(s.next, s.requests), s.changed
		s.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-ch:
		case <-deadline.C:
			return false
		}
	}
}

// Serve serves h on a free 127.0.0.1 port; the caller closes the server.
func Serve(who string, h http.Handler) (*http.Server, net.Listener, error) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return nil, nil, fmt.Errorf("%s: listen on 127.0.0.1: %w", who, err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return srv, ln, nil
}

// TestLog is a logger that writes to the test's log.
func TestLog(tb testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(testWriter{tb}, nil))
}

type testWriter struct{ tb testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.tb.Helper()
	w.tb.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
