// Package daemontest provides the fakes used to test the Wire daemon and
// the code built on it: a fake surface with the configuration of the
// reference tests (wire-protocol-1 §14). Their clock is a *clock.Fake
// (backend/clock) passed as daemon.Options.Clock.
package daemontest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/lets-app/lets/backend/control"
	"github.com/lets-app/lets/backend/surface"
	"github.com/lets-app/lets/backend/wire"
)

// The fake surface's identity, as in the reference tests.
const (
	Profile = "test/grid/device"
	Input   = "Test input"
	Output  = "Test output"
)

// Surface is a fake surface.Surface: capacity 4 (cyan, magenta, lime,
// orange) by default, kind "midi", profile test/grid/device. It records
// every rendered view and lets a test inject presses and selections.
type Surface struct {
	capacity int
	events   chan surface.Event

	mu        sync.Mutex
	views     []control.View
	changed   chan struct{} // closed and replaced on every render
	opens     int
	closes    int
	openErr   error
	renderErr error
}

// NewSurface returns the reference test surface (capacity 4).
func NewSurface() *Surface { return NewSurfaceCapacity(4) }

// NewSurfaceCapacity returns a fake surface with capacity slots (1…8) and
// the first capacity identity accents.
func NewSurfaceCapacity(capacity int) *Surface {
	return &Surface{capacity: capacity, events: make(chan surface.Event, 1024), changed: make(chan struct{})}
}

// Capacity implements surface.Surface.
func (s *Surface) Capacity() int { return s.capacity }

// Accents implements surface.Surface.
func (s *Surface) Accents() []string { return wire.AccentPalette(s.capacity) }

// Describe implements surface.Surface.
func (s *Surface) Describe() control.Surface {
	return control.Surface{
		Profile: Profile, Input: Input, Output: Output,
		Descriptors: []wire.SurfaceDescriptor{{
			Kind: wire.SurfaceKindMIDI, Profile: Profile, VisualProtocol: wire.VisualProtocolVersion,
			Input: Input, Output: Output,
		}},
	}
}

// Open implements surface.Surface; it counts calls.
func (s *Surface) Open(context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opens++
	return s.openErr
}

// FailOpen makes later Open calls return err (nil to succeed again).
func (s *Surface) FailOpen(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.openErr = err
}

// Opens returns how many times Open was called.
func (s *Surface) Opens() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.opens
}

// Render implements surface.Surface.
func (s *Surface) Render(v control.View) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.views = append(s.views, v)
	if len(s.views) > 4096 {
		s.views = append([]control.View(nil), s.views[len(s.views)-1024:]...)
	}
	close(s.changed)
	s.changed = make(chan struct{})
	return s.renderErr
}

// FailRender makes later Render calls return err (nil to succeed again).
func (s *Surface) FailRender(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.renderErr = err
}

// Events implements surface.Surface.
func (s *Surface) Events() <-chan surface.Event { return s.events }

// Close implements surface.Surface; it counts calls.
func (s *Surface) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closes++
	return nil
}

// Closes returns how many times Close was called.
func (s *Surface) Closes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closes
}

// Select injects a press on the selector of slot.
func (s *Surface) Select(slot int) { s.events <- surface.SessionSelected{Slot: slot} }

// Press injects a press of action.
func (s *Surface) Press(a wire.Action) { s.events <- surface.ActionPressed{Action: a} }

// Inject injects any surface event (e.g. surface.ExperienceRequested).
func (s *Surface) Inject(ev surface.Event) { s.events <- ev }

// Views returns a copy of every view rendered so far (the most recent
// ones when there were very many).
func (s *Surface) Views() []control.View {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]control.View(nil), s.views...)
}

// LastView returns the most recently rendered view.
func (s *Surface) LastView() (control.View, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.views) == 0 {
		return control.View{}, false
	}
	return s.views[len(s.views)-1], true
}

// ErrTimeout is returned by WaitView when no matching view was rendered.
var ErrTimeout = errors.New("timed out waiting for the surface")

// WaitView waits until the most recent view satisfies ok, at most timeout.
func (s *Surface) WaitView(timeout time.Duration, ok func(control.View) bool) (control.View, error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		ch := s.changed
		var last control.View
		have := len(s.views) > 0
		if have {
			last = s.views[len(s.views)-1]
		}
		s.mu.Unlock()
		if have && ok(last) {
			return last, nil
		}
		select {
		case <-ch:
		case <-deadline.C:
			return last, fmt.Errorf("%w after %v; last view: %+v", ErrTimeout, timeout, last)
		}
	}
}
