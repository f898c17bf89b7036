package trust

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/clock"
)

func newStore(t *testing.T) (*Store, string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "data", FileName)
	clk := clock.NewFake(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	return New(Options{File: file, Clock: clk}), file
}

func mkdir(t *testing.T, p string) string {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestAddListRevoke(t *testing.T) {
	s, file := newStore(t)
	root := t.TempDir()
	proj := mkdir(t, filepath.Join(root, "proj"))

	if ok, err := s.Trusted(proj); ok || err != nil {
		t.Fatalf("an empty list trusts %s: %v %v", proj, ok, err)
	}
	got, err := s.Add(proj + "/./")
	if err != nil || got != proj {
		t.Fatalf("Add = %q, %v; want %q", got, err, proj)
	}
	fi, err := os.Stat(file)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the list's file: %v, %v; want mode 0600", fi, err)
	}
	if ok, _ := s.Trusted(proj); !ok {
		t.Fatal("the added folder is not trusted")
	}
	if _, err := s.Add(proj); err != nil {
		t.Fatal(err)
	}
	list, err := s.List()
	want := []Folder{{Path: proj, Trusted: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}}
	if err != nil || !reflect.DeepEqual(list, want) {
		t.Fatalf("List = %+v, %v; want %+v", list, err, want)
	}
	// A second Store over the same file (the home page's) sees it.
	other := New(Options{File: file})
	if ok, _ := other.Trusted(proj); !ok {
		t.Fatal("another Store over the same file does not see the folder")
	}
	if removed, err := other.Revoke(proj); !removed || err != nil {
		t.Fatalf("Revoke = %v, %v", removed, err)
	}
	if ok, _ := s.Trusted(proj); ok {
		t.Fatal("a revoked folder is still trusted")
	}
	if removed, _ := s.Revoke(proj); removed {
		t.Fatal("revoking twice says it was trusted")
	}
}

// TestLinksAreResolved: a folder is the same folder by any link to it; a
// link is not trusted when only the folder it led to was, and the other
// way round.
func TestLinksAreResolved(t *testing.T) {
	s, _ := newStore(t)
	root := t.TempDir()
	real := mkdir(t, filepath.Join(root, "real"))
	link := filepath.Join(root, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	got, err := s.Add(link)
	if err != nil || got != real {
		t.Fatalf("Add(link) = %q, %v; want the real folder %q", got, err, real)
	}
	if ok, _ := s.Trusted(real); !ok {
		t.Fatal("the real folder is not trusted after trusting a link to it")
	}
	if ok, _ := s.Trusted(filepath.Join(root, "real", "..", "link")); !ok {
		t.Fatal("the folder by an unclean path is not trusted")
	}
	// The link now leads elsewhere: the trust does not follow the name.
	other := mkdir(t, filepath.Join(root, "other"))
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, link); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.Trusted(link); ok {
		t.Fatal("a link that now leads to another folder is trusted")
	}
	if ok, _ := s.Trusted(mkdir(t, filepath.Join(real, "inner"))); ok {
		t.Fatal("a folder inside a trusted one is trusted: only the folder itself is")
	}
	// A trusted folder deleted since can still be revoked by its path.
	if err := os.RemoveAll(real); err != nil {
		t.Fatal(err)
	}
	if removed, err := s.Revoke(real); !removed || err != nil {
		t.Fatalf("revoking a deleted folder: %v, %v", removed, err)
	}
}

func TestRefusals(t *testing.T) {
	s, _ := newStore(t)
	root := t.TempDir()
	plain := filepath.Join(root, "file")
	if err := os.WriteFile(plain, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"relative", "", "/a\x00b", filepath.Join(root, "missing"), plain} {
		if _, err := s.Add(dir); !errors.Is(err, ErrBadPath) && !errors.Is(err, ErrNotAFolder) {
			t.Errorf("Add(%q) = %v; want ErrBadPath or ErrNotAFolder", dir, err)
		}
	}
	if list, _ := s.List(); len(list) != 0 {
		t.Fatalf("refused folders were listed: %+v", list)
	}
}

// TestUnreadableFile: a list Lets cannot read trusts nothing, and trusting
// a folder starts it over.
func TestUnreadableFile(t *testing.T) {
	s, file := newStore(t)
	mkdir(t, filepath.Dir(file))
	if err := os.WriteFile(file, []byte(`{"folders": [`), 0o600); err != nil {
		t.Fatal(err)
	}
	proj := mkdir(t, filepath.Join(t.TempDir(), "p"))
	if ok, err := s.Trusted(proj); ok || err == nil {
		t.Fatalf("an unreadable list: Trusted = %v, %v; want false and why", ok, err)
	}
	if _, err := s.Add(proj); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.Trusted(proj); !ok || err != nil {
		t.Fatalf("after Add: %v %v", ok, err)
	}
}

// TestConcurrentAdds: two Stores over one file, adding at once, keep
// every folder.
func TestConcurrentAdds(t *testing.T) {
	s, file := newStore(t)
	other := New(Options{File: file})
	root := t.TempDir()
	var wg sync.WaitGroup
	want := map[string]bool{}
	for i := range 20 {
		dir := mkdir(t, filepath.Join(root, string(rune('a'+i))))
		want[dir] = true
		st := s
		if i%2 == 1 {
			st = other
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := st.Add(dir); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	list, err := s.List()
	if err != nil || len(list) != len(want) {
		t.Fatalf("%d folders listed (%v), want %d", len(list), err, len(want))
	}
	for _, f := range list {
		if !want[f.Path] {
			t.Fatalf("unexpected %s", f.Path)
		}
	}
}

func TestOwnSettings(t *testing.T) {
	dir := t.TempDir()
	if got := OwnSettings(dir); len(got) != 0 {
		t.Fatalf("an empty folder has %v", got)
	}
	if err := os.WriteFile(filepath.Join(dir, "CLAUDE.md"), []byte("be nice"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := OwnSettings(dir); len(got) != 0 {
		t.Fatalf("CLAUDE.md alone counts as settings that run programs: %v", got)
	}
	mkdir(t, filepath.Join(dir, ".claude"))
	for _, name := range []string{".mcp.json", ".claude/settings.local.json"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := OwnSettings(dir); !reflect.DeepEqual(got, []string{".claude/settings.local.json", ".mcp.json"}) {
		t.Fatalf("OwnSettings = %v", got)
	}
	if err := os.Symlink("/nowhere", filepath.Join(dir, ".claude", "settings.json")); err != nil {
		t.Fatal(err)
	}
	if got := OwnSettings(dir); len(got) != 3 {
		t.Fatalf("a dangling link at settings.json is not counted: %v", got)
	}
}
