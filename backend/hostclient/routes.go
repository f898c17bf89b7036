package hostclient

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/lets-app/lets/backend/hostapi"
)

// One method per route of lip-1 §8.1, each returning the hostapi type the
// host writes. Only a listen's events stay raw JSON: they carry what a
// window sent, which the caller should treat as untrusted data.

// Status is GET /lip/status.
func (c *Client) Status(ctx context.Context) (hostapi.Status, error) {
	var out hostapi.Status
	err := c.Do(ctx, http.MethodGet, hostapi.PathStatus, nil, nil, &out)
	return out, err
}

// StatusWithin is Status with its own bound (0 or less: the client's
// Timeout), for a caller that should give up sooner.
func (c *Client) StatusWithin(ctx context.Context, timeout time.Duration) (hostapi.Status, error) {
	var out hostapi.Status
	err := c.DoWithin(ctx, http.MethodGet, hostapi.PathStatus, nil, nil, &out, timeout)
	return out, err
}

// Uniques is GET /lip/uniques: the installed uniques.
func (c *Client) Uniques(ctx context.Context) (hostapi.UniqueList, error) {
	var out hostapi.UniqueList
	err := c.Do(ctx, http.MethodGet, hostapi.PathUniques, nil, nil, &out)
	if out.Uniques == nil {
		out.Uniques = []hostapi.Unique{}
	}
	return out, err
}

// RemoveUnique is DELETE /lip/uniques/{name}.
func (c *Client) RemoveUnique(ctx context.Context, name string) (hostapi.Removed, error) {
	var out hostapi.Removed
	err := c.Do(ctx, http.MethodDelete, hostapi.UniquePath(url.PathEscape(name)), nil, nil, &out)
	return out, err
}

// Install is POST /lip/install: a git URL or a local path, and a ref.
// Installing may take minutes: the client's Timeout is not used.
func (c *Client) Install(ctx context.Context, req hostapi.InstallRequest, timeout time.Duration) (hostapi.Installed, error) {
	var out hostapi.Installed
	err := c.DoWithin(ctx, http.MethodPost, hostapi.PathInstall, nil, req, &out, timeout)
	return out, err
}

// Open is POST /lip/open.
func (c *Client) Open(ctx context.Context, req hostapi.OpenRequest) (hostapi.OpenAnswer, error) {
	var out hostapi.OpenAnswer
	err := c.Do(ctx, http.MethodPost, hostapi.PathOpen, nil, req, &out)
	return out, err
}

// ListenQuery is the query of GET /lip/listen. Zero fields are left out,
// so the host's defaults apply (cursor "claude", wait 25 s, max 100).
type ListenQuery struct {
	Cursor string
	// Wait is how long the host blocks when nothing matches; negative
	// means the host's default, 0 means do not wait.
	Wait   time.Duration
	Max    int
	Types  []string
	Window string
	// Beyond names a cursor: only events after its position are returned.
	Beyond string
}

// Values encodes the query.
func (q ListenQuery) Values() url.Values {
	v := url.Values{}
	if q.Cursor != "" {
		v.Set("cursor", q.Cursor)
	}
	if q.Wait >= 0 {
		v.Set("wait_ms", strconv.FormatInt(q.Wait.Milliseconds(), 10))
	}
	if q.Max > 0 {
		v.Set("max", strconv.Itoa(q.Max))
	}
	if len(q.Types) > 0 {
		v.Set("types", strings.Join(q.Types, ","))
	}
	if q.Window != "" {
		v.Set("window", q.Window)
	}
	if q.Beyond != "" {
		v.Set("beyond", q.Beyond)
	}
	return v
}

// hostDefaultWait is the host's listen wait when the query names none.
const hostDefaultWait = 25 * time.Second

// Listen is GET /lip/listen. The request may take q.Wait plus the client's
// timeout.
func (c *Client) Listen(ctx context.Context, q ListenQuery) (*hostapi.ListenResult, error) {
	var out hostapi.ListenResult
	wait := q.Wait
	if wait < 0 {
		wait = hostDefaultWait
	}
	if err := c.do(ctx, http.MethodGet, hostapi.PathListen, q.Values(), nil, &out, wait+c.opts.Timeout); err != nil {
		return nil, err
	}
	if out.Events == nil {
		out.Events = []json.RawMessage{}
	}
	return &out, nil
}

