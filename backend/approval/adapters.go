package approval

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/lets-app/lets/backend/wire"
	"github.com/lets-app/lets/backend/wireclient"
)

// Route is the host route of the approval card.
const Route = "/lip/approve"

// Doer makes one request to the host API: query is added to path, body
// (when not nil) is sent as JSON and a 2xx answer is decoded into out
// (when not nil). *hostclient.Client has this method.
type Doer interface {
	Do(ctx context.Context, method, path string, query url.Values, body, out any) error
}

// HostCard is the Card of a host reached through a Doer: POST
// /lip/approve. Ending ctx ends the request, and the host takes the card
// down.
type HostCard struct {
	D Doer
}

// Ask implements Card.
func (c HostCard) Ask(ctx context.Context, req Request) (Answer, error) {
	var a Answer
	if err := c.D.Do(ctx, http.MethodPost, Route, nil, req, &a); err != nil {
		return Answer{}, err
	}
	return a, nil
}

// WithdrawTimeout bounds the report that ends a pad question (the daemon
// is local; a hung one must not hold the answer back from Claude).
const WithdrawTimeout = 500 * time.Millisecond

// Subscriber is what WirePads needs from the Wire daemon
// (*wireclient.Client, through WireClient).
type Subscriber interface {
	Subscribe(ctx context.Context, cmd wire.SubscribeActionsCommand) (Subscription, error)
	ReportState(ctx context.Context, cmd wire.StateCommand) error
	ReportStateReply(ctx context.Context, cmd wire.StateCommand) (wire.StateAck, error)
}

// Subscription is a live one-shot action subscription
// (*wireclient.Subscription).
type Subscription interface {
	Receive(ctx context.Context) (wire.ActionEvent, error)
	Close() error
}

// WireClient adapts *wireclient.Client to Subscriber.
type WireClient struct {
	C *wireclient.Client
}

// Subscribe implements Subscriber.
func (w WireClient) Subscribe(ctx context.Context, cmd wire.SubscribeActionsCommand) (Subscription, error) {
	s, err := w.C.Subscribe(ctx, cmd)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// ReportState implements Subscriber.
func (w WireClient) ReportState(ctx context.Context, cmd wire.StateCommand) error {
	return w.C.ReportState(ctx, cmd)
}

// ReportStateReply implements Subscriber.
func (w WireClient) ReportStateReply(ctx context.Context, cmd wire.StateCommand) (wire.StateAck, error) {
	return w.C.ReportStateReply(ctx, cmd)
}

// WirePads are the Pads of a Wire daemon: the question is a
// request-scoped one-shot subscription to Approve and Reject for Agent
// (the same Wire flow as `lets hook PermissionRequest`), and the session
// shows waiting_for_approval while it is open.
type WirePads struct {
	W Subscriber
	// Agent is the session the question belongs to.
	Agent wire.Identity
	// State makes a state report of the session (its metadata: label,
	// the session's event order). The closing report must be newer than
	// the waiting one, so the daemon ends the question's subscription
	// before it applies it (backend/daemon settle.go).
	State func(wire.State) wire.StateCommand
}

// Open implements Pads: subscribe first, then report waiting_for_approval
// (fire-and-forget), so a press the daemon accepts reaches the question.
func (p WirePads) Open(ctx context.Context, requestID string) (Question, error) {
	sub, err := p.W.Subscribe(ctx, wire.SubscribeActionsCommand{Agent: p.Agent,
		Actions: []wire.Action{wire.ActionApprove, wire.ActionReject}, RequestID: requestID, OneShot: true})
	if err != nil {
		return nil, err
	}
	if err := p.W.ReportState(ctx, p.State(wire.StateWaitingForApproval)); err != nil {
		_ = sub.Close()
		return nil, err
	}
	return &wireQuestion{p: p, sub: sub}, nil
}

type wireQuestion struct {
	p   WirePads
	sub Subscription
}

// Receive implements Question: Approve allows, Reject denies.
func (q *wireQuestion) Receive(ctx context.Context) (Decision, error) {
	ev, err := q.sub.Receive(ctx)
	if err != nil {
		return Decision{}, err
	}
	return Decision{Allow: ev.Action == wire.ActionApprove, From: FromPad}, nil
}

// Withdraw implements Question: the subscription closes and the session
// shows running at once (Claude runs on, whatever the answer), waiting
// at most WithdrawTimeout for the daemon to apply it.
func (q *wireQuestion) Withdraw(Decision) {
	_ = q.sub.Close()
	ctx, cancel := context.WithTimeout(context.Background(), WithdrawTimeout)
	defer cancel()
	_, _ = q.p.W.ReportStateReply(ctx, q.p.State(wire.StateRunning))
}
