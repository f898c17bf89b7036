package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/lets-app/lets/backend/manifest"
)

// Errors the host maps to LIP error codes (§12).
var (
	// ErrUnknownUnique: no unique of that name (unknown_unique).
	ErrUnknownUnique = errors.New("unknown unique")
	// ErrBuiltin: built-in uniques cannot be removed or updated.
	ErrBuiltin = errors.New("built-in unique")
	// ErrInstallFailed wraps every install/update failure that is not an
	// *InvalidError (install_failed).
	ErrInstallFailed = errors.New("install failed")
)

// RegistryOptions configure a Registry.
type RegistryOptions struct {
	// Builtin holds the built-in uniques, one folder per unique (the
	// uniques package's FS()). Nil means none.
	Builtin fs.FS
	// UserDir is ~/.lets/uniques (config.Paths.UniquesDir()).
	UserDir string
	// HostVersion is checked against each manifest's engine range.
	HostVersion string
	// Log receives warnings about skipped folders; nil discards them.
	Log *slog.Logger
	// Git is the git binary; empty means "git" from PATH.
	Git string
	// Now stamps install records; nil means time.Now.
	Now func() time.Time
	// InstallTimeout bounds one install or update when the context has no
	// earlier deadline; 0 means 3 minutes.
	InstallTimeout time.Duration
	// MaxInstallBytes caps the files of one installed unique; 0 means
	// 100 MiB.
	MaxInstallBytes int64
}

// Skipped is a user folder that is not registered, and why.
type Skipped struct {
	Dir string
	Err error
}

// userEntry is a cached user unique with the identity of the unique.json
// it was read from, so a changed folder is read again.
type userEntry struct {
	u     *manifest.Unique
	stamp fs.FileInfo
}

// Registry is the set of uniques: built-in first, then user-installed. A
// name is unique across both (rule 1): a user folder that reuses a
// built-in's name is skipped with a warning. Every read looks at the user
// folder again (cheaply: a manifest is re-read only when its unique.json
// changed), so a unique installed or removed by another process, e.g.
// `lets install` while the host runs, is seen at once. Safe for
// concurrent use.
type Registry struct {
	opts    RegistryOptions
	checker *manifest.Checker
	log     *slog.Logger

	// installMu serialises installs, updates and removals in this process.
	installMu sync.Mutex

	mu      sync.Mutex
	builtin map[string]*manifest.Unique
	user    map[string]userEntry
	skipped map[string]Skipped // by folder name
}

