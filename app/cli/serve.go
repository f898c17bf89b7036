package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"reflect"
	"strconv"
	"time"

	"github.com/lets-app/lets/app/notify"
	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/daemon"
	"github.com/lets-app/lets/backend/experience"
	"github.com/lets-app/lets/backend/host"
	"github.com/lets-app/lets/backend/instance"
	"github.com/lets-app/lets/backend/logging"
	"github.com/lets-app/lets/backend/service"
	"github.com/lets-app/lets/backend/surface/midi"
	"github.com/lets-app/lets/backend/surface/web"
	"github.com/lets-app/lets/backend/token"
	"github.com/lets-app/lets/frontend"
)

// setup is what every host-side command needs: the data folder and a logger.
type setup struct {
	paths   config.Paths
	log     *slog.Logger
	logFile *logging.RotatingFile
}

func (s *setup) close() {
	if s.logFile != nil {
		_ = s.logFile.Close()
	}
}

// openSetup resolves and prepares the data folder and opens the log.
func openSetup(env *Env, withFile bool) (*setup, error) {
	level, lerr := logging.ParseLevel(env.Getenv(logging.LevelEnv))
	home, err := config.ResolveHome(env.Getenv)
	if err != nil {
		return nil, err
	}
	s := &setup{paths: config.Paths{Home: home}}
	boot := logging.New(env.Stderr, nil, level)
	if err := config.Ensure(s.paths, boot); err != nil {
		return nil, err
	}
	var file io.Writer
	if withFile {
		f, err := logging.OpenRotating(s.paths.LogFile(), logging.MaxBytes, logging.Keep)
		if err != nil {
			boot.Warn("logging to stderr only", "err", err)
		} else {
			s.logFile, file = f, f
		}
	}
	s.log = logging.New(env.Stderr, file, level)
	if lerr != nil {
		s.log.Warn(lerr.Error())
	}
	return s, nil
}

func runServe(ctx context.Context, env *Env, args []string) error {
	return serve(ctx, env, args, nil)
}

