package daemon_test

import (
	"errors"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"log/slog"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/control"
	"github.com/lets-app/lets/backend/daemon"
	"github.com/lets-app/lets/backend/wire"
)

func openFDs(t *testing.T) int {
	t.Helper()
	testutil.ProcFS(t)
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatalf("count open file descriptors: %v", err)
	}
	return len(entries)
}

// settle waits (bounded) until goroutines and descriptors are back to at
// most the baseline plus slack, and returns the last counts (the caller
// judges them).
func settle(t *testing.T, g0, fd0, slack int) (g, fd int) {
	t.Helper()
	testutil.Poll(10*time.Second, func() bool {
		g, fd = runtime.NumGoroutine(), openFDs(t)
		return g <= g0+slack && fd <= fd0+slack
	})
	return g, fd
}

func TestConnectDisconnectCyclesLeakNothing(t *testing.T) {
	cycles := 10000
	if testing.Short() {
		cycles = 1000
	}
	h := start(t)
	// Warm up so lazily created runtime goroutines are counted in the baseline.
	h.dial().ping()
	g0, fd0 := settle(t, 1<<30, 1<<30, 0)
	for i := range cycles {
		nc := dialRetry(t, h.path)
		switch i % 4 {
		case 1: // fire-and-forget
			nc.Write([]byte(stateMsg("codex", "c", "running") + "\n"))
		case 2: // unterminated bytes
			nc.Write([]byte(`{"protocol":1`))
		case 3: // a request whose answer is never read
			nc.Write([]byte(`{"protocol":1,"type":"status"}` + "\n"))
		}
		nc.Close()
	}
	last := h.dial()
	last.ping() // the daemon still answers
	last.close()
	g1, fd1 := settle(t, g0, fd0, 0)
	if g1 > g0+1 || fd1 > fd0 {
		t.Fatalf("after %d cycles: goroutines %d → %d, descriptors %d → %d", cycles, g0, g1, fd0, fd1)
	}
	t.Logf("%d cycles: goroutines %d → %d, descriptors %d → %d", cycles, g0, g1, fd0, fd1)
}

// dialRetry connects, waiting while the listen backlog is full. The leak
// test connects thousands of times faster than any acceptor takes them, so
// on a loaded machine the backlog (somaxconn) really fills, and Go's
// non-blocking connect then reports EAGAIN where a blocking client waits.
func dialRetry(t testing.TB, path string) net.Conn {
	t.Helper()
	var nc net.Conn
	var err error
	testutil.Poll(ioTimeout, func() bool {
		nc, err = net.DialTimeout("unix", path, ioTimeout)
		return err == nil || !errors.Is(err, syscall.EAGAIN)
	})
	if err != nil {
		t.Fatalf("connect to the daemon: %v", err)
	}
	return nc
}

// A client that never reads while the daemon has output for it is cut off
// without blocking anyone else (the queue bound of the package doc).
func TestStuckReaderIsClosedAndOthersUnaffected(t *testing.T) {
	var logs syncBuffer
	h := start(t, func(o *daemon.Options) { o.Log = slog.New(slog.NewTextHandler(&logs, nil)) })
	big := strings.Repeat("m", 30000)
	h.update("codex", "a", "running", `"agent":{"backend":"codex","session_id":"a","k":"`+big+`"}`)
	stuck := h.dial()
	stuck.c.SetReadBuffer(4096)
	// Ask for ~60 KB statuses far beyond the queue bound, never reading.
	req := []byte(strings.Repeat(`{"protocol":1,"type":"status"}`+"\n", 100))
	// Each status is ~30 KB: send enough to pass the bound twice over.
	batches := 2*daemon.MaxQueuedBytes/(100*len(big)) + 1
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range batches {
			stuck.c.SetWriteDeadline(time.Now().Add(ioTimeout))
			if _, err := stuck.c.Write(req); err != nil {
				return // the daemon hung up: expected
			}
		}
	}()
	// Meanwhile the daemon serves others. An owner blocked on the stuck
	// peer would answer only after that write's WriteTimeout: that bound,
	// not the machine's speed, is what is checked.
	other := h.dial()
	for range 20 {
		start := time.Now()
		other.ping()
		if d := time.Since(start); d >= daemon.WriteTimeout {
			t.Fatalf("ping took %v while a client was stuck", d)
		}
	}
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("writer to the stuck client never finished")
	}
	// Wait for the cut before reading: a read that starts while the
	// daemon is still answering the queued statuses unsticks the client,
	// the queue then never passes the bound, and nothing is cut (under
	// load the answers come slowly).
	testutil.Eventually(t, "the daemon cuts off the client that stopped reading", func() bool {
		return strings.Contains(logs.String(), "stopped reading")
	})
	// The stuck connection is closed: draining it ends in EOF/reset.
	stuck.c.SetReadDeadline(time.Now().Add(ioTimeout))
	buf := make([]byte, 1<<16)
	for {
		if _, err := stuck.c.Read(buf); err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Fatal("stuck connection was never closed")
			}
			break
		}
	}
	other.ping()
	if !strings.Contains(logs.String(), "stopped reading") {
		t.Fatalf("the connection was not closed by the queue bound; logs:\n%s", logs.String())
	}
}

