package chatdriver

import (
	"context"
	"strconv"
	"time"

	"github.com/lets-app/lets/backend/claudehook"
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

// state is a report of the question, in the session's event order
// (claudehook.SeqKey): Lets' daemon never lets the waiting report, sent
// without waiting for the daemon, overtake the closing one, and the
// closing one withdraws the question's subscription before it applies.
func (q *padQuestion) state(s wire.State) wire.StateCommand {
	return wire.StateCommand{State: s, Agent: q.id, Metadata: wire.MetadataOf("label", Label,
		claudehook.SeqKey, strconv.FormatInt(time.Now().UnixNano(), 10))}
}

// done tells the pads the question is over: Claude runs on. The report
// is newer than the question, so the daemon closes the question's
// subscription (if its disconnect is not handled yet) before applying it,
// and the session shows running at once (backend/daemon settle.go).
func (q *padQuestion) done(bool) {
	_ = q.sub.Close()
	ctx, cancel := context.WithTimeout(context.Background(), doneTimeout)
	defer cancel()
	_, _ = q.c.ReportStateReply(ctx, q.state(wire.StateRunning))
}

// doneTimeout bounds the closing report of a question (the daemon is
// local; a hung one must not hold the answer back from Claude).
const doneTimeout = 500 * time.Millisecond
