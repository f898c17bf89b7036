// Package codexstub serves a scripted stand-in for the OpenAI Responses API
// on 127.0.0.1, so tests can drive the real Codex CLI (`codex exec` and the
// interactive TUI) without the internet. Codex posts every model turn to
// {base_url}/responses and reads a server-sent event stream; the shortest
// stream it accepts is response.output_item.done per item, then
// response.completed. A test gives the turns the model should take; the
// stub answers each main request with the next one, records every request
// body, and answers Codex's side requests (a thread title: a request
// without the shell tool) with plain text without consuming the script.
package codexstub

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/testenv/stubscript"
)

// Call is one function call the scripted model makes.
type Call struct {
	// Name is the tool's name: "exec_command" for Codex's shell, or an MCP
	// tool's own name ("list_uniques") with Namespace "mcp__lets".
	Name      string
	Namespace string
	Args      any // marshalled to JSON; nil means {}
}

// Turn is one scripted model answer: optional text, then function calls.
type Turn struct {
	Text  string
	Calls []Call
	// Fail, when set, answers with this HTTP status and error body
	// instead of a stream.
	Fail *APIError
	// StreamFail, when set, sends response.failed with this message
	// instead of a completed response.
	StreamFail string
	// Hold, when set, keeps the stream open without an answer until the
	// channel is closed or the client goes away (a model that thinks).
	Hold <-chan struct{}
}

// APIError is an HTTP error answer.
type APIError struct {
	Status  int
	Message string
}

// Step picks the turn for one main request.
type Step func(req Request) Turn

// Say answers with text only.
func Say(text string) Step { return func(Request) Turn { return Turn{Text: text} } }

// Shell answers with one call of Codex's shell tool running cmd.
func Shell(cmd string) Step {
	return func(Request) Turn {
		return Turn{Calls: []Call{{Name: "exec_command", Args: map[string]any{"cmd": cmd}}}}
	}
}

// MCP answers with one call of tool in the MCP server named server (the
// name in Codex's config, e.g. "lets").
func MCP(server, tool string, args any) Step {
	return func(Request) Turn {
		return Turn{Calls: []Call{{Name: tool, Namespace: "mcp__" + server, Args: args}}}
	}
}

// Fixed answers with turn.
func Fixed(turn Turn) Step { return func(Request) Turn { return turn } }

// Request is one recorded POST.
type Request struct {
	Path string
	Side bool // a side request (no shell tool offered): not scripted
	Body map[string]any
	Raw  []byte
}

// HasTool reports whether the request offers a tool (or a namespace) by
// that name.
func (r Request) HasTool(name string) bool {
	tools, _ := r.Body["tools"].([]any)
	for _, t := range tools {
		m, _ := t.(map[string]any)
		if m["name"] == name {
			return true
		}
	}
	return false
}

// NamespaceTools is the tool names offered inside a namespace
// ("mcp__lets"), or nil when it is not offered.
func (r Request) NamespaceTools(namespace string) []string {
	tools, _ := r.Body["tools"].([]any)
	for _, t := range tools {
		m, _ := t.(map[string]any)
		if m["type"] != "namespace" || m["name"] != namespace {
			continue
		}
		inner, _ := m["tools"].([]any)
		var names []string
		for _, it := range inner {
			im, _ := it.(map[string]any)
			if n, ok := im["name"].(string); ok {
				names = append(names, n)
			}
		}
		if names == nil {
			names = []string{}
		}
		return names
	}
	return nil
}

// Outputs is the text of every function_call_output item in the request's
// input, in order (Codex sends the whole conversation each time).
func (r Request) Outputs() []string {
	items, _ := r.Body["input"].([]any)
	var out []string
	for _, it := range items {
		m, _ := it.(map[string]any)
		if m["type"] != "function_call_output" {
			continue
		}
		switch o := m["output"].(type) {
		case string:
			out = append(out, o)
		default:
			b, _ := json.Marshal(o)
			out = append(out, string(b))
		}
	}
	return out
}

// UserText is the text of the request's last user message.
func (r Request) UserText() string {
	items, _ := r.Body["input"].([]any)
	for i := len(items) - 1; i >= 0; i-- {
		m, _ := items[i].(map[string]any)
		if m["type"] != "message" || m["role"] != "user" {
			continue
		}
		parts, _ := m["content"].([]any)
		var b strings.Builder
		for _, p := range parts {
			pm, _ := p.(map[string]any)
			if s, ok := pm["text"].(string); ok {
				b.WriteString(s)
			}
		}
		return b.String()
	}
	return ""
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
		tb.Fatalf("codexstub: %v", err)
	}
	tb.Cleanup(func() { _ = s.Close() })
	return s
}

// Listen serves the stub on a free 127.0.0.1 port; Close stops it.
func Listen(log *slog.Logger, script ...Step) (*Server, error) {
	s := &Server{Script: stubscript.New[Step, Request](script...), log: log}
	srv, ln, err := stubscript.Serve("codexstub", s)
	if err != nil {
		return nil, err
	}
	s.srv, s.ln = srv, ln
	return s, nil
}

// URL is the base URL for the provider's base_url (Codex appends
// /responses).
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() + "/v1" }

