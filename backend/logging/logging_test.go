package logging

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseLevel(t *testing.T) {
	for in, want := range map[string]slog.Level{"": slog.LevelInfo, "info": slog.LevelInfo, "DEBUG": slog.LevelDebug, "warn": slog.LevelWarn} {
		got, err := ParseLevel(in)
		if err != nil || got != want {
			t.Errorf("ParseLevel(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseLevel("loud"); err == nil || !strings.Contains(err.Error(), "debug, info or warn") {
		t.Fatalf("bad level error: %v", err)
	}
}

func TestRotationKeepsThreeFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "lets.log")
	r, err := OpenRotating(path, 100, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for i := range 20 {
		if _, err := fmt.Fprintf(r, "line %02d %s\n", i, strings.Repeat("x", 30)); err != nil {
			t.Fatal(err)
		}
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, ",") != "lets.log,lets.log.1,lets.log.2" {
		t.Fatalf("files = %v, want lets.log, .1, .2", names)
	}
	for _, n := range names {
		fi, _ := os.Stat(filepath.Join(dir, n))
		if fi.Size() > 100 {
			t.Errorf("%s is %d bytes, over the limit", n, fi.Size())
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %o, want 600", n, fi.Mode().Perm())
		}
	}
	newest, _ := os.ReadFile(path)
	if !strings.Contains(string(newest), "line 19") {
		t.Fatalf("newest lines should be in lets.log: %q", newest)
	}
}

func TestNewWritesToBothAndFiltersLevel(t *testing.T) {
	var stderr, file bytes.Buffer
	log := New(&stderr, &file, slog.LevelInfo)
	log.Debug("hidden")
	log.With("unique", "graph").Info("opened", "window", "w1")
	for name, b := range map[string]*bytes.Buffer{"stderr": &stderr, "file": &file} {
		s := b.String()
		if strings.Contains(s, "hidden") || !strings.Contains(s, "unique=graph") || !strings.Contains(s, "window=w1") {
			t.Errorf("%s got %q", name, s)
		}
	}
}
