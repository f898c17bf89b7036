package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/lets-app/lets/backend/atomicfile"
)

// HostInfo is host.json: how CLI commands, hooks and the MCP server find the
// running host. It holds the host token, so it is written with mode 0600.
type HostInfo struct {
	Port      int       `json:"port"`
	PID       int       `json:"pid"`
	Token     string    `json:"token"`
	Version   string    `json:"version"`
	StartedAt time.Time `json:"started_at"`
	// WireSocket is the Wire Protocol 1 socket path when the daemon runs.
	WireSocket string `json:"wire_socket,omitempty"`
}

// ErrHostNotRunning means there is no host.json, so no host is running.
//
//lint:ignore ST1005 the message starts with the app's name, shown as is to the person
var ErrHostNotRunning = errors.New("Lets is not running (start it with `lets` or `lets serve`)")

// WriteHostInfo writes host.json atomically with mode 0600.
func WriteHostInfo(p Paths, info HostInfo) error {
	data, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return fmt.Errorf("encode host.json: %w", err)
	}
	return atomicfile.Write(p.HostFile(), append(data, '\n'), 0o600)
}

// ReadHostInfo reads host.json. It refuses a file that others can read,
// because the token in it must stay private.
func ReadHostInfo(p Paths) (HostInfo, error) {
	var info HostInfo
	path := p.HostFile()
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return info, ErrHostNotRunning
	}
	if err != nil {
		return info, fmt.Errorf("read %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return info, fmt.Errorf("%s is not a regular file; remove it and start Lets again", path)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return info, fmt.Errorf("%s can be read by other users (mode %o); remove it and start Lets again", path, fi.Mode().Perm())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return info, fmt.Errorf("read %s: %w", path, err)
	}
	if err := json.Unmarshal(data, &info); err != nil {
		return info, fmt.Errorf("%s is damaged (%v); restart Lets to rewrite it", path, err)
	}
	return info, nil
}

// RemoveHostInfo deletes host.json if it still belongs to pid, so a host
// that stops does not delete the file of a newer one.
func RemoveHostInfo(p Paths, pid int) error {
	info, err := ReadHostInfo(p)
	if err != nil {
		return nil
	}
	if info.PID != pid {
		return nil
	}
	if err := os.Remove(p.HostFile()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove %s: %w", p.HostFile(), err)
	}
	return nil
}