// serve runs the host and the pad daemon; desk (plain `lets`) adds the
// tray and the single-instance hand-off, nil is `lets serve`. Under plain
// `lets` every start failure is also logged and shown on the desktop
// (startfail.go).
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

	st, err := openSetup(env, true)
	if err != nil {
		return err
	}
	defer st.close()
	report.opened(st)
	log := st.log

	holder := "serve"
	if desk != nil {
		holder = desk.command()
	}
	lock, err := instance.Acquire(st.paths.LockFile(), instance.Holder{PID: os.Getpid(), Command: holder, StartedAt: time.Now()})
	if err != nil {
		if instance.IsBusy(err) && desk != nil {
			return desk.handOff(ctx, st.paths)
		}
		if instance.IsBusy(err) {
			fmt.Fprintf(env.Stderr, "%v\nUse `lets status` to see it, or stop it before starting another.\n", err)
			return exitError{code: 1}
		}
		return err
	}
	defer func() { _ = lock.Release() }()

	settings, err := loadServeConfig(st)
	if err != nil {
		return err
	}
	// What the desktop tells the person once Lets runs.
	var notes []notify.Message
	if perr := settings.Err(); perr != nil {
		notes = append(notes, configProblemMessage(perr))
	}
	cfg := settings.Config()
	loaded := cfg // as in the file, before the flags
	if *port >= 0 {
		cfg.HostPort = *port
	}
	if *noPad {
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

	// Provision: every part starts, or none stays.
	var pads *padParts
	if cfg.Wire.Enabled {
		ps, err := serveSettings(ctx, env, st, cfg)
		if err != nil {
			return err
		}
		if ps.web.on {
			port, note, err := resolvePadPort(st.paths, ps.web.port, bindLoopback, log)
			if err != nil {
				return err
			}
			ps.web.port = port
			if note != nil {
				notes = append(notes, *note)
			}
		}
		ps.traySelect = desk != nil && !desk.headless
		if pads, err = buildPads(ctx, env, st, ps); err != nil {
			return err
		}
		// The pad page's admin view can switch phone access on and off
		// from the start, however it was opened (tray, `lets pad pair`).
		if pads.web != nil {
			if sw, err := padLANSwitch(env); err == nil {
				pads.web.SetLANSwitch(sw)
			} else {
				st.log.Warn("the pad page cannot switch phone access: Lets' data folder is unknown", "err", err)
			}
		}
	}
	services := []service.Service{settings}
	if pads != nil {
		services = append(services, pads.daemon)
	}
	var showHome func()
	if desk != nil && !desk.headless {
		showHome = desk.showHome
	}
	// Windows open as native `lets window` processes when this build and
	// session can show them, else in the browser (nil).
	wins := newNativeWindows(env, st)
	desk.useWindows(wins) // the home window too
	// The approval card in a window bound to a Claude session answers
	// through the in-process pad daemon (the same Wire action as a pad
	// press); without the daemon the host shows no card.
	var claudeActions host.ClaudeActions
	if pads != nil {
		claudeActions = pads.daemon
	}
	// Chat with Claude: conversations in chat windows (app/chat.go).
	chat, err := newChat(env, st, cfg)
	if err != nil {
		if pads != nil {
			pads.abort()
		}
		return err
	}
	desk.useChat(chat)
	srv, err := host.Listen(windowsInBrowser((desk != nil && !desk.headless) || hasDisplay(env.Getenv), env, log, wins.hostOptions(host.Options{
		Addr:    "127.0.0.1:" + strconv.Itoa(cfg.HostPort),
		Token:   tok,
		Version: Version,
		DataDir: st.paths.Home,
		Pages:   pages,
		Log:     log,
		Config:  settings,
		// The tray's "show home" hook (single instance); nil headless.
		OnShowHome: showHome,
		Home:       homeActionOptions(homeClaudeOptions(host.HomeOptions{Devices: pads.pairedDevices()}, env, st.paths), env, log, pads, desk),
		// ClaudeActions stays a true nil interface without a daemon.
		ClaudeActions: claudeActions,
		Chats:         hostChats(chat),
		Extra: func(s *host.Status) {
			s.Services = serviceNames(services)
			if pads != nil {
				s.WireSocket = pads.daemon.SocketPath()
			}
		},
	})))
	if err != nil {
		if pads != nil {
			pads.abort()
		}
		return withHint(cmdServe, err)
	}
	services = wins.attach(srv, append(services, srv))
	// After the host and the windows, so it stops first: its agents end
	// and its windows close while the host still runs.
	services = append(services, chatService(chat))
	info := config.HostInfo{Port: srv.Port(), PID: os.Getpid(), Token: tok, Version: Version, StartedAt: started.UTC()}
	if pads != nil {
		info.WireSocket = pads.daemon.SocketPath()
	}
	if err := config.WriteHostInfo(st.paths, info); err != nil {
		_ = srv.Close()
		if pads != nil {
			pads.abort()
		}
		return fmt.Errorf("tell other commands where Lets listens: %w", err)
	}
	defer func() { _ = config.RemoveHostInfo(st.paths, os.Getpid()) }()
	if desk != nil && !desk.headless {
		t, err := desk.start(env, st, srv, pads)
		if err != nil {
			_ = srv.Close()
			if pads != nil {
				pads.abort()
			}
			return err
		}
		services = append(services, t)
	}

	// Announce: everything runs.
	padNote := "off (enable with \"wire\": {\"enabled\": true} in config.json)"
	browserNote := "off"
	if pads != nil {
		pads.announce(env)
		defer pads.cleanup()
		padNote = pads.daemon.SocketPath()
		if pads.web != nil {
			browserNote = pads.web.AdminURL()
			if desk != nil && !desk.headless {
				// A desktop start's output ends up in the session's log
				// (journal, ~/.xsession-errors), readable far longer than
				// this run: no admin token there. The tray opens the pad
				// page with a one-time link.
				browserNote = padPageURL(pads.web.Port()) + " (open it from the tray: Virtual pad)"
			}
			if lan := pads.web.LANURL(); lan != "" {
				browserNote += "\n  Phones:       " + lan + " (pair with `lets pad pair`)"
			}
		}
	}
	stopNotes := settings.OnChange(func(next config.Config) {
		// Called on the watcher's goroutine only, one change at a time.
		noteConfigChange(log, settings.Path(), loaded, next)
		loaded = next
	})
	defer stopNotes()

	report.running()
	for _, n := range notes {
		report.tell(n)
	}
	fmt.Fprintf(env.Stdout, "Lets %s is running.\n  Listening on: %s (loopback only)\n  Pad daemon:   %s\n  Browser pad:  %s\n  Data folder:  %s\n  Log file:     %s\nPress Ctrl+C to stop.\n",
		Version, srv.URL(), padNote, browserNote, st.paths.Home, st.paths.LogFile())
	// A removed program (the package was uninstalled) ends Lets cleanly.
	if w := newExeWatch(log); w != nil {
		services = append(services, w)
	}
	sup := &service.Supervisor{Services: services, Log: log}
	err = sup.Run(ctx)
	if errors.Is(err, service.ErrStopTimeout) {
		log.Warn("stopped with parts still busy", "err", err)
		err = nil
	}
	if err == nil {
		fmt.Fprintln(env.Stdout, "Lets stopped. See you soon.")
	}
	return err
}