// OpenRegistry checks every built-in unique (a broken built-in is an
// error: it is a bug in this build) and scans the user folder (a broken
// user unique is skipped with a warning, never fatal). It also removes
// install leftovers older than an hour.
func OpenRegistry(opts RegistryOptions) (*Registry, error) {
	if opts.Log == nil {
		opts.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.Git == "" {
		opts.Git = "git"
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.InstallTimeout <= 0 {
		opts.InstallTimeout = 3 * time.Minute
	}
	if opts.MaxInstallBytes <= 0 {
		opts.MaxInstallBytes = 100 << 20
	}
	checker, err := manifest.NewChecker(manifest.Options{HostVersion: opts.HostVersion})
	if err != nil {
		return nil, err
	}
	r := &Registry{opts: opts, checker: checker, log: opts.Log, builtin: map[string]*manifest.Unique{}, user: map[string]userEntry{}, skipped: map[string]Skipped{}}
	if opts.Builtin != nil {
		entries, err := fs.ReadDir(opts.Builtin, ".")
		if err != nil {
			return nil, fmt.Errorf("read the built-in uniques: %w", err)
		}
		for _, e := range entries {
			if !e.IsDir() || strings.HasPrefix(e.Name(), ".") || strings.HasPrefix(e.Name(), "_") {
				continue
			}
			sub, err := fs.Sub(opts.Builtin, e.Name())
			if err != nil {
				return nil, fmt.Errorf("built-in unique %s: %w", e.Name(), err)
			}
			m, warnings, err := checker.LoadFS(sub)
			if err != nil {
				return nil, fmt.Errorf("built-in unique %s is broken (a bug in this build of Lets): %w", e.Name(), err)
			}
			if m.Name != e.Name() {
				return nil, fmt.Errorf("built-in unique folder %s names itself %q (a bug in this build of Lets)", e.Name(), m.Name)
			}
			r.builtin[m.Name] = manifest.NewBuiltin(m, warnings, sub)
		}
	}
	r.cleanLeftovers()
	r.mu.Lock()
	r.scanLocked()
	r.mu.Unlock()
	return r, nil
}

// Checker returns the registry's manifest checker.
func (r *Registry) Checker() *manifest.Checker { return r.checker }

// UserDir is the folder of user-installed uniques.
func (r *Registry) UserDir() string { return r.opts.UserDir }

// tempPrefix names the folders the installer works in; they are dot-named
// so a scan never takes them for uniques.
const (
	tempPrefix    = ".lets-install-"
	removedPrefix = ".lets-removed-"
)

// cleanLeftovers removes work folders of installs that crashed. Recent
// ones may belong to an install running in another process.
func (r *Registry) cleanLeftovers() {
	entries, err := os.ReadDir(r.opts.UserDir)
	if err != nil {
		return
	}
	cutoff := r.opts.Now().Add(-time.Hour)
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), tempPrefix) && !strings.HasPrefix(e.Name(), removedPrefix) {
			continue
		}
		fi, err := e.Info()
		if err != nil || fi.ModTime().After(cutoff) {
			continue
		}
		p := filepath.Join(r.opts.UserDir, e.Name())
		if err := os.RemoveAll(p); err == nil {
			r.log.Info("removed a leftover of an interrupted install", "path", p)
		}
	}
}

// Reload rescans the user folder.
func (r *Registry) Reload() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.scanLocked()
}

// scanLocked brings the user cache in line with the folder.
func (r *Registry) scanLocked() error {
	entries, err := os.ReadDir(r.opts.UserDir)
	if errors.Is(err, fs.ErrNotExist) {
		r.user = map[string]userEntry{}
		r.skipped = map[string]Skipped{}
		return nil
	}
	if err != nil {
		r.log.Warn("cannot read the folder of installed uniques", "dir", r.opts.UserDir, "err", err)
		return fmt.Errorf("read %s: %w", r.opts.UserDir, err)
	}
	seen := map[string]bool{}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		seen[name] = true
		r.refreshLocked(name)
	}
	for name := range r.user {
		if !seen[name] {
			delete(r.user, name)
		}
	}
	for name := range r.skipped {
		if !seen[name] {
			delete(r.skipped, name)
		}
	}
	return nil
}

// refreshLocked re-reads one user folder if its unique.json changed.
func (r *Registry) refreshLocked(name string) {
	dir := filepath.Join(r.opts.UserDir, name)
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		delete(r.user, name)
		delete(r.skipped, name)
		return
	}
	stamp, statErr := os.Stat(filepath.Join(dir, "unique.json"))
	if old, ok := r.user[name]; ok && statErr == nil && sameStamp(old.stamp, stamp) {
		return
	}
	if old, ok := r.skipped[name]; ok && statErr == nil {
		if s, ok := old.Err.(*stampedError); ok && sameStamp(s.stamp, stamp) {
			return
		}
	}
	delete(r.user, name)
	delete(r.skipped, name)
	u, err := r.loadUser(name, dir)
	if err != nil {
		r.log.Warn("skipping an installed unique that does not check out", "dir", dir, "err", err)
		r.skipped[name] = Skipped{Dir: dir, Err: &stampedError{err: err, stamp: stamp}}
		return
	}
	for _, w := range u.Warnings {
		r.log.Info("unique "+name+": "+w, "dir", dir)
	}
	r.user[name] = userEntry{u: u, stamp: stamp}
}

