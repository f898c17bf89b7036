package cli

import (
	"bufio"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/identitystore"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/backend/wire"
)

type padDaemonEnv struct {
	env            *Env
	stdout, stderr *syncBuffer
	home, socket   string
}

// dial connects to the daemon that runPadDaemon is starting (its result
// arrives on done), waiting until it listens and failing the test if it
// exits first.
func (e *padDaemonEnv) dial(t *testing.T, done <-chan error) net.Conn {
	t.Helper()
	var nc net.Conn
	var err error
	testutil.Eventually(t, "the daemon listens", func() bool {
		select {
		case err := <-done:
			t.Fatalf("daemon exited early: %v\nstderr: %s", err, e.stderr.String())
		default:
		}
		nc, err = net.Dial("unix", e.socket)
		return err == nil
	})
	return nc
}

func newPadDaemonEnv(t testing.TB) *padDaemonEnv {
	t.Helper()
	dir, err := os.MkdirTemp("", "lpd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	e := &padDaemonEnv{stdout: &syncBuffer{}, stderr: &syncBuffer{}, home: filepath.Join(dir, "home"), socket: filepath.Join(dir, "s.sock")}
	vars := map[string]string{"LETS_HOME": e.home, wire.EnvSocket: e.socket}
	e.env = &Env{Stdout: e.stdout, Stderr: e.stderr, Getenv: func(k string) string { return vars[k] }}
	return e
}

func TestPadDaemonRunsUntilCancelled(t *testing.T) {
	e := newPadDaemonEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- runPadDaemon(ctx, e.env, []string{"--session-ttl", "0", "--terminal-hold", "1.5"}) }()

	nc := e.dial(t, done)
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(5 * time.Second))
	r := bufio.NewReader(nc)
	nc.Write([]byte(`{"protocol":1,"type":"state","state":"running","reply":true}` + "\n" + `{"protocol":1,"type":"status"}` + "\n"))
	ack, err := r.ReadString('\n')
	if err != nil || !strings.Contains(ack, `"type":"state_ack"`) {
		t.Fatalf("state_ack: %q, %v", ack, err)
	}
	status, err := r.ReadString('\n')
	if err != nil || !strings.Contains(status, `"session_ttl":0.0`) || !strings.Contains(status, `"profile":"lets/none"`) {
		t.Fatalf("status: %q, %v", status, err)
	}
	fi, err := os.Stat(e.socket)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket: %v, %v", fi, err)
	}

	cancel()
	if err := testutil.Wait(t, "the daemon stops", done); err != nil {
		t.Fatalf("runPadDaemon: %v", err)
	}
	// The accent preference went to the state folder (written behind the
	// daemon's loop, at the latest when it stops).
	if _, err := os.Stat(identitystore.DefaultPath(filepath.Join(e.home, "state"))); err != nil {
		t.Fatalf("identity store not written: %v", err)
	}
	if _, err := os.Lstat(e.socket); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("socket left behind: %v", err)
	}
	out := e.stdout.String()
	if !strings.Contains(out, "listening on "+e.socket) || !strings.Contains(out, "stopped") {
		t.Fatalf("stdout: %q", out)
	}
}

func TestPadDaemonSecondInstanceFails(t *testing.T) {
	e := newPadDaemonEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- runPadDaemon(ctx, e.env, nil) }()
	e.dial(t, done).Close()
	err := runPadDaemon(context.Background(), e.env, nil)
	if err == nil || !strings.Contains(err.Error(), "another Pad-Lattice daemon is already running") {
		t.Fatalf("second daemon: %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestPadDaemonUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--session-ttl", "-1"},
		{"--session-ttl", "inf"},
		{"--session-ttl", "NaN"},
		{"--terminal-hold", "-0.5"},
		{"--socket", ""},
		{"extra"},
		{"--bogus"},
	} {
		e := newPadDaemonEnv(t)
		err := runPadDaemon(context.Background(), e.env, args)
		var ue *UsageError
		if !errors.As(err, &ue) {
			t.Errorf("%v: err = %v, want a usage error", args, err)
		}
		if _, serr := os.Lstat(e.socket); !errors.Is(serr, os.ErrNotExist) {
			t.Errorf("%v: a socket was created", args)
		}
	}
}

func TestPadDaemonRegularFileAtSocket(t *testing.T) {
	e := newPadDaemonEnv(t)
	if err := os.WriteFile(e.socket, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := runPadDaemon(context.Background(), e.env, nil)
	if err == nil || !strings.Contains(err.Error(), "not a Unix socket") {
		t.Fatalf("err = %v", err)
	}
}
