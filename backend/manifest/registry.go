package manifest

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"sync"
	"time"
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
}

// Skipped is a user folder that is not registered, and why.
type Skipped struct {
	Dir string
	Err error
}

// Registry is the set of uniques: built-in first, then user-installed. A
// name is unique across both (rule 1): a user folder that reuses a
// built-in's name is skipped with a warning. Safe for concurrent use.
type Registry struct {
	opts    RegistryOptions
	checker *Checker
	log     *slog.Logger

	mu      sync.Mutex
	builtin map[string]*Unique
	user    map[string]*Unique
	skipped []Skipped
}

// OpenRegistry checks every built-in unique (a broken built-in is an
// error: it is a bug in this build) and scans the user folder (a broken
// user unique is skipped with a warning, never fatal).
func OpenRegistry(opts RegistryOptions) (*Registry, error) {
	return nil, errors.New("manifest: not implemented yet")
}

// Reload rescans the user folder (another process, e.g. `lets install`,
// may have changed it). Cheap: call it before answering /lip/uniques.
func (r *Registry) Reload() error { return errors.New("manifest: not implemented yet") }

// List returns every registered unique, sorted by name.
func (r *Registry) List() []*Unique { return nil }

// Get returns the unique called name. A miss rescans the user folder
// once, so a unique installed by another process is found; an error
// wraps ErrUnknownUnique.
func (r *Registry) Get(name string) (*Unique, error) {
	return nil, errors.New("manifest: not implemented yet")
}

// Skipped lists the user folders left out at the last scan.
func (r *Registry) Skipped() []Skipped { return nil }

// Install fetches a unique from git (`<url|path>[#ref]`, LIP 1 §11) and
// moves it into place atomically. progress (may be nil) gets short
// human messages. A unique of the same name installed from the same
// source is replaced (an update); one from another source is refused.
// Nothing is left behind on failure.
func (r *Registry) Install(ctx context.Context, source string, progress func(string)) (*Unique, error) {
	return nil, errors.New("manifest: not implemented yet")
}

// Update reinstalls a user unique from its recorded source and ref.
func (r *Registry) Update(ctx context.Context, name string, progress func(string)) (*Unique, error) {
	return nil, errors.New("manifest: not implemented yet")
}

// Remove deletes a user unique's folder. Built-ins give an error wrapping
// ErrBuiltin. Saved sessions of the unique are not touched.
func (r *Registry) Remove(name string) error {
	return errors.New("manifest: not implemented yet")
}

// SplitSource splits `<url|path>[#ref]` into the source and the ref.
func SplitSource(s string) (source, ref string) { return s, "" }
