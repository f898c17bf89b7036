package lets

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/lets-app/lets/app/front"
)

// Executable is the absolute path of the lets program, symlinks
// resolved, so the hooks keep working when a link is moved. It is the
// `lets` front that started this program (front.ProgramEnv) when there is
// one: Claude Code then runs hooks through the small front, not through
// lets-core.
func Executable(getenv func(string) string) (string, error) {
	if p := getenv(front.ProgramEnv); p != "" && filepath.IsAbs(p) {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p, nil
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find the lets program (Claude Code needs its full path): %w", err)
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	return filepath.Abs(exe)
}
