package daemon

import (
	"context"
	"sync"
)

// HoldLoop occupies the owner goroutine until release is called: while it
// holds, the loop reads no time and handles nothing, so a test can move a
// fake clock and the loop sees only the new time, never a moment in
// between. The timers that fell due meanwhile are handled before the loop
// takes its next message (serve), so a Sync after release returns once
// they were.
func (d *Daemon) HoldLoop(ctx context.Context) (release func(), err error) {
	held, done := make(chan struct{}), make(chan struct{})
	errc := make(chan error, 1)
	go func() { errc <- d.onLoop(ctx, func() { close(held); <-done }) }()
	select {
	case <-held:
		return sync.OnceFunc(func() { close(done) }), nil
	case err := <-errc:
		return nil, err
	}
}

// Sync returns once the owner loop has handled everything posted before
// it (and every timer that was due when it was posted), with what that
// changed already on the surface: the loop renders after a batch of
// messages, and the batch may still hold the Sync call itself, so the call
// renders what changed before it answers.
func (d *Daemon) Sync(ctx context.Context) error { return d.onLoop(ctx, d.renderIfChanged) }
