// Package hookcmd is `lets hook <event>`, one Claude Code command hook
// (spec/claude-integration.md §2–§4), as a command of its own.
//
// Claude Code runs a hook on every tool call, so the program that runs it
// must start fast. This package therefore imports only what a hook needs
// (claudehook, config, hostclient, logging, wireclient): the small `lets`
// front program (app/front) runs it in process, and the full program runs
// the same code for `lets-core hook`.
package hookcmd

import (
	"context"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/lets-app/lets/backend/claudehook"
	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/hostclient"
	"github.com/lets-app/lets/backend/logging"
	"github.com/lets-app/lets/backend/wireclient"
)

// CodexApprovalWait bounds how long Codex's PermissionRequest hook waits
// for a press (the reference's Codex hook waits 60 s). Unlike Claude Code,
// Codex shows nothing in its terminal until the hook returns, so the
// person at the terminal waits this long for Codex's own prompt; the
// configured wait ("claude": {"approvalTimeoutS"}) applies when shorter.
const CodexApprovalWait = 60 * time.Second

// CodexArg is the first argument of `lets hook codex <event>`.
const CodexArg = "codex"

// CodexLabelEnv names the environment variable `lets codex --label` sets:
// the name of the session on the pads instead of its folder's.
const CodexLabelEnv = "LETS_CODEX_LABEL"

// CodexLeaseEnv names the environment variable `lets codex` sets to the
// id of the Wire lease it holds while Codex runs: the hooks bind the
// session to it.
const CodexLeaseEnv = "LETS_CODEX_LEASE"

// RequestTimeout bounds one host request of a hook; the hook's own budget
// (claudehook.QuickBudget) bounds the whole run.
const RequestTimeout = 700 * time.Millisecond

// IO is what a hook reads and writes. A nil Stdin means the process's
// standard input.
type IO struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
}

// Run is `lets hook <args>`. Whatever goes wrong, it prints nothing on
// stdout and the command exits 0, so Claude Code carries on as if no hook
// were installed; the reason goes to stderr (Claude Code keeps it out of
// the conversation).
//
// `lets hook codex <event>` is the same for Codex's hooks (the ones `lets
// codex` hands to the Codex it starts): its sessions are Codex's on the
// pads, and its permission requests show as cards in the windows Codex
// opened (through `lets mcp`, a child of the same Codex process).
func Run(ctx context.Context, rw IO, args []string) {
	log := logging.New(rw.Stderr, nil, LogLevel(rw.Getenv))
	agent := claudehook.ClaudeCode
	if len(args) > 0 && args[0] == CodexArg {
		agent, args = claudehook.Codex, args[1:]
	}
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		// Still exit 0: a hook entry with a typo must not break Claude.
		log.Error("lets hook: expected exactly one hook event name, like `lets hook PreToolUse`", "args", strings.Join(args, " "), "events", strings.Join(agent.Events(), ", "))
		return
	}
	event := args[0]
	stdin := rw.Stdin
	if stdin == nil {
		if fi, err := os.Stdin.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			// Typed by hand: there is no hook input to wait for.
			log.Error("lets hook is run by Claude Code, which passes the hook's JSON on stdin; `lets setup claude` installs the hooks")
			return
		}
		stdin = os.Stdin
	}
	opts := Options(rw.Getenv, log)
	if agent.Backend == claudehook.CodexBackend {
		opts = ForCodex(opts, rw.Getenv)
	}
	if err := claudehook.Run(ctx, opts, event, stdin, rw.Stdout); err != nil {
		log.Error("lets hook: nothing done", "event", event, "err", err)
	}
}

// ForCodex turns a hook's options into a Codex hook's: Codex's sessions
// on the pads, bound to the `lets codex` lease and label from the
// environment, and a press waited for at most CodexApprovalWait. The host
// stays: it shows the approval card in the windows bound to the Codex
// process (opts.ClaudePID, the hook's nearest non-shell ancestor, is the
// Codex that also runs `lets mcp`); claudehook.Codex prints no window
// context, so the hooks print nothing Codex does not read.
func ForCodex(opts claudehook.Options, getenv func(string) string) claudehook.Options {
	opts.Agent = claudehook.Codex
	opts.Label = getenv(CodexLabelEnv)
	opts.LeaseID = getenv(CodexLeaseEnv)
	opts.Chat = false
	if opts.ApprovalTimeout <= 0 || opts.ApprovalTimeout > CodexApprovalWait {
		opts.ApprovalTimeout = CodexApprovalWait
	}
	return opts
}

// LogLevel is error unless LETS_LOG asks for more: a hook's stderr shows
// in Claude Code's transcript, and Lets not running (the daemon or the
// host unreachable, logged as warnings) is normal, not worth a line on
// every tool call.
func LogLevel(getenv func(string) string) slog.Level {
	if v := getenv(logging.LevelEnv); v != "" {
		if lv, err := logging.ParseLevel(v); err == nil {
			return lv
		}
	}
	return slog.LevelError
}

// Options finds the host and the Wire daemon for a hook. Nothing here
// starts a host: a hook never waits for one.
func Options(getenv func(string) string, log *slog.Logger) claudehook.Options {
	opts := claudehook.Options{Logger: log, ClaudePID: ClaudePID(), Label: getenv(claudehook.LabelEnv), Chat: getenv(claudehook.ChatEnv) == "1"}
	home, err := config.ResolveHome(getenv)
	if err != nil {
		log.Warn("lets hook: no data folder; reporting to nobody", "err", err)
		return opts
	}
	paths := config.Paths{Home: home}
	cfg, err := config.Load(paths.ConfigFile())
	if err != nil {
		log.Warn("lets hook: config.json could not be read; using the defaults", "err", err)
		cfg = config.Defaults()
	}
	opts.ApprovalTimeout = cfg.Claude.ApprovalTimeout()
	hc := hostclient.New(paths, hostclient.Options{ClaudePID: opts.ClaudePID, Timeout: RequestTimeout})
	opts.Host = claudehook.HostHTTP{C: hc}
	opts.Wire = claudehook.WireClient{C: wire(getenv, hc.WireSocket(), cfg)}
	return opts
}

// wire is the Wire client of a hook: the socket the running host announced
// (announced, from hostclient), else the configured one, else the
// protocol's default.
func wire(getenv func(string) string, announced string, cfg config.Config) *wireclient.Client {
	if announced != "" {
		return wireclient.New(announced)
	}
	if cfg.Wire.Socket != "" {
		return wireclient.New(cfg.Wire.Socket)
	}
	return wireclient.NewDefault(getenv)
}

// ClaudePID is the Claude Code process this command runs under (its
// parent, skipping a shell), or 0 off Linux.
func ClaudePID() int { return hostclient.ClaudePID("/proc", os.Getpid()) }
