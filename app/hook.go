package app

import (
	"context"
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

// hookRequestTimeout bounds one host request of a hook; the hook's own
// budget (claudehook.QuickBudget) bounds the whole run.
const hookRequestTimeout = 700 * time.Millisecond

// runHook is `lets hook <event>`: one Claude Code command hook
// (spec/claude-integration.md §2–§4). Whatever goes wrong, it prints
// nothing on stdout and exits 0, so Claude Code carries on as if no hook
// were installed; the reason goes to stderr (Claude Code keeps it out of
// the conversation).
func runHook(ctx context.Context, env *Env, args []string) error {
	log := logging.New(env.Stderr, nil, hookLogLevel(env))
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		// Still exit 0: a hook entry with a typo must not break Claude.
		log.Error("lets hook: expected exactly one hook event name, like `lets hook PreToolUse`", "args", strings.Join(args, " "), "events", strings.Join(claudehook.Events(), ", "))
		return nil
	}
	event := args[0]
	stdin := env.Stdin
	if stdin == nil {
		if fi, err := os.Stdin.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			// Typed by hand: there is no hook input to wait for.
			log.Error("lets hook is run by Claude Code, which passes the hook's JSON on stdin; `lets setup claude` installs the hooks")
			return nil
		}
		stdin = os.Stdin
	}
	opts := hookOptions(env, log)
	if err := claudehook.Run(ctx, opts, event, stdin, env.Stdout); err != nil {
		log.Error("lets hook: nothing done", "event", event, "err", err)
	}
	return nil
}

// hookLogLevel is error unless LETS_LOG asks for more: a hook's stderr
// shows in Claude Code's transcript, and Lets not running (the daemon or
// the host unreachable, logged as warnings) is normal, not worth a line on
// every tool call.
func hookLogLevel(env *Env) slog.Level {
	if lv, err := logging.ParseLevel(env.Getenv(logging.LevelEnv)); err == nil && env.Getenv(logging.LevelEnv) != "" {
		return lv
	}
	return slog.LevelError
}

// hookOptions finds the host and the Wire daemon for a hook. Nothing here
// starts a host: a hook never waits for one.
func hookOptions(env *Env, log *slog.Logger) claudehook.Options {
	opts := claudehook.Options{Logger: log, ClaudePID: claudePID(), Label: env.Getenv(claudehook.LabelEnv)}
	home, err := config.ResolveHome(env.Getenv)
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
	opts.Host = claudehook.HostHTTP{D: hostclient.New(paths, hostclient.Options{ClaudePID: opts.ClaudePID, Timeout: hookRequestTimeout})}
	opts.Wire = claudehook.WireClient{C: hookWire(env, paths, cfg)}
	return opts
}

// hookWire is the Wire client of a hook: the socket the running host
// announced in host.json, else the configured one, else the protocol's
// default.
func hookWire(env *Env, paths config.Paths, cfg config.Config) *wireclient.Client {
	if info, err := config.ReadHostInfo(paths); err == nil && info.WireSocket != "" {
		return wireclient.New(info.WireSocket)
	}
	if cfg.Wire.Socket != "" {
		return wireclient.New(cfg.Wire.Socket)
	}
	return wireclient.NewDefault(env.Getenv)
}

// claudePID is the Claude Code process this command runs under (its
// parent, skipping a shell), or 0 off Linux.
func claudePID() int { return hostclient.ClaudePID("/proc", os.Getpid()) }
