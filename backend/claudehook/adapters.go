package claudehook

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/lets-app/lets/backend/wire"
	"github.com/lets-app/lets/backend/wireclient"
)

// Host API the hook uses (lip-1 §5, §8; claude-integration §4).
const (
	ListenPath   = "/lip/listen"
	ReportPath   = "/lip/claude"
	WindowsPath  = "/lip/windows"
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

// Doer makes one request to the host API: query is added to path, body
// (when not nil) is sent as JSON and a 2xx answer is decoded into out
// (when not nil). The host client of the app has this method.
type Doer interface {
	Do(ctx context.Context, method, path string, query url.Values, body, out any) error
}

// HostHTTP adapts a Doer to Host.
type HostHTTP struct {
	D Doer
}

// Pending implements Host: GET /lip/listen?cursor=hook&beyond=claude&wait_ms=0&max=50.
func (h HostHTTP) Pending(ctx context.Context) (PendingEvents, error) {
	q := url.Values{}
	q.Set("cursor", HookCursor)
	q.Set("beyond", ClaudeCursor)
	q.Set("wait_ms", "0")
	q.Set("max", strconv.Itoa(PendingMax))
	var out PendingEvents
	if err := h.D.Do(ctx, http.MethodGet, ListenPath, q, nil, &out); err != nil {
		return PendingEvents{}, err
	}
	return out, nil
}

// Report implements Host: POST /lip/claude with r as the body.
func (h HostHTTP) Report(ctx context.Context, r Report) error {
	return h.D.Do(ctx, http.MethodPost, ReportPath, nil, r, nil)
}

// WindowLister is a Host that can also list the open windows, for
// SessionStart's context; HostHTTP is one.
type WindowLister interface {
	Windows(ctx context.Context) ([]OpenWindow, error)
}

// Windows implements WindowLister: GET /lip/windows.
func (h HostHTTP) Windows(ctx context.Context) ([]OpenWindow, error) {
	var out struct {
		Windows []OpenWindow `json:"windows"`
	}
	if err := h.D.Do(ctx, http.MethodGet, WindowsPath, nil, nil, &out); err != nil {
		return nil, err
	}
	return out.Windows, nil
}
