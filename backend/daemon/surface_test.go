package daemon_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/control"
	"github.com/lets-app/lets/backend/daemon"
	"github.com/lets-app/lets/backend/daemon/daemontest"
)

// Run opens the surface once, before the first render.
func TestRunOpensSurfaceBeforeRendering(t *testing.T) {
	s := daemontest.NewSurface()
	h := start(t, withSurface(s))
	if _, err := s.WaitView(ioTimeout, func(control.View) bool { return true }); err != nil {
		t.Fatal(err)
	}
	if s.Opens() != 1 {
		t.Fatalf("surface opened %d times", s.Opens())
	}
	h.dial().ping()
}

// A surface that cannot be opened stops Run with that error; the socket
// file is removed, the surface closed once, and nothing was rendered.
func TestRunFailsWhenSurfaceCannotOpen(t *testing.T) {
	s := daemontest.NewSurface()
	boom := errors.New("device busy")
	s.FailOpen(boom)
	path := filepath.Join(shortDir(t), "s.sock")
	d, err := daemon.Listen(daemon.Options{SocketPath: path, Surface: s})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := d.Run(ctx); !errors.Is(err, boom) {
		t.Fatalf("Run returned %v, want the open error", err)
	}
	if s.Closes() != 1 || len(s.Views()) != 0 {
		t.Fatalf("closes %d, views %d", s.Closes(), len(s.Views()))
	}
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("socket file left behind: %v", err)
	}
	if err := d.Close(); err != nil {
		t.Fatalf("close after failed run: %v", err)
	}
	if s.Closes() != 1 {
		t.Fatalf("surface closed %d times", s.Closes())
	}
}
