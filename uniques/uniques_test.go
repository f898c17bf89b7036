package uniques_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/lets-app/lets/backend/registry"
	"github.com/lets-app/lets/uniques"
)

// TestBuiltinsCheckOut: every built-in unique passes the same checks as
// an installed one, with no warnings.
func TestBuiltinsCheckOut(t *testing.T) {
	r, err := registry.OpenRegistry(registry.RegistryOptions{Builtin: uniques.FS(), UserDir: t.TempDir(), HostVersion: "0.1.0"})
	if err != nil {
		t.Fatal(err)
	}
	list := r.List()
	if len(list) == 0 {
		t.Fatal("no built-in uniques")
	}
	for _, u := range list {
		if !u.Builtin {
			t.Errorf("%s is not built-in", u.Name())
		}
		if len(u.Warnings) > 0 {
			t.Errorf("%s: warnings %v", u.Name(), u.Warnings)
		}
		guide, err := u.GuideText()
		if err != nil || guide == "" {
			t.Errorf("%s: guide %v", u.Name(), err)
		}
	}
}

// TestEveryFolderIsEmbedded: a unique folder added here without its
// embed directive would silently not ship.
func TestEveryFolderIsEmbedded(t *testing.T) {
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() || e.Name() == "testdata" {
			continue
		}
		if _, err := os.Stat(filepath.Join(e.Name(), "unique.json")); err != nil {
			continue
		}
		err := filepath.WalkDir(e.Name(), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if _, err := fs.Stat(uniques.FS(), filepath.ToSlash(p)); err != nil {
				t.Errorf("%s is not embedded: add the folder to the go:embed line in embed.go", p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
