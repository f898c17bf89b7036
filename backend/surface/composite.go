package surface

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/lets-app/lets/backend/control"
	"github.com/lets-app/lets/backend/visual"
	"github.com/lets-app/lets/backend/wire"
)

// Kind of a composite in §10's surface_kind column; it never appears in
// status (a composite reports its members' descriptors).
const KindComposite = "composite"

// Errors of NewComposite, for errors.Is.
var (
	ErrNoSurfaces   = errors.New("composite surface requires at least one surface")
	ErrIncompatible = errors.New("composite surface members are incompatible")
	ErrUnknownKind  = errors.New("unknown surface kind")
)

// CompositeBuffer is how many events the composite's merged channel holds.
const CompositeBuffer = 256

// Composite presents several surfaces as one (§11): the same capacity,
// accents and visual protocol; every render, Show frame and experience
// report goes to each member in order; their events are merged; opening
// rolls back on failure and closing goes in reverse order.
type Composite struct {
	members        []Surface
	profile        string
	input, output  string
	capacity       int
	accents        []string
	visualProtocol int

	events chan Event
	done   chan struct{}

	mu        sync.Mutex
	opened    []Surface // the "initialized" list of §11
	streaming bool      // Events was called: forward member events
	forwarded bool      // forwarders started
	closed    bool
	wg        sync.WaitGroup
}

var (
	_ Surface            = (*Composite)(nil)
	_ ShowRenderer       = (*Composite)(nil)
	_ ExperienceReporter = (*Composite)(nil)
	_ Poller             = (*Composite)(nil)
)

// NewComposite checks the members (§11, in this order: at least one; then
// for each member after the first, the same selector capacity, the same
// accent order and the same visual protocol as the first) and captures the
// composite's identity: profile ids joined with "+", input and output
// names joined with "; ". It opens nothing; on error nothing is opened or
// closed.
//
// A member's visual protocol is that of its descriptors, which must all
// agree and be of kind "midi" or "web" (the kinds status may report).
func NewComposite(members ...Surface) (*Composite, error) {
	if len(members) == 0 {
		return nil, ErrNoSurfaces
	}
	protocols := make([]int, len(members))
	for i, m := range members {
		if m == nil {
			return nil, fmt.Errorf("composite surface: member %d is nil", i)
		}
		p, err := memberProtocol(m.Describe())
		if err != nil {
			return nil, fmt.Errorf("composite surface: member %d: %w", i, err)
		}
		protocols[i] = p
	}
	ref := members[0]
	for i, m := range members[1:] {
		if m.Capacity() != ref.Capacity() {
			return nil, fmt.Errorf("%w: composite surfaces need equal selector capacity (member %d has %d, the first has %d)",
				ErrIncompatible, i+1, m.Capacity(), ref.Capacity())
		}
		if !slices.Equal(m.Accents(), ref.Accents()) {
			return nil, fmt.Errorf("%w: composite surfaces need the same accent order (member %d has %v, the first has %v)",
				ErrIncompatible, i+1, m.Accents(), ref.Accents())
		}
		if protocols[i+1] != protocols[0] {
			return nil, fmt.Errorf("%w: composite surfaces need one visual protocol (member %d speaks %d, the first %d)",
				ErrIncompatible, i+1, protocols[i+1], protocols[0])
		}
	}
	c := &Composite{
		members:        slices.Clone(members),
		capacity:       ref.Capacity(),
		accents:        slices.Clone(ref.Accents()),
		visualProtocol: protocols[0],
		events:         make(chan Event, CompositeBuffer),
		done:           make(chan struct{}),
	}
	var profiles, inputs, outputs []string
	for _, m := range members {
		d := m.Describe()
		profiles = append(profiles, d.Profile)
		inputs = append(inputs, d.Input)
		outputs = append(outputs, d.Output)
	}
	c.profile = strings.Join(profiles, "+")
	c.input = strings.Join(inputs, "; ")
	c.output = strings.Join(outputs, "; ")
	return c, nil
}

func memberProtocol(d control.Surface) (int, error) {
	if len(d.Descriptors) == 0 {
		return 0, fmt.Errorf("%w: the surface %q describes no surface of kind %q or %q", ErrUnknownKind, d.Profile, wire.SurfaceKindMIDI, wire.SurfaceKindWeb)
	}
	p := d.Descriptors[0].VisualProtocol
	for _, sd := range d.Descriptors {
		if sd.Kind != wire.SurfaceKindMIDI && sd.Kind != wire.SurfaceKindWeb {
			return 0, fmt.Errorf("%w %q (profile %q): want %q or %q", ErrUnknownKind, sd.Kind, sd.Profile, wire.SurfaceKindMIDI, wire.SurfaceKindWeb)
		}
		if sd.VisualProtocol != p {
			return 0, fmt.Errorf("%w: the surface %q mixes visual protocols %d and %d", ErrIncompatible, d.Profile, p, sd.VisualProtocol)
		}
	}
	return p, nil
}

// Members returns the member surfaces in order.
func (c *Composite) Members() []Surface { return slices.Clone(c.members) }

// Capacity implements Surface: the members' common capacity.
func (c *Composite) Capacity() int { return c.capacity }

