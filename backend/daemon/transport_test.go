package daemon_test

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/daemon"
	"github.com/lets-app/lets/backend/daemon/daemontest"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/backend/wire"
)

func TestCase131_RegularFileAtPathFailsAndIsKept(t *testing.T) {
	path := filepath.Join(shortDir(t), "s.sock")
	if err := os.WriteFile(path, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	surface := daemontest.NewSurface()
	_, err := daemon.Listen(daemon.Options{SocketPath: path, Surface: surface})
	if err == nil || !errors.Is(err, daemon.ErrNotSocket) || !strings.Contains(err.Error(), "not a Unix socket") {
		t.Fatalf("err = %v, want one saying %q", err, "not a Unix socket")
	}
	data, rerr := os.ReadFile(path)
	if rerr != nil || string(data) != "keep me" {
		t.Fatalf("the file was touched: %q, %v", data, rerr)
	}
	// Case 137: a startup failure closes the surface.
	if surface.Closes() != 1 {
		t.Fatalf("surface closed %d times, want 1", surface.Closes())
	}
}

func TestCase131_DirectoryAndSymlinkAtPathAreNotSockets(t *testing.T) {
	dir := shortDir(t)
	sub := filepath.Join(dir, "d")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "l")
	if err := os.Symlink(filepath.Join(dir, "nowhere"), link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{sub, link} {
		_, err := daemon.Listen(daemon.Options{SocketPath: p, Surface: daemontest.NewSurface()})
		if !errors.Is(err, daemon.ErrNotSocket) {
			t.Errorf("%s: err = %v, want ErrNotSocket", p, err)
		}
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
}

func TestCase132_SocketModeIs0600(t *testing.T) {
	h := start(t)
	fi, err := os.Lstat(h.path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Type() != os.ModeSocket || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode = %v, want socket with 0600", fi.Mode())
	}
}

func TestCase133_LiveDaemonRefusesSecondStart(t *testing.T) {
	h := start(t)
	surface := daemontest.NewSurface()
	_, err := daemon.Listen(daemon.Options{SocketPath: h.path, Surface: surface})
	if !errors.Is(err, daemon.ErrAlreadyRunning) || !strings.Contains(err.Error(), "another Pad-Lattice daemon is already running") {
		t.Fatalf("err = %v, want ErrAlreadyRunning", err)
	}
	if surface.Closes() != 1 {
		t.Fatalf("second daemon's surface closed %d times, want 1", surface.Closes())
	}
	// The first daemon is unharmed.
	c := h.dial()
	c.ping()
}

func TestCase134_StaleSocketIsReplaced(t *testing.T) {
	path := filepath.Join(shortDir(t), "s.sock")
	// A socket file nobody listens on, as a killed daemon leaves it.
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
	if _, err := os.Lstat(path); err != nil {
		t.Fatalf("stale socket missing: %v", err)
	}
	h := start(t, func(o *daemon.Options) { o.SocketPath = path })
	h.path = path
	c := h.dial()
	c.ping()
}

func TestCase135_PeerUIDMustEqualEffectiveUID(t *testing.T) {
	euid := os.Geteuid()
	for _, tc := range []struct {
		name   string
		uid    int
		err    error
		accept bool
	}{
		{name: "euid+1 rejected", uid: euid + 1},
		{name: "credentials unreadable rejected", uid: euid, err: errors.New("no credentials")},
		{name: "equal uid accepted", uid: euid, accept: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := start(t, func(o *daemon.Options) {
				o.PeerUID = func(*net.UnixConn) (int, error) { return tc.uid, tc.err }
			})
			c := h.dial()
			c.c.Write([]byte(ping + "\n")) // may already fail: the daemon hangs up at once
			if tc.accept {
				c.sync()
				return
			}
			// Rejected: closed at once with nothing written.
			c.expectClosed()
		})
	}
}

func TestCase135_RealPeerCredentialsAcceptSameUser(t *testing.T) {
	h := start(t) // no injection: SO_PEERCRED
	c := h.dial()
	c.ping()
}

func TestCase136_SlowReaderGetsWholeMessages(t *testing.T) {
	h := start(t)
	for i := range 3 {
		sid := "s" + strconv.Itoa(i)
		h.update("codex", sid, "running", `"agent":{"backend":"codex","session_id":"`+sid+`","label":"`+strings.Repeat("L", 10000)+`"}`)
	}
	c := h.dial()
	// Shrink the receive buffer and read 7 bytes at a time, so the daemon's
	// writes complete only partially, again and again.
	c.c.SetReadBuffer(1024)
	c.send(`{"protocol":1,"type":"status"}`)
	c.send(ping)
	var got []byte
	buf := make([]byte, 7)
	for strings.Count(string(got), "\n") < 2 {
		// A hang guard per read: thousands of 7-byte reads take their
		// time under -race on a loaded machine; each must make progress.
		c.c.SetReadDeadline(time.Now().Add(ioTimeout))
		n, err := c.c.Read(buf)
		if err != nil {
			t.Fatalf("read after %d bytes: %v", len(got), err)
		}
		got = append(got, buf[:n]...)
	}
	lines := strings.Split(strings.TrimSuffix(string(got), "\n"), "\n")
	if len(lines) != 2 || lines[1] != pong {
		t.Fatalf("got %d lines, last %.60q", len(lines), lines[len(lines)-1])
	}
	h.v.check(t, []byte(lines[0]))
	if m := decode(t, lines[0]); m["type"] != "status" || len(m["sessions"].([]any)) != 3 || len(lines[0]) < 60000 {
		t.Fatalf("first line is %v with %d bytes", m["type"], len(lines[0]))
	}
}

func TestCase137_CloseTwiceClosesSurfaceOnce(t *testing.T) {
	surface := daemontest.NewSurface()
	path := filepath.Join(shortDir(t), "s.sock")
	d, err := daemon.Listen(daemon.Options{SocketPath: path, Surface: surface})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatalf("first close: %v", err)
	}
	if err := d.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
	if surface.Closes() != 1 {
		t.Fatalf("surface closed %d times, want 1", surface.Closes())
	}
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("socket file still there after close: %v", err)
	}
}