// loadServeConfig loads config.json once, for the whole run: it writes the
// defaults when there is no file yet, warns about a broken file (the
// defaults are used) and about every unknown key, and refuses a file from a
// newer Lets.
func loadServeConfig(st *setup) (*config.Watcher, error) {
	path := st.paths.ConfigFile()
	if wrote, err := config.WriteDefaults(path); err != nil {
		st.log.Warn("could not write the default config.json", "err", err)
	} else if wrote {
		st.log.Info("wrote the default settings; change them there", "path", path)
	}
	w := config.Watch(path, config.WatchOptions{Log: st.log})
	if err := w.Err(); err != nil {
		if errors.Is(err, config.ErrNewerVersion) {
			return nil, err
		}
		st.log.Warn("config.json has a problem", "err", err)
	}
	warnUnknownSettings(st.log, path, w.Config())
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
func serveSettings(ctx context.Context, env *Env, st *setup, cfg config.Config) (padSettings, error) {
	socket := cfg.Wire.Socket
	if socket == "" {
		socket = daemon.SocketPath(env.Getenv)
	}
	ds := defaultDaemonSettings(socket, st.paths)
	ds.control.ActivityMotion = cfg.Wire.ActivityMotion
	s := padSettings{
		command: cmdServe,
		daemon:  ds,
		audio:   cfg.Wire.AudioFeedback,
		midi: midiSettings{
			on:       cfg.Wire.MIDI,
			device:   midi.ResolveOptions{ProfileID: cfg.Wire.MIDIProfile},
			greeting: true,
			wait:     true,
		},
		web: webSettings{on: cfg.Web.Enabled, port: cfg.Web.Port},
	}
	if s.audio {
		_, show, err := experience.LoadDefault()
		if err != nil {
			return s, err
		}
		s.audioShows = []*experience.Performance{show}
	}
	if cfg.Web.Enabled && cfg.Web.LAN {
		lan, err := web.ResolveLAN(ctx, cfg.Web.BindHost, cfg.Web.AdvertiseHost, env.LAN)
		if err != nil {
			st.log.Warn("phones cannot pair: no LAN address for the browser pad (check \"web\": {\"bind_host\"} in config.json)", "err", err)
		} else {
			s.web.lan = lan
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

// padPageURL is the browser pad's loopback page without any token.
func padPageURL(port int) string { return "http://127.0.0.1:" + strconv.Itoa(port) + "/" }
