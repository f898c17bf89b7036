package cli

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/lets-app/lets/backend/audio/showaudio"
	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/control"
	"github.com/lets-app/lets/backend/daemon"
	"github.com/lets-app/lets/backend/experience"
	"github.com/lets-app/lets/backend/host"
	"github.com/lets-app/lets/backend/identitystore"
	"github.com/lets-app/lets/backend/surface"
	"github.com/lets-app/lets/backend/surface/midi"
	"github.com/lets-app/lets/backend/surface/web"
	"github.com/lets-app/lets/frontend"
)

// The pad side of Lets — the Wire daemon, the Launchpad, the browser pad
// and the sounds — is built in one place, buildPads, from one resolved
// padSettings. `lets serve` resolves the settings from config.json,
// `lets pad daemon|demo|show` from their flags; after that the rules are
// the same for every command:
//
//   - provision: every part that is asked for is opened, or the whole
//     build fails, releasing what it had opened, with the hint of the
//     command that is running (withHint);
//   - announce: only once every part (and, under serve, the host) has
//     started are addresses printed, state/web-surface.json written and
//     the admin page opened;
//   - cleanup: whatever was announced or opened is taken back when the
//     command ends.

// padSettings describes the pad side one command wants.
type padSettings struct {
	// command names the running command, for hints.
	command string
	// daemon runs the Wire Protocol 1 daemon; nil for the experience
	// runners, which draw on the surface themselves.
	daemon *daemonSettings
	// audio plays earcons, the Demo's sounds and the Show's music on this
	// computer; audioShows are the Shows whose music is prepared ahead.
	audio      bool
	audioShows []*experience.Performance
	midi       midiSettings
	web        webSettings
	// traySelect lets the tray select sessions as a pad press would
	// (tray_select.go).
	traySelect bool
}

// daemonSettings are the Wire daemon's values.
type daemonSettings struct {
	socket        string
	identityStore string
	control       control.Config
}

// midiSettings choose and greet the Launchpad.
type midiSettings struct {
	on          bool
	device      midi.ResolveOptions
	greeting    bool
	scrollDelay time.Duration
	// wait keeps looking for a pad that is not plugged in yet instead of
	// failing (serve: the desktop app must start without one).
	wait bool
	// announce is the line that names the device once everything runs:
	// a format taking its name, input and output; "" prints nothing.
	announce string
}

// webSettings configure the browser pad.
type webSettings struct {
	on   bool
	port int
	lan  *web.LAN
	// openAdmin opens the admin page in the desktop browser.
	openAdmin bool
	// printAddresses prints the pad's addresses (web spec §2.6); serve
	// prints them in its own summary instead.
	printAddresses bool
}

// defaultDaemonSettings are the reference's daemon values with the socket
// and the accent store given.
func defaultDaemonSettings(socket string, paths config.Paths) *daemonSettings {
	return &daemonSettings{
		socket:        socket,
		identityStore: identityStorePath(paths),
		control:       control.DefaultConfig(0),
	}
}

// padParts is what buildPads started.
type padParts struct {
	settings padSettings
	paths    config.Paths
	log      *slog.Logger

	daemon *daemon.Daemon
	// surface is what the daemon or the experience runner draws on; nil
	// when there is none.
	surface surface.Surface
	midi    *midi.Surface
	web     *web.Server
	audio   *showaudio.Feedback

	// surfaceGiven is true once the surface belongs to the daemon (it
	// closes it, also when it fails to start).
	surfaceGiven bool
	wroteState   bool
	// selector carries the tray's session selections to the daemon; nil
	// without traySelect.
	selector *traySelector
}

