package lets

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/lets-app/lets/backend/clock"
)

// A running Lets whose program is removed (the package was uninstalled)
// quits by itself, the way Quit in the tray does, instead of running on
// with nothing behind its menu. An update, which puts a new program at the
// same path, is not a removal: Lets notes it and keeps running.

// exeWatchEvery is how often the program file is looked at.
const exeWatchEvery = 3 * time.Second

// exeGoneAfter is how many looks in a row must find the program missing:
// one miss may be an installer replacing the file.
const exeGoneAfter = 2

// exeWatch is the service that ends Lets when its program file is gone.
// Its Run returns nil then, which stops every other part cleanly.
type exeWatch struct {
	// path is the program file (os.Executable at start).
	path  string
	clock clock.Clock
	every time.Duration
	// stat looks at the path (os.Stat).
	stat func(string) (fs.FileInfo, error)
	// self reads where the running program came from (/proc/self/exe):
	// the kernel adds " (deleted)" once that file is unlinked. "" and an
	// error mean it cannot tell.
	self func() (string, error)
	log  *slog.Logger
}

// newExeWatch watches the running program; nil when its path is unknown.
func newExeWatch(log *slog.Logger) *exeWatch {
	path, err := os.Executable()
	if err != nil || path == "" {
		log.Debug("not watching the program file: its path is unknown", "err", err)
		return nil
	}
	return &exeWatch{
		path:  path,
		clock: clock.Real(),
		every: exeWatchEvery,
		stat:  os.Stat,
		self:  func() (string, error) { return os.Readlink("/proc/self/exe") },
		log:   log,
	}
}

// Name names the service.
func (w *exeWatch) Name() string { return "program-watch" }

// Run looks at the program file every w.every until ctx ends (nil) or the
// file has been missing for exeGoneAfter looks in a row (nil, logged:
// Lets then stops like after Quit).
func (w *exeWatch) Run(ctx context.Context) error {
	t := w.clock.NewTicker(w.every)
	defer t.Stop()
	missing := 0
	updated := false
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C():
		}
		_, err := w.stat(w.path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			missing++
			if missing >= exeGoneAfter {
				w.log.Warn("the Lets program was removed (uninstalled?), so Lets is quitting", "program", w.path)
				return nil
			}
			continue
		case err != nil:
			// Cannot tell (permissions changed?): keep running.
			missing = 0
			continue
		}
		missing = 0
		if !updated && w.self != nil {
			if link, err := w.self(); err == nil && strings.HasSuffix(link, " (deleted)") {
				updated = true
				w.log.Info("a new version of Lets was installed; quit Lets and start it again to use it", "program", w.path)
			}
		}
	}
}
