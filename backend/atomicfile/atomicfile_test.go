package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteReplacesContentWithExactMode(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "host.json")
	if err := Write(p, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(p)
	if string(got) != "two" {
		t.Fatalf("content = %q, want two", got)
	}
	fi, _ := os.Stat(p)
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode = %o, want 600 even with a permissive umask", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("temporary files left behind: %v", entries)
	}
}

func TestWriteFailureLeavesNoTemporaryFile(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "sub") // a folder: rename over it fails
	if err := os.Mkdir(target, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(target, "keep"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(target, []byte("data"), 0o600); err == nil {
		t.Fatal("writing over a non-empty folder should fail")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if IsTemp(e.Name()) {
			t.Fatalf("temporary file left after a failed write: %s", e.Name())
		}
	}
}

func TestWriteIntoMissingFolderSaysWhat(t *testing.T) {
	err := Write(filepath.Join(t.TempDir(), "nope", "f.json"), []byte("x"), 0o600)
	if err == nil {
		t.Fatal("want an error")
	}
	if want := "create temporary file"; !strings.Contains(err.Error(), want) {
		t.Fatalf("error %q should say %q", err, want)
	}
}

// A crash between writing the temporary file and renaming it leaves the old
// file intact and a temporary file behind; CleanStale removes the leftover
// and nothing else.
func TestCrashBetweenWriteAndRenameIsHarmless(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "sessions", "graph", "ss_1.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, []byte(`{"old":true}`), 0o600); err != nil {
		t.Fatal(err)
	}
	// Simulate the crash: the temporary file exists, the rename never ran.
	leftover := filepath.Join(filepath.Dir(p), ".ss_1.json"+tempMarker+"abcdef")
	if err := os.WriteFile(leftover, []byte(`{"new":tr`), 0o600); err != nil {
		t.Fatal(err)
	}
	// A file that merely looks similar must survive.
	bystander := filepath.Join(dir, "notes.lets-tmp-keep")
	if err := os.WriteFile(bystander, []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(p)
	if string(got) != `{"old":true}` {
		t.Fatalf("target changed before rename: %q", got)
	}
	removed, err := CleanStale(dir, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) != 1 || removed[0] != leftover {
		t.Fatalf("removed %v, want only %s", removed, leftover)
	}
	if _, err := os.Stat(bystander); err != nil {
		t.Fatalf("CleanStale removed a user file: %v", err)
	}
	got, _ = os.ReadFile(p)
	if string(got) != `{"old":true}` {
		t.Fatalf("target damaged by cleanup: %q", got)
	}
}

func TestCleanStaleRespectsDepthAndSymlinks(t *testing.T) {
	dir := t.TempDir()
	deep := filepath.Join(dir, "a", "b", "c")
	if err := os.MkdirAll(deep, 0o700); err != nil {
		t.Fatal(err)
	}
	deepTemp := filepath.Join(deep, ".x"+tempMarker+"1")
	if err := os.WriteFile(deepTemp, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	outsideTemp := filepath.Join(outside, ".y"+tempMarker+"2")
	if err := os.WriteFile(outsideTemp, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if _, err := CleanStale(dir, 2); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(deepTemp); err != nil {
		t.Fatalf("file below maxDepth was removed")
	}
	if _, err := os.Stat(outsideTemp); err != nil {
		t.Fatalf("CleanStale followed a symlink out of the folder")
	}
}
