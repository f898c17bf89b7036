// Package trust remembers the folders whose own Claude settings the person
// trusts. A folder's .claude/settings.json, .claude/settings.local.json
// and .mcp.json can run programs (hooks, MCP servers) the moment Claude
// Code starts there; a chat's Claude loads them only for a folder in this
// list (DESIGN: the contents of folders are not trusted).
//
// The list is one JSON file (0600) in the Lets data folder, written
// atomically and guarded by a lock file, so the chat and the home page
// (two Stores over the same file) never lose each other's changes.
// Folders are compared by their real path: cleaned, with links resolved.
package trust

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gofrs/flock"

	"github.com/lets-app/lets/backend/atomicfile"
	"github.com/lets-app/lets/backend/clock"
	"github.com/lets-app/lets/backend/config"
)

// FileName is the list's file in the Lets data folder.
const FileName = "trusted-folders.json"

// File is the list's path for the data folder p.
func File(p config.Paths) string { return filepath.Join(p.Home, FileName) }

// Limits of the list.
const (
	// MaxFolders bounds the list; Add refuses more.
	MaxFolders = 1000
	maxPath    = 4096
	maxFile    = 4 << 20
	fileMode   = 0o600
)

// OwnSettingsFiles are the files of a folder that can make Claude Code run
// programs there (hooks; MCP servers), relative to the folder. CLAUDE.md
// is only words for the model and is not among them.
var OwnSettingsFiles = []string{".claude/settings.json", ".claude/settings.local.json", ".mcp.json"}

// OwnSettings lists which of OwnSettingsFiles dir has (anything at the
// name counts, a link or an unreadable file too: Claude Code may still
// read it).
func OwnSettings(dir string) []string {
	var out []string
	for _, name := range OwnSettingsFiles {
		if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(name))); err == nil {
			out = append(out, name)
		}
	}
	return out
}

// Folder is one trusted folder.
type Folder struct {
	Path    string    `json:"path"`
	Trusted time.Time `json:"trusted"`
}

// file is the JSON on disk.
type file struct {
	Version int      `json:"version"`
	Folders []Folder `json:"folders"`
}

// Errors of the Store.
var (
	// ErrNotAFolder: Add was given something that is not an existing
	// folder.
	ErrNotAFolder = errors.New("trust: only an existing folder can be trusted; check that it was not moved or deleted")
	// ErrBadPath: not a full path (or too long).
	ErrBadPath = errors.New("trust: give the folder as a full path, starting with /")
	// ErrFull: the list holds MaxFolders already.
	ErrFull = fmt.Errorf("trust: %d folders are trusted already; revoke some on the home window first", MaxFolders)
)

// Options configure a Store.
type Options struct {
	File   string      // see File
	Clock  clock.Clock // when a folder was trusted; nil means the wall clock
	Logger *slog.Logger
}

// Store is the list of trusted folders. Its methods are safe for
// concurrent use, also with other Stores over the same file.
type Store struct {
	o    Options
	mu   sync.Mutex // flock does not exclude goroutines of one Store
	lock *flock.Flock
}

// New returns the Store over o.File (which need not exist yet).
func New(o Options) *Store {
	o.Clock = clock.Or(o.Clock)
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Store{o: o, lock: flock.New(o.File+".lock", flock.SetFlag(os.O_CREATE|os.O_RDWR), flock.SetPermissions(fileMode))}
}

// Canonical is dir as the list compares it: absolute, cleaned, links
// resolved. A folder that does not exist (any more) is only cleaned.
func Canonical(dir string) (string, error) {
	if !filepath.IsAbs(dir) || len(dir) > maxPath || strings.ContainsRune(dir, 0) {
		return "", ErrBadPath
	}
	clean := filepath.Clean(dir)
	real, err := filepath.EvalSymlinks(clean)
	if err != nil {
		return clean, nil
	}
	return real, nil
}

// Trusted reports whether dir is a trusted folder. An unreadable list
// trusts nothing (and says why).
func (s *Store) Trusted(dir string) (bool, error) {
	c, err := Canonical(dir)
	if err != nil {
		return false, err
	}
	f, err := s.locked(false, nil)
	if err != nil {
		return false, err
	}
	for _, x := range f.Folders {
		if x.Path == c {
			return true, nil
		}
	}
	return false, nil
}

