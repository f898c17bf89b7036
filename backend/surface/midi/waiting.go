package midi

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/lets-app/lets/backend/wire"
)

// What a surface made by OpenWaiting says in status before it has found a
// device (wire spec §10 asks only for strings; these are honest ones).
const (
	// WaitingProfile is the profile id reported while no device was found
	// and none was chosen: "some Launchpad".
	WaitingProfile = "novation/launchpad"
	// NotConnectedPort is reported as both port names meanwhile.
	NotConnectedPort = "No Launchpad connected yet"
)

// waitSpec is how a waiting surface looks for a device.
type waitSpec struct {
	cat *Catalog
	ro  ResolveOptions // ProfileFile already loaded into cat as ProfileID
}

// OpenWaiting is Open for a long-running process that must not depend on
// the pad being plugged in first (`lets serve`). When a device matches
// now it is opened as Open would; otherwise the surface is returned
// without one (Connected is false) and looks for one every
// RescanInterval once the daemon opens it, with the same rules as Open
// (auto-detection uses supported profiles only, §3.2; ro may choose a
// profile or ports). A found device is opened, put in programmer mode
// (the greeting scrolls the first time) and shown the newest frame
// rendered meanwhile. After that the surface behaves like any other,
// hot-plug included, and may also switch to another matching device.
//
// Capacity and accents are fixed here, because the daemon reads them once:
// those of the device found now, else those of the chosen profile, else
// wire.MaxCapacity slots with the standard identity accents (every
// bundled Launchpad profile). A device whose profile differs is logged
// and refused.
//
// cat nil means the built-in and user profiles (like OpenAuto). Errors
// are a broken catalog, a bad ResolveOptions or a cancelled ctx; a missing,
// ambiguous or busy device is not an error.
//
//	s, err := midi.OpenWaiting(ctx, nil, midi.ResolveOptions{}, midi.Options{Greeting: midi.DefaultGreeting})
//	if err == nil && !s.Connected() { /* waiting for a Launchpad */ }
func OpenWaiting(ctx context.Context, cat *Catalog, ro ResolveOptions, opts Options) (*Surface, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if opts.Backend == nil {
		opts.Backend = SystemBackend()
	}
	if opts.ScrollDelay <= 0 {
		opts.ScrollDelay = DefaultScrollDelay
	}
	if opts.RescanInterval <= 0 {
		opts.RescanInterval = DefaultRescanInterval
	}
	if cat == nil {
		var err error
		if cat, err = LoadCatalog(CatalogOptions{User: true}); err != nil {
			return nil, err
		}
	}
	if ro.ProfileID != "" && ro.ProfileFile != "" {
		return nil, &DeviceError{Msg: "use either --profile or --profile-file, not both"}
	}
	if ro.ProfileFile != "" {
		p, err := LoadProfileFile(ro.ProfileFile)
		if err != nil {
			return nil, err
		}
		if cat, err = NewCatalog([]*Profile{p}); err != nil {
			return nil, err
		}
		ro.ProfileID, ro.ProfileFile = p.ID, ""
	}
	capacity, accents := wire.MaxCapacity, wire.AccentPalette(wire.MaxCapacity)
	if ro.ProfileID != "" {
		p, ok := cat.Lookup(ro.ProfileID)
		if !ok {
			return nil, &ProfileError{Msg: "unknown device profile: " + ro.ProfileID}
		}
		if p.Driver != DriverPaletteGrid {
			return nil, &DeviceError{Msg: "unknown driver: " + p.Driver}
		}
		capacity, accents = p.SelectorCapacity(), p.AccentNames()
	}
	explicit := ro.Input != "" && ro.Output != ""
	spec := &waitSpec{cat: cat, ro: ro}

	ins, errIn := opts.Backend.Inputs()
	outs, errOut := opts.Backend.Outputs()
	var reason error
	if err := errors.Join(errIn, errOut); err != nil {
		reason = fmt.Errorf("could not list the MIDI ports: %w", err)
	} else if c, err := spec.resolve(ins, outs); err != nil {
		reason = err
	} else {
		s, err := OpenCandidate(c, explicit, opts)
		if err == nil {
			s.wait = spec
			return s, nil
		}
		reason = err
	}
	s := newSurface(capacity, accents, explicit, opts)
	s.wait = spec
	s.note(reason)
	return s, nil
}

