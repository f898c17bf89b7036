package tray

import (
	"context"
	"log/slog"
	"time"

	"github.com/lets-app/lets/backend/clock"
)

// DebounceDelay is how long the menu waits after a change before it is
// rebuilt, so a burst of session updates costs one rebuild.
const DebounceDelay = 200 * time.Millisecond

// follower reads a Source every poll and shows the newest snapshot once
// debounce has passed without a further change: a burst of changes costs
// one rebuild. All its time comes from one clock, so the debounce timer
// firing means the rebuild is due.
type follower struct {
	clock    clock.Clock
	poll     time.Duration
	debounce time.Duration
	source   Source
	show     func(Snapshot)
	// handle runs a clicked action other than Quit, on its own goroutine.
	handle func(ctx context.Context, a Action)
	log    *slog.Logger
}

// run follows until ctx ends or Quit arrives on clicks (both return nil).
// latest is the snapshot already shown.
func (f *follower) run(ctx context.Context, latest Snapshot, clicks <-chan Action) error {
	poll := f.clock.NewTicker(f.poll)
	defer poll.Stop()
	// debounce is armed at the first change and re-armed at every later
	// one; due is its channel while a rebuild is pending, nil otherwise.
	var debounce clock.Timer
	var due <-chan time.Time
	defer func() {
		if debounce != nil {
			debounce.Stop()
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-poll.C():
			s, err := f.source(ctx)
			if err != nil {
				f.log.Debug("tray refresh failed", "err", err)
				continue
			}
			if s.Equal(latest) {
				continue
			}
			latest = s
			if debounce == nil {
				debounce = f.clock.NewTimer(f.debounce)
			} else {
				debounce.Reset(f.debounce)
			}
			due = debounce.C()
		case <-due:
			due = nil
			f.show(latest)
		case a := <-clicks:
			if a.Kind == ActionQuit {
				f.log.Info("Quit chosen in the tray")
				return nil
			}
			go f.handle(ctx, a)
		}
	}
}
