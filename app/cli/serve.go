package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"strconv"

	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/daemon"
	"github.com/lets-app/lets/backend/experience"
	"github.com/lets-app/lets/backend/logging"
	"github.com/lets-app/lets/backend/service"
	"github.com/lets-app/lets/backend/surface/midi"
	"github.com/lets-app/lets/backend/surface/web"
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