// resolve applies §3.2 to the listed ports; the candidate's ports are
// listed (explicit names are not trusted blindly). When no port matches
// any profile of the catalog the error is a quietError.
func (w *waitSpec) resolve(ins, outs []string) (Candidate, error) {
	c, err := Resolve(w.cat, listed{ins, outs}, w.ro)
	if err == nil && (!contains(ins, c.Input) || !contains(outs, c.Output)) {
		err = noDevice("the MIDI ports '%s' and '%s' are not plugged in", c.Input, c.Output)
	}
	if errors.Is(err, ErrNoDevice) && len(w.cat.Detect(ins, outs, true)) == 0 {
		err = quietError{err}
	}
	if err != nil {
		return Candidate{}, err
	}
	return c, nil
}

// listed is a PortLister of names already listed.
type listed struct{ ins, outs []string }

func (l listed) Inputs() ([]string, error)  { return l.ins, nil }
func (l listed) Outputs() ([]string, error) { return l.outs, nil }

// detect looks for a device in the catalog (device goroutine).
func (s *Surface) detect(ins, outs []string) (Candidate, bool) {
	c, err := s.wait.resolve(ins, outs)
	if err == nil {
		err = s.fits(c.Profile)
	}
	if err != nil {
		s.note(err)
		return Candidate{}, false
	}
	return c, true
}

// ErrIncompatibleDevice is wrapped when a found device cannot replace the
// surface the daemon started with.
var ErrIncompatibleDevice = errors.New("the MIDI device does not fit the running daemon")

// fits refuses a profile whose capacity or accents differ from the fixed
// ones (the control plane was built for those).
func (s *Surface) fits(p *Profile) error {
	if p.Driver != DriverPaletteGrid {
		return &DeviceError{Msg: "unknown driver: " + p.Driver}
	}
	if p.SelectorCapacity() != s.capacity || !slices.Equal(p.AccentNames(), s.accents) {
		return fmt.Errorf("%w: %s has %d agent slots with accents %v, the daemon started with %d slots and %v; restart Lets to use it",
			ErrIncompatibleDevice, p.ID, p.SelectorCapacity(), p.AccentNames(), s.capacity, s.accents)
	}
	return nil
}

// note logs once why a device that is there is not used (an ambiguous
// choice, experimental profiles only, a busy port, an incompatible
// profile). Nothing plugged in (a quietError) is not logged, and neither
// are repeats (device goroutine, or the constructor).
func (s *Surface) note(err error) {
	msg := ""
	var q quietError
	if err != nil && !errors.As(err, &q) {
		msg = err.Error()
	}
	if msg == s.notice {
		return
	}
	s.notice = msg
	if msg != "" {
		s.log.Warn("a MIDI device is plugged in but not used; still waiting for a Launchpad", "reason", msg)
	}
}

// quietError is "no port of any known profile is listed": the normal
// state of a waiting surface, not worth a log line.
type quietError struct{ error }

func (q quietError) Unwrap() error { return q.error }

// waitingID is the profile id reported before any device was found.
func (s *Surface) waitingID() string {
	if s.wait != nil && s.wait.ro.ProfileID != "" {
		return s.wait.ro.ProfileID
	}
	return WaitingProfile
}

// SystemUnavailable says why this machine has no MIDI system at all (a
// build without cgo, no ALSA sequencer), or "" when it has one. A waiting
// surface on such a machine never finds a pad; `lets serve` says why.
func SystemUnavailable() string {
	if u, ok := SystemBackend().(interface{ Unavailable() string }); ok {
		return u.Unavailable()
	}
	return ""
}
