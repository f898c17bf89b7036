//go:build unix

package registry

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestInstallPlainFolderRefusesPipes: a named pipe in the folder would
// block the copy forever; it is refused by its type before anything is
// read from it.
func TestInstallPlainFolderRefusesPipes(t *testing.T) {
	dir := plainFolder(t, "graph", "0.1.0")
	must(t, syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644))
	userDir := filepath.Join(t.TempDir(), "uniques")
	r := newRegistry(t, userDir, nil)
	_, err := r.Install(context.Background(), dir, nil)
	if !errors.Is(err, ErrInstallFailed) || !strings.Contains(err.Error(), "pipe is not a file, folder or link") {
		t.Fatalf("got %v", err)
	}
	if got := listDir(t, userDir); len(got) != 0 {
		t.Fatalf("left behind: %v", got)
	}
}
