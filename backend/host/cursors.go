package host

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"

	"github.com/lets-app/lets/backend/atomicfile"
	"github.com/lets-app/lets/backend/ring"
)

// cursorFile keeps the ring's cursors in state/cursors.json (atomic, 0600).
type cursorFile struct{ path string }

func newCursorFile(path string) *cursorFile { return &cursorFile{path: path} }

func (c *cursorFile) Load() (ring.Saved, error) {
	var s ring.Saved
	data, err := os.ReadFile(c.path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return ring.Saved{}, err
	}
	return s, nil
}

func (c *cursorFile) Save(s ring.Saved) error {
	data, err := json.Marshal(s)
	if err != nil {
		return err
	}
	return atomicfile.Write(c.path, append(data, '\n'), 0o600)
}
