package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/lets-app/lets/backend/atomicfile"
	"github.com/lets-app/lets/backend/audio"
	"github.com/lets-app/lets/backend/audio/showaudio"
	"github.com/lets-app/lets/backend/experience"
)

// Files returns every generated file by name: the earcon bank and the
// soundtrack of Lets' built-in Show, named after its audio.asset (which
// must lie in the audio/ folder of the experiences).
func Files() (map[string][]byte, error) {
	files, err := audio.Bank()
	if err != nil {
		return nil, err
	}
	_, show, err := experience.LoadDefault()
	if err != nil {
		return nil, err
	}
	name, ok := strings.CutPrefix(show.Audio.Asset, "audio/")
	if !ok || strings.Contains(name, "/") || !strings.HasSuffix(name, ".wav") {
		return nil, fmt.Errorf("the Show's audio.asset %q must be audio/<name>.wav", show.Audio.Asset)
	}
	track, err := audio.SoundtrackWAV(showaudio.ScoreOf(show), experience.DefaultTempo)
	if err != nil {
		return nil, fmt.Errorf("the Show's soundtrack: %w", err)
	}
	files[name] = track
	return files, nil
}

// Write replaces the WAV files in dir with files.
func Write(dir string, files map[string][]byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("make the sound folder: %w", err)
	}
	existing, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("read the sound folder: %w", err)
	}
	for _, e := range existing {
		if _, keep := files[e.Name()]; !keep && strings.HasSuffix(e.Name(), ".wav") {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return fmt.Errorf("remove a stale sound: %w", err)
			}
		}
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := filepath.Join(dir, n)
		if old, err := os.ReadFile(p); err == nil && string(old) == string(files[n]) {
			continue // unchanged: keep the file (and its time stamp)
		}
		if err := atomicfile.Write(p, files[n], 0o644); err != nil {
			return fmt.Errorf("write %s: %w", n, err)
		}
	}
	return nil
}
