package chatdriver

import (
	"context"
	"encoding/json"
	"log/slog"
)

// The agent's side as the driver sees it. backend/agent (one supervised
// `claude -p --input-format stream-json` process) is written alongside;
// until its types land, these local ones state exactly what the driver
// needs, and an adapter of a few lines maps one onto the other.

// Block is one Messages API content block of a user turn: text, or an
// image as base64.
type Block struct {
	Type   string       `json:"type"` // "text" | "image"
	Text   string       `json:"text,omitempty"`
	Source *ImageSource `json:"source,omitempty"`
}

// ImageSource is a base64 image of a Block.
type ImageSource struct {
	Type      string `json:"type"` // "base64"
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

// Event is one thing the agent reports: one of the types below.
type Event any

// Init: the CLI started a session (system/init).
type Init struct{ SessionID string }

// TextDelta: streamed text of the content block Index of the reply.
type TextDelta struct {
	Index int
	Text  string
}

// AssistantBlock is one content block of an assistant message.
type AssistantBlock struct {
	Type  string // "text" | "tool_use" | "thinking" …
	Text  string
	ID    string
	Name  string
	Input json.RawMessage
}

// Assistant: a finished assistant message (one per content block).
type Assistant struct{ Blocks []AssistantBlock }

// ToolResult: a tool ran and its result went back to the model.
type ToolResult struct {
	ToolUseID string
	IsError   bool
}

// ControlRequest: the CLI asks (can_use_tool) and waits for
// AnswerPermission.
type ControlRequest struct {
	RequestID string
	Subtype   string // "can_use_tool"
	ToolName  string
	Input     json.RawMessage
}

// Result ends a turn. Error is the CLI's error code
// ("authentication_failed", …) when IsError.
type Result struct {
	IsError bool
	Error   string
	Text    string
}

// Restarted: the process died and was started again with --resume; a turn
// in flight is lost.
type Restarted struct{}

// SubtypeCanUseTool is the only control request the driver answers.
const SubtypeCanUseTool = "can_use_tool"

// ErrorAuthenticationFailed is the Result error code of a turn refused
// because the person is not signed in.
const ErrorAuthenticationFailed = "authentication_failed"

// AgentOptions start one agent.
type AgentOptions struct {
	Claude                string
	Dir                   string
	SessionID             string
	Resume                bool
	MCPConfig             string
	Settings              string
	PermissionMode        string
	PermissionPromptStdio bool
	Env                   []string
	Logger                *slog.Logger
}

// Agent is one running Claude Code conversation.
type Agent interface {
	Send(ctx context.Context, blocks []Block) error
	Interrupt(ctx context.Context) error
	AnswerPermission(requestID string, allow bool, input json.RawMessage, message string) error
	Events() <-chan Event
	PID() int
	SessionID() string
	Close() error
	Done() <-chan struct{}
}

// Starter starts an agent.
type Starter func(ctx context.Context, o AgentOptions) (Agent, error)

// AuthState is what `claude auth status` says.
type AuthState int

// Auth states.
const (
	LoggedIn AuthState = iota
	LoggedOut
	NotInstalled
)

func (a AuthState) String() string {
	switch a {
	case LoggedIn:
		return "logged_in"
	case LoggedOut:
		return "logged_out"
	case NotInstalled:
		return "not_installed"
	}
	return "unknown"
}

// Login is a running `claude auth login`: the sign-in address to show,
// and the code the person pastes back.
type Login interface {
	URL() string
	// Code gives the pasted code and waits for the login to finish.
	Code(ctx context.Context, code string) error
	Close() error
}
