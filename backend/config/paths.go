// Package config knows where Lets keeps its data (~/.lets, or $LETS_HOME) and
// loads config.json and host.json.
package config

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/lets-app/lets/backend/atomicfile"
)

// HomeEnv names the environment variable that overrides the data folder.
const HomeEnv = "LETS_HOME"

// Paths is the layout of the data folder described in DESIGN.md.
type Paths struct {
	Home string
}

// ResolveHome returns $LETS_HOME if set, else ~/.lets. getenv is passed in so
// tests and callers control the environment.
func ResolveHome(getenv func(string) string) (string, error) {
	if h := getenv(HomeEnv); h != "" {
		abs, err := filepath.Abs(h)
		if err != nil {
			return "", fmt.Errorf("resolve %s=%q: %w", HomeEnv, h, err)
		}
		return abs, nil
	}
	home := getenv("HOME")
	if home == "" {
		var err error
		home, err = os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("find your home folder (set %s to choose where Lets keeps its data): %w", HomeEnv, err)
		}
	}
	return filepath.Join(home, ".lets"), nil
}

func (p Paths) HostFile() string        { return filepath.Join(p.Home, "host.json") }
func (p Paths) ConfigFile() string      { return filepath.Join(p.Home, "config.json") }
func (p Paths) PermissionsFile() string { return filepath.Join(p.Home, "permissions.json") }
func (p Paths) LockFile() string        { return filepath.Join(p.Home, "lets.lock") }
func (p Paths) UniquesDir() string      { return filepath.Join(p.Home, "uniques") }
func (p Paths) SessionsDir() string     { return filepath.Join(p.Home, "sessions") }
func (p Paths) UploadsDir() string      { return filepath.Join(p.Home, "uploads") }
func (p Paths) StateDir() string        { return filepath.Join(p.Home, "state") }
func (p Paths) LogsDir() string         { return filepath.Join(p.Home, "logs") }
func (p Paths) LogFile() string         { return filepath.Join(p.Home, "logs", "lets.log") }

// dirs are created by Ensure, all with mode 0700.
func (p Paths) dirs() []string {
	return []string{p.Home, p.UniquesDir(), p.SessionsDir(), p.UploadsDir(), p.StateDir(), p.LogsDir()}
}

// Ensure creates the data folder layout (mode 0700), tightens the mode of
// folders that are looser, and removes temporary files left by a write that
// was interrupted before its rename.
func Ensure(p Paths, log *slog.Logger) error {
	if p.Home == "" {
		return errors.New("data folder path is empty")
	}
	for _, d := range p.dirs() {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return fmt.Errorf("create data folder %s (check its permissions or set %s): %w", d, HomeEnv, err)
		}
		fi, err := os.Lstat(d)
		if err != nil {
			return fmt.Errorf("inspect data folder %s: %w", d, err)
		}
		if !fi.IsDir() {
			return fmt.Errorf("%s should be a folder but is not; move it away and start Lets again", d)
		}
		if fi.Mode().Perm() != 0o700 {
			if err := os.Chmod(d, 0o700); err != nil {
				return fmt.Errorf("make %s private (mode 0700): %w", d, err)
			}
		}
	}
	removed, err := atomicfile.CleanStale(p.Home, 4)
	for _, r := range removed {
		log.Info("removed a half-written file left by an earlier crash", "path", r)
	}
	if err != nil {
		log.Warn("could not clean temporary files", "err", err)
	}
	return nil
}
