package lets

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/lets-app/lets/backend/atomicfile"
	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/surface/web"
)

// WebSurfaceInfo is state/web-surface.json: how local commands reach the
// browser surface. It holds the admin token (inside AdminURL), so it is
// written with mode 0600 and refused when others can read it.
type WebSurfaceInfo struct {
	PID      int    `json:"pid"`
	Port     int    `json:"port"`
	AdminURL string `json:"admin_url"`
	LANURL   string `json:"lan_url,omitempty"`
}

// WebSurfaceInfoPath is where the record of the browser surface is kept.
func WebSurfaceInfoPath(p config.Paths) string {
	return filepath.Join(p.StateDir(), "web-surface.json")
}

// WriteWebSurfaceInfo records a started browser surface for `lets pad
// pair`. Call it after web.Server.Open, and RemoveWebSurfaceInfo when the
// surface stops.
func WriteWebSurfaceInfo(p config.Paths, srv *web.Server) error {
	info := WebSurfaceInfo{PID: os.Getpid(), Port: srv.Port(), AdminURL: srv.AdminURL(), LANURL: srv.LANURL()}
	data, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(p.StateDir(), 0o700); err != nil {
		return fmt.Errorf("make %s: %w", p.StateDir(), err)
	}
	return atomicfile.Write(WebSurfaceInfoPath(p), append(data, '\n'), 0o600)
}

// RemoveWebSurfaceInfo deletes the file if it still belongs to this process.
func RemoveWebSurfaceInfo(p config.Paths) error {
	info, err := ReadWebSurfaceInfo(p)
	if err != nil || info.PID != os.Getpid() {
		return nil
	}
	if err := os.Remove(WebSurfaceInfoPath(p)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// ErrWebSurfaceNotRunning: no browser pad is running (or it left no file).
var ErrWebSurfaceNotRunning = errors.New("the browser pad is not running: start it with `lets pad daemon --web --lan`, then run `lets pad pair` again")

// ReadWebSurfaceInfo reads the record of the running browser surface;
// ErrWebSurfaceNotRunning when there is none (or its process has ended).
func ReadWebSurfaceInfo(p config.Paths) (WebSurfaceInfo, error) {
	var info WebSurfaceInfo
	path := WebSurfaceInfoPath(p)
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return info, ErrWebSurfaceNotRunning
	}
	if err != nil {
		return info, fmt.Errorf("read %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o077 != 0 {
		return info, fmt.Errorf("%s is not a private file (mode %v); remove it and restart the pad", path, fi.Mode())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return info, fmt.Errorf("read %s: %w", path, err)
	}
	if err := json.Unmarshal(data, &info); err != nil {
		return info, fmt.Errorf("%s is damaged (%v); restart the pad to rewrite it", path, err)
	}
	if info.PID > 0 && !processAlive(info.PID) {
		return info, ErrWebSurfaceNotRunning
	}
	return info, nil
}

func processAlive(pid int) bool {
	proc, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = proc.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, os.ErrPermission)
}
