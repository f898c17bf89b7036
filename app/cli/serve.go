package cli

import (
	"context"
	"errors"
	"fmt"
)

// runServe is `lets serve`: Lets headless, the host and the pad daemon
// without a tray.
func runServe(ctx context.Context, env *Env, args []string) error {
	return serve(ctx, env, args, nil)
}

// serve runs the host and the pad daemon; desk (plain `lets`) adds the
// tray and the single-instance hand-off, nil is `lets serve`. Under plain
// `lets` every start failure is also logged and shown on the desktop
// (startfail.go). The running process is one process (process.go): the
// flags only choose its configuration.
func serve(ctx context.Context, env *Env, args []string, desk *desktop) (err error) {
	var report *startReport // nil for `lets serve`: stderr and the log only
	if desk != nil {
		report = newStartReport(env)
		defer func() { report.finish(err) }()
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

	p := &process{env: env, desk: desk, report: report, port: *port, noPad: *noPad}
	if err := p.Provision(ctx); err != nil {
		if errors.Is(err, errHandedOff) {
			return nil
		}
		return err
	}
	defer p.Cleanup()
	return p.Run(ctx)
}
