package lets

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"reflect"
	"strconv"
	"time"

	"github.com/lets-app/lets/app/notify"
	"github.com/lets-app/lets/backend/chatdriver"
	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/daemon"
	"github.com/lets-app/lets/backend/experience"
	"github.com/lets-app/lets/backend/host"
	"github.com/lets-app/lets/backend/hostapi"
	"github.com/lets-app/lets/backend/instance"
	"github.com/lets-app/lets/backend/service"
	"github.com/lets-app/lets/backend/surface/midi"
	"github.com/lets-app/lets/backend/surface/web"
	"github.com/lets-app/lets/backend/token"
	"github.com/lets-app/lets/frontend"
)

// ErrHandedOff means Provision found another Lets holding the data folder
// and handed the start over to it (plain `lets` only): this process has
// nothing to run, and that is no failure.
var ErrHandedOff = errors.New("another Lets runs for this data folder and took over this start")

// Process is the running Lets: the host, the pads, the windows, the chat
// manager and, on the desktop, the tray. Headless (`lets serve`, Desk nil
// or headless) and desktop (plain `lets`) are two configurations of it.
//
// Its life is Provision (every part is built, or those already built are
// released and the error returned), Run (announce, then every part runs
// under one supervisor until ctx ends) and Cleanup (what Provision and Run
// leave behind is taken back). Provision, Run and Cleanup are called once,
// in that order, from one goroutine; Cleanup is deferred after a
// successful Provision.
//
// Its errors carry no advice for a person at a terminal: app/cli words
// them (the lock held by another Lets, a taken port, a pad part).
type Process struct {
	// The configuration, set before Provision.
	Env     *Env
	Desk    *Desktop     // nil: `lets serve`
	Report  *StartReport // nil: `lets serve` (stderr and the log only)
	Port    int          // --port; -1 keeps config.json's
	NoPad   bool         // --no-pad
	Version string       // the Lets version, for the host and host.json

	// The parts, in the order Provision builds them.
	st       *Setup
	lock     *instance.Lock
	settings *config.Watcher
	loaded   config.Config // config.json as read, before the flags
	notes    []notify.Message
	pads     *PadParts
	wins     *nativeWindows
	chat     *chatdriver.Manager
	srv      *host.Server
	services []service.Service
	// wroteInfo: host.json names this process (Cleanup removes it).
	wroteInfo bool
	// ran: Run started the supervisor, which closes the pads' daemon and
	// the host itself; without it Cleanup closes them.
	ran       bool
	stopNotes func()
}

// desktopShown says whether this process shows a tray and windows of its
// own (plain `lets` with a desktop).
func (p *Process) desktopShown() bool { return p.Desk != nil && !p.Desk.Headless }

