package daemon_test

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/lets-app/lets/backend/daemon"
	"github.com/lets-app/lets/backend/daemon/daemontest"
	"github.com/lets-app/lets/backend/testenv/otheruser"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/backend/wire"
	"github.com/lets-app/lets/backend/wireclient"
	"github.com/lets-app/lets/backend/wireclient/wiretest"
)

// Issue #23 (High 2): another local user listening on the Wire path first.
// The person's daemon must not call that "another daemon is already
// running"; it names the other user, and on the protocol's /tmp default it
// moves to its private folder, where Lets' own clients find it.

func squatter(t *testing.T, path string) *wiretest.Server {
	t.Helper()
	ln := otheruser.ListenAs(t, otheruser.Nobody, otheruser.Nobody, path)
	return wiretest.Serve(t, ln, wiretest.Approver(wire.Status{}, wire.StateAck{}))
}

// defaultName is the protocol's per-user socket name for this process
// (the name of /tmp/pad-lattice-<uid>.sock), in a test's own shared folder.
func defaultName(t *testing.T) string {
	return filepath.Join(otheruser.SharedDir(t), "pad-lattice-"+strconv.Itoa(os.Geteuid())+".sock")
}

func wantOwnerNamed(t *testing.T, err error, path string, listener bool) *daemon.SocketError {
	t.Helper()
	var se *daemon.SocketError
	if !errors.As(err, &se) || !errors.Is(err, daemon.ErrForeignOwner) || errors.Is(err, daemon.ErrAlreadyRunning) {
		t.Fatalf("err = %v, want a *SocketError for ErrForeignOwner", err)
	}
	if se.Path != path || se.Owner != otheruser.Nobody || se.Listener != listener {
		t.Fatalf("error %+v, want path %s, owner %d, listener %v", *se, path, otheruser.Nobody, listener)
	}
	msg := err.Error()
	if strings.Contains(msg, "already running") || !strings.Contains(msg, path) || !strings.Contains(msg, "user "+strconv.Itoa(otheruser.Nobody)) || !strings.Contains(msg, "not you") {
		t.Fatalf("message %q should name the path and the other user, not call it a daemon already running", msg)
	}
	return se
}

// A path the person chose (no private fallback): the start fails naming
// the other user, for the socket's owner and for the process behind it.
func TestSquattedSocketNamesTheOtherUser(t *testing.T) {
	otheruser.RequireRoot(t)
	path := filepath.Join(otheruser.SharedDir(t), "pad.sock")
	srv := squatter(t, path)
	surface := daemontest.NewSurface()
	_, err := daemon.Listen(daemon.Options{SocketPath: path, Surface: surface})
	wantOwnerNamed(t, err, path, false)
	if surface.Closes() != 1 {
		t.Fatalf("surface closed %d times, want 1", surface.Closes())
	}

	// Root hands the file to the person; the listener is still nobody's.
	if err := os.Lchown(path, os.Geteuid(), os.Getegid()); err != nil {
		t.Fatal(err)
	}
	_, err = daemon.Listen(daemon.Options{SocketPath: path, Surface: daemontest.NewSurface()})
	wantOwnerNamed(t, err, path, true)
	if n := srv.Received(); n != 0 {
		t.Fatalf("the squatter received %d bytes", n)
	}
}

