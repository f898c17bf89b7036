// Package claudestub serves a scripted stand-in for the Anthropic Messages
// API on 127.0.0.1, so tests can drive the real Claude Code CLI (`claude -p`)
// without the internet. A test gives the turns the model should take; the
// stub answers each main-loop request with the next one (streaming SSE when
// the request asks for it, JSON otherwise), records every request body, and
// answers Claude's side requests (titles, topic checks, token counts, …)
// with plain text without consuming the script.
package claudestub

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/testenv/stubscript"
	"github.com/lets-app/lets/backend/textsafe"
)

// ToolCall is one tool_use block the scripted model emits.
type ToolCall struct {
	// ID is the tool_use id; empty means the stub makes one up.
	ID    string
	Name  string
	Input any // marshalled to JSON; nil means {}
}

// Turn is one scripted assistant message: optional text, then tool calls.
// With tool calls the stop reason is tool_use, else end_turn.
type Turn struct {
	Text  string
	Tools []ToolCall
	// Fail, when set, answers with this API error instead of a message
	// (e.g. to make Claude's StopFailure hook fire).
	Fail *APIError
	// WordDelay, when set on a streamed answer, sends Text one word per
	// text_delta with this pause before each word, and stops (leaving the
	// stream unfinished) when the client goes away, e.g. on an interrupt.
	WordDelay time.Duration
	// Gate, when set on a streamed answer, sends Text one word per
	// text_delta, each only after the test released it (Gate.Release), so
	// a test can see word i reach the client while word i+1 is still held.
	// Like WordDelay, it stops when the client goes away.
	Gate *Gate
}

// Gate paces a streamed Turn from the test: every Release lets one more
// word of the text go.
type Gate struct{ words chan struct{} }

// NewGate returns a closed gate: no word goes until Release.
func NewGate() *Gate { return &Gate{words: make(chan struct{}, 4096)} }

// Release lets the next word go (it does not wait for the stream to send
// it). Releases beyond the words left are harmless.
func (g *Gate) Release() {
	select {
	case g.words <- struct{}{}:
	default:
		panic("claudestub: more than 4096 words released and not sent")
	}
}

// APIError is an error answer of the Messages API.
type APIError struct {
	Status  int    // HTTP status, e.g. 400, 429, 500
	Type    string // e.g. invalid_request_error, rate_limit_error, api_error
	Message string
}

// Step produces the next scripted turn from the request that asked for it,
// so a test can read what Claude sent back (tool results, context) before
// it answers.
type Step func(req Request) Turn

// Say is a Step that answers with fixed text and ends the turn.
func Say(text string) Step { return func(Request) Turn { return Turn{Text: text} } }

// Call is a Step that calls one tool with input.
func Call(name string, input any) Step {
	return func(Request) Turn { return Turn{Tools: []ToolCall{{Name: name, Input: input}}} }
}

// Fixed is a Step that always answers turn.
func Fixed(turn Turn) Step { return func(Request) Turn { return turn } }

// Request is one request the stub received.
type Request struct {
	Method string
	Path   string
	Body   []byte
	// Side is true for requests the stub answered outside the script.
	Side bool
	// Parsed Messages API fields (zero for other paths).
	Model    string
	Stream   bool
	System   json.RawMessage
	Messages []Message
	Tools    []Tool
}

// Message is one entry of the request's messages array.
type Message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"` // a string or an array of blocks
}

// Block is one content block of a message, with the fields tests look at.
type Block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"` // tool_result: string or blocks
	IsError   bool            `json:"is_error,omitempty"`
}

// Tool is one entry of the request's tools array.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema,omitempty"`
}

// Blocks returns a message's content as blocks (a string becomes one text
// block).
func (m Message) Blocks() []Block {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return []Block{{Type: "text", Text: s}}
	}
	var bs []Block
	_ = json.Unmarshal(m.Content, &bs)
	return bs
}

