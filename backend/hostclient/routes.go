package hostclient

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// The typed helpers below are thin: each is one route of lip-1 §8.1. The
// parts whose shape callers rely on are decoded; the rest stays raw JSON
// exactly as the host sent it.

// Status is GET /lip/status: the host's status object.
func (c *Client) Status(ctx context.Context) (json.RawMessage, error) {
	var out json.RawMessage
	err := c.Do(ctx, http.MethodGet, "/lip/status", nil, nil, &out)
	return out, err
}

// Uniques is GET /lip/uniques: {"uniques": [...]}.
func (c *Client) Uniques(ctx context.Context) (json.RawMessage, error) {
	var out json.RawMessage
	err := c.Do(ctx, http.MethodGet, "/lip/uniques", nil, nil, &out)
	return out, err
}

// OpenRequest is the body of POST /lip/open.
type OpenRequest struct {
	Unique string `json:"unique"`
	Resume string `json:"resume,omitempty"`
	Title  string `json:"title,omitempty"`
}

// Open is POST /lip/open: {window, url?, guide, events, commands, session?}.
func (c *Client) Open(ctx context.Context, req OpenRequest) (json.RawMessage, error) {
	var out json.RawMessage
	err := c.Do(ctx, http.MethodPost, "/lip/open", nil, req, &out)
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

// Gap is the listen answer's gap: events From..To left the ring before the
// cursor read them; Lost of them are gone.
type Gap struct {
	From uint64 `json:"from"`
	To   uint64 `json:"to"`
	Lost uint64 `json:"lost"`
}

// ListenResult is GET /lip/listen's answer. Events stay raw: they are
// envelopes ({seq, id, ts, dir, from, type, win, data, …}) whose data the
// caller should treat as untrusted.
type ListenResult struct {
	Events  []json.RawMessage `json:"events"`
	Cursor  string            `json:"cursor"`
	Seq     uint64            `json:"seq"`
	Epoch   string            `json:"epoch"`
	Gap     *Gap              `json:"gap,omitempty"`
	Pending int               `json:"pending"`
}

// Listen is GET /lip/listen. The request may take q.Wait plus the client's
// timeout.
func (c *Client) Listen(ctx context.Context, q ListenQuery) (*ListenResult, error) {
	var out ListenResult
	wait := q.Wait
	if wait < 0 {
		wait = 25 * time.Second
	}
	if err := c.do(ctx, http.MethodGet, "/lip/listen", q.Values(), nil, &out, wait+c.opts.Timeout); err != nil {
		return nil, err
	}
	if out.Events == nil {
		out.Events = []json.RawMessage{}
	}
	return &out, nil
}

// Rejection is one refused envelope of a send.
type Rejection struct {
	Index   int    `json:"index"`
	ID      string `json:"id,omitempty"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// SendResult is POST /lip/send's answer.
type SendResult struct {
	Accepted []string    `json:"accepted"`
	Rejected []Rejection `json:"rejected"`
}

// Send is POST /lip/send with one envelope or a batch (a slice of
// envelopes); each needs "win" and "type".
func (c *Client) Send(ctx context.Context, envelopes any) (*SendResult, error) {
	var out SendResult
	if err := c.Do(ctx, http.MethodPost, "/lip/send", nil, envelopes, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Close is POST /lip/close: the window gets session.close {reason: "claude"}.
func (c *Client) Close(ctx context.Context, window string) (json.RawMessage, error) {
	var out json.RawMessage
	err := c.Do(ctx, http.MethodPost, "/lip/close", nil, map[string]string{"window": window}, &out)
	return out, err
}

// Sessions is GET /lip/sessions: {"sessions": [...]}, newest first; unique
// "" lists every unique's.
func (c *Client) Sessions(ctx context.Context, unique string) (json.RawMessage, error) {
	var q url.Values
	if unique != "" {
		q = url.Values{"unique": {unique}}
	}
	var out json.RawMessage
	err := c.Do(ctx, http.MethodGet, "/lip/sessions", q, nil, &out)
	return out, err
}

// Windows is GET /lip/windows: {"windows": [...]}.
func (c *Client) Windows(ctx context.Context) (json.RawMessage, error) {
	var out json.RawMessage
	err := c.Do(ctx, http.MethodGet, "/lip/windows", nil, nil, &out)
	return out, err
}

// Bind is POST /lip/bind: window follows the claude process of
// Options.ClaudePID (a conversation's claude was started again).
func (c *Client) Bind(ctx context.Context, window string) error {
	return c.Do(ctx, http.MethodPost, "/lip/bind", nil, map[string]string{"window": window}, nil)
}
