// Package service runs long-lived parts of the app, each a Run(ctx) error,
// and stops them in reverse start order.
package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"
)

// Service is one long-running part. Run blocks until ctx is cancelled (then
// it returns nil or ctx.Err()) or until it fails.
type Service interface {
	Name() string
	Run(ctx context.Context) error
}

// Func adapts a function to a Service.
type Func struct {
	ServiceName string
	Fn          func(ctx context.Context) error
}

func (f Func) Name() string                  { return f.ServiceName }
func (f Func) Run(ctx context.Context) error { return f.Fn(ctx) }

// DefaultStopTimeout is how long all services together get to stop.
const DefaultStopTimeout = 2 * time.Second

// Supervisor starts services in order and stops them in reverse order when
// its context ends or any service fails.
type Supervisor struct {
	Services    []Service
	StopTimeout time.Duration
	Log         *slog.Logger
}

type running struct {
	svc    Service
	cancel context.CancelFunc
	done   chan struct{} // closed when Run has returned; err is set before
	err    error
}

// ErrStopTimeout means some service did not return within the stop timeout.
var ErrStopTimeout = errors.New("a service did not stop in time")

// Run starts every service and blocks until ctx is done or one of them
// returns. It then cancels the services one by one, last started first, each
// waited for before the next is cancelled, all within StopTimeout. It returns
// the first service's failure, or an ErrStopTimeout-wrapping error naming the
// services that did not stop, or nil.
func (s *Supervisor) Run(ctx context.Context) error {
	log := s.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	stopTimeout := s.StopTimeout
	if stopTimeout <= 0 {
		stopTimeout = DefaultStopTimeout
	}
	exits := make(chan int, len(s.Services))
	runs := make([]*running, 0, len(s.Services))
	for i, svc := range s.Services {
		sctx, cancel := context.WithCancel(context.Background())
		r := &running{svc: svc, cancel: cancel, done: make(chan struct{})}
		runs = append(runs, r)
		go func(i int, r *running) {
			r.err = runSafely(sctx, r.svc)
			close(r.done)
			exits <- i
		}(i, r)
		log.Debug("service started", "service", svc.Name())
	}

	var firstErr error
	select {
	case <-ctx.Done():
	case i := <-exits:
		r := runs[i]
		if r.err != nil && !errors.Is(r.err, context.Canceled) {
			firstErr = fmt.Errorf("%s: %w", r.svc.Name(), r.err)
			log.Error("service failed; stopping the others", "service", r.svc.Name(), "err", r.err)
		} else {
			log.Info("service ended; stopping the others", "service", r.svc.Name())
		}
	}

	deadline := time.NewTimer(stopTimeout)
	defer deadline.Stop()
	var stuck []string
	for i := len(runs) - 1; i >= 0; i-- {
		r := runs[i]
		r.cancel()
		if len(stuck) > 0 {
			// Time is up: ask the rest to stop without waiting for them.
			stuck = append(stuck, r.svc.Name())
			continue
		}
		select {
		case <-r.done:
			if r.err != nil && !errors.Is(r.err, context.Canceled) && firstErr == nil {
				firstErr = fmt.Errorf("%s: stopping: %w", r.svc.Name(), r.err)
			}
			log.Debug("service stopped", "service", r.svc.Name())
		case <-deadline.C:
			stuck = append(stuck, r.svc.Name())
		}
	}
	if len(stuck) > 0 {
		log.Warn("services did not stop in time", "services", stuck, "timeout", stopTimeout)
		if firstErr == nil {
			return fmt.Errorf("%w: %v", ErrStopTimeout, stuck)
		}
	}
	return firstErr
}

// runSafely turns a panic inside a service into an error so one broken
// service stops the app cleanly instead of crashing it mid-write.
func runSafely(ctx context.Context, svc Service) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return svc.Run(ctx)
}
