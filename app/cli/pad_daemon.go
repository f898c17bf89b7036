package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"

	"github.com/lets-app/lets/app/lets"
	"github.com/lets-app/lets/backend/audio"
	"github.com/lets-app/lets/backend/experience"
	"github.com/lets-app/lets/backend/surface/web"
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
	audioFeedback := fs.Bool("audio-feedback", false, "play short sounds on this computer when an agent needs you and when a press is delivered, and the Demo's sounds and the Show's music (needs pw-play, paplay, aplay, afplay or ffplay)")
	pad := addMIDIDaemonFlags(fs)
	browser := addWebDaemonFlags(fs)
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
	if err := browser.validate(fs); err != nil {
		return err
	}
	lan, err := browser.resolveLAN(ctx, env.LAN)
	if err != nil {
		return err
	}

	st, err := lets.OpenSetup(env, false)
	if err != nil {
		return err
	}
	defer st.Close()

	ds := lets.DefaultDaemonSettings(*socket, st.Paths)
	ds.Control.SessionTTL = *ttl
	ds.Control.TerminalHold = *hold
	ds.Control.ActivityMotion = *motion
	settings := lets.PadSettings{
		Daemon: ds,
		Audio:  *audioFeedback,
		MIDI:   pad.settings(),
		Web:    browser.settings(lan),
	}
	if settings.Audio {
		_, show, err := experience.LoadDefault()
		if err != nil {
			return err
		}
		settings.AudioShows = []*experience.Performance{show}
	}
	parts, err := lets.BuildPads(ctx, env, st, settings)
	err = withHint(cmdPadDaemon, err)
	if errors.Is(err, audio.ErrNoPlayer) {
		// Experiences spec §8.5: no player → fail at start-up (exit 2).
		return &UsageError{Msg: "daemon: " + err.Error()}
	}
	if err != nil {
		return err
	}
	defer parts.Cleanup() // after the daemon has stopped: ends the players, deletes the sounds
	parts.Announce(env)
	fmt.Fprintf(env.Stdout, "The pad daemon is listening on %s.\nAgents and `lets pad` commands can talk to it now. Press Ctrl+C to stop.\n", parts.Daemon().SocketPath())
	if err := parts.Daemon().Run(ctx); err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout, "The pad daemon stopped.")
	return nil
}

// webDaemonFlags are the browser flags of `lets pad daemon` (Web Surface
// Protocol 1 §2.2).
type webDaemonFlags struct {
	on, lan, noOpen         *bool
	port                    *int
	bindHost, advertiseHost *string
}

func addWebDaemonFlags(fs *flag.FlagSet) webDaemonFlags {
	return webDaemonFlags{
		on:            fs.Bool("web", false, "show the agents on a virtual pad in the browser (and on phones with --lan)"),
		port:          fs.Int("port", web.DefaultPort, "TCP `port` of the browser pad (0 picks a free one)"),
		lan:           fs.Bool("lan", false, "let phones and tablets on this network pair with the browser pad (trusted networks only)"),
		bindHost:      fs.String("bind-host", "", "private IPv4 `address` of this machine for --lan (default: discovered)"),
		advertiseHost: fs.String("advertise-host", "", "host `name` or private IPv4 phones use in the LAN link (default: the bind address)"),
		noOpen:        fs.Bool("no-open", false, "do not open the browser pad's admin page in the desktop browser"),
	}
}

// validate checks the flags in the order and with the words of §2.2.
func (w webDaemonFlags) validate(fs *flag.FlagSet) error {
	if !*w.on {
		if *w.lan || *w.bindHost != "" || *w.advertiseHost != "" {
			return &UsageError{Msg: "daemon: --lan, --bind-host, and --advertise-host require --web", flags: fs}
		}
		return nil // --port and --no-open alone are ignored, as in the reference
	}
	if *w.port < 0 || *w.port > 65535 {
		return &UsageError{Msg: "daemon: web port must be from 0 to 65535", flags: fs}
	}
	if (*w.bindHost != "" || *w.advertiseHost != "") && !*w.lan {
		return &UsageError{Msg: "daemon: --bind-host and --advertise-host require --lan", flags: fs}
	}
	return nil
}

// resolveLAN finds the LAN address for --lan (§2.4); nil without it.
func (w webDaemonFlags) resolveLAN(ctx context.Context, resolver web.Resolver) (*web.LAN, error) {
	if !*w.on || !*w.lan {
		return nil, nil
	}
	lan, err := web.ResolveLAN(ctx, *w.bindHost, *w.advertiseHost, resolver)
	if err != nil {
		return nil, &UsageError{Msg: "daemon: " + err.Error()}
	}
	return lan, nil
}

// settings are the browser pad's settings from the flags; off without
// --web.
func (w webDaemonFlags) settings(lan *web.LAN) lets.WebSettings {
	if !*w.on {
		return lets.WebSettings{}
	}
	return lets.WebSettings{On: true, Port: *w.port, LAN: lan, OpenAdmin: !*w.noOpen, PrintAddresses: true}
}
