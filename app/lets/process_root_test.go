package lets

import (
	"context"
	"errors"
	"net"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/instance"
	"github.com/lets-app/lets/backend/testenv/letstest"
)

// assertReleased checks that nothing of a process is left: no host.json,
// no pad socket, and the data folder's lock is free again.
func assertReleased(t *testing.T, e *testEnv) {
	t.Helper()
	paths := config.Paths{Home: e.home}
	if _, err := config.ReadHostInfo(paths); err == nil {
		t.Error("host.json is left behind")
	}
	if _, err := os.Stat(e.Getenv("PAD_LATTICE_SOCKET")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the pad socket is left behind: %v", err)
	}
	lock, err := instance.Acquire(paths.LockFile(), instance.Holder{PID: os.Getpid(), Command: "test", StartedAt: time.Now()})
	if err != nil {
		t.Fatalf("the lock is still held: %v", err)
	}
	_ = lock.Release()
}

// A Provision that fails (the host's port is taken) releases every part it
// had built before: the pads, the lock, the log.
func TestProcessProvisionFailureReleasesWhatItBuilt(t *testing.T) {
	e := newTestEnv(t)
	p := &Process{Env: e.Env, Port: letstest.BusyPort(t)}
	err := p.Provision(context.Background())
	if err == nil {
		p.Cleanup()
		t.Fatal("Provision succeeded on a taken port")
	}
	if p.lock != nil || p.pads != nil || p.st != nil || p.srv != nil {
		t.Errorf("Provision failed but kept parts: %+v", p)
	}
	assertReleased(t, e)
	p.Cleanup() // a second Cleanup does nothing
}

// Provision then Cleanup, without Run, closes the host and the pads that
// never ran and takes back host.json and the lock.
func TestProcessCleanupWithoutRunReleasesEveryPart(t *testing.T) {
	e := newTestEnv(t)
	p := &Process{Env: e.Env, Port: 0}
	if err := p.Provision(context.Background()); err != nil {
		t.Fatalf("Provision: %v\n%s", err, e.err.String())
	}
	port := p.srv.Port()
	if _, err := config.ReadHostInfo(config.Paths{Home: e.home}); err != nil {
		t.Fatalf("Provision wrote no host.json: %v", err)
	}
	p.Cleanup()
	assertReleased(t, e)
	ln, err := net.Listen("tcp4", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		t.Fatalf("the host's port is still taken after Cleanup: %v", err)
	}
	_ = ln.Close()
	p.Cleanup()
}

// Headless and desktop differ only in configuration: a process with no
// desk shows no tray and builds the same parts.
func TestProcessHeadlessHasNoDesktop(t *testing.T) {
	for _, p := range []*Process{{}, {Desk: &Desktop{Headless: true}}} {
		if p.desktopShown() {
			t.Errorf("desk %+v: a headless process says it shows a desktop", p.Desk)
		}
	}
	if p := (&Process{Desk: &Desktop{}}); !p.desktopShown() {
		t.Error("plain `lets` with a desktop says it shows none")
	}
}
