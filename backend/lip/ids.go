package lip

import (
	"crypto/rand"
	"io"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"
)

// Prefix is the kind part of a host-made id (spec §2).
type Prefix string

// Id prefixes.
const (
	PrefixEvent   Prefix = "ev" // up-events the host creates
	PrefixCommand Prefix = "cm" // down-commands
	PrefixSession Prefix = "ss" // saved sessions
	PrefixUpload  Prefix = "up" // uploads
)

// IDs makes ids "<prefix>_<ULID>" (26 Crockford characters). ULIDs from one
// IDs sort by time, and within one millisecond by creation order (monotonic
// entropy). Safe for concurrent use. Each IDs owns its entropy source; there
// is no package-level state.
type IDs struct {
	mu       sync.Mutex
	entropy  *ulid.MonotonicEntropy
	fallback io.Reader
	lastMS   uint64
}

// NewIDs returns an id maker reading randomness from random (crypto/rand
// when nil; tests pass a fixed reader for reproducible ids).
func NewIDs(random io.Reader) *IDs {
	if random == nil {
		random = rand.Reader
	}
	return &IDs{entropy: ulid.Monotonic(random, 0), fallback: rand.Reader}
}

// New returns "<prefix>_<ULID>" for the time now. If the clock steps back,
// ids keep sorting after the ones already made (the last millisecond is
// reused). It never fails: if the entropy source does, crypto/rand is used.
func (g *IDs) New(p Prefix, now time.Time) string {
	return string(p) + "_" + g.ULID(now).String()
}

// ULID returns a bare monotonic ULID for the time now.
func (g *IDs) ULID(now time.Time) ulid.ULID {
	g.mu.Lock()
	defer g.mu.Unlock()
	ms := ulid.Timestamp(now)
	if now.Before(time.UnixMilli(0)) {
		ms = 0
	}
	if ms < g.lastMS {
		ms = g.lastMS
	}
	for range 4 {
		id, err := ulid.New(ms, g.entropy)
		if err == nil {
			g.lastMS = ms
			return id
		}
		// Overflow of the 80-bit increment within one millisecond, or a
		// failing entropy source: move to the next millisecond and
		// re-seed from crypto/rand.
		ms++
		g.entropy = ulid.Monotonic(g.fallback, 0)
	}
	var id ulid.ULID
	_ = id.SetTime(ms)
	_, _ = io.ReadFull(g.fallback, id[6:])
	g.lastMS = ms
	return id
}

// Event returns a new ev_ id.
func (g *IDs) Event(now time.Time) string { return g.New(PrefixEvent, now) }

// Command returns a new cm_ id.
func (g *IDs) Command(now time.Time) string { return g.New(PrefixCommand, now) }

// Session returns a new ss_ id.
func (g *IDs) Session(now time.Time) string { return g.New(PrefixSession, now) }

// Upload returns a new up_ id.
func (g *IDs) Upload(now time.Time) string { return g.New(PrefixUpload, now) }