func TestCase137_CloseWhileRunningAndAfter(t *testing.T) {
	h := start(t)
	c := h.dial()
	c.ping()
	if err := h.d.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if err := h.d.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
	select {
	case err := <-h.errc:
		if err != nil {
			t.Fatalf("Run returned %v", err)
		}
		h.stopped = true
	case <-time.After(ioTimeout):
		t.Fatal("Run did not return after Close")
	}
	if h.surface.Closes() != 1 {
		t.Fatalf("surface closed %d times", h.surface.Closes())
	}
	c.expectClosed()
}

func TestCase138_FireAndForgetStateIsApplied(t *testing.T) {
	h := start(t)
	nc, err := net.Dial("unix", h.path)
	if err != nil {
		t.Fatal(err)
	}
	nc.Write([]byte(stateMsg("codex", "ff", "running") + "\n"))
	nc.Close()
	// A closed connection is noticed asynchronously: no cross-connection
	// ordering is promised.
	testutil.Eventually(t, "the fire-and-forget state is applied", func() bool { return h.session("codex", "ff") != nil })
}

// §2.4: a clean shutdown removes the socket it created, runs disconnect
// cleanup (a leased session disappears with its connection), and leaves a
// path another daemon took over alone.
func TestShutdownRemovesOwnSocketOnly(t *testing.T) {
	h := start(t)
	h.stop()
	if _, err := os.Lstat(h.path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("socket still there after stop: %v", err)
	}

	h2 := start(t)
	// Someone replaces the socket file behind the daemon's back.
	os.Remove(h2.path)
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: h2.path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	h2.stop()
	if _, err := os.Lstat(h2.path); err != nil {
		t.Fatalf("the other listener's socket was removed: %v", err)
	}
}