// List returns the trusted folders, sorted by path.
func (s *Store) List() ([]Folder, error) {
	f, err := s.locked(false, nil)
	if err != nil {
		return nil, err
	}
	out := append([]Folder{}, f.Folders...)
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// Add trusts dir (an existing folder) and returns the path it is
// remembered by. Trusting a folder twice keeps the first time.
func (s *Store) Add(dir string) (string, error) {
	c, err := Canonical(dir)
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(c); err != nil || !fi.IsDir() {
		return "", ErrNotAFolder
	}
	_, err = s.locked(true, func(f *file) (bool, error) {
		for _, x := range f.Folders {
			if x.Path == c {
				return false, nil
			}
		}
		if len(f.Folders) >= MaxFolders {
			return false, ErrFull
		}
		f.Folders = append(f.Folders, Folder{Path: c, Trusted: s.o.Clock.Now().UTC()})
		return true, nil
	})
	if err != nil {
		return "", err
	}
	return c, nil
}

// Revoke forgets dir: the folder as listed, or the same folder by
// another path. It reports whether it was trusted.
func (s *Store) Revoke(dir string) (bool, error) {
	c, err := Canonical(dir)
	if err != nil {
		return false, err
	}
	clean := filepath.Clean(dir)
	removed := false
	_, err = s.locked(true, func(f *file) (bool, error) {
		kept := f.Folders[:0]
		for _, x := range f.Folders {
			if x.Path == c || x.Path == clean {
				removed = true
				continue
			}
			kept = append(kept, x)
		}
		f.Folders = kept
		return removed, nil
	})
	return removed, err
}

// locked reads the list under the lock and, when change is given and says
// so, writes it back before unlocking.
func (s *Store) locked(write bool, change func(*file) (bool, error)) (*file, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if write {
		if err := os.MkdirAll(filepath.Dir(s.o.File), 0o700); err != nil {
			return nil, fmt.Errorf("trust: make the folder of %s: %w", s.o.File, err)
		}
	}
	if err := s.lock.Lock(); err != nil {
		if !write && errors.Is(err, fs.ErrNotExist) {
			return &file{Version: 1}, nil // no data folder yet: nothing trusted
		}
		return nil, fmt.Errorf("trust: lock %s: %w", s.lock.Path(), err)
	}
	defer func() { _ = s.lock.Unlock() }()
	f, err := s.read()
	if err != nil {
		if !write {
			return nil, err
		}
		// A list Lets cannot read trusts nothing; a change starts it
		// over rather than leaving the person unable to trust a folder.
		s.o.Logger.Warn("trust: the list of trusted folders is unreadable; starting it over", "file", s.o.File, "err", err)
		f = &file{Version: 1}
	}
	if change == nil {
		return f, nil
	}
	changed, err := change(f)
	if err != nil || !changed {
		return f, err
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := atomicfile.Write(s.o.File, append(data, '\n'), fileMode); err != nil {
		return nil, fmt.Errorf("trust: save the trusted folders: %w", err)
	}
	return f, nil
}

// read loads the file; a missing one is an empty list.
func (s *Store) read() (*file, error) {
	data, err := os.ReadFile(s.o.File)
	if errors.Is(err, fs.ErrNotExist) {
		return &file{Version: 1}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("trust: read %s: %w", s.o.File, err)
	}
	if len(data) > maxFile {
		return nil, fmt.Errorf("trust: %s is larger than %d bytes; remove it to start the list over", s.o.File, maxFile)
	}
	var f file
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("trust: %s is not a list of folders (%v); remove it to start the list over", s.o.File, err)
	}
	kept := f.Folders[:0]
	for _, x := range f.Folders {
		if filepath.IsAbs(x.Path) && len(x.Path) <= maxPath && x.Path == filepath.Clean(x.Path) {
			kept = append(kept, x)
		}
	}
	f.Folders = kept
	f.Version = 1
	return &f, nil
}
