package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lets-app/lets/backend/hostapi"
	"github.com/lets-app/lets/backend/hostclient"
	"github.com/lets-app/lets/backend/lip"
)

// noteRoom is kept free for the notes a result appends after fitting.
const noteRoom = 300

// textResult is a result with one text content and a JSON object as
// structuredContent.
func textResult(text string, structured []byte) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: text}},
		StructuredContent: jsonObject(structured),
	}
}

// jsonObject marks bytes as raw JSON for the encoder.
func jsonObject(b []byte) any { return json.RawMessage(b) }

// result is a successful tool result whose whole text is also its note
// (see resultNote).
func (s *server) result(text string, structured []byte) *mcp.CallToolResult {
	return s.resultNote(text, text, structured)
}

// resultNote is a successful tool result: text for the model plus the
// host's JSON, together under maxChars characters (text gets at most
// half; the JSON's long strings are cut with a marker). note — what the
// text tells the model to do, without what the JSON already holds — goes
// into structuredContent too, as its first member "note": Claude Code
// gives the model only the structuredContent of a result that has one,
// so an instruction only in the text would never reach it.
func (s *server) resultNote(text, note string, structured []byte) *mcp.CallToolResult {
	text, _ = cutText(text, s.maxChars/2)
	note, _ = cutText(strings.TrimSpace(note), s.maxChars/4)
	budget := s.maxChars - utf8.RuneCountInString(text) - utf8.RuneCountInString(note) - noteRoom
	fitted, cut, ok := fitJSON(structured, budget)
	switch {
	case !ok:
		fitted = encodeJSON(map[string]any{
			"truncated": true,
			"note":      fmt.Sprintf("the full answer (%d characters) is too long for one tool result; the text above sums it up", utf8.RuneCount(structured)),
		})
		text += "\n(The full JSON answer was too long to include.)"
		return textResult(text, withNote(fitted, note))
	case cut > 0:
		more := fmt.Sprintf("(%d long text field(s) in the JSON answer were shortened, marked \"…[truncated N chars]\".)", cut)
		text += "\n" + more
		note = strings.TrimSpace(note + "\n" + more)
	}
	return textResult(text, withNote(fitted, note))
}

// withNote puts "note" first into the JSON object obj (a note of obj's
// own is kept after it); obj unchanged when note is empty or obj is not
// an object.
func withNote(obj []byte, note string) []byte {
	trimmed := bytes.TrimSpace(obj)
	if note == "" || len(trimmed) < 2 || trimmed[0] != '{' {
		return obj
	}
	if old, ok := noteOf(trimmed); ok {
		// Rare (the answer has a note of its own): one merged member.
		var m map[string]json.RawMessage
		if json.Unmarshal(trimmed, &m) != nil {
			return obj
		}
		m["note"], _ = json.Marshal(note + "\n" + old)
		return encodeJSON(m)
	}
	n, err := json.Marshal(note)
	if err != nil {
		return obj
	}
	rest := bytes.TrimSpace(trimmed[1:])
	out := append([]byte(`{"note":`), n...)
	if len(rest) > 0 && rest[0] != '}' {
		out = append(out, ',')
	}
	return append(out, rest...)
}

// noteOf returns obj's own string member "note", if any.
func noteOf(obj []byte) (string, bool) {
	var m struct {
		Note *string `json:"note"`
	}
	if json.Unmarshal(obj, &m) != nil || m.Note == nil {
		return "", false
	}
	return *m.Note, true
}

// errorResult is a tool error: what went wrong, with the LIP error code,
// and what to do about it.
func (s *server) errorResult(code, message, hint string) *mcp.CallToolResult {
	message, _ = cutText(message, s.maxChars/4)
	text := fmt.Sprintf("Lets could not do this (%s): %s", code, message)
	if hint != "" {
		text += "\nWhat to do: " + hint
	}
	res := textResult(text, encodeJSON(map[string]any{"error": map[string]string{"code": code, "message": message, "hint": hint}}))
	res.IsError = true
	return res
}

// inputError is a tool error about the tool's own input.
func (s *server) inputError(message string) *mcp.CallToolResult {
	return s.errorResult("bad_input", message, "fix the tool input and call it again")
}

