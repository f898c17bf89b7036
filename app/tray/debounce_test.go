package tray

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lets-app/lets/backend/clock"
	"github.com/lets-app/lets/backend/wire"
)

// Point: a burst of changes costs one rebuild, DebounceDelay after the
// last change the poll saw; unchanged polls and failed reads rebuild
// nothing; a click runs its action and Quit ends the loop. The tray's
// clock is fake and synctest.Wait lets the loop settle after each step, so
// the times checked are exact.
func TestFollowerRebuildsOnceAfterTheLastChange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
		clk := clock.NewFake(t0)
		snap := func(state wire.State) Snapshot {
			return Snapshot{PadOn: true, Sessions: []Session{{Backend: "claude", ID: "1", State: state}}}
		}
		var mu sync.Mutex
		current, readErr := snap(wire.StateSuccess), error(nil)
		set := func(s Snapshot, err error) { mu.Lock(); current, readErr = s, err; mu.Unlock() }
		type shown struct {
			at time.Time
			s  Snapshot
		}
		var shows []shown
		var handled []Action
		f := &follower{
			clock: clk, poll: 100 * time.Millisecond, debounce: DebounceDelay,
			source: func(context.Context) (Snapshot, error) {
				mu.Lock()
				defer mu.Unlock()
				return current, readErr
			},
			show: func(s Snapshot) { shows = append(shows, shown{clk.Now(), s}) },
			handle: func(_ context.Context, a Action) {
				mu.Lock()
				handled = append(handled, a)
				mu.Unlock()
			},
			log: slog.New(slog.DiscardHandler),
		}
		clicks := make(chan Action)
		done := make(chan error, 1)
		go func() { done <- f.run(t.Context(), snap(wire.StateSuccess), clicks) }()
		step := func(d time.Duration) { clk.Advance(d); synctest.Wait() }

		synctest.Wait()
		step(100 * time.Millisecond) // poll: unchanged
		set(snap(wire.StateRunning), nil)
		step(100 * time.Millisecond) // poll at 200 ms sees running: due at 400 ms
		set(snap(wire.StateWaitingForReply), nil)
		step(100 * time.Millisecond) // poll at 300 ms sees waiting: due at 500 ms
		set(Snapshot{}, errors.New("the daemon does not answer"))
		step(100 * time.Millisecond) // 400 ms: a failed read changes nothing
		if len(shows) != 0 {
			t.Fatalf("rebuilt at %v, before the burst settled", shows[0].at.Sub(t0))
		}
		set(snap(wire.StateWaitingForReply), nil)
		step(100 * time.Millisecond) // 500 ms: the debounce is due
		if len(shows) != 1 || !shows[0].at.Equal(t0.Add(500*time.Millisecond)) || !shows[0].s.Equal(snap(wire.StateWaitingForReply)) {
			t.Fatalf("shows = %+v, want one, of the waiting snapshot, at 500ms", shows)
		}
		for range 10 {
			step(100 * time.Millisecond)
		}
		if len(shows) != 1 {
			t.Fatalf("%d rebuilds for one burst", len(shows))
		}

		clicks <- Action{Kind: ActionOpenUnique, Unique: "graph"}
		synctest.Wait()
		mu.Lock()
		if len(handled) != 1 || handled[0].Unique != "graph" {
			t.Fatalf("handled %+v, want the open of graph", handled)
		}
		mu.Unlock()
		clicks <- Action{Kind: ActionQuit}
		if err := <-done; err != nil {
			t.Fatalf("run after Quit: %v", err)
		}
	})
}

// TestFollowerFollowsChangesWithoutPolling: with a change feed the menu
// reads its source when a change is signalled, not every 500 ms: nothing
// is read while nothing changes (until the slow resync), a signal is
// followed by one rebuild DebounceDelay later, and a closed feed leaves
// the resync poll.
func TestFollowerFollowsChangesWithoutPolling(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		t0 := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
		clk := clock.NewFake(t0)
		snap := func(state wire.State) Snapshot {
			return Snapshot{PadOn: true, Sessions: []Session{{Backend: "claude", ID: "1", State: state}}}
		}
		var mu sync.Mutex
		current, reads := snap(wire.StateSuccess), 0
		var shows []time.Time
		changes := make(chan struct{}, 1)
		f := &follower{
			clock: clk, poll: ResyncPoll, debounce: DebounceDelay, changes: []<-chan struct{}{changes},
			source: func(context.Context) (Snapshot, error) {
				mu.Lock()
				defer mu.Unlock()
				reads++
				return current, nil
			},
			show:   func(Snapshot) { shows = append(shows, clk.Now()) },
			handle: func(context.Context, Action) {},
			log:    slog.New(slog.DiscardHandler),
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- f.run(ctx, snap(wire.StateSuccess), make(chan Action)) }()
		step := func(d time.Duration) { clk.Advance(d); synctest.Wait() }
		synctest.Wait()
		for range 20 {
			step(DefaultPoll) // 10 s of quiet
		}
		mu.Lock()
		if reads != 1 { // the resync at 10 s, nothing else
			t.Errorf("%d reads in 10 quiet seconds, want only the resync", reads)
		}
		current = snap(wire.StateWaitingForApproval)
		mu.Unlock()
		changes <- struct{}{}
		synctest.Wait()
		mu.Lock()
		if reads != 2 {
			t.Errorf("%d reads after one signal, want 2", reads)
		}
		mu.Unlock()
		step(DebounceDelay)
		if len(shows) != 1 || !shows[0].Equal(t0.Add(10*time.Second+DebounceDelay)) {
			t.Fatalf("shows = %v, want one at 10.2 s", shows)
		}
		close(changes)
		synctest.Wait()
		step(ResyncPoll)
		mu.Lock()
		if reads != 3 {
			t.Errorf("%d reads, want the resync to go on after the feed closed", reads)
		}
		mu.Unlock()
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	})
}