// ResultText returns a block's text, or for a tool_result its content's
// text joined by newlines.
func (b Block) ResultText() string {
	if b.Type != "tool_result" {
		return b.Text
	}
	var s string
	if json.Unmarshal(b.Content, &s) == nil {
		return s
	}
	var bs []Block
	_ = json.Unmarshal(b.Content, &bs)
	parts := make([]string, 0, len(bs))
	for _, x := range bs {
		parts = append(parts, x.Text)
	}
	return strings.Join(parts, "\n")
}

// ToolResults returns the results of the model's last tool calls: the
// tool_result blocks, anywhere after the last assistant message that
// called tools, whose tool_use_id names one of those calls.
//
// They are matched by id, not by where they sit: Claude Code may send
// messages of its own around the results (for one, a reminder listing
// the MCP tools that connected while the tool ran, when a server was slow
// to start). Without any tool call in the request it returns the
// tool_result blocks of the trailing user messages.
func (r Request) ToolResults() []Block {
	last := -1
	ids := map[string]bool{}
	for i := len(r.Messages) - 1; i >= 0 && last < 0; i-- {
		if r.Messages[i].Role != "assistant" {
			continue
		}
		for _, b := range r.Messages[i].Blocks() {
			if b.Type == "tool_use" && b.ID != "" {
				ids[b.ID] = true
				last = i
			}
		}
	}
	first := len(r.Messages)
	if last >= 0 {
		first = last + 1
	} else {
		for first > 0 && r.Messages[first-1].Role == "user" {
			first--
		}
	}
	var out []Block
	for _, m := range r.Messages[first:] {
		for _, b := range m.Blocks() {
			if b.Type == "tool_result" && (last < 0 || ids[b.ToolUseID]) {
				out = append(out, b)
			}
		}
	}
	return out
}

// Shape describes the request's messages in one line, role and block
// types, for a test that did not find what it looked for ("user[text]
// assistant[tool_use] user[tool_result text]").
func (r Request) Shape() string {
	parts := make([]string, 0, len(r.Messages))
	for _, m := range r.Messages {
		types := []string{}
		for _, b := range m.Blocks() {
			types = append(types, b.Type)
		}
		parts = append(parts, m.Role+"["+strings.Join(types, " ")+"]")
	}
	return strings.Join(parts, " ")
}

// HasTool reports whether the request offered the model a tool by name.
func (r Request) HasTool(name string) bool {
	for _, t := range r.Tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// Server is a running stub.
type Server struct {
	*stubscript.Script[Step, Request]
	srv *http.Server
	ln  net.Listener
	log *slog.Logger
}

// Start serves the stub on 127.0.0.1 until the test ends.
func Start(tb testing.TB, script ...Step) *Server {
	tb.Helper()
	s, err := Listen(stubscript.TestLog(tb), script...)
	if err != nil {
		tb.Fatalf("claudestub: %v", err)
	}
	tb.Cleanup(func() { _ = s.Close() })
	return s
}

// Listen serves the stub on a free 127.0.0.1 port; Close stops it.
func Listen(log *slog.Logger, script ...Step) (*Server, error) {
	s := &Server{Script: stubscript.New[Step, Request](script...), log: log}
	srv, ln, err := stubscript.Serve("claudestub", s)
	if err != nil {
		return nil, err
	}
	s.srv, s.ln = srv, ln
	return s, nil
}

// URL is the base URL to give Claude as ANTHROPIC_BASE_URL.
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() }

// Close stops the server.
func (s *Server) Close() error { return s.srv.Close() }

// MainRequests returns the Messages API requests that consumed (or asked
// for) a scripted turn.
func (s *Server) MainRequests() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Path == "/v1/messages" && !r.Side {
			out = append(out, r)
		}
	}
	return out
}

// ErrBadRequest is returned by ParseMessages for a body that is not a
// Messages API request.
type ErrBadRequest struct{ Err error }

