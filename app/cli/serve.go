package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/lets-app/lets/app/lets"
	"github.com/lets-app/lets/backend/instance"
)

// runServe is `lets serve`: Lets headless, the host and the pad daemon
// without a tray.
func runServe(ctx context.Context, env *Env, args []string) error {
	return serve(ctx, env, args, nil)
}

// serve runs the host and the pad daemon; desk (plain `lets`) adds the
// tray and the single-instance hand-off, nil is `lets serve`. Under plain
// `lets` every start failure is also logged and shown on the desktop
// (startfail.go). The running process is one lets.Process (app/lets): the
// flags only choose its configuration.
func serve(ctx context.Context, env *Env, args []string, desk *lets.Desktop) (err error) {
	var report *lets.StartReport // nil for `lets serve`: stderr and the log only
	if desk != nil {
		report = lets.NewStartReport(env)
		defer func() { report.Finish(startFailure(err), startFailureMessage) }()
		if desk.HandOff == nil {
			desk.HandOff = handOff(env)
		}
		if desk.SetupClaude == nil {
			desk.SetupClaude = setupClaudeInProcess
		}
		if desk.SetupCodex == nil {
			desk.SetupCodex = setupCodexInProcess
		}
	}
	fs := newFlags("serve")
	port := fs.Int("port", -1, "loopback port for the host (0 picks a free one; default from config.json)")
	noPad := fs.Bool("no-pad", false, "do not run the pad daemon (Wire Protocol 1); same as \"wire\": {\"enabled\": false} in config.json")
	if err := parseFlags(env, "serve", fs, args); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	if *port < -1 || *port > 65535 {
		return &UsageError{Msg: fmt.Sprintf("--port %d is not a port number (0–65535)", *port), flags: fs}
	}

	p := &lets.Process{Env: env, Desk: desk, Report: report, Port: *port, NoPad: *noPad, Version: Version}
	if err := p.Provision(ctx); err != nil {
		switch {
		case errors.Is(err, lets.ErrHandedOff):
			return nil
		case instance.IsBusy(err):
			fmt.Fprintf(env.Stderr, "%v\nUse `lets status` to see it, or stop it before starting another.\n", err)
			return exitError{code: 1}
		}
		// The process's errors are typed; the advice is the command's.
		return withHint(cmdServe, err)
	}
	defer p.Cleanup()
	return p.Run(ctx)
}

// startFailure is err as a start failure to show on the desktop: nil for
// what was asked for in a terminal (a usage error, help), which the CLI's
// report alone handles.
func startFailure(err error) error {
	var ue *UsageError
	var ee exitError
	if errors.Is(err, flag.ErrHelp) || errors.As(err, &ue) || errors.As(err, &ee) {
		return nil
	}
	return err
}
