package chatdriver

import (
	"context"
	"strconv"

	"github.com/lets-app/lets/backend/approval"
	"github.com/lets-app/lets/backend/claudehook"
	"github.com/lets-app/lets/backend/wire"
	"github.com/lets-app/lets/backend/wireclient"
)

// Label is how the conversations Lets runs show on the pads and phones.
const Label = "Chat"

// chatPads are the pads and phones a permission question of one agent's
// session goes to (approval.WirePads, the same Wire flow as `lets hook
// PermissionRequest`), when the pad daemon runs: its socket is looked up
// when the question opens.
type chatPads struct {
	m         *Manager
	sessionID string
}

// pads returns the pads of agent a's session; nil when it has none yet.
func (d *driver) pads(a Agent) approval.Pads {
	if a == nil || a.SessionID() == "" {
		return nil
	}
	return chatPads{m: d.m, sessionID: a.SessionID()}
}

// Open implements approval.Pads; nil without a pad daemon.
func (p chatPads) Open(ctx context.Context, requestID string) (approval.Question, error) {
	sock := p.m.opts.WireSocket()
	if sock == "" {
		return nil, nil
	}
	id := wire.Identity{Backend: claudehook.Backend, SessionID: p.sessionID}
	return approval.WirePads{W: approval.WireClient{C: wireclient.New(sock)}, Agent: id, State: p.state(id)}.Open(ctx, requestID)
}

// state makes the reports of a question, in the session's event order
// (claudehook.SeqKey): Lets' daemon never lets the waiting report, sent
// without waiting for the daemon, overtake the closing one, and the
// closing one withdraws the question's subscription before it applies.
// The closing report is newer than the question, so the daemon closes
// the question's subscription (if its disconnect is not handled yet)
// before applying it, and the session shows running at once
// (backend/daemon settle.go).
func (p chatPads) state(id wire.Identity) func(wire.State) wire.StateCommand {
	return func(s wire.State) wire.StateCommand {
		return wire.StateCommand{State: s, Agent: id, Metadata: wire.MetadataOf("label", Label,
			claudehook.SeqKey, strconv.FormatInt(p.m.opts.Clock.Now().UnixNano(), 10))}
	}
}
