// Package geometry remembers where each unique's window was and how big it
// was, in state/windows.json, so a unique opens where the person left it.
package geometry

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"github.com/lets-app/lets/backend/atomicfile"
)

// FileName is the store's file inside the state folder.
const FileName = "windows.json"

// fileVersion is the format of windows.json this code writes.
const fileVersion = 1

// Size limits: a remembered size outside them is a broken file or a
// screen that changed, and the window opens at the default size instead.
const (
	MinWidth  = 320
	MinHeight = 240
	MaxSide   = 16384
	// maxOffset bounds a remembered position so a window never opens
	// wildly off any screen.
	maxOffset = 65535
)

// Rect is a window's position (top-left, in screen pixels) and size.
type Rect struct {
	X      int `json:"x"`
	Y      int `json:"y"`
	Width  int `json:"width"`
	Height int `json:"height"`
}

// Valid says whether r is a size and place a window can sensibly use.
func (r Rect) Valid() bool {
	return r.Width >= MinWidth && r.Height >= MinHeight && r.Width <= MaxSide && r.Height <= MaxSide &&
		r.X > -maxOffset && r.X < maxOffset && r.Y > -maxOffset && r.Y < maxOffset
}

type file struct {
	Version int             `json:"version"`
	Windows map[string]Rect `json:"windows"`
}

// Store is state/windows.json. Only the app process writes it (window
// processes report their geometry to it), so one mutex keeps the
// read-modify-write whole.
type Store struct {
	path string
	log  *slog.Logger
	mu   sync.Mutex
}

// NewStore opens the store in stateDir (the folder is made on first save).
func NewStore(stateDir string, log *slog.Logger) *Store {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Store{path: filepath.Join(stateDir, FileName), log: log}
}

// Path is the store's file.
func (s *Store) Path() string { return s.path }

// Get returns the remembered geometry of unique's window, if there is a
// usable one.
func (s *Store) Get(unique string) (Rect, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.load()
	r, ok := f.Windows[unique]
	if !ok || !r.Valid() {
		return Rect{}, false
	}
	return r, true
}

// Put remembers unique's window geometry. An unusable one (a minimised or
// zero-sized window) is ignored, so it never replaces a good one.
func (s *Store) Put(unique string, r Rect) error {
	if unique == "" || !r.Valid() {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.load()
	if f.Windows[unique] == r {
		return nil
	}
	f.Windows[unique] = r
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("encode window positions: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("make the state folder for window positions (check the permissions of %s): %w", filepath.Dir(s.path), err)
	}
	if err := atomicfile.Write(s.path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("remember the window position of %s: %w", unique, err)
	}
	return nil
}

// load reads the file; a missing one is empty, a broken one is empty with a
// warning (it is rewritten whole on the next save).
func (s *Store) load() file {
	f := file{Version: fileVersion, Windows: map[string]Rect{}}
	b, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return f
	}
	if err != nil {
		s.log.Warn("window positions could not be read; windows open at their default place", "path", s.path, "err", err)
		return f
	}
	var got file
	if err := json.Unmarshal(b, &got); err != nil || got.Version != fileVersion {
		s.log.Warn("window positions file is not one this Lets understands; it will be replaced", "path", s.path, "version", got.Version, "err", err)
		return f
	}
	for k, v := range got.Windows {
		f.Windows[k] = v
	}
	return f
}

// Frame is room kept for what the window manager draws around a window
// (title bar, borders): a window sized to the whole work area would put
// its frame outside it, the title bar under a panel or off the screen.
const (
	FrameWidth  = 16
	FrameHeight = 48
)

// Fit is where a window of size (and, when placed is true, position) r
// opens on a screen whose work area (the screen minus panels and docks) is
// area: no larger than the area less the frame, and wholly inside it. An
// unplaced window is centred in the area; a placed one keeps its place as
// far as it fits. X and Y are where the frame's top-left corner goes. With
// an empty area (not known) r comes back as it is.
func Fit(r Rect, placed bool, area Rect) Rect {
	if area.Width <= 0 || area.Height <= 0 {
		return r
	}
	w := min(r.Width, max(area.Width-FrameWidth, 1))
	h := min(r.Height, max(area.Height-FrameHeight, 1))
	x := area.X + (area.Width-(w+FrameWidth))/2
	y := area.Y + (area.Height-(h+FrameHeight))/2
	if placed {
		x = clamp(r.X, area.X, area.X+area.Width-w-FrameWidth)
		y = clamp(r.Y, area.Y, area.Y+area.Height-h-FrameHeight)
	}
	return Rect{X: max(x, area.X), Y: max(y, area.Y), Width: w, Height: h}
}

// clamp is v within [lo, hi]; lo wins when hi < lo.
func clamp(v, lo, hi int) int {
	return max(lo, min(v, hi))
}