// Provision builds every part. On failure the parts it built are released
// (Cleanup) and the error is returned; ErrHandedOff means another Lets took
// this start over.
func (p *Process) Provision(ctx context.Context) (err error) {
	defer func() {
		if err != nil {
			p.Cleanup()
		}
	}()
	env := p.Env
	if p.st, err = OpenSetup(env, true); err != nil {
		return err
	}
	p.Report.opened(p.st)
	st, log := p.st, p.st.Log

	holder := "serve"
	if p.Desk != nil {
		holder = p.Desk.command()
	}
	lock, err := instance.Acquire(st.Paths.LockFile(), instance.Holder{PID: os.Getpid(), Command: holder, StartedAt: time.Now()})
	if err != nil {
		if instance.IsBusy(err) && p.Desk != nil && p.Desk.HandOff != nil {
			if err := p.Desk.HandOff(ctx, st.Paths); err != nil {
				return err
			}
			return ErrHandedOff
		}
		// instance.IsBusy tells the caller another Lets holds the folder.
		return err
	}
	p.lock = lock

	if p.settings, err = loadServeConfig(st); err != nil {
		return err
	}
	// What the desktop tells the person once Lets runs.
	if perr := p.settings.Err(); perr != nil {
		p.notes = append(p.notes, configProblemMessage(perr))
	}
	cfg := p.settings.Config()
	p.loaded = cfg
	if p.Port >= 0 {
		cfg.HostPort = p.Port
	}
	if p.NoPad {
		cfg.Wire.Enabled = false
	}

	tok, err := token.New()
	if err != nil {
		return err
	}
	pages, err := frontend.Pages()
	if err != nil {
		return err
	}
	started := time.Now()

	if cfg.Wire.Enabled {
		if err := p.provisionPads(ctx, cfg); err != nil {
			return err
		}
	}
	pads := p.pads
	p.services = []service.Service{p.settings}
	if pads != nil {
		p.services = append(p.services, pads.daemon)
	}
	var showHome func()
	if p.desktopShown() {
		showHome = p.Desk.showHome
	}
	// Windows open as native `lets window` processes when this build and
	// session can show them, else in the browser (nil).
	p.wins = newNativeWindows(env, st)
	p.Desk.useWindows(p.wins) // the home window too
	// The approval card in a window bound to a Claude session answers
	// through the in-process pad daemon (the same Wire action as a pad
	// press); without the daemon the host shows no card.
	var claudeActions host.ClaudeActions
	if pads != nil {
		claudeActions = pads.daemon
	}
	// Chat with Claude: conversations in chat windows (chat.go).
	wireSocket := func() string { return "" }
	if pads != nil {
		wireSocket = pads.daemon.SocketPath
	}
	if p.chat, err = newChat(env, st, cfg, wireSocket); err != nil {
		return err
	}
	p.Desk.useChat(p.chat)
	srv, err := host.Listen(windowsInBrowser(p.desktopShown() || hasDisplay(env.Getenv), env, log, p.wins.hostOptions(host.Options{
		Addr:    "127.0.0.1:" + strconv.Itoa(cfg.HostPort),
		Token:   tok,
		Version: p.Version,
		DataDir: st.Paths.Home,
		Pages:   pages,
		Log:     log,
		Config:  p.settings,
		// The tray's "show home" hook (single instance); nil headless.
		OnShowHome: showHome,
		Home:       homeActionOptions(homeClaudeOptions(host.HomeOptions{Devices: pads.pairedDevices()}, env, st.Paths), env, log, pads, p.Desk),
		// ClaudeActions stays a true nil interface without a daemon.
		ClaudeActions: claudeActions,
		Chats:         hostChats(p.chat),
		Extra: func(s *hostapi.Status) {
			// Every part the supervisor runs, as Provision and Run
			// complete the list.
			s.Services = serviceNames(p.services)
			if pads != nil {
				s.WireSocket = pads.daemon.SocketPath()
			}
		},
	})))
	if err != nil {
		return err
	}
	p.srv = srv
	// The chats talk to this host in memory: no TCP to itself, no host.json.
	p.chat.UseHost(srv.LocalHandler())
	p.services = p.wins.attach(srv, append(p.services, srv))
	// After the host and the windows, so it stops first: its agents end
	// and its windows close while the host still runs.
	p.services = append(p.services, chatService(p.chat))
	info := config.HostInfo{Port: srv.Port(), PID: os.Getpid(), Token: tok, Version: p.Version, StartedAt: started.UTC()}
	if pads != nil {
		info.WireSocket = pads.daemon.SocketPath()
	}
	if err := config.WriteHostInfo(st.Paths, info); err != nil {
		return fmt.Errorf("tell other commands where Lets listens: %w", err)
	}
	p.wroteInfo = true
	if p.desktopShown() {
		t, err := p.Desk.start(env, st, srv, pads)
		if err != nil {
			return err
		}
		p.services = append(p.services, t)
	}
	return nil
}