// hostError turns a hostclient error into a tool error.
func (s *server) hostError(err error) *mcp.CallToolResult {
	var (
		ae *hostclient.APIError
		se *hostclient.StartError
		ue *hostclient.UnreachableError
		he *hostclient.HostFileError
	)
	startHint := "ask the person to start Lets — `lets` opens the desktop app, `lets serve` runs it without a display — then call this tool again"
	switch {
	case errors.As(err, &ae):
		code := ae.Code
		if code == "" {
			code = fmt.Sprintf("http_%d", ae.Status)
		}
		msg := ae.Message
		if msg == "" {
			msg = fmt.Sprintf("the Lets host answered HTTP %d", ae.Status)
		}
		return s.errorResult(code, msg, toolHint(ae.Hint, code))
	case errors.As(err, &se):
		s.log.Warn("no Lets host, and starting one failed", "err", err)
		return s.errorResult("not_running", "Lets is not running and could not be started: "+se.Err.Error(), startHint)
	case errors.Is(err, hostclient.ErrNotRunning):
		return s.errorResult("not_running", "Lets is not running", startHint)
	case errors.As(err, &ue) && ue.TimedOut:
		return s.errorResult("timeout", "Lets did not answer in time", "try again; if it keeps happening, ask the person to restart Lets")
	case errors.As(err, &ue):
		return s.errorResult("unreachable", "Lets should be running but does not answer (it may have stopped)", "ask the person to start Lets again with `lets` (or `lets serve`), then call this tool again")
	case errors.As(err, &he):
		return s.errorResult("host_file", he.Error(), "ask the person to restart Lets: it rewrites ~/.lets/host.json")
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return s.errorResult("cancelled", "the request was cancelled before Lets answered", "call the tool again if you still need it")
	}
	s.log.Warn("a host request failed", "err", err)
	return s.errorResult("internal", err.Error(), "try again; if it keeps failing, ask the person to restart Lets")
}

// hintFor says what to do about a LIP error code.
func hintFor(code string) string {
	switch code {
	case "unknown_window":
		return "call the status tool to see the open windows; a window the person closed is gone — open the unique again"
	case "unknown_unique":
		return "call the uniques tool to see the installed uniques and use one of their names"
	case "unknown_session":
		return "call the sessions tool to see the saved sessions, or open without resume"
	case "undeclared_type":
		return "use a command the unique declares (listed in the open result) or a core command"
	case "bad_data":
		return "fix the data to match what the command takes (see the open result and the GUIDE) and send it again"
	case "bad_envelope":
		return "check the tool input: a window id like w1, a type like hello.show, data as a JSON object"
	case "reserved_domain":
		return "this type belongs to Lets itself; use the unique's own commands"
	case "too_large":
		return "send less data at once, or split it into several commands"
	case "rate_limited":
		return "wait a second and try again"
	case "expired":
		return "the command's ttl ran out before the window took it; send it again, with a longer ttl or none"
	case "forbidden", "exec_denied":
		return "this is not allowed here; ask the person if it should be"
	case "unauthorized":
		return "Lets was restarted and the new key could not be read; call the tool again, and if it keeps failing ask the person to restart Lets"
	case "invalid_manifest", "install_failed":
		return "the unique itself is broken; tell the person"
	case "internal":
		return "try again; if it keeps failing, ask the person to restart Lets"
	}
	return ""
}

// toolHint words the host's hint in terms of this server's tools, or,
// without one, says what to do about the code.
func toolHint(h hostapi.Hint, code string) string {
	switch h {
	case hostapi.HintWindows:
		return hintFor(string(lip.CodeUnknownWindow))
	case hostapi.HintUniques:
		return hintFor(string(lip.CodeUnknownUnique))
	case hostapi.HintSessions:
		return hintFor(string(hostapi.CodeUnknownSession))
	}
	return hintFor(code)
}

// hintSuffix is toolHint as a sentence tail, or "".
func hintSuffix(h hostapi.Hint, code string) string {
	if h := toolHint(h, code); h != "" {
		return " — " + h
	}
	return ""
}
