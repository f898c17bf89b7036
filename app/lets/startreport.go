package lets

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"github.com/lets-app/lets/app/notify"
	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/logging"
)

// startNotifyTimeout bounds a start notification: a desktop that does not
// answer must not hold Lets (or its exit) for long.
const startNotifyTimeout = 3 * time.Second

// StartReport follows one desktop start: the notes to show once Lets runs,
// and the failure to show when it does not.
type StartReport struct {
	env   *Env
	notes *notify.Notifier
	// st is the data folder and log once they are open (nil before).
	st *Setup
	// home is the resolved data folder, "" when even that failed.
	home    string
	started bool
	// telling counts the notifications still on their way.
	telling sync.WaitGroup
}

// NewStartReport makes the report of one desktop start.
func NewStartReport(env *Env) *StartReport {
	return &StartReport{
		env:   env,
		notes: notify.New(SessionBusAddress(env.Getenv), "Lets", "lets"),
	}
}

// opened records the data folder and log.
func (r *StartReport) opened(st *Setup) {
	if r == nil {
		return
	}
	r.st, r.home = st, st.Paths.Home
}

// running marks the start as done: later errors are not start failures.
func (r *StartReport) running() {
	if r != nil {
		r.started = true
	}
}

// tell shows m without waiting (Lets runs on while the desktop shows it);
// a desktop without a notification service only gets the log line the
// caller wrote.
func (r *StartReport) tell(m notify.Message) {
	if r == nil {
		return
	}
	r.telling.Add(1)
	go func() {
		defer r.telling.Done()
		ctx, cancel := context.WithTimeout(context.Background(), startNotifyTimeout)
		defer cancel()
		if _, err := r.notes.Send(ctx, m); err != nil && r.st != nil {
			r.st.Log.Debug("desktop notification not shown", "summary", m.Summary, "err", err)
		}
	}()
}

// Finish handles the end of a desktop start: err, when Lets never got to
// run, is logged to lets.log and shown as the notification message words
// (stderr gets it from the CLI's report). The CLI passes a nil err for
// what was asked in a terminal (a usage error, help). It closes the bus
// connection.
func (r *StartReport) Finish(err error, message func(err error, paths config.Paths) notify.Message) {
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
	if _, nerr := r.notes.Send(ctx, message(err, paths)); nerr != nil && !errors.Is(nerr, notify.ErrNoDaemon) {
		fmt.Fprintf(r.env.Stderr, "lets: could not show this on the desktop either: %v\n", nerr)
	}
}

// logFailure writes the failure to lets.log only (stderr gets it from the
// CLI's report). serve has closed its log by now, so the file is opened
// again; when that fails (the data folder could not be made), stderr
// alone has it.
func (r *StartReport) logFailure(err error) {
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
