package config

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"reflect"
	"sync"
	"time"

	"github.com/lets-app/lets/backend/clock"
)

// DefaultWatchInterval is how often a Watcher looks at config.json.
const DefaultWatchInterval = 1500 * time.Millisecond

// WatchOptions configure a Watcher.
type WatchOptions struct {
	// Interval between two looks at the file; 0 means DefaultWatchInterval.
	Interval time.Duration
	// Log receives the problems of reloads; nil discards them.
	Log *slog.Logger
	// Clock times the looks; nil means the wall clock.
	Clock clock.Clock
}

// Watcher holds config.json as loaded once at start and keeps it current:
// Run polls the file's size and modification time (no fsnotify needed) and
// reloads when they change; Reload does the same on request. Consumers read
// Config (cheap, no file access) and register with OnChange to hear about
// changes. A reload that finds the file broken keeps the last good
// settings. It is a service.Service.
type Watcher struct {
	path     string
	interval time.Duration
	log      *slog.Logger
	clock    clock.Clock

	mu     sync.Mutex
	cur    Config
	err    error // the problem of the first load, if any
	stamp  fileStamp
	subs   map[int]func(Config)
	nextID int
}

// fileStamp is what the poll compares to notice a change.
type fileStamp struct {
	exists  bool
	size    int64
	modTime time.Time
	ino     uint64
}

// Watch loads path once and returns a Watcher for it. The load problem, if
// any, is in Err; the settings are then the defaults (see Load).
func Watch(path string, opts WatchOptions) *Watcher {
	w := &Watcher{path: path, interval: opts.Interval, log: opts.Log, clock: clock.Or(opts.Clock), subs: map[int]func(Config){}}
	if w.interval <= 0 {
		w.interval = DefaultWatchInterval
	}
	if w.log == nil {
		w.log = slog.New(slog.DiscardHandler)
	}
	w.stamp = stampOf(path)
	w.cur, w.err = Load(path)
	return w
}

// Path is the watched file.
func (w *Watcher) Path() string { return w.path }

// Config returns the current settings. Callers must not modify its maps.
func (w *Watcher) Config() Config {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.cur
}

// Err is the problem found when the file was first loaded (nil when it
// loaded cleanly or was missing).
func (w *Watcher) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// OnChange registers fn to be called with the new settings after every
// reload that changed them. fn runs on the reloading goroutine and must
// not block. The returned func unregisters it.
func (w *Watcher) OnChange(fn func(Config)) (cancel func()) {
	w.mu.Lock()
	id := w.nextID
	w.nextID++
	w.subs[id] = fn
	w.mu.Unlock()
	return func() {
		w.mu.Lock()
		delete(w.subs, id)
		w.mu.Unlock()
	}
}

// Reload reads the file again now. A file that is broken or from a newer
// Lets keeps the current settings and returns the problem; a removed file
// means the defaults. It reports whether the settings changed (and then
// notifies the OnChange callbacks).
func (w *Watcher) Reload() (changed bool, err error) {
	stamp := stampOf(w.path)
	next, err := Load(w.path)
	w.mu.Lock()
	w.stamp = stamp
	if err != nil {
		w.mu.Unlock()
		return false, err
	}
	if reflect.DeepEqual(next, w.cur) {
		w.mu.Unlock()
		return false, nil
	}
	w.cur = next
	subs := make([]func(Config), 0, len(w.subs))
	for _, fn := range w.subs {
		subs = append(subs, fn)
	}
	w.mu.Unlock()
	for _, fn := range subs {
		fn(next)
	}
	return true, nil
}

// Name implements service.Service.
func (w *Watcher) Name() string { return "config watcher" }

// Run polls the file until ctx ends and reloads it when it changed.
func (w *Watcher) Run(ctx context.Context) error {
	t := w.clock.NewTicker(w.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C():
			w.Poll()
		}
	}
}

// Poll reloads the file if its size, modification time or identity changed
// since the last look; Run calls it on every tick.
func (w *Watcher) Poll() {
	stamp := stampOf(w.path)
	w.mu.Lock()
	same := stamp == w.stamp
	w.mu.Unlock()
	if same {
		return
	}
	changed, err := w.Reload()
	switch {
	case err != nil:
		w.log.Warn("config.json changed but cannot be used; keeping the settings Lets has", "err", err)
	case changed:
		w.log.Info("config.json changed; new settings loaded", "path", w.path)
	}
}

func stampOf(path string) fileStamp {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) || err != nil {
		return fileStamp{}
	}
	return fileStamp{exists: true, size: fi.Size(), modTime: fi.ModTime(), ino: inode(fi)}
}
