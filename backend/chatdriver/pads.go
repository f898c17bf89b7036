package chatdriver

import (
	"context"
	"time"

	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/wire"
	"github.com/lets-app/lets/backend/wireclient"
)

// Label is how the conversations Lets runs show on the pads and phones.
const Label = "Chat"

// permissionAnswer is one answer to a can_use_tool question.
type permissionAnswer struct {
	allow bool
	from  string // window, pad, nobody
}

// padQuestion is a permission question on the pads and phones: the
// session waits for approval with a request-scoped one-shot subscription
// (the same Wire flow as `lets hook PermissionRequest`).
type padQuestion struct {
	c   *wireclient.Client
	id  wire.Identity
	sub *wireclient.Subscription
}

// padApproval puts the question on the pads and phones when the pad
// daemon runs (its socket is in host.json); an Approve or Reject press
// goes to answers. nil when there is no daemon.
func (d *driver) padApproval(ctx context.Context, requestID string, answers chan<- permissionAnswer) *padQuestion {
	if d.agent == nil || d.agent.SessionID() == "" {
		return nil
	}
	info, err := config.ReadHostInfo(d.m.opts.Paths)
	if err != nil || info.WireSocket == "" {
		return nil
	}
	q := &padQuestion{c: wireclient.New(info.WireSocket), id: wire.Identity{Backend: "claude", SessionID: d.agent.SessionID()}}
	sub, err := q.c.Subscribe(ctx, wire.SubscribeActionsCommand{Agent: q.id,
		Actions: []wire.Action{wire.ActionApprove, wire.ActionReject}, RequestID: requestID, OneShot: true})
	if err != nil {
		d.log.Info("chat: the pads cannot answer this question", "err", err)
		return nil
	}
	if err := q.c.ReportState(ctx, q.state(wire.StateWaitingForApproval)); err != nil {
		_ = sub.Close()
		d.log.Info("chat: the pads cannot answer this question", "err", err)
		return nil
	}
	q.sub = sub
	go func() {
		defer sub.Close()
		ev, err := sub.Receive(ctx)
		if err != nil {
			return
		}
		answers <- permissionAnswer{allow: ev.Action == wire.ActionApprove, from: "pad"}
	}()
	return q
}

func (q *padQuestion) state(s wire.State) wire.StateCommand {
	return wire.StateCommand{State: s, Agent: q.id, Metadata: wire.MetadataOf("label", Label)}
}

// done tells the pads the question is over: Claude runs on. The
// subscription goes first; while the daemon still counts it as a pending
// approval it keeps the session waiting (wire-protocol-1 §9.5), and its
// disconnect may be handled after a report on another connection, so the
// report is repeated (bounded) until the daemon's answer says running.
func (q *padQuestion) done(bool) {
	_ = q.sub.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	for range 20 {
		ack, err := q.c.ReportStateReply(ctx, q.state(wire.StateRunning))
		if err != nil || ack.State == wire.StateRunning {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(50 * time.Millisecond):
		}
	}
}
