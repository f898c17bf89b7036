package daemon

import (
	"github.com/lets-app/lets/backend/control"
	"github.com/lets-app/lets/backend/wire"
)

// Surface is what the daemon renders agent state to and takes presses from:
// a MIDI pad, the browser surface, or several of them behind a composite
// (visual-protocol-1 §10). The daemon owns the surface it is given: it
// renders on its single owner goroutine and closes the surface when it stops.
type Surface interface {
	// Capacity is the number of selectors (visible slots), 1…8.
	Capacity() int
	// Accents are the accent names of the slots, in slot order; they must be
	// the first Capacity identity accents (cyan, magenta, lime, …).
	Accents() []string
	// Describe returns the descriptors reported by `status` (§10). It is
	// read at every status request, so a surface may change it (the browser
	// surface learns its port after it starts).
	Describe() control.Surface
	// Render shows the view. It is called from the daemon's owner goroutine
	// after every change and must return quickly: a surface that talks to
	// slow hardware hands the view to its own goroutine. Rendering the same
	// view twice must change nothing.
	Render(view control.View) error
	// Events delivers presses in arrival order. A nil channel means the
	// surface has no input. The daemon stops reading a closed channel.
	Events() <-chan Event
	// Close blanks and releases the surface. It must be idempotent.
	Close() error
}

// Event is one input event of a surface: SessionSelected, ActionPressed,
// ExperienceRequested or ExperienceStopRequested.
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

// The descriptor of the daemon when no real surface is attached yet.
//
// `status` must always list at least one surface whose kind is "midi" or
// "web" (the reference schema allows nothing else), and the control plane
// needs a capacity. "web" is the honest kind for something virtual; the
// capacity and accents are those of the browser surface (8, all eight
// accents), so the slots, accents and remembered accent preferences a user
// sees stay the same when the real browser surface is attached. The profile
// id lives under "lets/" rather than Pad-Lattice's "virtual/" family so it
// can never be mistaken for a real reference profile, and the input/output
// strings say plainly that nothing is connected.
const (
	NoSurfaceProfile = "lets/none"
	NoSurfaceInput   = "No surface connected"
	NoSurfaceOutput  = "No surface connected"
)

// NoSurface returns the placeholder used until a MIDI or browser surface
// exists: capacity 8, every accent, nothing rendered, no input.
func NoSurface() Surface { return noSurface{} }

type noSurface struct{}

func (noSurface) Capacity() int             { return wire.MaxCapacity }
func (noSurface) Accents() []string         { return wire.IdentityAccents() }
func (noSurface) Render(control.View) error { return nil }
func (noSurface) Events() <-chan Event      { return nil }
func (noSurface) Close() error              { return nil }
func (noSurface) Describe() control.Surface {
	return control.Surface{
		Profile: NoSurfaceProfile,
		Input:   NoSurfaceInput,
		Output:  NoSurfaceOutput,
		Descriptors: []wire.SurfaceDescriptor{{
			Kind:           wire.SurfaceKindWeb,
			Profile:        NoSurfaceProfile,
			VisualProtocol: wire.VisualProtocolVersion,
			Input:          NoSurfaceInput,
			Output:         NoSurfaceOutput,
		}},
	}
}