// Close stops the server.
func (s *Server) Close() error { return s.srv.Close() }

// MainRequests returns the requests that consumed (or asked for) a
// scripted turn.
func (s *Server) MainRequests() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if !r.Side {
			out = append(out, r)
		}
	}
	return out
}

// WaitRequests waits until n main requests have arrived, or the timeout
// (the last one may be past the end of the script).
func (s *Server) WaitRequests(n int, timeout time.Duration) bool {
	return s.WaitUntil(func(_ int, reqs []Request) bool {
		count := 0
		for _, r := range reqs {
			if !r.Side {
				count++
			}
		}
		return count >= n
	}, timeout)
}

// IsSide reports whether a request body is one of Codex's side requests
// (a title for the thread): it does not offer the shell tool.
func IsSide(body map[string]any) bool {
	return !Request{Body: body}.HasTool("exec_command")
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/responses") {
		s.log.Info("codexstub: not the Responses API", "method", r.Method, "path", r.URL.Path)
		http.Error(w, `{"error":{"message":"codexstub serves only POST …/responses"}}`, http.StatusNotFound)
		return
	}
	raw, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		http.Error(w, "read body", http.StatusBadRequest)
		return
	}
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		http.Error(w, `{"error":{"message":"the body is not JSON"}}`, http.StatusBadRequest)
		return
	}
	req := Request{Path: r.URL.Path, Side: IsSide(body), Body: body, Raw: raw}
	turn := Turn{Text: "Stub thread"}
	if !req.Side {
		if step, ok := s.Take(); ok && step != nil {
			turn = step(req)
		} else {
			s.log.Warn("codexstub: the script is used up; answering with plain text")
			turn = Turn{Text: "(the script has ended)"}
		}
	}
	s.Record(req)
	s.log.Info("codexstub: answer", "side", req.Side, "text", turn.Text, "calls", len(turn.Calls))
	s.answer(w, r, turn)
}

func (s *Server) newID(prefix string) string { return fmt.Sprintf("%s_%d", prefix, s.NextID()) }

func (s *Server) answer(w http.ResponseWriter, r *http.Request, turn Turn) {
	if turn.Fail != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(turn.Fail.Status)
		b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": turn.Fail.Message, "type": "stub_error"}})
		_, _ = w.Write(b)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	flush := func() {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	respID := s.newID("resp")
	send := func(v map[string]any) {
		b, _ := json.Marshal(v)
		_, _ = fmt.Fprintf(w, "event: %s\ndata: %s\n\n", v["type"], b)
		flush()
	}
	send(map[string]any{"type": "response.created", "response": map[string]any{"id": respID}})
	if turn.Hold != nil {
		select {
		case <-turn.Hold:
		case <-r.Context().Done():
			return
		}
	}
	index := 0
	if turn.Text != "" {
		item := map[string]any{"type": "message", "role": "assistant", "id": s.newID("msg"), "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": turn.Text, "annotations": []any{}}}}
		send(map[string]any{"type": "response.output_item.done", "output_index": index, "item": item})
		index++
	}
	for _, c := range turn.Calls {
		args := c.Args
		if args == nil {
			args = map[string]any{}
		}
		a, _ := json.Marshal(args)
		item := map[string]any{"type": "function_call", "id": s.newID("fc"), "call_id": s.newID("call"),
			"name": c.Name, "arguments": string(a), "status": "completed"}
		if c.Namespace != "" {
			item["namespace"] = c.Namespace
		}
		send(map[string]any{"type": "response.output_item.done", "output_index": index, "item": item})
		index++
	}
	if turn.StreamFail != "" {
		send(map[string]any{"type": "response.failed", "response": map[string]any{"id": respID,
			"error": map[string]any{"code": "server_error", "message": turn.StreamFail}}})
		return
	}
	send(map[string]any{"type": "response.completed", "response": map[string]any{"id": respID,
		"usage": map[string]any{"input_tokens": 1, "output_tokens": 1, "total_tokens": 2,
			"input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens_details": map[string]any{"reasoning_tokens": 0}}}})
}

// Config is the config.toml a test's CODEX_HOME needs to talk to the stub
// offline: the stub as the model provider (Responses API), no update
// check, no analytics, no feedback. extra is appended as it is.
func (s *Server) Config(extra string) string {
	return fmt.Sprintf(`model = "stub-model"
model_provider = "stub"
check_for_update_on_startup = false

[analytics]
enabled = false

[feedback]
enabled = false

[model_providers.stub]
name = "Stub"
base_url = %q
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

`, s.URL()) + extra
}

// WriteConfig writes Config(extra) into codexHome/config.toml (0600),
// making the folder. codexHome must not be under TMPDIR (Codex's sandbox
// helper refuses it): use testutil.CodexHome.
func (s *Server) WriteConfig(tb testing.TB, codexHome, extra string) string {
	tb.Helper()
	if err := os.MkdirAll(codexHome, 0o700); err != nil {
		tb.Fatalf("codexstub: %v", err)
	}
	p := filepath.Join(codexHome, "config.toml")
	if err := os.WriteFile(p, []byte(s.Config(extra)), 0o600); err != nil {
		tb.Fatalf("codexstub: %v", err)
	}
	return p
}