// buildPads opens every part s asks for. On failure nothing it opened is
// left open and the error carries the running command's hint.
func buildPads(ctx context.Context, env *Env, st *setup, s padSettings) (_ *padParts, err error) {
	p := &padParts{settings: s, paths: st.paths, log: st.log}
	defer func() {
		if err != nil {
			p.abort()
			err = withHint(s.command, err)
		}
	}()
	if s.audio {
		if p.audio, err = showaudio.OpenFeedback(env.AudioPlayer, st.log, s.audioShows...); err != nil {
			return nil, err
		}
	}
	if s.midi.on {
		if p.midi, err = openMIDI(ctx, env, st.log, s.midi); err != nil {
			return nil, err
		}
	}
	if s.web.on {
		if p.web, err = openWeb(ctx, s.web, st.log); err != nil {
			return nil, err
		}
	}
	if p.surface, err = composeSurfaces(p.web, p.midi); err != nil {
		return nil, err
	}
	if s.daemon != nil {
		surf := p.surface
		if s.traySelect {
			p.selector = newTraySelector(surf)
			surf = p.selector
		}
		opts := daemon.Options{
			SocketPath:    s.daemon.socket,
			IdentityStore: s.daemon.identityStore,
			Control:       &s.daemon.control,
			Surface:       surf,
			Log:           st.log,
		}
		if p.audio != nil {
			opts.Control.AudioFeedback = true
			opts.Control.Earcons = p.audio.Player
			opts.ExperienceAudio = p.audio.Host
		}
		p.surfaceGiven = true // from here on the daemon closes it, even when Listen fails
		if p.daemon, err = daemon.Listen(opts); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// openMIDI opens the Launchpad, or starts waiting for one with s.wait.
func openMIDI(ctx context.Context, env *Env, log *slog.Logger, s midiSettings) (*midi.Surface, error) {
	cat, err := padCatalog(env)
	if err != nil {
		return nil, err
	}
	opts := midi.Options{Backend: env.midiBackend(), Log: log, ScrollDelay: s.scrollDelay, Sleep: env.Sleep}
	if s.greeting {
		opts.Greeting = midi.DefaultGreeting
	}
	if !s.wait {
		return midi.Open(ctx, cat, s.device, opts)
	}
	surf, err := midi.OpenWaiting(ctx, cat, s.device, opts)
	if err != nil {
		return nil, err
	}
	switch {
	case surf.Connected():
		log.Info("Launchpad connected", "profile", surf.Describe().Profile)
	case midi.SystemUnavailable() != "":
		log.Info("waiting for a Launchpad; plug one in at any time", "note", midi.SystemUnavailable())
	default:
		log.Info("waiting for a Launchpad; plug one in at any time")
	}
	return surf, nil
}

// openWeb starts the browser pad with the app's own pages. It binds its
// port(s) but announces nothing yet.
func openWeb(ctx context.Context, s webSettings, log *slog.Logger) (*web.Server, error) {
	app, err := frontend.PadApp()
	if err != nil {
		return nil, fmt.Errorf("the browser pad app is missing from this build: %w", err)
	}
	srv, err := web.New(web.Options{Port: s.port, LAN: s.lan, Log: log, App: app})
	if err != nil {
		return nil, err
	}
	if err := srv.Open(ctx); err != nil {
		_ = srv.Close()
		return nil, err
	}
	return srv, nil
}

// composeSurfaces joins the browser pad and a Launchpad, browser first
// (wire spec §10); either may be nil, and so may the result. On error both
// are still open (the caller closes them).
func composeSurfaces(browser *web.Server, launchpad *midi.Surface) (surface.Surface, error) {
	switch {
	case browser == nil && launchpad == nil:
		return nil, nil
	case browser == nil:
		return launchpad, nil
	case launchpad == nil:
		return browser, nil
	}
	c, err := surface.NewComposite(browser, launchpad)
	if err != nil {
		return nil, fmt.Errorf("the browser pad and the Launchpad cannot be shown together: %w", err)
	}
	return c, nil
}

// announce tells the world about the parts, now that all of them run:
// the Launchpad's name, the browser pad's addresses (§2.6), its admin link
// for `lets pad pair` (state/web-surface.json, 0600) and the admin page in
// the desktop browser.
func (p *padParts) announce(env *Env) {
	if p.midi != nil && p.settings.midi.announce != "" && p.midi.Connected() {
		in, out := p.midi.Ports()
		fmt.Fprintf(env.Stdout, p.settings.midi.announce, p.midi.Profile().Name, in, out)
	}
	if p.web == nil {
		return
	}
	if p.settings.web.printAddresses {
		p.web.WriteStartup(env.Stdout)
	}
	if err := writeWebSurfaceInfo(p.paths, p.web); err != nil {
		p.log.Warn("could not record the browser pad for `lets pad pair`", "err", err)
	} else {
		p.wroteState = true
	}
	if p.settings.web.openAdmin {
		// The opener's command line is readable by every local user (ps),
		// so it gets a one-time link, never the admin token itself.
		link, err := p.web.AdminOpenURL()
		if err != nil {
			p.log.Warn("could not make a link to the admin page", "err", err)
		} else {
			_ = env.openURL(link) // failing to open is fine (§2.6)
		}
	}
}

// cleanup takes back what announce wrote and ends the sounds; call it once
// the daemon or the runner has stopped (it closed the surfaces).
func (p *padParts) cleanup() {
	if p.wroteState {
		if err := removeWebSurfaceInfo(p.paths); err != nil {
			p.log.Warn("could not remove the browser pad record", "err", err)
		}
		p.wroteState = false
	}
	if p.audio != nil {
		_ = p.audio.Close()
		p.audio = nil
	}
}

// abort releases everything of a build that will never run: the daemon
// (which closes the surfaces) or the surfaces themselves, then cleanup.
func (p *padParts) abort() {
	switch {
	case p.daemon != nil:
		_ = p.daemon.Close()
	case p.surfaceGiven:
		// The daemon failed to start and closed the surfaces itself.
	case p.surface != nil:
		_ = p.surface.Close()
	default:
		if p.web != nil {
			_ = p.web.Close()
		}
		if p.midi != nil {
			_ = p.midi.Close()
		}
	}
	p.cleanup()
}

// identityStorePath is where the daemon keeps accent preferences.
func identityStorePath(paths config.Paths) string {
	return identitystore.DefaultPath(paths.StateDir())
}

// pairedDevices lists the phones paired with the browser pad for the home
// page; nil when the browser pad does not run in this process (the page
// then says how to pair one).
func (p *padParts) pairedDevices() func() []host.PairedDevice {
	if p == nil || p.web == nil {
		return nil
	}
	w := p.web
	return func() []host.PairedDevice {
		devs := w.Devices()
		out := make([]host.PairedDevice, 0, len(devs))
		for _, d := range devs {
			out = append(out, host.PairedDevice{Name: d.Name, PairedAt: d.PairedAt, Connected: d.Connected})
		}
		return out
	}
}
