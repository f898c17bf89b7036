package control

import (
	"errors"
	"fmt"

	"github.com/lets-app/lets/backend/wire"
)

// Why PressFor refused an answer. PressFor returns a *PressError whose
// Reason is one of these; test with errors.Is.
var (
	// ErrUnknownAction: the action is not approve, reject, stop or retry.
	ErrUnknownAction = errors.New("the action is not one of approve, reject, stop or retry")
	// ErrUnknownSession: no session has that identity (it ended or expired).
	ErrUnknownSession = errors.New("the agent session is not known to the pad daemon")
	// ErrNotPermitted: the session's current state does not allow the
	// action (§5.2), e.g. approve while it is not waiting for approval.
	ErrNotPermitted = errors.New("the agent session's state does not allow this action")
	// ErrNoSubscriber: no live subscription for the session advertises the
	// action (nobody is listening for the answer).
	ErrNoSubscriber = errors.New("nothing is waiting for this action from the agent session")
	// ErrRequestOver: a request id was named but no live subscription for
	// the session carries it with the action — the request was already
	// answered, timed out or its listener went away.
	ErrRequestOver = errors.New("the agent's request is over (answered, timed out or withdrawn)")
	// ErrPreviewActive: a preview owns the surface; no action is delivered
	// while one is active (§9.10).
	ErrPreviewActive = errors.New("a preview is active on the surface")
	// ErrDebounced: the same action reached the same session less than the
	// debounce interval ago (gate 4, shared with surface presses).
	ErrDebounced = errors.New("the same action was delivered to this agent session a moment ago")
)

// PressError is the error of a refused PressFor.
type PressError struct {
	Agent     wire.Identity
	Action    wire.Action
	RequestID string // "" when none was named
	Reason    error  // one of the Err* values above
}

func (e *PressError) Error() string {
	if e.RequestID != "" {
		return fmt.Sprintf("control: %s for %s (request %s) not delivered: %v", e.Action, e.Agent, e.RequestID, e.Reason)
	}
	return fmt.Sprintf("control: %s for %s not delivered: %v", e.Action, e.Agent, e.Reason)
}

func (e *PressError) Unwrap() error { return e.Reason }

// PressFor delivers action a to the session id on behalf of a named answer
// (an approval card in a window bound to that session), the same Wire action
// a surface press would deliver (§9.10) but aimed at id instead of the
// selection, which it never changes. It is not a surface event: it is
// delivered while a Demo/Show runs, too.
//
// The gates, in order: id names an existing session (replaces gate 1), a is
// a known action, the session's state permits a (gate 2), a live
// subscription for exactly id advertises a (gate 3), no preview is active,
// and the debounce window for (id, a) is over (gate 4, shared with Press).
//
// Recipient: when requestID is "", as Press (request-scoped subscriptions
// first, then the oldest). When requestID is set, only subscriptions whose
// request_id equals it qualify (oldest first); when none does, the request
// is over and PressFor refuses with ErrRequestOver rather than answering a
// later request by mistake.
//
// On delivery everything happens as for a surface press: debounce time
// recorded, session touched, a one-shot recipient disarmed before sending,
// the action earcon played with the session's slot; Result.Out holds the one
// wire.ActionEvent and Delivered is set. A refusal returns a *PressError,
// changes nothing and plays no earcon (the caller tells its user).
func (p *Plane) PressFor(now float64, id wire.Identity, requestID string, a wire.Action) (Result, error) {
	var r Result
	refuse := func(reason error) (Result, error) {
		return Result{}, &PressError{Agent: id, Action: a, RequestID: requestID, Reason: reason}
	}
	t, ok := p.sessions[id]
	if !ok {
		return refuse(ErrUnknownSession)
	}
	if actionBit(a) == 0 {
		return refuse(ErrUnknownAction)
	}
	if !permitted(t.state).has(a) {
		return refuse(ErrNotPermitted)
	}
	to := p.recipientFor(id, requestID, a)
	if to == nil {
		if requestID != "" {
			return refuse(ErrRequestOver)
		}
		return refuse(ErrNoSubscriber)
	}
	if p.preview != nil {
		return refuse(ErrPreviewActive)
	}
	if p.debounced(id, a, now) {
		return refuse(ErrDebounced)
	}
	p.deliver(&r, now, t, to, a)
	return r, nil
}

// recipientFor is the recipient of a named answer: Press's choice without
// a request id, else the oldest subscription carrying requestID.
func (p *Plane) recipientFor(id wire.Identity, requestID string, a wire.Action) *subscription {
	if requestID == "" {
		return p.recipient(id, a)
	}
	var best *subscription
	for _, sub := range p.byAgent[id] {
		if sub.requestID != requestID || !sub.actions.has(a) {
			continue
		}
		if best == nil || sub.subscribedAt < best.subscribedAt {
			best = sub
		}
	}
	return best
}

// Answerable returns, in spec order, the actions PressFor(now, id,
// requestID, ·) would deliver now apart from the debounce window: what an
// approval card for that request may still offer. It is empty when the
// session is unknown, a preview is active or the request is over.
func (p *Plane) Answerable(id wire.Identity, requestID string) []wire.Action {
	t, ok := p.sessions[id]
	if !ok || p.preview != nil {
		return nil
	}
	var set actionSet
	for _, a := range wire.Actions() {
		if permitted(t.state).has(a) && p.recipientFor(id, requestID, a) != nil {
			set |= actionBit(a)
		}
	}
	return set.list()
}
