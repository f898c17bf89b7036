package lets

import (
	"context"
	"fmt"
	"log/slog"
	"os"
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
// and the sounds — is built in one place, BuildPads, from one resolved
// PadSettings. `lets serve` resolves the settings from config.json,
// `lets pad daemon|demo|show` from their flags; after that the rules are
// the same for every command:
//
//   - provision: every part that is asked for is opened, or the whole
//     build fails, releasing what it had opened; the error is typed
//     and carries no advice (app/cli adds the running command's hint);
//   - announce: only once every part (and, under serve, the host) has
//     started are addresses printed, state/web-surface.json written and
//     the admin page opened;
//   - cleanup: whatever was announced or opened is taken back when the
//     command ends.

// PadSettings describes the pad side one command wants.
type PadSettings struct {
	// Daemon runs the Wire Protocol 1 daemon; nil for the experience
	// runners, which draw on the surface themselves.
	Daemon *DaemonSettings
	// Audio plays earcons, the Demo's sounds and the Show's music on this
	// computer; AudioShows are the Shows whose music is prepared ahead.
	Audio      bool
	AudioShows []*experience.Performance
	MIDI       MIDISettings
	Web        WebSettings
	// TraySelect lets the tray select sessions as a pad press would
	// (tray_select.go).
	TraySelect bool
}

// DaemonSettings are the Wire daemon's values.
type DaemonSettings struct {
	Socket        string
	IdentityStore string
	Control       control.Config
}

// MIDISettings choose and greet the Launchpad.
type MIDISettings struct {
	On          bool
	Device      midi.ResolveOptions
	Greeting    bool
	ScrollDelay time.Duration
	// Wait keeps looking for a pad that is not plugged in yet instead of
	// failing (serve: the desktop app must start without one).
	Wait bool
	// Announce is the line that names the device once everything runs:
	// a format taking its name, input and output; "" prints nothing.
	Announce string
}

// WebSettings configure the browser pad.
type WebSettings struct {
	On   bool
	Port int
	LAN  *web.LAN
	// OpenAdmin opens the admin page in the desktop browser.
	OpenAdmin bool
	// PrintAddresses prints the pad's addresses (web spec §2.6); serve
	// prints them in its own summary instead.
	PrintAddresses bool
}

// DefaultDaemonSettings are the reference's daemon values with the socket
// and the accent store given.
func DefaultDaemonSettings(socket string, paths config.Paths) *DaemonSettings {
	return &DaemonSettings{
		Socket:        socket,
		IdentityStore: identityStorePath(paths),
		Control:       control.DefaultConfig(0),
	}
}

// PadParts is what BuildPads started.
type PadParts struct {
	settings PadSettings
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

// BuildPads opens every part s asks for. On failure nothing it opened is
// left open; the error carries no advice (the command words it).
func BuildPads(ctx context.Context, env *Env, st *Setup, s PadSettings) (_ *PadParts, err error) {
	p := &PadParts{settings: s, paths: st.Paths, log: st.Log}
	defer func() {
		if err != nil {
			p.abort()
		}
	}()
	if s.Audio {
		if p.audio, err = showaudio.OpenFeedback(env.AudioPlayer, st.Log, s.AudioShows...); err != nil {
			return nil, err
		}
	}
	if s.MIDI.On {
		if p.midi, err = openMIDI(ctx, env, st.Log, s.MIDI); err != nil {
			return nil, err
		}
	}
	if s.Web.On {
		if p.web, err = openWeb(ctx, s.Web, st.Log); err != nil {
			return nil, err
		}
	}
	if p.surface, err = composeSurfaces(p.web, p.midi); err != nil {
		return nil, err
	}
	if s.Daemon != nil {
		surf := p.surface
		if s.TraySelect {
			p.selector = newTraySelector(surf)
			surf = p.selector
		}
		opts := daemon.Options{
			SocketPath:    s.Daemon.Socket,
			IdentityStore: s.Daemon.IdentityStore,
			Control:       &s.Daemon.Control,
			Surface:       surf,
			Log:           st.Log,
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

// openMIDI opens the Launchpad, or starts waiting for one with s.Wait.
func openMIDI(ctx context.Context, env *Env, log *slog.Logger, s MIDISettings) (*midi.Surface, error) {
	cat, err := PadCatalog(env)
	if err != nil {
		return nil, err
	}
	opts := midi.Options{Backend: env.MIDIBackend(), Log: log, ScrollDelay: s.ScrollDelay, Sleep: env.Sleep}
	if s.Greeting {
		opts.Greeting = midi.DefaultGreeting
	}
	if !s.Wait {
		return midi.Open(ctx, cat, s.Device, opts)
	}
	surf, err := midi.OpenWaiting(ctx, cat, s.Device, opts)
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
func openWeb(ctx context.Context, s WebSettings, log *slog.Logger) (*web.Server, error) {
	app, err := frontend.PadApp()
	if err != nil {
		return nil, fmt.Errorf("the browser pad app is missing from this build: %w", err)
	}
	srv, err := web.New(web.Options{Port: s.Port, LAN: s.LAN, Log: log, App: app})
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

// Announce tells the world about the parts, now that all of them run:
// the Launchpad's name, the browser pad's addresses (§2.6), its admin link
// for `lets pad pair` (state/web-surface.json, 0600) and the admin page in
// the desktop browser.
func (p *PadParts) Announce(env *Env) {
	if p.midi != nil && p.settings.MIDI.Announce != "" && p.midi.Connected() {
		in, out := p.midi.Ports()
		fmt.Fprintf(env.Stdout, p.settings.MIDI.Announce, p.midi.Profile().Name, in, out)
	}
	if p.web == nil {
		return
	}
	if p.settings.Web.PrintAddresses {
		p.web.WriteStartup(env.Stdout)
	}
	if err := WriteWebSurfaceInfo(p.paths, p.web); err != nil {
		p.log.Warn("could not record the browser pad for `lets pad pair`", "err", err)
	} else {
		p.wroteState = true
	}
	if p.settings.Web.OpenAdmin {
		// The opener's command line is readable by every local user (ps),
		// so it gets a one-time link, never the admin token itself.
		link, err := p.web.AdminOpenURL()
		if err != nil {
			p.log.Warn("could not make a link to the admin page", "err", err)
		} else {
			_ = env.OpenInBrowser(link) // failing to open is fine (§2.6)
		}
	}
}

// Cleanup takes back what Announce wrote and ends the sounds; call it once
// the daemon or the runner has stopped (it closed the surfaces).
func (p *PadParts) Cleanup() {
	if p.wroteState {
		if err := RemoveWebSurfaceInfo(p.paths); err != nil {
			p.log.Warn("could not remove the browser pad record", "err", err)
		}
		p.wroteState = false
	}
	if p.audio != nil {
		_ = p.audio.Close()
		p.audio = nil
	}
}

// Daemon is the Wire daemon; nil when the settings asked for none.
func (p *PadParts) Daemon() *daemon.Daemon { return p.daemon }

// Surface is what the daemon or the experience runner draws on; nil when
// there is none.
func (p *PadParts) Surface() surface.Surface { return p.surface }

// Audio is the sound of this computer; nil without Audio.
func (p *PadParts) Audio() *showaudio.Feedback { return p.audio }

// abort releases everything of a build that will never run: the daemon
// (which closes the surfaces) or the surfaces themselves, then cleanup.
func (p *PadParts) abort() {
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
	p.Cleanup()
}

// identityStorePath is where the daemon keeps accent preferences.
func identityStorePath(paths config.Paths) string {
	return identitystore.DefaultPath(paths.StateDir())
}

// pairedDevices lists the phones paired with the browser pad for the home
// page; nil when the browser pad does not run in this process (the page
// then says how to pair one).
func (p *PadParts) pairedDevices() func() []host.PairedDevice {
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

func PadCatalog(env *Env) (*midi.Catalog, error) {
	home, _ := os.UserHomeDir()
	if h := env.Getenv("HOME"); h != "" {
		home = h
	}
	return midi.LoadCatalog(midi.CatalogOptions{User: true, Getenv: env.Getenv, Home: home})
}