// The protocol's default name: the daemon starts in its private folder,
// says so in its log, and a client given the default path reaches it
// while the squatter gets nothing.
func TestSquattedDefaultPathMovesToPrivateFolder(t *testing.T) {
	otheruser.RequireRoot(t)
	spec := defaultName(t)
	srv := squatter(t, spec)
	var logs testutil.SyncBuffer
	d, err := daemon.Listen(daemon.Options{SocketPath: spec, Surface: daemontest.NewSurface(), Log: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatalf("start beside a squatter: %v", err)
	}
	priv := wire.PrivateSocketPath(spec)
	if d.SocketPath() != priv {
		t.Fatalf("SocketPath = %s, want %s", d.SocketPath(), priv)
	}
	dir, err := os.Lstat(filepath.Dir(priv))
	if err != nil || !dir.IsDir() || dir.Mode().Perm() != 0o700 || int(dir.Sys().(*syscall.Stat_t).Uid) != os.Geteuid() {
		t.Fatalf("private folder %v, %v: want ours, mode 0700", dir.Mode(), err)
	}
	log := logs.String()
	for _, want := range []string{priv, spec, "user " + strconv.Itoa(otheruser.Nobody), "PAD_LATTICE_SOCKET"} {
		if !strings.Contains(log, want) {
			t.Fatalf("log %q should mention %q", log, want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	c := wireclient.New(spec)
	c.Timeout = ioTimeout
	testutil.EventuallyNoError(t, "a client given the default path pings the daemon", func() error {
		pctx, pcancel := context.WithTimeout(context.Background(), ioTimeout)
		defer pcancel()
		return c.Ping(pctx)
	})
	cancel()
	if err := testutil.Wait(t, "the daemon stops", done); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(priv); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the private socket should be gone after the stop: %v", err)
	}
	if n := srv.Received(); n != 0 {
		t.Fatalf("the squatter received %d bytes", n)
	}
}

// The other user made the private folder first too: the start fails and
// names them for both places; nothing listens.
func TestPrivateFolderOfAnotherUserIsRefused(t *testing.T) {
	otheruser.RequireRoot(t)
	spec := defaultName(t)
	squatter(t, spec)
	priv := wire.PrivateSocketPath(spec)
	if err := os.Mkdir(filepath.Dir(priv), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(filepath.Dir(priv), otheruser.Nobody, otheruser.Nobody); err != nil {
		t.Fatal(err)
	}
	_, err := daemon.Listen(daemon.Options{SocketPath: spec, Surface: daemontest.NewSurface()})
	se := wantOwnerNamed(t, err, spec, false)
	var fe *daemon.SocketError
	if !errors.As(se.Fallback, &fe) || fe.Path != filepath.Dir(priv) || fe.Owner != otheruser.Nobody || !strings.Contains(err.Error(), "the folder "+filepath.Dir(priv)) {
		t.Fatalf("fallback error %v, want the folder %s owned by %d", se.Fallback, filepath.Dir(priv), otheruser.Nobody)
	}
	if _, err := os.Lstat(priv); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("nothing should listen in the other user's folder: %v", err)
	}
}

// After the squatter left, the person's daemon still in the private folder
// is "already running" for a second start on the default path; once it is
// killed, its stale socket is cleared and the default path used again, so
// the Python client finds the daemon where the protocol says.
func TestDaemonInPrivateFolderIsFoundAfterTheSquatterLeft(t *testing.T) {
	otheruser.RequireRoot(t)
	spec := defaultName(t)
	sq := otheruser.ListenAs(t, otheruser.Nobody, otheruser.Nobody, spec)
	first, err := daemon.Listen(daemon.Options{SocketPath: spec, Surface: daemontest.NewSurface()})
	if err != nil {
		t.Fatal(err)
	}
	priv := wire.PrivateSocketPath(spec)
	sq.Close() // the squatter leaves and its socket file goes
	_, err = daemon.Listen(daemon.Options{SocketPath: spec, Surface: daemontest.NewSurface()})
	var se *daemon.SocketError
	if !errors.Is(err, daemon.ErrAlreadyRunning) || !errors.As(err, &se) || se.Path != priv {
		t.Fatalf("second start: %v, want ErrAlreadyRunning at %s", err, priv)
	}
	// A killed daemon leaves its socket: simulate with a listener closed
	// without unlinking.
	daemon.LeaveSocketBehind(first)
	second, err := daemon.Listen(daemon.Options{SocketPath: spec, Surface: daemontest.NewSurface()})
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	if second.SocketPath() != spec {
		t.Fatalf("SocketPath = %s, want the protocol's %s", second.SocketPath(), spec)
	}
	if _, err := os.Lstat(priv); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the stale private socket should be removed: %v", err)
	}
}
