package claudestub

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"io"
	"net/http"
	"strings"
	"testing"
)

func post(t *testing.T, url string, body any) *http.Response {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testutil.EventuallyTimeout)
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

// mainRequest is a Messages API request as the agent loop sends it.
func mainRequest(stream bool, messages ...map[string]any) map[string]any {
	if len(messages) == 0 {
		messages = []map[string]any{{"role": "user", "content": "hello"}}
	}
	return map[string]any{
		"model": "claude-test", "max_tokens": 1000, "stream": stream, "messages": messages,
		"tools": []map[string]any{{"name": "Bash", "input_schema": map[string]any{"type": "object"}}},
	}
}

type sse struct {
	name string
	data map[string]any
}

// readSSE parses an event stream the way the Anthropic SDK does: events
// separated by a blank line, each with one event: and one data: line.
func readSSE(t *testing.T, r io.Reader) []sse {
	t.Helper()
	var out []sse
	sc := bufio.NewScanner(r)
	var cur sse
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.name == "" || cur.data == nil {
				t.Fatalf("an event without a name or data before a blank line: %+v", cur)
			}
			if cur.data["type"] != cur.name {
				t.Errorf("event %q carries data of type %v", cur.name, cur.data["type"])
			}
			out = append(out, cur)
			cur = sse{}
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &cur.data); err != nil {
				t.Fatalf("data is not JSON: %q: %v", line, err)
			}
		default:
			t.Fatalf("unexpected SSE line %q", line)
		}
	}
	if cur.name != "" {
		t.Fatalf("the stream ended inside an event: %+v", cur)
	}
	return out
}

// Point: a streamed answer is framed as the Messages API frames it —
// message_start, per block content_block_start/delta/stop, message_delta
// with the stop reason, message_stop — and the tool input reassembles.
func TestStreamedTurnIsFramedLikeTheMessagesAPI(t *testing.T) {
	s := Start(t, Fixed(Turn{Text: "Let me look.", Tools: []ToolCall{{ID: "toolu_1", Name: "Bash", Input: map[string]any{"command": "ls"}}}}))
	resp := post(t, s.URL()+"/v1/messages", mainRequest(true))
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	evs := readSSE(t, resp.Body)
	var names []string
	for _, e := range evs {
		names = append(names, e.name)
	}
	want := "message_start content_block_start content_block_delta content_block_stop content_block_start content_block_delta content_block_stop message_delta message_stop"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("events:\n got %s\nwant %s", got, want)
	}
	msg := evs[0].data["message"].(map[string]any)
	if msg["role"] != "assistant" || msg["model"] != "claude-test" || msg["usage"] == nil {
		t.Errorf("message_start: %v", msg)
	}
	if d := evs[2].data["delta"].(map[string]any); d["type"] != "text_delta" || d["text"] != "Let me look." {
		t.Errorf("text delta: %v", d)
	}
	cb := evs[4].data["content_block"].(map[string]any)
	if cb["type"] != "tool_use" || cb["id"] != "toolu_1" || cb["name"] != "Bash" || evs[4].data["index"] != float64(1) {
		t.Errorf("tool_use start: %v", evs[4].data)
	}
	d := evs[5].data["delta"].(map[string]any)
	var input map[string]any
	if d["type"] != "input_json_delta" || json.Unmarshal([]byte(d["partial_json"].(string)), &input) != nil || input["command"] != "ls" {
		t.Errorf("tool input delta: %v", d)
	}
	if md := evs[7].data["delta"].(map[string]any); md["stop_reason"] != "tool_use" {
		t.Errorf("message_delta: %v", md)
	}
}

