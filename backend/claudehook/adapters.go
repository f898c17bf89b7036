package claudehook

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/lets-app/lets/backend/hostapi"
	"github.com/lets-app/lets/backend/hostclient"

	"github.com/lets-app/lets/backend/wire"
	"github.com/lets-app/lets/backend/wireclient"
)

// Cursors the hook reads with (lip-1 §5; claude-integration §4).
const (
	HookCursor   = "hook"
	ClaudeCursor = "claude"
	// PendingMax is how many events one prompt reads at most.
	PendingMax = 50
)

// WireClient adapts *wireclient.Client to Wire.
type WireClient struct {
	C *wireclient.Client
}

// ReportState implements Wire.
func (w WireClient) ReportState(ctx context.Context, cmd wire.StateCommand) error {
	return w.C.ReportState(ctx, cmd)
}

// ApplyState implements Wire: a state with reply: true, returning once
// the daemon's state_ack arrived.
func (w WireClient) ApplyState(ctx context.Context, cmd wire.StateCommand) error {
	_, err := w.C.ReportStateReply(ctx, cmd)
	return err
}

// ApplyStateAck implements Acker.
func (w WireClient) ApplyStateAck(ctx context.Context, cmd wire.StateCommand) (wire.StateAck, error) {
	return w.C.ReportStateReply(ctx, cmd)
}

// SessionState implements SessionReader through a status request.
func (w WireClient) SessionState(ctx context.Context, id wire.Identity) (wire.State, bool, error) {
	st, err := w.C.Status(ctx)
	if err != nil {
		return "", false, err
	}
	for _, s := range st.Sessions {
		if s.Backend == id.Backend && s.SessionID == id.SessionID {
			return s.State, true, nil
		}
	}
	return "", false, nil
}

// EndSession implements Wire.
func (w WireClient) EndSession(ctx context.Context, id wire.Identity) error {
	return w.C.EndSession(ctx, id)
}

// Subscribe implements Wire.
func (w WireClient) Subscribe(ctx context.Context, cmd wire.SubscribeActionsCommand) (Actions, error) {
	s, err := w.C.Subscribe(ctx, cmd)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// HostClient is the part of the typed host client (*hostclient.Client)
// the hook uses.
type HostClient interface {
	Listen(ctx context.Context, q hostclient.ListenQuery) (*hostapi.ListenResult, error)
	ReportClaude(ctx context.Context, r hostapi.ClaudeReport) (hostapi.ClaudeReported, error)
	Windows(ctx context.Context) (hostapi.WindowList, error)
}

var _ HostClient = (*hostclient.Client)(nil)

// HostHTTP adapts the host client to Host.
type HostHTTP struct {
	C HostClient
}

// Pending implements Host: GET /lip/listen?cursor=hook&beyond=claude&wait_ms=0&max=50.
func (h HostHTTP) Pending(ctx context.Context) (PendingEvents, error) {
	ans, err := h.C.Listen(ctx, hostclient.ListenQuery{Cursor: HookCursor, Beyond: ClaudeCursor, Wait: 0, Max: PendingMax})
	if err != nil {
		return PendingEvents{}, err
	}
	out := PendingEvents{Events: make([]PendingEvent, 0, len(ans.Events)), Cursor: ans.Cursor, Gap: ans.Gap, Pending: ans.Pending}
	for _, raw := range ans.Events {
		var e PendingEvent
		if err := json.Unmarshal(raw, &e); err != nil {
			return PendingEvents{}, fmt.Errorf("read an event of the host's listen answer (is lets the same version as the running Lets?): %w", err)
		}
		out.Events = append(out.Events, e)
	}
	return out, nil
}

// Report implements Host: POST /lip/claude with r as the body.
func (h HostHTTP) Report(ctx context.Context, r Report) error {
	_, err := h.C.ReportClaude(ctx, r)
	return err
}

// WindowLister is a Host that can also list the open windows, for
// SessionStart's context; HostHTTP is one.
type WindowLister interface {
	Windows(ctx context.Context) ([]OpenWindow, error)
}

// Windows implements WindowLister: GET /lip/windows.
func (h HostHTTP) Windows(ctx context.Context) ([]OpenWindow, error) {
	ans, err := h.C.Windows(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]OpenWindow, 0, len(ans.Windows))
	for _, w := range ans.Windows {
		out = append(out, OpenWindow{Window: w.Window, Unique: w.Unique, Title: w.Title, Connected: w.Connected})
	}
	return out, nil
}
