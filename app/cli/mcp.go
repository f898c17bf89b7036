package cli

import (
	"context"
	"fmt"
	"github.com/lets-app/lets/app/lets"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/hostclient"
	"github.com/lets-app/lets/backend/logging"
	"github.com/lets-app/lets/backend/mcpserver"
)

// runMCP is `lets mcp`: the MCP server Claude Code starts over stdio
// (lip-1 §13.1). It talks to the running host with the host token from
// host.json, starts a host when none runs (the desktop app when there is
// a display, else `lets serve`), and follows a restarted host by itself.
// stdout is the MCP channel: logs go to stderr only.
func runMCP(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("mcp")
	if err := parseFlags(env, "mcp", fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return &UsageError{Msg: "lets mcp takes no arguments (Claude Code starts it; `lets setup claude` registers it)", flags: fs}
	}
	level, _ := logging.ParseLevel(env.Getenv(logging.LevelEnv))
	log := logging.New(env.Stderr, nil, level)
	home, err := config.ResolveHome(env.Getenv)
	if err != nil {
		return err
	}
	paths := config.Paths{Home: home}
	client := hostclient.New(paths, hostclient.Options{
		ClaudePID: claudePID(),
		Start:     func(ctx context.Context) error { return startHost(env, log) },
	})
	in, out := env.Stdin, env.Stdout
	if in == nil {
		in = os.Stdin
	}
	t := &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}}
	err = mcpserver.Run(ctx, mcpserver.Options{Host: client, Version: Version, Logger: log}, t)
	if err != nil && ctx.Err() != nil {
		return nil // stopped by a signal: a normal end
	}
	return err
}

// startHost starts Lets for an MCP server that found none: plain `lets`
// (tray and native windows) when this session has a desktop, else `lets
// serve`. The host runs on in its own session after Claude Code exits.
//
// It is started through /bin/sh, which puts it in the background and ends
// at once: startHost waits for sh only, and Lets is nobody's child here,
// so no goroutine stays behind to reap it and it never lingers as a
// zombie of this short-lived process. The argv holds only the program's
// path and "serve".
func startHost(env *Env, log *slog.Logger) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find the lets program to start Lets: %w", err)
	}
	var args []string
	if why := lets.DesktopMissing(env.Getenv); why != "" {
		args = []string{"serve"}
		log.Info("lets mcp: starting Lets headless", "why", why)
	} else {
		log.Info("lets mcp: starting Lets")
	}
	cmd := exec.Command("/bin/sh", append([]string{"-c", `"$0" "$@" </dev/null >/dev/null 2>&1 &`, exe}, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("start %s: %w", exe, err)
	}
	return nil
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
