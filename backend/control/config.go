package control

import (
	"errors"
	"fmt"
	"math"

	"github.com/lets-app/lets/backend/wire"
)

// AccentStore keeps accent preferences across daemon restarts (§9.8).
// *identitystore.Store implements it.
type AccentStore interface {
	// Lookup returns the remembered accent, or "" for none.
	Lookup(backend, sessionID string) string
	// Remember records accent for the identity. Errors are ignored by the
	// plane. The plane calls it at every slot assignment, which with more
	// agents than slots is nearly every state message, so it must not wait
	// for the disk (the daemon's store writes behind).
	Remember(backend, sessionID, accent string) error
}

// EarconSink plays (or records) host earcons. slot is 0…7, or wire.NoSlot
// for "none".
type EarconSink interface {
	Earcon(name string, slot int)
}

// Earcon names (experiences spec §8.1) played by the control plane.
const (
	EarconQuestion        = "question"
	EarconApproval        = "approval"
	EarconApprove         = "approve"
	EarconReject          = "reject"
	EarconRetry           = "retry"
	EarconStop            = "stop"
	EarconSuccess         = "success"
	EarconError           = "error"
	EarconCancelled       = "cancelled"
	EarconSessionSelected = "session_selected"
	EarconUnavailable     = "unavailable"
)

// Surface describes the attached surfaces for the status response (§10).
type Surface struct {
	// Profile, Input and Output are the top-level status strings (for a
	// composite: the children joined with "+" / "; ").
	Profile string
	Input   string
	Output  string
	// Descriptors has one entry per physical/virtual surface.
	Descriptors []wire.SurfaceDescriptor
}

// Config configures a Plane (§9.1). Start from DefaultConfig.
type Config struct {
	// Capacity is the number of visible slots, 1…8.
	Capacity int
	// Accents is the palette: exactly the first Capacity identity accents.
	// nil means wire.AccentPalette(Capacity).
	Accents []string
	// TerminalHold is how long (s) success/error/cancelled stays before the
	// tick turns it into waiting_for_reply. ≥ 0.
	TerminalHold float64
	// ActionDebounce is the per (identity, action) window (s). ≥ 0.
	ActionDebounce float64
	// SessionTTL expires inactive unleased sessions (s); 0 disables. ≥ 0.
	SessionTTL float64
	// ActivityMotion and AudioFeedback are reported in status;
	// AudioFeedback also enables earcons.
	ActivityMotion bool
	AudioFeedback  bool
	// Surface is reported in status; SetSurface changes it later.
	Surface Surface
	// Store persists accent preferences; nil keeps them in memory only.
	Store AccentStore
	// Earcons receives earcons when AudioFeedback is on; may be nil.
	Earcons EarconSink
}

// DefaultConfig returns the reference defaults for a surface with capacity
// slots: terminal hold 2.0 s, debounce 0.25 s, TTL 86400 s.
func DefaultConfig(capacity int) Config {
	return Config{
		Capacity:       capacity,
		Accents:        wire.AccentPalette(capacity),
		TerminalHold:   wire.DefaultTerminalHold,
		ActionDebounce: wire.DefaultActionDebounce,
		SessionTTL:     wire.DefaultSessionTTL,
	}
}

// ErrConfig marks an invalid configuration.
var ErrConfig = errors.New("invalid control plane configuration")

func (c *Config) validate() error {
	if c.Capacity < wire.MinCapacity || c.Capacity > wire.MaxCapacity {
		return fmt.Errorf("%w: capacity %d is outside %d…%d (use the surface's slot count)", ErrConfig, c.Capacity, wire.MinCapacity, wire.MaxCapacity)
	}
	palette := wire.AccentPalette(c.Capacity)
	if c.Accents == nil {
		c.Accents = palette
	}
	if len(c.Accents) != c.Capacity {
		return fmt.Errorf("%w: %d accents for %d slots (give exactly one accent per slot)", ErrConfig, len(c.Accents), c.Capacity)
	}
	seen := map[string]bool{}
	for i, a := range c.Accents {
		if seen[a] {
			return fmt.Errorf("%w: accent %q appears twice (accents must be unique)", ErrConfig, a)
		}
		seen[a] = true
		if a != palette[i] {
			return fmt.Errorf("%w: accent %d is %q, want %q (accents must follow the identity accent order)", ErrConfig, i, a, palette[i])
		}
	}
	for _, d := range []struct {
		name string
		v    float64
	}{{"terminal hold", c.TerminalHold}, {"action debounce", c.ActionDebounce}, {"session TTL", c.SessionTTL}} {
		if math.IsNaN(d.v) || math.IsInf(d.v, 0) || d.v < 0 {
			return fmt.Errorf("%w: %s %v must be a finite number ≥ 0", ErrConfig, d.name, d.v)
		}
	}
	c.Accents = append([]string(nil), c.Accents...)
	return nil
}
