package main

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/lets-app/lets/backend/audio"
	"github.com/lets-app/lets/backend/experience"
)

const committed = "../../../frontend/static/pad/experiences/audio"

// TestGeneratedFilesAreFresh: the committed sounds are exactly what the
// generator makes now, and nothing else is there.
func TestGeneratedFilesAreFresh(t *testing.T) {
	files, err := Files()
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		got, err := os.ReadFile(filepath.Join(committed, n))
		if err != nil || !bytes.Equal(got, files[n]) {
			t.Fatalf("%s is missing or stale (%v): run `go generate ./frontend/` and commit frontend/static/pad/experiences/audio", n, err)
		}
	}
	ents, err := os.ReadDir(committed)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if _, ok := files[e.Name()]; !ok {
			t.Errorf("%s is not generated any more: run `go generate ./frontend/`", e.Name())
		}
	}
	if len(files) != 100 {
		t.Errorf("%d files, want the 99 earcons and the soundtrack", len(files))
	}
}

// The soundtrack is named after the built-in Show's audio.asset and lasts
// at least as long as the Show.
func TestSoundtrackCoversTheShow(t *testing.T) {
	_, show, err := experience.LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(committed, strings.TrimPrefix(show.Audio.Asset, "audio/")))
	if err != nil {
		t.Fatal(err)
	}
	if string(b[0:4]) != "RIFF" || binary.LittleEndian.Uint16(b[22:24]) != 1 || binary.LittleEndian.Uint32(b[24:28]) != audio.SampleRate {
		t.Fatal("not a mono WAV at the package's sample rate")
	}
	frames := int(binary.LittleEndian.Uint32(b[40:44])) / 2
	if ms := frames * 1000 / audio.SampleRate; ms < show.DurationMS {
		t.Fatalf("soundtrack %d ms, Show %d ms", ms, show.DurationMS)
	}
	t.Logf("%s: %d bytes, %.1f s for a %.1f s Show", show.Audio.Asset, len(b), float64(frames)/audio.SampleRate, float64(show.DurationMS)/1000)
}

func TestWriteReplacesAndRemovesStale(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "old.wav"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "keep.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, map[string][]byte{"a.wav": []byte("A")}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "old.wav")); !os.IsNotExist(err) {
		t.Fatal("stale WAV kept")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.wav")); string(b) != "A" {
		t.Fatal("a.wav not written")
	}
	if _, err := os.Stat(filepath.Join(dir, "keep.txt")); err != nil {
		t.Fatal("a file that is not a WAV was removed")
	}
}

// BenchmarkFiles: how long go generate takes to make every sound (about a
// second; it must stay fast).
func BenchmarkFiles(b *testing.B) {
	for b.Loop() {
		if _, err := Files(); err != nil {
			b.Fatal(err)
		}
	}
}