// Point: without stream the answer is one JSON message, and a text-only
// turn ends with end_turn.
func TestUnstreamedTurnIsOneJSONMessage(t *testing.T) {
	s := Start(t, Say("All done."))
	resp := post(t, s.URL()+"/v1/messages", mainRequest(false))
	var m struct {
		Type       string `json:"type"`
		Role       string `json:"role"`
		StopReason string `json:"stop_reason"`
		Content    []struct {
			Type, Text string
		} `json:"content"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	if m.Type != "message" || m.Role != "assistant" || m.StopReason != "end_turn" || len(m.Content) != 1 || m.Content[0].Text != "All done." {
		t.Fatalf("answer: %+v", m)
	}
}

// Point: a step sees the request, so a test can read the tool_result Claude
// sent back; requests are recorded with their parsed fields; a request
// without tools (a side request) is answered with text and does not consume
// the script; when the script is used up the turn ends with text.
func TestScriptStepsSeeRequestsAndSideRequestsAreSkipped(t *testing.T) {
	var seen string
	s := Start(t,
		Call("Bash", map[string]any{"command": "echo hi"}),
		func(r Request) Turn {
			for _, b := range r.ToolResults() {
				seen = b.ResultText()
			}
			return Turn{Text: "I saw " + seen}
		},
	)
	readSSE(t, post(t, s.URL()+"/v1/messages", mainRequest(true)).Body)
	if s.Used() != 1 {
		t.Fatalf("used %d steps, want 1", s.Used())
	}
	side := map[string]any{"model": "claude-haiku", "max_tokens": 50, "messages": []map[string]any{{"role": "user", "content": "title this"}}}
	readSSE(t, post(t, s.URL()+"/v1/messages", map[string]any{"model": side["model"], "max_tokens": 50, "stream": true, "messages": side["messages"]}).Body)
	if s.Used() != 1 {
		t.Fatalf("a side request consumed a step (used %d)", s.Used())
	}
	result := map[string]any{"role": "user", "content": []map[string]any{{"type": "tool_result", "tool_use_id": "toolu_x", "content": []map[string]any{{"type": "text", "text": "hi"}}}}}
	evs := readSSE(t, post(t, s.URL()+"/v1/messages", mainRequest(true, map[string]any{"role": "user", "content": "go"}, result)).Body)
	if seen != "hi" {
		t.Fatalf("the step saw tool result %q, want hi", seen)
	}
	if d := evs[2].data["delta"].(map[string]any); d["text"] != "I saw hi" {
		t.Errorf("answer %v", d)
	}
	if !s.WaitUsed(2, testutil.EventuallyTimeout) {
		t.Fatal("WaitUsed(2) timed out")
	}
	evs = readSSE(t, post(t, s.URL()+"/v1/messages", mainRequest(true)).Body)
	if md := evs[len(evs)-2].data["delta"].(map[string]any); md["stop_reason"] != "end_turn" {
		t.Errorf("after the script: %v", md)
	}
	reqs := s.Requests()
	if len(reqs) != 4 || !reqs[1].Side || reqs[0].Side || !reqs[0].Stream || reqs[0].Model != "claude-test" || !reqs[0].HasTool("Bash") {
		t.Fatalf("recorded: %+v", reqs)
	}
	if len(s.MainRequests()) != 3 {
		t.Errorf("MainRequests: %d, want 3", len(s.MainRequests()))
	}
	if got := reqs[2].Messages[0].Blocks(); len(got) != 1 || got[0].Text != "go" {
		t.Errorf("a string content reads as one text block: %+v", got)
	}
}

// Point: a scripted failure answers an API error body; other paths answer
// harmlessly and are recorded (so claude never hangs on them); a body that
// is not JSON gets a 400.
func TestErrorsAndUnknownPaths(t *testing.T) {
	s := Start(t, Fixed(Turn{Fail: &APIError{Status: 529, Type: "overloaded_error", Message: "busy"}}))
	resp := post(t, s.URL()+"/v1/messages", mainRequest(true))
	var e struct {
		Type  string `json:"type"`
		Error struct{ Type, Message string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&e); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 529 || e.Type != "error" || e.Error.Type != "overloaded_error" || e.Error.Message != "busy" {
		t.Fatalf("error answer %d %+v", resp.StatusCode, e)
	}
	resp = post(t, s.URL()+"/api/hello", map[string]any{"x": 1})
	if b, _ := io.ReadAll(resp.Body); resp.StatusCode != 200 || string(b) != "{}" {
		t.Fatalf("unknown path: %d %q", resp.StatusCode, b)
	}
	resp = post(t, s.URL()+"/v1/messages/count_tokens", mainRequest(false))
	var c struct {
		InputTokens int `json:"input_tokens"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&c); err != nil || c.InputTokens < 1 {
		t.Fatalf("count_tokens: %+v %v", c, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testutil.EventuallyTimeout)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL()+"/v1/messages", strings.NewReader("not json"))
	r2, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = r2.Body.Close()
	if r2.StatusCode != 400 {
		t.Fatalf("bad body: %d", r2.StatusCode)
	}
	if n := len(s.Requests()); n != 4 {
		t.Fatalf("recorded %d requests, want 4", n)
	}
}

