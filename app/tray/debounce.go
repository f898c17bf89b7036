package tray

import (
	"context"
	"log/slog"
	"reflect"
	"slices"
	"time"

	"github.com/lets-app/lets/backend/clock"
)

// DebounceDelay is how long the menu waits after a change before it is
// rebuilt, so a burst of session updates costs one rebuild.
const DebounceDelay = 200 * time.Millisecond

// follower reads a Source when a change is signalled (changes) and every
// poll, and shows the newest snapshot once
// debounce has passed without a further change: a burst of changes costs
// one rebuild. All its time comes from one clock, so the debounce timer
// firing means the rebuild is due.
type follower struct {
	clock    clock.Clock
	poll     time.Duration
	debounce time.Duration
	// changes signal that the source has news (none: poll only); a
	// closed one is dropped.
	changes []<-chan struct{}
	source  Source
	show    func(Snapshot)
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
	changes := slices.Clone(f.changes)
	// refresh reads the source and, when it shows something new, arms the
	// debounce.
	refresh := func() {
		s, err := f.source(ctx)
		if err != nil {
			f.log.Debug("tray refresh failed", "err", err)
			return
		}
		if s.Equal(latest) {
			return
		}
		latest = s
		if debounce == nil {
			debounce = f.clock.NewTimer(f.debounce)
		} else {
			debounce.Reset(f.debounce)
		}
		due = debounce.C()
	}
	for {
		// The fixed cases, then one per change feed (reflect.Select: the
		// number of feeds is the caller's).
		cases := []reflect.SelectCase{
			{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ctx.Done())},
			{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(poll.C())},
			{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(due)},
			{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(clicks)},
		}
		for _, ch := range changes {
			cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ch)})
		}
		chosen, v, ok := reflect.Select(cases)
		switch chosen {
		case 0:
			return nil
		case 1:
			refresh()
		case 2:
			due = nil
			f.show(latest)
		case 3:
			if !ok {
				clicks = nil // no menu any more: nothing more to click
				continue
			}
			a := v.Interface().(Action)
			if a.Kind == ActionQuit {
				f.log.Info("Quit chosen in the tray")
				return nil
			}
			go f.handle(ctx, a)
		default:
			if !ok {
				changes = slices.Delete(changes, chosen-4, chosen-3)
				continue
			}
			refresh()
		}
	}
}
