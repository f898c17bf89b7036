package host

import (
	"log/slog"
	"path/filepath"

	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/registry"
	"github.com/lets-app/lets/backend/runner"
)

// Uninstall removes an installed unique while no Lets runs (`lets
// uninstall` with no host to ask): the same steps as DELETE
// /lip/uniques/{name} on a running host — the unique's folder, its allow
// answers for /lip/run, and its remembered port, so a unique installed
// later under the same name starts on a new origin with empty browser
// storage instead of inheriting this one's. Its errors are the registry's
// (registry.ErrUnknownUnique, registry.ErrBuiltin, …); forgetting the
// answers or the port only warns in log.
func Uninstall(paths config.Paths, reg *registry.Registry, name string, log *slog.Logger) error {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if err := reg.Remove(name); err != nil {
		return err
	}
	if err := runner.OpenPermissions(paths.PermissionsFile()).Revoke(name); err != nil {
		log.Warn("could not forget the removed unique's permissions", "unique", name, "err", err)
	}
	ports := &originSet{log: log, portsFile: filepath.Join(paths.StateDir(), "ports.json"), origins: map[string]*uniqueOrigin{}}
	ports.forget(name)
	return nil
}