// Point: the stub listens on loopback only, and Env points claude at it
// with a dummy key and no other traffic.
func TestStubIsLoopbackAndEnvPointsAtIt(t *testing.T) {
	s := Start(t)
	if !strings.HasPrefix(s.URL(), "http://127.0.0.1:") {
		t.Fatalf("URL %s", s.URL())
	}
	env := strings.Join(s.Env("/h"), "\n")
	for _, want := range []string{"ANTHROPIC_BASE_URL=" + s.URL(), "ANTHROPIC_API_KEY=dummy", "HOME=/h", "DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"} {
		if !strings.Contains(env, want+"\n") && !strings.HasSuffix(env, want) {
			t.Errorf("Env lacks %s", want)
		}
	}
}

func FuzzParseMessages(f *testing.F) {
	f.Add([]byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}],"tools":[{"name":"Bash"}]}`))
	f.Add([]byte(`{"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"x"}]}]}]}`))
	f.Add([]byte(`{"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"x","is_error":true}]}]}`))
	f.Add([]byte(`not json`))
	f.Fuzz(func(t *testing.T, body []byte) {
		req := Request{Body: body}
		if err := ParseMessages(&req); err != nil {
			return
		}
		if req.Side != (len(req.Tools) == 0) {
			t.Fatalf("Side %v with %d tools", req.Side, len(req.Tools))
		}
		for _, b := range req.ToolResults() {
			_ = b.ResultText()
		}
		for _, m := range req.Messages {
			_ = m.Blocks()
		}
	})
}

// TestToolResultsAreMatchedByTheirCall: the results of the model's last
// tool calls are found by tool_use_id wherever Claude Code puts them
// among its own messages (a reminder after them, a message of its own in
// between), and an older call's result is not taken for the last one's.
func TestToolResultsAreMatchedByTheirCall(t *testing.T) {
	msg := func(role, content string) Message { return Message{Role: role, Content: json.RawMessage(content)} }
	call := func(id string) Message {
		return msg("assistant", `[{"type":"tool_use","id":"`+id+`","name":"mcp__lets__status","input":{}}]`)
	}
	result := func(id, text string) Message {
		return msg("user", `[{"type":"tool_result","tool_use_id":"`+id+`","content":"`+text+`"}]`)
	}
	cases := []struct {
		name string
		msgs []Message
		want string
	}{
		{"plain", []Message{msg("user", `"hi"`), call("a"), result("a", "A")}, "A"},
		{"reminder after", []Message{msg("user", `"hi"`), call("a"), result("a", "A"), msg("user", `"<system-reminder>tools</system-reminder>"`)}, "A"},
		{"message of its own after", []Message{msg("user", `"hi"`), call("a"), result("a", "A"), msg("assistant", `"…"`), msg("user", `"go on"`)}, "A"},
		{"older call not taken", []Message{msg("user", `"hi"`), call("a"), result("a", "A"), call("b"), result("b", "B")}, "B"},
		{"no call: trailing user turn", []Message{result("x", "X")}, "X"},
	}
	for _, c := range cases {
		r := Request{Messages: c.msgs}
		got := r.ToolResults()
		if len(got) != 1 || got[0].ResultText() != c.want {
			t.Errorf("%s: got %+v, want one result %q (shape %s)", c.name, got, c.want, r.Shape())
		}
	}
	if s := (Request{Messages: []Message{msg("user", `"hi"`), call("a")}}).Shape(); s != "user[text] assistant[tool_use]" {
		t.Errorf("shape %q", s)
	}
}
