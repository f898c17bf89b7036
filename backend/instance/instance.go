// Package instance makes sure only one Lets host runs per data folder, with
// an advisory lock on ~/.lets/lets.lock that records who holds it.
package instance

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/gofrs/flock"
)

// Holder describes the process holding the lock.
type Holder struct {
	PID       int       `json:"pid"`
	Command   string    `json:"command"`
	StartedAt time.Time `json:"started_at"`
}

// BusyError means another process holds the lock.
type BusyError struct {
	Path   string
	Holder Holder // zero if the holder's details could not be read
}

func (e *BusyError) Error() string {
	if e.Holder.PID == 0 {
		return fmt.Sprintf("Lets is already running (lock %s is held by another process)", e.Path)
	}
	return fmt.Sprintf("Lets is already running: `lets %s` (pid %d) started %s holds %s",
		e.Holder.Command, e.Holder.PID, e.Holder.StartedAt.Local().Format("2006-01-02 15:04:05"), e.Path)
}

// Lock is a held single-instance lock.
type Lock struct {
	fl   *flock.Flock
	path string
}

// Acquire takes the lock at path without waiting. If another process holds
// it, the error is a *BusyError saying who.
func Acquire(path string, me Holder) (*Lock, error) {
	fl := flock.New(path, flock.SetFlag(os.O_CREATE|os.O_RDWR), flock.SetPermissions(0o600))
	ok, err := fl.TryLock()
	if err != nil {
		return nil, fmt.Errorf("lock %s (check the folder's permissions): %w", path, err)
	}
	if !ok {
		return nil, &BusyError{Path: path, Holder: readHolder(path)}
	}
	data, _ := json.Marshal(me)
	// The lock is held on this file, so write in place rather than renaming
	// a new file over it (which would drop the lock's inode).
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0o600)
	if err == nil {
		_, err = f.Write(append(data, '\n'))
		_ = f.Close()
	}
	if err != nil {
		_ = fl.Unlock()
		return nil, fmt.Errorf("record the lock holder in %s: %w", path, err)
	}
	return &Lock{fl: fl, path: path}, nil
}

func readHolder(path string) Holder {
	var h Holder
	data, err := os.ReadFile(path)
	if err != nil {
		return h
	}
	_ = json.Unmarshal(data, &h)
	return h
}

// Release gives the lock up. The file stays; an unlocked file is harmless.
func (l *Lock) Release() error {
	if l == nil || l.fl == nil {
		return nil
	}
	if err := l.fl.Unlock(); err != nil {
		return fmt.Errorf("unlock %s: %w", l.path, err)
	}
	l.fl = nil
	return nil
}

// IsBusy reports whether err says another instance runs.
func IsBusy(err error) bool {
	var b *BusyError
	return errors.As(err, &b)
}
