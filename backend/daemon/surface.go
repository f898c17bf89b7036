package daemon

import (
	"context"

	"github.com/lets-app/lets/backend/control"
	"github.com/lets-app/lets/backend/surface"
	"github.com/lets-app/lets/backend/wire"
)

// The surface contract (Surface, its events, the composite) lives in
// package surface (visual-protocol-1 §10–§11). The daemon owns the surface
// it is given: it opens it when Run starts, renders on its single owner
// goroutine, handles its events and closes it when it stops.

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
func NoSurface() surface.Surface { return noSurface{} }

type noSurface struct{}

func (noSurface) Capacity() int                { return wire.MaxCapacity }
func (noSurface) Accents() []string            { return wire.IdentityAccents() }
func (noSurface) Open(context.Context) error   { return nil }
func (noSurface) Render(control.View) error    { return nil }
func (noSurface) Events() <-chan surface.Event { return nil }
func (noSurface) Close() error                 { return nil }
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