func (e *ErrBadRequest) Error() string {
	return "the stub could not parse the Messages API request: " + e.Err.Error()
}

func (e *ErrBadRequest) Unwrap() error { return e.Err }

// ParseMessages fills req's Messages API fields from req.Body.
func ParseMessages(req *Request) error {
	var p struct {
		Model    string          `json:"model"`
		Stream   bool            `json:"stream"`
		System   json.RawMessage `json:"system"`
		Messages []Message       `json:"messages"`
		Tools    []Tool          `json:"tools"`
	}
	if err := json.Unmarshal(req.Body, &p); err != nil {
		return &ErrBadRequest{Err: err}
	}
	req.Model, req.Stream, req.System, req.Messages, req.Tools = p.Model, p.Stream, p.System, p.Messages, p.Tools
	req.Side = IsSide(*req)
	return nil
}

// IsSide reports whether a Messages API request is one of Claude's side
// requests rather than the agent loop: the agent loop always offers tools
// and asks for a stream; titles, topic and quota checks offer none.
// (Claude Code 2.1.332 in `-p` with CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC
// made none: only agent-loop POST /v1/messages, streamed, with tools. It
// retries an HTTP 400 up to six times, each retry consuming a step.)
func IsSide(req Request) bool {
	return len(req.Tools) == 0
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		http.Error(w, "read body", http.StatusBadRequest)
		return
	}
	req := Request{Method: r.Method, Path: r.URL.Path, Body: body}
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages":
		if err := ParseMessages(&req); err != nil {
			s.record(req)
			writeError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
			return
		}
		turn := Turn{Text: "OK."}
		if !req.Side {
			if step, ok := s.Take(); ok && step != nil {
				turn = step(req)
			} else {
				s.log.Warn("claudestub: the script is used up; answering with plain text", "messages", len(req.Messages))
				turn = Turn{Text: "Done."}
			}
		}
		s.record(req)
		s.answer(r.Context(), w, req, turn)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages/count_tokens":
		s.record(req)
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, `{"input_tokens":%d}`, 1+len(body)/4)
	default:
		s.record(req)
		s.log.Info("claudestub: unknown request; answering an empty object", "method", r.Method, "path", r.URL.Path, "body", textsafe.ClipBytes(string(body), 300))
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{}`)
	}
}

func (s *Server) record(req Request) { s.Record(req) }

func (s *Server) newID(prefix string) string {
	return fmt.Sprintf("%s_stub%06d", prefix, s.NextID())
}

// contentBlock is the wire form of one response block.
type contentBlock struct {
	Type  string          `json:"type"`
	Text  *string         `json:"text,omitempty"`
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`
}

func (s *Server) blocks(turn Turn) ([]contentBlock, string) {
	var out []contentBlock
	if turn.Text != "" || len(turn.Tools) == 0 {
		t := turn.Text
		out = append(out, contentBlock{Type: "text", Text: &t})
	}
	for _, c := range turn.Tools {
		id := c.ID
		if id == "" {
			id = s.newID("toolu")
		}
		in := json.RawMessage(`{}`)
		if c.Input != nil {
			b, err := json.Marshal(c.Input)
			if err == nil {
				in = b
			}
		}
		out = append(out, contentBlock{Type: "tool_use", ID: id, Name: c.Name, Input: in})
	}
	stop := "end_turn"
	if len(turn.Tools) > 0 {
		stop = "tool_use"
	}
	return out, stop
}

