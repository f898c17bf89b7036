package chatdriver

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/lets-app/lets/backend/agent"
)

// The agent's side as the driver sees it: the types of backend/agent (one
// supervised `claude -p --input-format stream-json` process), named here
// so the driver and its tests read on their own.
type (
	Block          = agent.Block
	ImageSource    = agent.ImageSource
	Event          = agent.Event
	Init           = agent.Init
	TextDelta      = agent.TextDelta
	Assistant      = agent.Assistant
	ToolResult     = agent.ToolResult
	ControlRequest = agent.ControlRequest
	ControlCancel  = agent.ControlCancel
	Result         = agent.Result
	Restarted      = agent.Restarted
	AgentOptions   = agent.Options
	AuthState      = agent.AuthState
)

// Auth states (agent.AuthStatus).
const (
	AuthUnknown  = agent.AuthUnknown
	LoggedIn     = agent.LoggedIn
	LoggedOut    = agent.LoggedOut
	NotInstalled = agent.NotInstalled
)

// SubtypeCanUseTool is the only control request the driver answers.
const SubtypeCanUseTool = "can_use_tool"

// Agent is one running Claude Code conversation; *agent.Process is one.
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

// StartProcess is the Starter of real Claude Code processes (agent.Start).
func StartProcess(ctx context.Context, o AgentOptions) (Agent, error) {
	p, err := agent.Start(ctx, o)
	if err != nil {
		return nil, err
	}
	return p, nil
}

// Login is a running `claude auth login`; *agent.Login is one.
type Login interface {
	URL(ctx context.Context) (string, error)
	SubmitCode(code string) error
	Wait(ctx context.Context) error
	Cancel()
}

// ClaudeAuth returns Options.Auth and Options.Login for the claude that
// find locates at the moment of asking (so "Check again" finds a claude
// installed meanwhile); env is claude's environment (nil: Lets' own).
func ClaudeAuth(find func() (string, error), env []string) (auth func(context.Context) (AuthState, error), login func(context.Context) (Login, error)) {
	auth = func(ctx context.Context) (AuthState, error) {
		claude, err := find()
		if errors.Is(err, agent.ErrNotInstalled) {
			return NotInstalled, nil
		}
		if err != nil {
			return AuthUnknown, err
		}
		return agent.AuthStatus(ctx, claude, env)
	}
	login = func(ctx context.Context) (Login, error) {
		claude, err := find()
		if err != nil {
			return nil, err
		}
		l, err := agent.StartLogin(ctx, claude, env)
		if err != nil {
			return nil, err
		}
		return l, nil
	}
	return auth, login
}
