// Package codexexec reads what `codex exec --json` prints, one JSON event
// per line, and turns it into what Lets shows of that task: its Wire
// state on the pads and the agent's words for the terminal. It is pure:
// no processes, no sockets; the adapter that runs Codex feeds it lines.
//
// The events (Codex CLI 0.169): thread.started (with thread_id),
// turn.started, item.started / item.updated / item.completed (each with an
// item: agent_message, reasoning, command_execution, mcp_tool_call,
// file_change, web_search, todo_list, or error), turn.completed (with
// usage), turn.failed (with error.message) and a top-level error (with
// message). An error *item* is a warning Codex shows and goes on (a
// config note, say): it never turns the task red.
package codexexec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/lets-app/lets/backend/textsafe"
	"github.com/lets-app/lets/backend/wire"
)

// MaxLineBytes bounds one event line; a longer one is refused whole (an
// agent message of that size is not something a pad or a terminal line
// needs).
const MaxLineBytes = 4 << 20

// maxWords bounds the error and warning words kept from an event.
const maxWords = 500

// The event types Codex prints.
const (
	TypeThreadStarted = "thread.started"
	TypeTurnStarted   = "turn.started"
	TypeTurnCompleted = "turn.completed"
	TypeTurnFailed    = "turn.failed"
	TypeItemStarted   = "item.started"
	TypeItemUpdated   = "item.updated"
	TypeItemCompleted = "item.completed"
	TypeError         = "error"
)

// The item types Lets treats on their own.
const (
	ItemAgentMessage = "agent_message"
	ItemError        = "error"
)

// Event is one line of `codex exec --json`, with what Lets reads of it.
type Event struct {
	Type     string
	ThreadID string // thread.started
	Item     *Item  // item.*
	// Message is the words of a turn.failed's error or of a top-level
	// error (clipped, one line).
	Message string
}

// Item is the item of an item.* event.
type Item struct {
	ID   string
	Type string
	// Text is an agent message's words (whole), or an error item's
	// message (clipped, one line).
	Text string
}

// LineError says why a line is not an event. A bad line is skipped by the
// caller: it never ends the task.
type LineError struct {
	Problem string // what is wrong, in words
	Err     error  // the JSON error, when there is one
}

func (e *LineError) Error() string {
	if e.Err != nil {
		return "codex exec printed a line that is not an event (" + e.Problem + "): " + e.Err.Error()
	}
	return "codex exec printed a line that is not an event (" + e.Problem + ")"
}

func (e *LineError) Unwrap() error { return e.Err }

// The problems of a LineError.
const (
	ProblemTooLong   = "longer than 4 MiB"
	ProblemNotObject = "not a JSON object"
	ProblemNoType    = "no type"
	ProblemBadUTF8   = "not UTF-8"
)

// wireEvent is the JSON shape read; everything else is ignored.
type wireEvent struct {
	Type     string `json:"type"`
	ThreadID string `json:"thread_id"`
	Item     *struct {
		ID      string `json:"id"`
		Type    string `json:"type"`
		Text    string `json:"text"`
		Message string `json:"message"`
	} `json:"item"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
	Message string `json:"message"`
}

// ParseLine reads one line (a trailing newline or CR is fine). Errors are
// *LineError.
func ParseLine(b []byte) (Event, error) {
	if len(b) > MaxLineBytes {
		return Event{}, &LineError{Problem: ProblemTooLong}
	}
	b = bytes.TrimRight(b, "\r\n")
	if !utf8.Valid(b) {
		return Event{}, &LineError{Problem: ProblemBadUTF8}
	}
	var w wireEvent
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&w); err != nil {
		return Event{}, &LineError{Problem: ProblemNotObject, Err: err}
	}
	if dec.More() {
		return Event{}, &LineError{Problem: ProblemNotObject, Err: errors.New("more than one value on the line")}
	}
	if bytes.TrimSpace(b)[0] != '{' {
		return Event{}, &LineError{Problem: ProblemNotObject}
	}
	if w.Type == "" {
		return Event{}, &LineError{Problem: ProblemNoType}
	}
	ev := Event{Type: w.Type, ThreadID: w.ThreadID}
	switch {
	case w.Type == TypeTurnFailed && w.Error != nil:
		ev.Message = words(w.Error.Message)
	case w.Type == TypeError:
		ev.Message = words(w.Message)
	}
	if w.Item != nil {
		it := &Item{ID: w.Item.ID, Type: w.Item.Type, Text: w.Item.Text}
		if it.Type == ItemError {
			it.Text = words(firstOf(w.Item.Message, w.Item.Text))
		}
		ev.Item = it
	}
	return ev, nil
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// words is error text fit for a pad's detail and a terminal line.
func words(s string) string { return textsafe.Line(s, maxWords) }

// ForTerminal is an agent's words made safe to print: lines and tabs
// stay; other control characters (an escape sequence could move the
// cursor or retitle the window) and bidirectional controls become U+FFFD.
func ForTerminal(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\t':
			return r
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || textsafe.IsBidiControl(r):
			return utf8.RuneError
		}
		return r
	}, strings.ToValidUTF8(s, string(utf8.RuneError)))
}

// Update is what one event changes.
type Update struct {
	// State is the task's new Wire state; "" when it stays.
	State wire.State
	// Say is the agent's finished message, for the terminal; "" for none.
	Say string
	// Warn is a warning Codex gave and went on from; "" for none.
	Warn string
	// Failed is why the turn or the task failed; "" unless State is error.
	Failed string
}

// Task follows one `codex exec` run. Its zero value is ready.
type Task struct {
	state    wire.State
	threadID string
	failed   string
}

// Apply folds one event in and says what changed.
func (t *Task) Apply(ev Event) Update {
	var u Update
	switch ev.Type {
	case TypeThreadStarted:
		t.threadID = ev.ThreadID
		u.State = wire.StateRunning
	case TypeTurnStarted, TypeItemStarted:
		u.State = wire.StateRunning
	case TypeItemUpdated:
		// Progress inside an item: the task is still running.
		if t.state != wire.StateRunning {
			u.State = wire.StateRunning
		}
	case TypeItemCompleted:
		if ev.Item != nil {
			switch ev.Item.Type {
			case ItemAgentMessage:
				u.Say = ForTerminal(ev.Item.Text)
			case ItemError:
				u.Warn = ev.Item.Text
			}
		}
	case TypeTurnCompleted:
		u.State = wire.StateSuccess
	case TypeTurnFailed, TypeError:
		u.State = wire.StateError
		u.Failed = firstOf(ev.Message, "Codex stopped with an error")
		t.failed = u.Failed
	}
	if u.State == t.state {
		u.State = ""
	} else if u.State != "" {
		t.state = u.State
	}
	return u
}

// State is the task's state so far ("" before the first event).
func (t *Task) State() wire.State { return t.state }

// ThreadID is the Codex thread the task runs in ("" until Codex said).
func (t *Task) ThreadID() string { return t.threadID }

// Failed is why the task failed, or "".
func (t *Task) Failed() string { return t.failed }

// String describes the task for logs.
func (t *Task) String() string {
	return fmt.Sprintf("codex exec task (thread %q, state %q)", t.threadID, t.state)
}
