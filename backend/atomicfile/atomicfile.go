// Package atomicfile writes files so that a reader (or a crash) never sees a
// half-written file: data goes to a temporary file in the same directory, is
// fsynced, and is then renamed over the target.
package atomicfile

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// tempMarker is part of every temporary file name so that leftovers of a
// crash between write and rename can be recognised and removed.
const tempMarker = ".lets-tmp-"

// Write replaces path with data atomically and leaves it with mode perm.
func Write(path string, data []byte, perm fs.FileMode) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	var suffix [6]byte
	if _, err := rand.Read(suffix[:]); err != nil {
		return fmt.Errorf("write %s: make a temporary name: %w", path, err)
	}
	tmp := filepath.Join(dir, "."+base+tempMarker+hex.EncodeToString(suffix[:]))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fmt.Errorf("write %s: create temporary file (is the folder writable?): %w", path, err)
	}
	ok := false
	defer func() {
		if !ok {
			_ = f.Close()
			_ = os.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("write %s: %w (is the disk full?)", path, err)
	}
	// OpenFile's perm is filtered by the umask; files like host.json must be
	// exactly 0600, so set the mode explicitly.
	if err := f.Chmod(perm); err != nil {
		return fmt.Errorf("write %s: set mode %o: %w", path, perm, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("write %s: flush to disk: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: close temporary file: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: move into place: %w", path, err)
	}
	ok = true
	syncDir(dir)
	return nil
}

// syncDir makes the rename durable. Some filesystems refuse to fsync a
// directory; the rename itself has already happened, so errors are ignored.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	_ = d.Close()
}

// IsTemp reports whether name is a temporary file left by Write.
func IsTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, tempMarker)
}

// CleanStale removes temporary files left behind by an interrupted Write
// anywhere below root, descending at most maxDepth directory levels. It never
// follows symlinks. It returns the paths it removed.
func CleanStale(root string, maxDepth int) ([]string, error) {
	var removed []string
	rootDepth := strings.Count(filepath.Clean(root), string(filepath.Separator))
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			// An unreadable folder must not stop start-up; skip it.
			if d != nil && d.IsDir() && p != root {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if strings.Count(p, string(filepath.Separator))-rootDepth >= maxDepth && p != root {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && IsTemp(d.Name()) {
			if err := os.Remove(p); err == nil {
				removed = append(removed, p)
			}
		}
		return nil
	})
	if err != nil {
		return removed, fmt.Errorf("clean temporary files under %s: %w", root, err)
	}
	return removed, nil
}