// provisionPads builds the pad daemon and its surfaces from config.json.
func (p *Process) provisionPads(ctx context.Context, cfg config.Config) error {
	st := p.st
	ps, err := serveSettings(ctx, p.Env, st, cfg)
	if err != nil {
		return err
	}
	if ps.Web.On {
		usual := p.Env.usualPadPort()
		if ps.Web.Port == config.DefaultWebPort {
			ps.Web.Port = usual
		}
		port, note, err := resolvePadPort(st.Paths, ps.Web.Port, usual, bindLoopback, st.Log)
		if err != nil {
			return err
		}
		ps.Web.Port = port
		if note != nil {
			p.notes = append(p.notes, *note)
		}
	}
	ps.TraySelect = p.desktopShown()
	if p.pads, err = BuildPads(ctx, p.Env, st, ps); err != nil {
		return err
	}
	// The pad page's admin view can switch phone access on and off
	// from the start, however it was opened (tray, `lets pad pair`).
	if p.pads.web != nil {
		if sw, err := padLANSwitch(p.Env); err == nil {
			p.pads.web.SetLANSwitch(sw)
		} else {
			st.Log.Warn("the pad page cannot switch phone access: Lets' data folder is unknown", "err", err)
		}
	}
	return nil
}

// Run announces the running parts and runs them under one supervisor
// until ctx ends or a part fails.
func (p *Process) Run(ctx context.Context) error {
	env, st, log := p.Env, p.st, p.st.Log
	p.ran = true
	padNote := "off (enable with \"wire\": {\"enabled\": true} in config.json)"
	browserNote := "off"
	if pads := p.pads; pads != nil {
		pads.Announce(env)
		padNote = pads.daemon.SocketPath()
		if pads.web != nil {
			browserNote = pads.web.AdminURL()
			if p.desktopShown() {
				// A desktop start's output ends up in the session's log
				// (journal, ~/.xsession-errors), readable far longer than
				// this run: no admin token there. The tray opens the pad
				// page with a one-time link.
				browserNote = PadPageURL(pads.web.Port()) + " (open it from the tray: Virtual pad)"
			}
			if lan := pads.web.LANURL(); lan != "" {
				browserNote += "\n  Phones:       " + lan + " (pair with `lets pad pair`)"
			}
		}
	}
	loaded := p.loaded
	p.stopNotes = p.settings.OnChange(func(next config.Config) {
		// Called on the watcher's goroutine only, one change at a time.
		noteConfigChange(log, p.settings.Path(), loaded, next)
		loaded = next
	})

	p.Report.running()
	for _, n := range p.notes {
		p.Report.tell(n)
	}
	fmt.Fprintf(env.Stdout, "Lets %s is running.\n  Listening on: %s (loopback only)\n  Pad daemon:   %s\n  Browser pad:  %s\n  Data folder:  %s\n  Log file:     %s\nPress Ctrl+C to stop.\n",
		p.Version, p.srv.URL(), padNote, browserNote, st.Paths.Home, st.Paths.LogFile())
	// A removed program (the package was uninstalled) ends Lets cleanly.
	if w := newExeWatch(log); w != nil {
		p.services = append(p.services, w)
	}
	sup := &service.Supervisor{Services: p.services, Log: log}
	err := sup.Run(ctx)
	if errors.Is(err, service.ErrStopTimeout) {
		log.Warn("stopped with parts still busy", "err", err)
		err = nil
	}
	if err == nil {
		fmt.Fprintln(env.Stdout, "Lets stopped. See you soon.")
	}
	return err
}

// Cleanup takes back what Provision and Run left: the configuration
// watcher's note, the host and the pads when they never ran (or only what
// the pads announced when they did), host.json, the lock and the log.
// Each part is released once; a second Cleanup does nothing.
func (p *Process) Cleanup() {
	if p.stopNotes != nil {
		p.stopNotes()
		p.stopNotes = nil
	}
	if !p.ran && p.srv != nil {
		_ = p.srv.Close()
	}
	p.srv = nil
	if p.pads != nil {
		if p.ran {
			p.pads.Cleanup() // the daemon has stopped and closed the surfaces
		} else {
			p.pads.abort()
		}
		p.pads = nil
	}
	if p.wroteInfo {
		_ = config.RemoveHostInfo(p.st.Paths, os.Getpid())
		p.wroteInfo = false
	}
	if p.lock != nil {
		_ = p.lock.Release()
		p.lock = nil
	}
	if p.st != nil {
		p.st.Close()
		p.st = nil
	}
}

