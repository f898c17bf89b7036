package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/lets-app/lets/app/notify"
	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/daemon"
	"github.com/lets-app/lets/backend/logging"
	"github.com/lets-app/lets/backend/surface/web"
)

// Start failures of the desktop app. Plain `lets` is started from a menu
// or at login, where nobody reads stderr: whatever stops it from starting
// is written to lets.log (when the log can be opened at all) and shown as
// a desktop notification that says what to do, besides stderr (the CLI's
// report). Headless `lets serve` keeps to stderr and its log.

// startNotifyTimeout bounds a start notification: a desktop that does not
// answer must not hold Lets (or its exit) for long.
const startNotifyTimeout = 3 * time.Second

// startReport follows one desktop start: the notes to show once Lets runs,
// and the failure to show when it does not.
type startReport struct {
	env   *Env
	notes *notify.Notifier
	// st is the data folder and log once they are open (nil before).
	st *setup
	// home is the resolved data folder, "" when even that failed.
	home    string
	started bool
	// telling counts the notifications still on their way.
	telling sync.WaitGroup
}

// newStartReport makes the report of one desktop start.
func newStartReport(env *Env) *startReport {
	return &startReport{
		env:   env,
		notes: notify.New(sessionBusAddress(env.Getenv), "Lets", "lets"),
	}
}

// opened records the data folder and log.
func (r *startReport) opened(st *setup) {
	if r == nil {
		return
	}
	r.st, r.home = st, st.paths.Home
}

// running marks the start as done: later errors are not start failures.
func (r *startReport) running() {
	if r != nil {
		r.started = true
	}
}

// tell shows m without waiting (Lets runs on while the desktop shows it);
// a desktop without a notification service only gets the log line the
// caller wrote.
func (r *startReport) tell(m notify.Message) {
	if r == nil {
		return
	}
	r.telling.Add(1)
	go func() {
		defer r.telling.Done()
		ctx, cancel := context.WithTimeout(context.Background(), startNotifyTimeout)
		defer cancel()
		if _, err := r.notes.Send(ctx, m); err != nil && r.st != nil {
			r.st.log.Debug("desktop notification not shown", "summary", m.Summary, "err", err)
		}
	}()
}

// finish handles the end of serve: err, when Lets never got to run, is
// logged to lets.log and shown as a notification (stderr gets it from the
// CLI's report). A usage error or help was asked for in a terminal and is
// left to the CLI alone. It closes the bus connection.
func (r *startReport) finish(err error) {
	if r == nil {
		return
	}
	defer func() {
		r.telling.Wait() // each is bounded by startNotifyTimeout
		_ = r.notes.Close()
	}()
	if err == nil || r.started {
		return
	}
	var ue *UsageError
	var ee exitError
	if errors.Is(err, flag.ErrHelp) || errors.As(err, &ue) || errors.As(err, &ee) {
		return
	}
	if r.home == "" {
		// The data folder could not be prepared; the log may still open.
		if h, herr := config.ResolveHome(r.env.Getenv); herr == nil {
			r.home = h
		}
	}
	r.logFailure(err)
	ctx, cancel := context.WithTimeout(context.Background(), startNotifyTimeout)
	defer cancel()
	paths := config.Paths{Home: r.home}
	if _, nerr := r.notes.Send(ctx, startFailureMessage(err, paths)); nerr != nil && !errors.Is(nerr, notify.ErrNoDaemon) {
		fmt.Fprintf(r.env.Stderr, "lets: could not show this on the desktop either: %v\n", nerr)
	}
}

// logFailure writes the failure to lets.log only (stderr gets it from the
// CLI's report). serve has closed its log by now, so the file is opened
// again; when that fails (the data folder could not be made), stderr
// alone has it.
func (r *startReport) logFailure(err error) {
	if r.home == "" {
		return
	}
	f, oerr := logging.OpenRotating(config.Paths{Home: r.home}.LogFile(), logging.MaxBytes, logging.Keep)
	if oerr != nil {
		return
	}
	defer f.Close()
	logging.New(io.Discard, f, slog.LevelInfo).Error("Lets could not start", "err", err)
}

// startFailureMessage words a start failure for the person: what went
// wrong and what to do, in plain words.
func startFailureMessage(err error, paths config.Paths) notify.Message {
	m := notify.Message{Summary: "Lets could not start", Urgency: notify.Critical}
	settings := "your settings file"
	if paths.Home != "" {
		settings += " (" + paths.ConfigFile() + ")"
	}
	var le *web.ListenError
	var ve *config.VersionError
	var addr *net.OpError
	switch {
	case errors.As(err, &le) && errors.Is(err, web.ErrPortInUse):
		m.Body = fmt.Sprintf("Another program is using port %d, the port your settings give the phone pad. Close that program, or change \"port\" under \"web\" in %s (0 lets Lets pick a free one), then start Lets again.", le.Port, settings)
	case errors.As(err, &ve):
		m.Body = fmt.Sprintf("Your settings file (%s) comes from a newer version of Lets. Update Lets, or move that file somewhere else to start with the usual settings, then start Lets again.", ve.Path)
	case errors.Is(err, daemon.ErrAlreadyRunning):
		m.Body = "Another program is already running the pad service Lets uses. Stop it (or turn off \"wire\" in " + settings + "), then start Lets again."
	case errors.Is(err, syscall.EADDRINUSE) && errors.As(err, &addr):
		m.Body = fmt.Sprintf("Another program is using the port Lets wants (%s). Close that program, or set \"host_port\" to 0 in %s, then start Lets again.", portOf(addr), settings)
	case errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.ENOSPC):
		where := "its data folder"
		if paths.Home != "" {
			where += " (" + paths.Home + ")"
		}
		m.Body = fmt.Sprintf("Lets cannot save into %s: %s. Make sure the folder is yours and the disk has room, then start Lets again.", where, plainCause(err))
	default:
		m.Body = fmt.Sprintf("Something stopped it: %v. Start Lets again; if this keeps happening, the details are in %s.", err, logHint(paths))
		return m
	}
	if paths.Home != "" {
		m.Body += " Details are in " + paths.LogFile() + "."
	}
	return m
}

// portOf names the port of a failed listen.
func portOf(e *net.OpError) string {
	if a, ok := e.Addr.(*net.TCPAddr); ok {
		return "port " + strconv.Itoa(a.Port)
	}
	if e.Addr != nil {
		return e.Addr.String()
	}
	return "its port"
}

// plainCause is the system's own short reason, without the paths and
// operations around it ("permission denied", "not a directory").
func plainCause(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno.Error()
	}
	return err.Error()
}

func logHint(paths config.Paths) string {
	if paths.Home == "" {
		return "the terminal output of `lets`"
	}
	return paths.LogFile()
}

// configProblemMessage tells the person that config.json could not be
// read and Lets runs with its usual settings until it is fixed.
func configProblemMessage(err error) notify.Message {
	m := notify.Message{Summary: "Lets is using its usual settings", Urgency: notify.Normal}
	var pe *config.ParseError
	if !errors.As(err, &pe) {
		m.Body = fmt.Sprintf("Your settings file has a problem: %v. Fix it, then quit and start Lets again.", err)
		return m
	}
	where := "has a mistake"
	if pe.Line > 0 {
		where = fmt.Sprintf("has a mistake on line %d", pe.Line)
	}
	m.Body = fmt.Sprintf("Your settings file %s (%s), so Lets started with its usual settings. Fix the file, or move it away to start afresh, then quit and start Lets again.", where, filepath.Clean(pe.Path))
	return m
}
