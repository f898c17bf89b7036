package geometry

import (
	"os"
	"path/filepath"
	"testing"
)

// TestStoreRemembersPerUnique: each unique keeps its own place, in a 0600
// file that survives a new Store (a restart of Lets).
func TestStoreRemembersPerUnique(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	s := NewStore(dir, nil)
	if _, ok := s.Get("hello"); ok {
		t.Fatal("a place before any was saved")
	}
	a := Rect{X: 10, Y: 20, Width: 800, Height: 600}
	b := Rect{X: -30, Y: 0, Width: 1200, Height: 900}
	if err := s.Put("hello", a); err != nil {
		t.Fatal(err)
	}
	if err := s.Put("graph", b); err != nil {
		t.Fatal(err)
	}
	again := NewStore(dir, nil)
	if got, ok := again.Get("hello"); !ok || got != a {
		t.Fatalf("hello %+v %v", got, ok)
	}
	if got, ok := again.Get("graph"); !ok || got != b {
		t.Fatalf("graph %+v %v", got, ok)
	}
	fi, err := os.Stat(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %o, want 600", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("the state folder holds %d files; an atomic write leaves only windows.json", len(entries))
	}
}

// TestStoreIgnoresUnusablePlaces: a minimised or absurd size is never
// saved, and one found in the file is not used.
func TestStoreIgnoresUnusablePlaces(t *testing.T) {
	dir := t.TempDir()
	s := NewStore(dir, nil)
	good := Rect{X: 0, Y: 0, Width: 640, Height: 480}
	if err := s.Put("hello", good); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []Rect{{Width: 0, Height: 0}, {Width: 100, Height: 80}, {Width: 99999, Height: 600}, {X: 1 << 20, Width: 640, Height: 480}} {
		if err := s.Put("hello", bad); err != nil {
			t.Fatal(err)
		}
	}
	if got, ok := s.Get("hello"); !ok || got != good {
		t.Fatalf("got %+v %v", got, ok)
	}
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(`{"version":1,"windows":{"hello":{"x":0,"y":0,"width":5,"height":5}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Get("hello"); ok {
		t.Fatal("a 5×5 window from the file was used")
	}
}

// TestStoreSurvivesBrokenFile: an unreadable or foreign windows.json is
// not fatal; windows open at the default place and the next save
// replaces it.
func TestStoreSurvivesBrokenFile(t *testing.T) {
	for _, content := range []string{"{not json", `{"version":99,"windows":{}}`, ""} {
		dir := t.TempDir()
		path := filepath.Join(dir, FileName)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		s := NewStore(dir, nil)
		if _, ok := s.Get("hello"); ok {
			t.Fatalf("%q: a place from a broken file", content)
		}
		r := Rect{Width: 700, Height: 500}
		if err := s.Put("hello", r); err != nil {
			t.Fatalf("%q: %v", content, err)
		}
		if got, ok := NewStore(dir, nil).Get("hello"); !ok || got != r {
			t.Fatalf("%q: after save %+v %v", content, got, ok)
		}
	}
}
