package tray

import "time"

// DebounceDelay is how long the menu waits after a change before it is
// rebuilt, so a burst of session updates costs one rebuild.
const DebounceDelay = 200 * time.Millisecond

// Debouncer turns a stream of changes into one rebuild, Delay after the
// last change. Time is passed in; it is not safe for concurrent use.
type Debouncer struct {
	Delay   time.Duration
	pending bool
	due     time.Time
}

// Changed records a change at now and pushes the rebuild to now+Delay.
func (d *Debouncer) Changed(now time.Time) {
	d.pending = true
	d.due = now.Add(d.Delay)
}

// Wait is how long until the rebuild is due; ok is false when nothing is
// pending.
func (d *Debouncer) Wait(now time.Time) (wait time.Duration, ok bool) {
	if !d.pending {
		return 0, false
	}
	return max(d.due.Sub(now), 0), true
}

// Due reports whether the rebuild should happen at now; it returns true
// once per burst of changes.
func (d *Debouncer) Due(now time.Time) bool {
	if !d.pending || now.Before(d.due) {
		return false
	}
	d.pending = false
	return true
}