// loadServeConfig loads config.json once, for the whole run: it writes the
// defaults when there is no file yet, warns about a broken file (the
// defaults are used) and about every unknown key, and refuses a file from a
// newer Lets.
func loadServeConfig(st *Setup) (*config.Watcher, error) {
	path := st.Paths.ConfigFile()
	if wrote, err := config.WriteDefaults(path); err != nil {
		st.Log.Warn("could not write the default config.json", "err", err)
	} else if wrote {
		st.Log.Info("wrote the default settings; change them there", "path", path)
	}
	w := config.Watch(path, config.WatchOptions{Log: st.Log})
	if err := w.Err(); err != nil {
		if errors.Is(err, config.ErrNewerVersion) {
			return nil, err
		}
		st.Log.Warn("config.json has a problem", "err", err)
	}
	warnUnknownSettings(st.Log, path, w.Config())
	return w, nil
}

// warnUnknownSettings logs one warning per key config.json has that this
// version does not know, with the key's path and a "did you mean".
func warnUnknownSettings(log *slog.Logger, path string, cfg config.Config) {
	for _, u := range cfg.UnknownSettings() {
		args := []any{"file", path, "key", u.Path()}
		if u.Suggestion != "" {
			args = append(args, "did_you_mean", u.Suggestion)
		}
		log.Warn("config.json has a setting this version does not know; it is kept and ignored", args...)
	}
}

// noteConfigChange tells what a change of config.json does while Lets
// runs: "handoff" applies at once (the host reads it from the watcher);
// the rest needs a restart.
func noteConfigChange(log *slog.Logger, path string, prev, next config.Config) {
	if next.Handoff != prev.Handoff {
		log.Info("config.json changed: windows now follow the new handoff", "handoff", next.Handoff)
	}
	// web.lan is switched live by the pad page ("Pair a phone…"), which
	// also writes it here; only the other settings need a restart.
	prevWeb, nextWeb := prev.Web, next.Web
	prevWeb.LAN, nextWeb.LAN = false, false
	if next.HostPort != prev.HostPort || !sameSettings(next.Wire, prev.Wire) || !sameSettings(nextWeb, prevWeb) {
		log.Info("config.json changed settings of the host or the pads; restart Lets to use them")
	}
	warnUnknownSettings(log, path, next)
}

// sameSettings compares two config sections, unknown keys included.
func sameSettings(a, b any) bool { return reflect.DeepEqual(a, b) }

// serveSettings resolves the pad side of `lets serve` from config.json. A
// Launchpad that is not plugged in yet is waited for; a missing LAN address
// only means phones cannot pair.
func serveSettings(ctx context.Context, env *Env, st *Setup, cfg config.Config) (PadSettings, error) {
	socket := cfg.Wire.Socket
	if socket == "" {
		socket = daemon.SocketPath(env.Getenv)
	}
	ds := DefaultDaemonSettings(socket, st.Paths)
	ds.Control.ActivityMotion = cfg.Wire.ActivityMotion
	s := PadSettings{
		Daemon: ds,
		Audio:  cfg.Wire.AudioFeedback,
		MIDI: MIDISettings{
			On:       cfg.Wire.MIDI,
			Device:   midi.ResolveOptions{ProfileID: cfg.Wire.MIDIProfile},
			Greeting: true,
			Wait:     true,
		},
		Web: WebSettings{On: cfg.Web.Enabled, Port: cfg.Web.Port},
	}
	if s.Audio {
		_, show, err := experience.LoadDefault()
		if err != nil {
			return s, err
		}
		s.AudioShows = []*experience.Performance{show}
	}
	if cfg.Web.Enabled && cfg.Web.LAN {
		lan, err := web.ResolveLAN(ctx, cfg.Web.BindHost, cfg.Web.AdvertiseHost, env.LAN)
		if err != nil {
			st.Log.Warn("phones cannot pair: no LAN address for the browser pad (check \"web\": {\"bind_host\"} in config.json)", "err", err)
		} else {
			s.Web.LAN = lan
		}
	}
	return s, nil
}

func serviceNames(services []service.Service) []string {
	names := make([]string, len(services))
	for i, s := range services {
		names[i] = s.Name()
	}
	return names
}

// PadPageURL is the browser pad's loopback page without any token.
func PadPageURL(port int) string { return "http://127.0.0.1:" + strconv.Itoa(port) + "/" }
