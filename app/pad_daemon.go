package app

import (
	"context"
	"fmt"
	"math"

	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/daemon"
	"github.com/lets-app/lets/backend/wire"
)

// runPadDaemon is `lets pad daemon`: the Wire Protocol 1 daemon on its own,
// in the foreground, until Ctrl+C. `lets serve` runs the same daemon next to
// the host; this command is for using the pad without the rest of Lets, and
// for trying Pad-Lattice clients against Lets.
func runPadDaemon(ctx context.Context, env *Env, args []string) error {
	fs, socket := padFlags(env, "daemon")
	ttl := fs.Float64("session-ttl", wire.DefaultSessionTTL, "forget an agent session after this many `seconds` without news (0 keeps sessions until they end)")
	motion := fs.Bool("activity-motion", false, "animate a running agent's glyph on the pad (a slow moving dot)")
	hold := fs.Float64("terminal-hold", wire.DefaultTerminalHold, "show success, error or cancelled for this many `seconds` before going back to waiting")
	pad := addMIDIDaemonFlags(fs)
	pos, err := parsePad(env, "daemon", fs, args)
	if err != nil {
		return err
	}
	if err := padNoArgs("daemon", fs, pos); err != nil {
		return err
	}
	if math.IsNaN(*ttl) || math.IsInf(*ttl, 0) || *ttl < 0 {
		return &UsageError{Msg: fmt.Sprintf("daemon: --session-ttl %v must be a number of seconds ≥ 0 (0 keeps sessions until they end)", *ttl), flags: fs}
	}
	if math.IsNaN(*hold) || math.IsInf(*hold, 0) || *hold < 0 {
		return &UsageError{Msg: fmt.Sprintf("daemon: --terminal-hold %v must be a number of seconds ≥ 0", *hold), flags: fs}
	}
	if *socket == "" {
		return &UsageError{Msg: "daemon: --socket must not be empty", flags: fs}
	}
	if err := pad.validate(fs); err != nil {
		return err
	}

	st, err := openSetup(env, false)
	if err != nil {
		return err
	}
	defer st.close()

	opts := daemon.OptionsFromConfig(st.paths, config.WireConfig{Enabled: true, Socket: *socket, ActivityMotion: *motion}, env.Getenv, st.log)
	opts.Control.SessionTTL = *ttl
	opts.Control.TerminalHold = *hold
	surface, err := pad.open(ctx, env, st.log)
	if err != nil {
		return err
	}
	if surface != nil {
		opts.Surface = surface // the daemon owns and closes it from here on
	}
	d, err := daemon.Listen(opts)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "The pad daemon is listening on %s.\nAgents and `lets pad` commands can talk to it now. Press Ctrl+C to stop.\n", d.SocketPath())
	if err := d.Run(ctx); err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout, "The pad daemon stopped.")
	return nil
}
