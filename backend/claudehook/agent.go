package claudehook

import (
	"slices"

	"github.com/lets-app/lets/backend/wire"
)

// Agent is the program whose command hooks run `lets hook`: Claude Code
// (the default) or Codex. Both write the same kind of hook input and read
// the same PermissionRequest decision; they differ in their Wire backend,
// their events, and what a Stop press can ask of them.
type Agent struct {
	// Backend is the Wire backend name of its sessions.
	Backend string
	// Name is how a person knows it.
	Name string
	// events are the hook events Lets handles for it.
	events []string
	// plan maps an event to its effect.
	plan func(name string, ev Event) (plan, bool)
	// decision is the stdout line for a press, and the state after it.
	decision func(a wire.Action) (string, wire.State, bool)
	// windowContext says the agent reads the open windows and their
	// pending events from SessionStart's and UserPromptSubmit's stdout
	// (Claude Code); without it those hooks print nothing.
	windowContext bool
}

// Events returns the hook events Lets handles for the agent (a fresh
// slice).
func (a Agent) Events() []string { return slices.Clone(a.events) }

// Known reports whether name is one of a.Events().
func (a Agent) Known(name string) bool { return slices.Contains(a.events, name) }

// Decision is Decision for the agent.
func (a Agent) Decision(act wire.Action) (line string, after wire.State, ok bool) {
	return a.decision(act)
}

// ClaudeCode is Claude Code (claude-integration §2–§4).
var ClaudeCode = Agent{Backend: Backend, Name: "Claude Code", events: Events(), plan: planFor, decision: Decision, windowContext: true}

// CodexBackend is the Wire backend name of Codex sessions.
const CodexBackend = "codex"

// Codex's own hook events (besides those it shares with Claude Code).
const (
	// EventInterrupt: the person interrupted the turn in Codex.
	EventInterrupt = "Interrupt"
)

// The decision lines for Codex. Codex refuses a decision that asks to
// interrupt (it fails closed on "interrupt": true), so Stop is a denial
// that says so: the turn goes on without the tool, told to stop.
const (
	CodexDecisionAllow = DecisionAllow
	CodexDecisionDeny  = DecisionDeny
	CodexDecisionStop  = `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"Stopped from Lets: stop here and wait for the person"}}}` + "\n"
)

// Codex is the OpenAI Codex CLI: SessionStart waits for a reply,
// UserPromptSubmit and the tool events run, PermissionRequest waits for a
// press (on the pads, the phones, and the card of a window Codex opened),
// Stop succeeds, Interrupt cancels, SessionEnd ends the session. Its hooks
// print nothing but the PermissionRequest decision.
var Codex = Agent{
	Backend: CodexBackend,
	Name:    "Codex",
	events: []string{
		EventSessionStart, EventUserPromptSubmit, EventPreToolUse, EventPermissionRequest,
		EventPostToolUse, EventStop, EventInterrupt, EventSessionEnd,
	},
	plan: func(name string, ev Event) (plan, bool) {
		switch name {
		case EventSessionStart:
			return plan{state: wire.StateWaitingForReply}, true
		case EventUserPromptSubmit, EventPreToolUse, EventPostToolUse:
			return plan{state: wire.StateRunning}, true
		case EventStop:
			return plan{state: wire.StateSuccess}, true
		case EventInterrupt:
			return plan{state: wire.StateCancelled}, true
		case EventSessionEnd:
			return plan{end: true}, true
		}
		return plan{}, false
	},
	decision: func(a wire.Action) (string, wire.State, bool) {
		switch a {
		case wire.ActionApprove:
			return CodexDecisionAllow, wire.StateRunning, true
		case wire.ActionReject:
			return CodexDecisionDeny, wire.StateRunning, true
		case wire.ActionStop:
			return CodexDecisionStop, wire.StateRunning, true
		}
		return "", "", false
	},
}
