package claudehook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
)

// MaxStdinBytes caps what a hook reads from Claude Code. Hook input is a
// small JSON object; tool_input of a large Write can be big, but a megabyte
// is far above anything a hook needs to report state.
const MaxStdinBytes = 1 << 20

// Hook event names (claude-integration §2), as Claude Code spells them and
// as `lets hook <event>` takes them.
const (
	EventSessionStart       = "SessionStart"
	EventUserPromptSubmit   = "UserPromptSubmit"
	EventPreToolUse         = "PreToolUse"
	EventPostToolUse        = "PostToolUse"
	EventPostToolUseFailure = "PostToolUseFailure"
	EventPermissionRequest  = "PermissionRequest"
	EventNotification       = "Notification"
	EventStop               = "Stop"
	EventStopFailure        = "StopFailure"
	EventSessionEnd         = "SessionEnd"
)

// Events returns every hook event Lets handles, in the order of
// claude-integration §2 (a fresh slice; `lets setup claude` installs one
// hook entry per name).
func Events() []string {
	return []string{
		EventSessionStart, EventUserPromptSubmit, EventPreToolUse, EventPostToolUse,
		EventPostToolUseFailure, EventPermissionRequest, EventNotification, EventStop,
		EventStopFailure, EventSessionEnd,
	}
}

// KnownEvent reports whether name is one of Events().
func KnownEvent(name string) bool { return slices.Contains(Events(), name) }

// Event is the hook input Claude Code writes on stdin. Only the members
// Lets uses are kept; unknown members are ignored, and a known member of an
// unexpected JSON type reads as empty rather than failing the hook.
type Event struct {
	SessionID        string
	TranscriptPath   string
	Cwd              string
	HookEventName    string
	PermissionMode   string
	ToolName         string
	ToolInput        json.RawMessage // any JSON value; nil when absent
	ToolUseID        string
	Prompt           string
	Message          string
	NotificationType string
	Source           string // SessionStart: startup, resume, clear, compact
	Reason           string // SessionEnd
	Error            string // StopFailure, PostToolUseFailure (when a string)
}

// InputProblem classifies an unusable hook input.
type InputProblem string

// The input problems.
const (
	ProblemRead      InputProblem = "read"       // stdin could not be read
	ProblemEmpty     InputProblem = "empty"      // nothing but whitespace
	ProblemTooLarge  InputProblem = "too_large"  // more than MaxStdinBytes
	ProblemNotObject InputProblem = "not_object" // not one JSON object
	ProblemNoSession InputProblem = "no_session" // session_id missing or empty
)

// InputError is returned when the hook's stdin cannot be used. The hook
// then prints nothing and exits 0, so Claude Code behaves as if no hook
// were installed; the caller logs the error in one line.
type InputError struct {
	Problem InputProblem
	Err     error // the underlying error, if any
}

func (e *InputError) Error() string {
	var what string
	switch e.Problem {
	case ProblemRead:
		what = "could not read the hook input on stdin"
	case ProblemEmpty:
		what = "the hook input on stdin is empty"
	case ProblemTooLarge:
		what = fmt.Sprintf("the hook input on stdin is larger than %d bytes", MaxStdinBytes)
	case ProblemNotObject:
		what = "the hook input on stdin is not a JSON object"
	case ProblemNoSession:
		what = "the hook input has no session_id"
	default:
		what = "the hook input on stdin is unusable"
	}
	msg := what + "; nothing was reported (lets hook is meant to be run by Claude Code, which writes one JSON object on stdin)"
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *InputError) Unwrap() error { return e.Err }

// UnknownEventError is returned for an event name Lets does not handle.
// The hook prints nothing and exits 0.
type UnknownEventError struct {
	Name string
}

func (e *UnknownEventError) Error() string {
	return fmt.Sprintf("lets hook does not handle the event %q; nothing was reported (check the hook entries in ~/.claude/settings.json, or run lets setup claude again)", e.Name)
}

// DecodeEvent reads at most MaxStdinBytes from r and parses them. Errors
// are *InputError.
func DecodeEvent(r io.Reader) (Event, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxStdinBytes+1))
	if err != nil {
		return Event{}, &InputError{Problem: ProblemRead, Err: err}
	}
	if len(b) > MaxStdinBytes {
		return Event{}, &InputError{Problem: ProblemTooLarge}
	}
	return ParseEvent(b)
}

// ParseEvent parses one hook input. Errors are *InputError.
func ParseEvent(b []byte) (Event, error) {
	if len(b) > MaxStdinBytes {
		return Event{}, &InputError{Problem: ProblemTooLarge}
	}
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(b)) == 0 {
		return Event{}, &InputError{Problem: ProblemEmpty}
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(b, &members); err != nil || members == nil {
		return Event{}, &InputError{Problem: ProblemNotObject, Err: err}
	}
	str := func(name string) string {
		var s string
		if raw, ok := members[name]; ok {
			_ = json.Unmarshal(raw, &s) // a non-string reads as ""
		}
		return s
	}
	ev := Event{
		SessionID:        str("session_id"),
		TranscriptPath:   str("transcript_path"),
		Cwd:              str("cwd"),
		HookEventName:    str("hook_event_name"),
		PermissionMode:   str("permission_mode"),
		ToolName:         str("tool_name"),
		ToolUseID:        str("tool_use_id"),
		Prompt:           str("prompt"),
		Message:          str("message"),
		NotificationType: str("notification_type"),
		Source:           str("source"),
		Reason:           str("reason"),
		Error:            str("error"),
	}
	if raw, ok := members["tool_input"]; ok && !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		ev.ToolInput = raw
	}
	if ev.SessionID == "" {
		return Event{}, &InputError{Problem: ProblemNoSession}
	}
	return ev, nil
}