func TestRunStopsOnContextAndClosesClients(t *testing.T) {
	h := start(t)
	c := h.dial()
	c.send(`{"protocol":1,"type":"session_lease","lease_id":"L","agent":{"backend":"codex","session_id":"a"}}`)
	if m := c.read(); m["type"] != "session_lease_ack" {
		t.Fatalf("got %v", m)
	}
	h.stop()
	c.expectClosed()
}

func TestSocketPathDefault(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	if got, want := daemon.SocketPath(getenv), "/tmp/pad-lattice-"+strconv.Itoa(os.Getuid())+".sock"; got != want {
		t.Errorf("no env: %s, want %s", got, want)
	}
	env[wire.EnvRuntimeDir] = "/run/user/7"
	if got := daemon.SocketPath(getenv); got != "/run/user/7/pad-lattice.sock" {
		t.Errorf("XDG_RUNTIME_DIR: %s", got)
	}
	env[wire.EnvSocket] = "/x/y.sock"
	if got := daemon.SocketPath(getenv); got != "/x/y.sock" {
		t.Errorf("PAD_LATTICE_SOCKET: %s", got)
	}
}

func TestBindFailureInMissingFolder(t *testing.T) {
	surface := daemontest.NewSurface()
	_, err := daemon.Listen(daemon.Options{SocketPath: filepath.Join(shortDir(t), "no", "s.sock"), Surface: surface})
	if err == nil || !errors.Is(err, syscall.ENOENT) {
		t.Fatalf("err = %v, want ENOENT", err)
	}
	if surface.Closes() != 1 {
		t.Fatal("surface not closed after a failed start")
	}
}

func TestRunWithoutListenClaimsTheSocket(t *testing.T) {
	path := filepath.Join(shortDir(t), "s.sock")
	d, err := daemon.New(daemon.Options{SocketPath: path, Surface: daemontest.NewSurface()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	testutil.EventuallyNoError(t, "the daemon listens", func() error {
		c, err := net.Dial("unix", path)
		if err == nil {
			c.Close()
		}
		return err
	})
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestTooLongSocketPathIsExplained(t *testing.T) {
	surface := daemontest.NewSurface()
	path := filepath.Join(shortDir(t), strings.Repeat("x", 120)+".sock")
	_, err := daemon.Listen(daemon.Options{SocketPath: path, Surface: surface})
	var se *daemon.SocketError
	if !errors.As(err, &se) || se.Path != path || !errors.Is(err, daemon.ErrSocketPathTooLong) || !strings.Contains(err.Error(), "at most 107") {
		t.Fatalf("err = %v", err)
	}
	if surface.Closes() != 1 {
		t.Fatal("surface not closed")
	}
}

// Issue #10: the daemon's start-up errors are typed and carry the path;
// the hint (a flag or a config.json key) is added by the command, so none
// is baked in here.
func TestSocketErrorsAreTypedWithPathAndNoCommandHint(t *testing.T) {
	h := start(t)
	file := filepath.Join(shortDir(t), "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path   string
		reason error
	}{{h.path, daemon.ErrAlreadyRunning}, {file, daemon.ErrNotSocket}} {
		_, err := daemon.Listen(daemon.Options{SocketPath: c.path, Surface: daemontest.NewSurface()})
		var se *daemon.SocketError
		if !errors.As(err, &se) || se.Path != c.path || !errors.Is(err, c.reason) || !errors.Is(err, daemon.ErrSocketInUse) {
			t.Errorf("%s: err = %#v, want a *SocketError for %v matching ErrSocketInUse", c.path, err, c.reason)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, c.path) || strings.Contains(msg, "--") || strings.Contains(msg, "config.json") {
			t.Errorf("message %q should name the path and no flag or config key", msg)
		}
	}
	_, err := daemon.Listen(daemon.Options{SocketPath: filepath.Join(shortDir(t), strings.Repeat("y", 120)), Surface: daemontest.NewSurface()})
	if errors.Is(err, daemon.ErrSocketInUse) {
		t.Fatalf("a too long path is not in use: %v", err)
	}
}
