package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"time"

	"github.com/lets-app/lets/backend/audio/showaudio"
	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/daemon"
	"github.com/lets-app/lets/backend/host"
	"github.com/lets-app/lets/backend/instance"
	"github.com/lets-app/lets/backend/logging"
	"github.com/lets-app/lets/backend/service"
	"github.com/lets-app/lets/backend/surface"
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
	log := st.log

	lock, err := instance.Acquire(st.paths.LockFile(), instance.Holder{PID: os.Getpid(), Command: "serve", StartedAt: time.Now()})
	if err != nil {
		if instance.IsBusy(err) {
			fmt.Fprintf(env.Stderr, "%v\nUse `lets status` to see it, or stop it before starting another.\n", err)
			return exitError{code: 1}
		}
		return err
	}
	defer func() { _ = lock.Release() }()

	cfg, err := config.Load(st.paths.ConfigFile())
	if err != nil {
		log.Warn("config.json has a problem", "err", err)
	}
	if keys := cfg.UnknownKeys(); len(keys) > 0 {
		log.Info("config.json has settings this version does not know; they are kept and ignored", "keys", keys)
	}
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
	var services []service.Service
	var pad *daemon.Daemon
	padNote := "off (enable with \"wire\": {\"enabled\": true} in config.json)"
	browserNote := "off"
	if cfg.Wire.Enabled {
		opts := daemon.OptionsFromConfig(st.paths, cfg.Wire, env.Getenv, log)
		browser := openBrowserPad(ctx, env, st.paths, cfg.Web, log)
		if browser != nil {
			defer func() { _ = removeWebSurfaceInfo(st.paths) }()
			browserNote = browser.AdminURL()
			if lan := browser.LANURL(); lan != "" {
				browserNote += "\n  Phones:       " + lan + " (pair with `lets pad pair`)"
			}
		}
		opts.Surface = composeSurfaces(browser, openPadSurface(ctx, cfg.Wire, log), log)
		if cfg.Wire.AudioFeedback {
			closeAudio, aerr := showaudio.Attach(&opts, nil, log)
			if aerr != nil {
				log.Warn("pad sounds are off", "err", aerr)
			} else {
				defer func() { _ = closeAudio() }()
			}
		}
		pad, err = daemon.Listen(opts)
		if err != nil {
			// The host is still useful without the pad side, for example
			// when another Pad-Lattice daemon already owns the socket.
			log.Warn("the pad daemon did not start; continuing without it", "err", err)
			padNote = "not started: " + err.Error()
			pad = nil
		} else {
			services = append(services, pad)
			padNote = pad.SocketPath()
		}
	}
	srv, err := host.Listen(host.Options{
		Addr:    "127.0.0.1:" + strconv.Itoa(cfg.HostPort),
		Token:   tok,
		Version: Version,
		DataDir: st.paths.Home,
		Pages:   pages,
		Log:     log,
		Extra: func(s *host.Status) {
			s.Services = serviceNames(services)
			if pad != nil {
				s.WireSocket = pad.SocketPath()
			}
		},
	})
	if err != nil {
		closeAll(services)
		return err
	}
	services = append(services, srv)
	info := config.HostInfo{Port: srv.Port(), PID: os.Getpid(), Token: tok, Version: Version, StartedAt: started.UTC()}
	if pad != nil {
		info.WireSocket = pad.SocketPath()
	}
	if err := config.WriteHostInfo(st.paths, info); err != nil {
		closeAll(services)
		return fmt.Errorf("tell other commands where Lets listens: %w", err)
	}
	defer func() { _ = config.RemoveHostInfo(st.paths, os.Getpid()) }()

	fmt.Fprintf(env.Stdout, "Lets %s is running.\n  Listening on: %s (loopback only)\n  Pad daemon:   %s\n  Browser pad:  %s\n  Data folder:  %s\n  Log file:     %s\nPress Ctrl+C to stop.\n",
		Version, srv.URL(), padNote, browserNote, st.paths.Home, st.paths.LogFile())
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

func serviceNames(services []service.Service) []string {
	names := make([]string, len(services))
	for i, s := range services {
		names[i] = s.Name()
	}
	return names
}

// closer is a service holding resources before it runs.
type closer interface{ Close() error }

// closeAll releases services that were prepared but will never run.
func closeAll(services []service.Service) {
	for i := len(services) - 1; i >= 0; i-- {
		if c, ok := services[i].(closer); ok {
			_ = c.Close()
		}
	}
}

// openPadSurface finds a Launchpad when MIDI is on. Without one the
// surface waits: it looks for a pad every few seconds and shows the agents
// as soon as one is plugged in. nil means no surface (MIDI off, or the
// profiles are broken).
func openPadSurface(ctx context.Context, wc config.WireConfig, log *slog.Logger) surface.Surface {
	if !wc.MIDI {
		return nil
	}
	s, err := midi.OpenWaiting(ctx, nil, midi.ResolveOptions{ProfileID: wc.MIDIProfile}, midi.Options{Greeting: midi.DefaultGreeting, Log: log})
	if err != nil {
		log.Warn("could not use a Launchpad; continuing without it", "err", err)
		return nil
	}
	if s.Connected() {
		log.Info("Launchpad connected", "profile", s.Describe().Profile)
		return s
	}
	if why := midi.SystemUnavailable(); why != "" {
		log.Info("waiting for a Launchpad; plug one in at any time", "note", why)
	} else {
		log.Info("waiting for a Launchpad; plug one in at any time")
	}
	return s
}

// openBrowserPad starts the browser pad (Web Surface Protocol 1) when
// config.json allows it; a busy port or a missing LAN address is logged and
// Lets runs without it. nil means no browser pad.
func openBrowserPad(ctx context.Context, env *Env, paths config.Paths, wc config.WebConfig, log *slog.Logger) *web.Server {
	if !wc.Enabled {
		return nil
	}
	opts := web.Options{Port: wc.Port, Log: log}
	if wc.LAN {
		lan, err := web.ResolveLAN(ctx, wc.BindHost, wc.AdvertiseHost, web.Resolver{})
		if err != nil {
			log.Warn("phones cannot pair: no LAN address for the browser pad", "err", err)
		} else {
			opts.LAN = lan
		}
	}
	// The summary `lets serve` prints names the pad's address itself.
	srv, err := startWebSurface(ctx, io.Discard, paths, opts, false)
	if err != nil {
		log.Warn("the browser pad did not start; continuing without it", "err", err)
		return nil
	}
	return srv
}

// composeSurfaces joins the browser pad and a Launchpad (browser first, wire
// spec §10); either may be nil.
func composeSurfaces(browser *web.Server, launchpad surface.Surface, log *slog.Logger) surface.Surface {
	switch {
	case browser == nil && launchpad == nil:
		return nil
	case browser == nil:
		return launchpad
	case launchpad == nil:
		return browser
	}
	c, err := surface.NewComposite(browser, launchpad)
	if err != nil {
		log.Warn("the browser pad and the Launchpad cannot be shown together; using the Launchpad", "err", err)
		_ = browser.Close()
		return launchpad
	}
	return c
}
