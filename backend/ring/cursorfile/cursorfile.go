// Package cursorfile stores ring cursors in a JSON file
// (~/.lets/state/cursors.json), written atomically with mode 0600. It is the
// I/O adapter for ring.CursorStore.
package cursorfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/lets-app/lets/backend/atomicfile"
	"github.com/lets-app/lets/backend/ring"
)

// Name is the file name inside the state directory.
const Name = "cursors.json"

// Store is a ring.CursorStore backed by one file.
type Store struct {
	Path string
}

// New returns a store for <stateDir>/cursors.json.
func New(stateDir string) *Store { return &Store{Path: filepath.Join(stateDir, Name)} }

// Load reads the file. A missing file is an empty Saved; an unreadable or
// torn file is an error (the ring then starts every cursor at the oldest
// event and logs a warning).
func (s *Store) Load() (ring.Saved, error) {
	b, err := os.ReadFile(s.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return ring.Saved{}, nil
	}
	if err != nil {
		return ring.Saved{}, fmt.Errorf("read cursors %s: %w", s.Path, err)
	}
	var saved ring.Saved
	if err := json.Unmarshal(b, &saved); err != nil {
		return ring.Saved{}, fmt.Errorf("cursors file %s is not valid JSON (it will be rewritten): %w", s.Path, err)
	}
	return saved, nil
}

// Save writes the file atomically (temp + fsync + rename), mode 0600,
// creating the directory when missing.
func (s *Store) Save(saved ring.Saved) error {
	b, err := json.MarshalIndent(saved, "", "  ")
	if err != nil {
		return fmt.Errorf("encode cursors: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(s.Path), 0o700); err != nil {
		return fmt.Errorf("create state dir for cursors: %w", err)
	}
	if err := atomicfile.Write(s.Path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("save cursors: %w", err)
	}
	return nil
}