// Several clients hammering the daemon at once: per-connection order holds
// and every line is answered exactly once.
func TestConcurrentClientsKeepPerConnectionOrder(t *testing.T) {
	h := start(t)
	const clients, rounds = 8, 200
	errs := make(chan error, clients)
	for i := range clients {
		go func() {
			nc, err := net.Dial("unix", h.path)
			if err != nil {
				errs <- err
				return
			}
			defer nc.Close()
			sid := string(rune('a' + i))
			var b strings.Builder
			for range rounds {
				b.WriteString(ping + "\n")
				b.WriteString(stateMsg("codex", sid, "running", `"reply":true`) + "\n")
				b.WriteString(`{"protocol":1,"type":"nope"}` + "\n")
			}
			go nc.Write([]byte(b.String()))
			nc.SetReadDeadline(time.Now().Add(10 * time.Second))
			buf := make([]byte, 0, 1<<20)
			tmp := make([]byte, 64<<10)
			for strings.Count(string(buf), "\n") < 3*rounds {
				n, err := nc.Read(tmp)
				if err != nil {
					errs <- err
					return
				}
				buf = append(buf, tmp[:n]...)
			}
			lines := strings.Split(strings.TrimSuffix(string(buf), "\n"), "\n")
			for j, line := range lines {
				var want string
				switch j % 3 {
				case 0:
					want = `"type":"pong"`
				case 1:
					want = `"type":"state_ack","backend":"codex","session_id":"` + sid + `"`
				case 2:
					want = `"type":"error","code":"` + wire.CodeUnknownMessageType + `"`
				}
				if !strings.Contains(line, want) {
					errs <- &orderError{j, line, want}
					return
				}
			}
			errs <- nil
		}()
	}
	for range clients {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

type orderError struct {
	i          int
	line, want string
}

func (e *orderError) Error() string {
	return "line " + strconv.Itoa(e.i) + " is " + e.line + ", want it to contain " + e.want
}

// A surface whose Render fails does not stop the daemon.
func TestRenderFailureIsNotFatal(t *testing.T) {
	h := start(t)
	h.surface.FailRender(os.ErrClosed)
	h.update("codex", "a", "running")
	h.dial().ping()
}

// TestConnectionCapRefusesOnlyNewConnections: past MaxConnections a new
// connection is closed at once, the open ones keep working, and a slot frees
// when one of them closes.
func TestConnectionCapRefusesOnlyNewConnections(t *testing.T) {
	h := start(t, func(o *daemon.Options) { o.MaxConnections = 3 })
	open := []*client{h.dial(), h.dial(), h.dial()}
	for _, c := range open {
		c.ping() // each is accepted and counted
	}
	extra, err := net.DialTimeout("unix", h.path, ioTimeout)
	if err != nil {
		t.Fatal(err)
	}
	_ = extra.SetReadDeadline(time.Now().Add(ioTimeout))
	_, _ = extra.Write([]byte(`{"protocol":1,"type":"ping"}` + "\n"))
	buf := make([]byte, 64)
	if n, err := extra.Read(buf); err == nil {
		t.Fatalf("a connection past the cap was served: %q", buf[:n])
	}
	extra.Close()
	for _, c := range open {
		c.ping()
	}
	open[0].close()
	// The slot frees once the daemon has closed its side, which a client
	// cannot see before trying.
	testutil.Eventually(t, "a freed slot is reused", func() bool {
		nc, err := net.DialTimeout("unix", h.path, ioTimeout)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		_ = nc.SetReadDeadline(time.Now().Add(ioTimeout))
		_, _ = nc.Write([]byte(`{"protocol":1,"type":"ping"}` + "\n"))
		n, err := nc.Read(buf)
		return err == nil && strings.Contains(string(buf[:n]), "pong")
	})
}

// TestActivityMotionRendersEveryInterval: with motion on and the selected
// agent running, the daemon renders again once 1.5 s of control-plane time
// passed without any change (Visual Protocol §8), not before; without
// motion it does not.
func TestActivityMotionRendersEveryInterval(t *testing.T) {
	for _, motion := range []bool{true, false} {
		cfg := control.DefaultConfig(0)
		cfg.ActivityMotion = motion
		h := start(t, func(o *daemon.Options) { o.Control = &cfg })
		h.update("codex", "a", "running")
		if _, err := h.surface.WaitView(ioTimeout, func(v control.View) bool { return v.Centre == wire.StateRunning }); err != nil {
			t.Fatal(err)
		}
		before := len(h.surface.Views())
		h.ticks(3)
		h.advance(1.4) // 1.49 s since the render: a tick, still no motion step
		if n := len(h.surface.Views()); n != before {
			t.Fatalf("motion=%v: %d renders without any change within 1.5 s", motion, n-before)
		}
		h.advance(0.1) // 1.59 s: the next tick renders the motion step
		got := len(h.surface.Views()) - before
		if motion && got != 1 {
			t.Fatalf("motion on: %d renders after 1.59 s of running, want 1", got)
		}
		if !motion && got != 0 {
			t.Fatalf("motion off: %d renders after time passed", got)
		}
		h.stop()
	}
}

// syncBuffer is a goroutine-safe output buffer.
type syncBuffer = testutil.SyncBuffer