// Send is POST /lip/send with one envelope or a batch (a slice of
// envelopes); each needs "win" and "type".
func (c *Client) Send(ctx context.Context, envelopes any) (*hostapi.SendResult, error) {
	var out hostapi.SendResult
	if err := c.Do(ctx, http.MethodPost, hostapi.PathSend, nil, envelopes, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Close is POST /lip/close: the window gets session.close {reason: "claude"}.
func (c *Client) Close(ctx context.Context, window string) (hostapi.Closed, error) {
	var out hostapi.Closed
	err := c.Do(ctx, http.MethodPost, hostapi.PathClose, nil, hostapi.WindowRequest{Window: window}, &out)
	return out, err
}

// Sessions is GET /lip/sessions, newest first; unique "" lists every
// unique's.
func (c *Client) Sessions(ctx context.Context, unique string) (hostapi.SessionList, error) {
	var q url.Values
	if unique != "" {
		q = url.Values{"unique": {unique}}
	}
	var out hostapi.SessionList
	err := c.Do(ctx, http.MethodGet, hostapi.PathSessions, q, nil, &out)
	return out, err
}

// Windows is GET /lip/windows.
func (c *Client) Windows(ctx context.Context) (hostapi.WindowList, error) {
	var out hostapi.WindowList
	err := c.Do(ctx, http.MethodGet, hostapi.PathWindows, nil, nil, &out)
	return out, err
}

// Bind is POST /lip/bind: window follows the claude process of
// Options.ClaudePID (a conversation's claude was started again).
func (c *Client) Bind(ctx context.Context, window string) (hostapi.Bound, error) {
	var out hostapi.Bound
	err := c.Do(ctx, http.MethodPost, hostapi.PathBind, nil, hostapi.WindowRequest{Window: window}, &out)
	return out, err
}

// ReportClaude is POST /lip/claude: a hook's report of its claude
// session.
func (c *Client) ReportClaude(ctx context.Context, r hostapi.ClaudeReport) (hostapi.ClaudeReported, error) {
	var out hostapi.ClaudeReported
	err := c.Do(ctx, http.MethodPost, hostapi.PathClaude, nil, r, &out)
	return out, err
}

// ShowHome is POST /app/show-home: the running Lets shows its home window.
func (c *Client) ShowHome(ctx context.Context, timeout time.Duration) (hostapi.ShowHomeAnswer, error) {
	var out hostapi.ShowHomeAnswer
	err := c.DoWithin(ctx, http.MethodPost, hostapi.PathShowHome, nil, nil, &out, timeout)
	return out, err
}

// HomeLink is POST /lip/home-link: the running Lets shows its home page
// signed in.
func (c *Client) HomeLink(ctx context.Context, timeout time.Duration) (hostapi.HomeLinkAnswer, error) {
	var out hostapi.HomeLinkAnswer
	err := c.DoWithin(ctx, http.MethodPost, hostapi.PathHomeLink, nil, nil, &out, timeout)
	return out, err
}

// Chat is POST /app/chat: the running Lets opens a conversation (a new
// one when req is empty) in a chat window. Opening may check Claude
// Code's sign-in, so it gets its own bound.
func (c *Client) Chat(ctx context.Context, req hostapi.ChatRequest, timeout time.Duration) (hostapi.ChatOpened, error) {
	var out hostapi.ChatOpened
	err := c.DoWithin(ctx, http.MethodPost, hostapi.PathChat, nil, req, &out, timeout)
	return out, err
}

// DeleteChat is DELETE /home/api/chat/{id}: stops and removes one
// conversation.
func (c *Client) DeleteChat(ctx context.Context, id string, timeout time.Duration) error {
	return c.DoWithin(ctx, http.MethodDelete, hostapi.HomeChatPath(url.PathEscape(id)), nil, nil, nil, timeout)
}