func (s *Server) answer(ctx context.Context, w http.ResponseWriter, req Request, turn Turn) {
	if turn.Fail != nil {
		writeError(w, turn.Fail.Status, turn.Fail.Type, turn.Fail.Message)
		return
	}
	blocks, stop := s.blocks(turn)
	id := s.newID("msg")
	model := req.Model
	if model == "" {
		model = "claude-stub"
	}
	usage := map[string]int{"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": model,
			"content": blocks, "stop_reason": stop, "stop_sequence": nil, "usage": usage,
		})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	for _, ev := range streamEvents(id, model, blocks, stop, turn.WordDelay, turn.Gate != nil) {
		if ev.Delay > 0 {
			select {
			case <-time.After(ev.Delay):
			case <-ctx.Done():
				s.log.Info("claudestub: the client left in the middle of a slow answer")
				return
			}
		}
		if ev.Gated {
			select {
			case <-turn.Gate.words:
			case <-ctx.Done():
				s.log.Info("claudestub: the client left in the middle of a slow answer")
				return
			}
		}
		if err := writeEvent(w, ev); err != nil {
			s.log.Warn("claudestub: writing the stream failed", "err", err)
			return
		}
	}
}

// event is one SSE event: its name and JSON data.
type event struct {
	Name  string
	Data  any
	Delay time.Duration // pause before sending it (Turn.WordDelay)
	Gated bool          // sent only after a Turn.Gate release
}

// streamEvents returns the SSE events of one assistant message in the order
// the Messages API sends them.
// With wordDelay, text goes one word per delta, each after that pause;
// gated, one word per delta, each after a release.
func streamEvents(id, model string, blocks []contentBlock, stop string, wordDelay time.Duration, gated bool) []event {
	evs := []event{{Name: "message_start", Data: map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]int{"input_tokens": 10, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
	}}}}
	for i, b := range blocks {
		switch b.Type {
		case "text":
			empty := ""
			evs = append(evs, event{Name: "content_block_start", Data: map[string]any{"type": "content_block_start", "index": i, "content_block": contentBlock{Type: "text", Text: &empty}}})
			pieces := []string{*b.Text}
			if wordDelay > 0 || gated {
				pieces = strings.SplitAfter(*b.Text, " ")
			}
			for _, piece := range pieces {
				evs = append(evs, event{Name: "content_block_delta", Data: map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": piece}}, Delay: wordDelay, Gated: gated})
			}
		case "tool_use":
			evs = append(evs,
				event{Name: "content_block_start", Data: map[string]any{"type": "content_block_start", "index": i, "content_block": contentBlock{Type: "tool_use", ID: b.ID, Name: b.Name, Input: json.RawMessage(`{}`)}}},
				event{Name: "content_block_delta", Data: map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(b.Input)}}})
		}
		evs = append(evs, event{Name: "content_block_stop", Data: map[string]any{"type": "content_block_stop", "index": i}})
	}
	return append(evs,
		event{Name: "message_delta", Data: map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]int{"output_tokens": 5}}},
		event{Name: "message_stop", Data: map[string]any{"type": "message_stop"}})
}

func writeEvent(w http.ResponseWriter, ev event) error {
	data, err := json.Marshal(ev.Data)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev.Name, data); err != nil {
		return err
	}
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	return nil
}

func writeError(w http.ResponseWriter, code int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]any{"type": "error", "error": map[string]string{"type": typ, "message": msg}})
}

// Env returns the environment for a claude process that talks only to this
// stub, keeps its state under home (HOME and the XDG folders) and sends
// nothing anywhere else. Add PATH and anything else the test needs.
func (s *Server) Env(home string) []string {
	return []string{
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + home + "/.config",
		"XDG_CACHE_HOME=" + home + "/.cache",
		"XDG_DATA_HOME=" + home + "/.local/share",
		"XDG_STATE_HOME=" + home + "/.local/state",
		"CLAUDE_CONFIG_DIR=" + home + "/.claude",
		"ANTHROPIC_BASE_URL=" + s.URL(),
		"ANTHROPIC_API_KEY=dummy",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1",
		"DISABLE_BUG_COMMAND=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"CLAUDE_CODE_DISABLE_TERMINAL_TITLE=1",
		"CLAUDE_CODE_ENABLE_TELEMETRY=0",
		"NO_COLOR=1",
	}
}
