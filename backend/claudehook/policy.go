package claudehook

import (
	"path"
	"strings"

	"github.com/lets-app/lets/backend/textsafe"
	"github.com/lets-app/lets/backend/wire"
)

// Backend is the Wire backend name of Claude Code sessions.
const Backend = "claude"

// StateEnded is the host report state of a SessionEnd (it is not a Wire
// state: the Wire daemon gets session_end).
const StateEnded = "ended"

// Limits of what the hook reports.
const (
	// maxLabelRunes bounds the label taken from the working folder.
	maxLabelRunes = 64
)

// The three decision lines of claude-integration §3, byte for byte
// (compact JSON, members in this order, one line each).
const (
	DecisionAllow = `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}` + "\n"
	DecisionDeny  = `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"Rejected from Lets"}}}` + "\n"
	DecisionStop  = `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"Rejected from Lets","interrupt":true}}}` + "\n"
)

// ApprovalActions are the actions a PermissionRequest hook subscribes to.
func ApprovalActions() []wire.Action {
	return []wire.Action{wire.ActionApprove, wire.ActionReject, wire.ActionStop}
}

// Decision returns the stdout line for an action pressed on a pad, a phone
// or a window, and the Wire state to report once Claude has it:
//
//   - approve → allow; Claude runs the tool: running.
//   - reject → deny with a message; Claude is told and carries on with its
//     turn: running (waiting_for_reply would be wrong while it works).
//   - stop → deny and interrupt; Claude ends the turn: cancelled (a
//     terminal state, which the daemon shows briefly and then turns into
//     waiting_for_reply, as Claude is now waiting for the person).
//
// ok is false for any other action (retry), which a PermissionRequest does
// not answer.
func Decision(a wire.Action) (line string, after wire.State, ok bool) {
	switch a {
	case wire.ActionApprove:
		return DecisionAllow, wire.StateRunning, true
	case wire.ActionReject:
		return DecisionDeny, wire.StateRunning, true
	case wire.ActionStop:
		return DecisionStop, wire.StateCancelled, true
	}
	return "", "", false
}

// Label is the session label: the last element of the working folder
// (wire-protocol-1 §9.13 rule 2), "" when there is none, cut to 64 runes.
func Label(cwd string) string {
	if cwd == "" {
		return ""
	}
	p := path.Clean(cwd)
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		p = p[i+1:]
	}
	return textsafe.Clip(strings.ToValidUTF8(p, "\uFFFD"), maxLabelRunes)
}

// plan is what one hook event does.
type plan struct {
	state   wire.State // the Wire state to report; "" for none
	end     bool       // session_end instead of a state
	context bool       // print pending LIP events as additionalContext
}

// planFor maps an event to its effect (claude-integration §2). ok is false
// when the event changes nothing (a Notification other than "waiting").
// PermissionRequest is handled by the approval flow, not here.
func planFor(name string, ev Event) (plan, bool) {
	switch name {
	case EventSessionStart:
		return plan{state: wire.StateWaitingForReply, context: true}, true
	case EventUserPromptSubmit:
		return plan{state: wire.StateRunning, context: true}, true
	case EventPreToolUse, EventPostToolUse, EventPostToolUseFailure:
		return plan{state: wire.StateRunning}, true
	case EventNotification:
		if notificationWaits(ev) {
			return plan{state: wire.StateWaitingForReply}, true
		}
		return plan{}, false
	case EventStop:
		return plan{state: wire.StateSuccess}, true
	case EventStopFailure:
		return plan{state: wire.StateError}, true
	case EventSessionEnd:
		return plan{end: true}, true
	}
	return plan{}, false
}

// notificationWaits reports whether a Notification says Claude waits for
// the person: idle_prompt, or (from versions without notification_type) a
// message about waiting. A permission prompt is the PermissionRequest
// hook's business.
func notificationWaits(ev Event) bool {
	switch ev.NotificationType {
	case "idle_prompt":
		return true
	case "":
		return strings.Contains(strings.ToLower(ev.Message), "waiting")
	}
	return false
}
