// Package surface is the ControlSurface contract of Visual Protocol 1
// (visual-protocol-1 §10) and the composite that presents several surfaces
// as one (§11). A surface is what the agent daemon renders agent state to
// and takes presses from: a MIDI pad (package surface/midi), the browser
// surface, or several of them behind a Composite.
//
// Surfaces turn the daemon's control.View into a visual.Frame with the
// Visual Protocol compiler (package visual); Counter keeps the render
// counter the running activity motion needs.
package surface

import (
	"context"

	"github.com/lets-app/lets/backend/control"
	"github.com/lets-app/lets/backend/visual"
	"github.com/lets-app/lets/backend/wire"
)

// Surface is the contract every surface keeps (§10).
//
// Lifecycle: whoever builds a surface hands it to the daemon, which owns it
// from then on: it calls Open once when it starts running, then Render
// from its single owner goroutine after every change, reads Events, and
// calls Close when it stops (or fails to start, even if Open was never
// called). Capacity, Accents and Describe may be called before Open.
type Surface interface {
	// Capacity is the number of selectors (visible slots), 1…8.
	Capacity() int
	// Accents are the accent names of the slots, in slot order; they must
	// be the first Capacity identity accents (cyan, magenta, lime, …).
	Accents() []string
	// Describe returns what `status` reports (§10; wire spec §10): the
	// top-level profile, input and output strings and one descriptor per
	// physical or virtual surface. It is read at every status request, so
	// a surface may change it (the browser surface learns its port after
	// it starts).
	Describe() control.Surface
	// Open takes ownership of the device or transport and puts it in a
	// known, blank state (initialize() of §10). It is called once, before
	// the first Render. ctx bounds the opening and is cancelled when the
	// daemon stops; a surface must not keep it for later work.
	Open(ctx context.Context) error
	// Render shows the view. It is called from the daemon's owner goroutine
	// after every change and must return quickly: a surface that talks to
	// slow hardware hands the view to its own goroutine. Rendering the same
	// view twice must change nothing. Rendering leaves Show mode.
	Render(view control.View) error
	// Events delivers presses in arrival order. A nil channel means the
	// surface has no input. The daemon stops reading a closed channel.
	// The surface does not filter by availability: a press on a dark
	// action is still an ActionPressed.
	Events() <-chan Event
	// Close blanks the device, restores its normal mode and releases it,
	// attempting every step even when one fails. It must be idempotent.
	Close() error
}

// ShowRenderer is implemented by surfaces that can show an 80-light Show
// frame (render_show_frame of §10): the MIDI grid and the browser.
type ShowRenderer interface {
	RenderShowFrame(f *visual.ShowFrame) error
}

// ExperienceReporter is implemented by surfaces that report the Demo/Show
// lifecycle (set_experience of §10): the browser. MIDI does nothing.
type ExperienceReporter interface {
	SetExperience(v visual.ExperienceView) error
}

// Poller is implemented by surfaces that can hand over their pending
// events without blocking (poll_events of §10): all events received since
// the previous call, in arrival order.
type Poller interface {
	Poll() []Event
}

// Poll returns the events pending on s without blocking: s.Poll() for a
// Poller, else what is buffered on s.Events() (at most max events; max ≤ 0
// means 1024).
func Poll(s Surface, max int) []Event {
	if p, ok := s.(Poller); ok {
		return p.Poll()
	}
	return drain(s.Events(), max)
}

func drain(ch <-chan Event, max int) []Event {
	if max <= 0 {
		max = 1024
	}
	var out []Event
	for ch != nil && len(out) < max {
		select {
		case ev, ok := <-ch:
			if !ok {
				return out
			}
			out = append(out, ev)
		default:
			return out
		}
	}
	return out
}

// Event is one input event of a surface: SessionSelected, ActionPressed,
// ExperienceRequested or ExperienceStopRequested. Events are values,
// compared with ==.
type Event interface{ isSurfaceEvent() }

// SessionSelected is a press on the selector of slot Slot (zero-based):
// an Agent Scene button or a browser tap on a session.
type SessionSelected struct{ Slot int }

// ActionPressed is a press of an action button. The surface does not filter
// by availability; the daemon decides whether anyone receives it.
type ActionPressed struct{ Action wire.Action }

// ExperienceRequested asks to start a Demo ("demo") or Show ("show");
// only the browser surface's administrator can send it.
type ExperienceRequested struct{ Kind string }

// ExperienceStopRequested asks to stop the running Demo or Show.
type ExperienceStopRequested struct{}

func (SessionSelected) isSurfaceEvent()         {}
func (ActionPressed) isSurfaceEvent()           {}
func (ExperienceRequested) isSurfaceEvent()     {}
func (ExperienceStopRequested) isSurfaceEvent() {}

// Counter compiles the daemon's views for one surface and counts renders:
// the frame counter starts at 0 and goes up by one after every render
// (§8), so the running activity motion shows dot frame mod 3. A surface
// keeps one Counter and calls Next from Render. Not safe for concurrent
// use (Render is called from one goroutine).
type Counter struct {
	capacity int
	frame    int
}

// NewCounter returns a counter for a surface with capacity slots.
func NewCounter(capacity int) *Counter { return &Counter{capacity: capacity} }

// Next adapts cv, compiles it with the current render counter and advances
// the counter. It returns the compiler's input (the browser sends it as
// the message's "view") and the frame.
func (c *Counter) Next(cv control.View) (visual.View, visual.Frame) {
	v := visual.FromControl(cv, c.frame)
	c.frame++
	return v, visual.Compile(v, c.capacity)
}

// Frame returns the counter value the next render will use.
func (c *Counter) Frame() int { return c.frame }
