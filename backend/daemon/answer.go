package daemon

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/lets-app/lets/backend/wire"
)

// ErrNotRunning is returned by Answer and Answerable when the daemon is not
// serving: Run has not started yet, or it stopped (Close, its context
// ended, or the surface could not open).
var ErrNotRunning = errors.New("daemon: the pad daemon is not running")

// Answer delivers action a to the agent session id on behalf of a Lets
// window bound to that session (the approval card's Allow/Deny): the same
// Wire `action` event a surface press would send, through the same gates
// (control.Plane.PressFor), aimed at id rather than the selection, which
// stays as it is. requestID names the request being answered ("" for
// none); when no live subscription of id carries it the request is over
// and nothing is sent.
//
// Answer runs on the owner goroutine between socket messages and surface
// events, like a surface press, and returns nil once the action event is
// queued for its recipient. A refusal is a *control.PressError (test it
// with errors.Is against control.ErrUnknownSession, control.ErrNotPermitted,
// control.ErrNoSubscriber, control.ErrRequestOver, control.ErrPreviewActive,
// control.ErrDebounced, control.ErrUnknownAction); nothing is then sent.
//
// Demo and Show: a surface press during an experience belongs to the
// experience (§9.10, last paragraph). An Answer is not a surface press — a
// person answered one named agent in its own window — so it still reaches
// the agent while an experience plays; the experience keeps the surfaces
// (the live view shows the change when it ends). In practice an approval
// stops an experience anyway (a waiting agent preempts it), so this matters
// for stop and retry.
//
// Answer honours ctx: when ctx ends before the owner goroutine took the
// answer, it returns ctx.Err() and nothing was delivered (an answer the
// owner already took completes and reports its real outcome). It returns
// ErrNotRunning before Run and after the daemon stopped; it never blocks
// past either.
func (d *Daemon) Answer(ctx context.Context, id wire.Identity, requestID string, a wire.Action) error {
	var perr error
	err := d.onLoop(ctx, func() {
		now := d.clock()
		d.tickIfDue(now)
		r, err := d.plane.PressFor(now, id, requestID, a)
		if err != nil {
			perr = err
			return
		}
		d.apply(r, -1)
	})
	if err != nil {
		return err
	}
	return perr
}

// Answerable returns, in spec order, the actions Answer(ctx, id, requestID,
// ·) would deliver now, debounce aside (control.Plane.Answerable): what an
// approval card for that request may still offer. Empty means the request
// is over or the session is gone. Errors as for Answer.
func (d *Daemon) Answerable(ctx context.Context, id wire.Identity, requestID string) ([]wire.Action, error) {
	var out []wire.Action
	err := d.onLoop(ctx, func() {
		d.tickIfDue(d.clock())
		out = d.plane.Answerable(id, requestID)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// loopCall is a function run once on the owner goroutine for another
// goroutine. state moves from callPending to callTaken (the owner runs fn)
// or to callAbandoned (the caller gave up first), never both, so a caller
// that returns an error knows fn never ran.
type loopCall struct {
	fn    func()
	state atomic.Int32
	done  chan struct{} // closed after fn ran
}

const (
	callPending int32 = iota
	callTaken
	callAbandoned
)

// run is called by the owner goroutine.
func (c *loopCall) run() {
	if !c.state.CompareAndSwap(callPending, callTaken) {
		return
	}
	c.fn()
	close(c.done)
}

// abandon reports whether the caller may give up: true when fn will never
// run; false when the owner took it (wait for done).
func (c *loopCall) abandon() bool {
	return c.state.CompareAndSwap(callPending, callAbandoned)
}

// onLoop runs fn on the owner goroutine and waits for it, for ctx, or for
// the daemon to stop. It returns nil exactly when fn ran.
func (d *Daemon) onLoop(ctx context.Context, fn func()) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	d.mu.Lock()
	if !d.running {
		d.mu.Unlock()
		return ErrNotRunning
	}
	events, stopping, finished := d.events, d.stopping, d.done
	d.mu.Unlock()

	call := &loopCall{fn: fn, done: make(chan struct{})}
	select {
	case events <- event{kind: evCall, call: call}:
	case <-stopping:
		return ErrNotRunning
	case <-ctx.Done():
		return ctx.Err()
	}
	giveUp := func(err error) error {
		if call.abandon() {
			return err
		}
		<-call.done // taken: fn is short and never blocks
		return nil
	}
	select {
	case <-call.done:
		return nil
	case <-ctx.Done():
		return giveUp(ctx.Err())
	case <-finished:
		return giveUp(ErrNotRunning)
	}
}