// stampedError remembers which unique.json a skip was about, so the same
// broken folder is not re-read and re-logged on every scan.
type stampedError struct {
	err   error
	stamp fs.FileInfo
}

func (e *stampedError) Error() string { return e.err.Error() }
func (e *stampedError) Unwrap() error { return e.err }

func sameStamp(a, b fs.FileInfo) bool {
	return a != nil && b != nil && os.SameFile(a, b) && a.ModTime().Equal(b.ModTime()) && a.Size() == b.Size()
}

// loadUser checks one user folder.
func (r *Registry) loadUser(name, dir string) (*manifest.Unique, error) {
	m, warnings, err := r.checker.LoadDir(dir)
	if err != nil {
		return nil, err
	}
	if m.Name != name {
		return nil, &manifest.InvalidError{Where: dir, Problems: []manifest.Problem{{Rule: 1, Field: "name", Message: fmt.Sprintf("the folder is called %q but unique.json names %q; rename the folder to %q", name, m.Name, m.Name)}}}
	}
	if _, ok := r.builtin[name]; ok {
		return nil, &manifest.InvalidError{Where: dir, Problems: []manifest.Problem{{Rule: 1, Field: "name", Message: fmt.Sprintf("%q is already the name of a built-in unique; names are unique across registries", name)}}}
	}
	u := &manifest.Unique{Manifest: m, Dir: dir, Warnings: warnings}
	rec, err := readInstallRecord(dir)
	switch {
	case err == nil:
		u.Install = rec
	case !errors.Is(err, fs.ErrNotExist):
		r.log.Warn("unreadable install record; `lets uniques` will show the folder as local", "dir", dir, "err", err)
	}
	return u, nil
}

func readInstallRecord(dir string) (*manifest.InstallRecord, error) {
	data, err := os.ReadFile(filepath.Join(dir, manifest.InstallRecordFile))
	if err != nil {
		return nil, err
	}
	var rec manifest.InstallRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, fmt.Errorf("%s: %w", manifest.InstallRecordFile, err)
	}
	return &rec, nil
}

// List returns every registered unique, sorted by name (the user folder
// is looked at again first).
func (r *Registry) List() []*manifest.Unique {
	r.mu.Lock()
	defer r.mu.Unlock()
	_ = r.scanLocked()
	out := make([]*manifest.Unique, 0, len(r.builtin)+len(r.user))
	for _, u := range r.builtin {
		out = append(out, u)
	}
	for _, e := range r.user {
		out = append(out, e.u)
	}
	slices.SortFunc(out, func(a, b *manifest.Unique) int { return strings.Compare(a.Name(), b.Name()) })
	return out
}

// Get returns the unique called name, re-reading its user folder when
// unique.json changed. An error wraps ErrUnknownUnique; for a folder that
// exists but does not check out, it also says why.
func (r *Registry) Get(name string) (*manifest.Unique, error) {
	if !manifest.ValidName(name) {
		return nil, fmt.Errorf("%w %q: names are lowercase letters, digits and '-'", ErrUnknownUnique, name)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if u, ok := r.builtin[name]; ok {
		return u, nil
	}
	r.refreshLocked(name)
	if e, ok := r.user[name]; ok {
		return e.u, nil
	}
	if s, ok := r.skipped[name]; ok {
		return nil, fmt.Errorf("%w %q: it is installed but does not check out (%v); reinstall or remove it", ErrUnknownUnique, name, s.Err)
	}
	return nil, fmt.Errorf("%w %q: it is not installed; `lets uniques` lists what is", ErrUnknownUnique, name)
}

// Skipped lists the user folders left out at the last scan, by folder.
func (r *Registry) Skipped() []Skipped {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Skipped, 0, len(r.skipped))
	for _, s := range r.skipped {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Skipped) int { return strings.Compare(a.Dir, b.Dir) })
	return out
}