// Accents implements Surface: the members' common accent order.
func (c *Composite) Accents() []string { return slices.Clone(c.accents) }

// VisualProtocol is the members' common visual protocol.
func (c *Composite) VisualProtocol() int { return c.visualProtocol }

// Describe implements Surface: the identity captured at construction and
// the members' descriptors, read live, in member order.
func (c *Composite) Describe() control.Surface {
	out := control.Surface{Profile: c.profile, Input: c.input, Output: c.output}
	for _, m := range c.members {
		out.Descriptors = append(out.Descriptors, m.Describe().Descriptors...)
	}
	return out
}

// Open implements Surface (§11 initialize): each member in order is first
// recorded as opened, then opened. When one fails, the composite is closed
// (every recorded member, the failing one included, in reverse order) and
// the original error is returned.
func (c *Composite) Open(ctx context.Context) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return errors.New("composite surface: open after close; build a new composite")
	}
	if len(c.opened) > 0 {
		c.mu.Unlock()
		return errors.New("composite surface: already open")
	}
	c.mu.Unlock()
	for _, m := range c.members {
		c.mu.Lock()
		c.opened = append(c.opened, m)
		c.mu.Unlock()
		if err := m.Open(ctx); err != nil {
			if cerr := c.Close(); cerr != nil {
				return fmt.Errorf("%w (closing the opened surfaces also failed: %v)", err, cerr)
			}
			return err
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.streaming && !c.closed {
		c.startForwarders()
	}
	return nil
}

// Render implements Surface: every member in order renders the same view;
// the first error stops the fan-out and is returned.
func (c *Composite) Render(v control.View) error {
	for i, m := range c.members {
		if err := m.Render(v); err != nil {
			return fmt.Errorf("composite surface member %d (%s): %w", i, describeName(m), err)
		}
	}
	return nil
}

// RenderShowFrame implements ShowRenderer for the members that can show a
// Show frame, in order; the first error stops the fan-out.
func (c *Composite) RenderShowFrame(f *visual.ShowFrame) error {
	for i, m := range c.members {
		if sr, ok := m.(ShowRenderer); ok {
			if err := sr.RenderShowFrame(f); err != nil {
				return fmt.Errorf("composite surface member %d (%s): %w", i, describeName(m), err)
			}
		}
	}
	return nil
}

// SetExperience implements ExperienceReporter for the members that report
// experiences, in order; the first error stops the fan-out.
func (c *Composite) SetExperience(v visual.ExperienceView) error {
	for i, m := range c.members {
		if er, ok := m.(ExperienceReporter); ok {
			if err := er.SetExperience(v); err != nil {
				return fmt.Errorf("composite surface member %d (%s): %w", i, describeName(m), err)
			}
		}
	}
	return nil
}

func describeName(m Surface) string { return m.Describe().Profile }

// Events implements Surface: the members' events merged in arrival order
// on one channel (buffer CompositeBuffer). From the first call on, the
// composite forwards member events as soon as it is open; the channel is
// closed after Close once every forwarder has stopped.
func (c *Composite) Events() <-chan Event {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.streaming {
		c.streaming = true
		if len(c.opened) == len(c.members) && !c.closed {
			c.startForwarders()
		}
	}
	return c.events
}

// startForwarders runs one goroutine per member with input. c.mu is held.
func (c *Composite) startForwarders() {
	if c.forwarded {
		return
	}
	c.forwarded = true
	for _, m := range c.members {
		ch := m.Events()
		if ch == nil {
			continue
		}
		c.wg.Add(1)
		go c.forward(ch)
	}
	go func() {
		c.wg.Wait()
		<-c.done
		close(c.events)
	}()
}

func (c *Composite) forward(ch <-chan Event) {
	defer c.wg.Done()
	for {
		select {
		case <-c.done:
			return
		case ev, ok := <-ch:
			if !ok {
				return
			}
			select {
			case c.events <- ev:
			case <-c.done:
				return
			}
		}
	}
}

// Poll implements Poller (§11 poll_events). Before Events was first called
// it concatenates each member's pending events in member order, as the
// reference does; once the composite forwards events it returns what is
// pending on the merged channel (arrival order).
func (c *Composite) Poll() []Event {
	c.mu.Lock()
	streaming := c.streaming
	c.mu.Unlock()
	if streaming {
		return drain(c.events, CompositeBuffer)
	}
	var out []Event
	for _, m := range c.members {
		out = append(out, Poll(m, 0)...)
	}
	return out
}

// Close implements Surface (§11 close): idempotent. It closes the opened
// members, or every member if none was opened, in reverse order, keeps
// closing after a failure, and returns the first failure.
func (c *Composite) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	targets := c.opened
	if len(targets) == 0 {
		targets = c.members
	}
	c.opened = nil
	forwarded := c.forwarded
	close(c.done)
	c.mu.Unlock()

	var first error
	for i := len(targets) - 1; i >= 0; i-- {
		if err := targets[i].Close(); err != nil && first == nil {
			first = fmt.Errorf("close surface %s: %w", describeName(targets[i]), err)
		}
	}
	if !forwarded {
		close(c.events)
	}
	return first
}
