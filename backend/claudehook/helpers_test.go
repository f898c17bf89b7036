package claudehook_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/claudehook"
	"github.com/lets-app/lets/backend/daemon"
	"github.com/lets-app/lets/backend/daemon/daemontest"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/backend/wire"
	"github.com/lets-app/lets/backend/wireclient"
	"github.com/lets-app/lets/schemas"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the current output")

// The recorded session (testdata/stdin/README.md).
const (
	sessionID = "5b0c8f2e-3c41-4d9a-9f2e-6a1d7c3e9b10"
	label     = "project"
	claudePID = 4242
	requestID = "req-0001"
)

// testDaemon is a real Wire daemon in this process with the fake surface.
type testDaemon struct {
	d       *daemon.Daemon
	path    string
	surface *daemontest.Surface
	client  *wireclient.Client
	stop    func()
}

// shortDir returns a temporary folder short enough for a socket path.
func shortDir(tb testing.TB) string {
	tb.Helper()
	dir, err := os.MkdirTemp("", "ch")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func startDaemon(tb testing.TB) *testDaemon {
	tb.Helper()
	path := filepath.Join(shortDir(tb), "s.sock")
	s := daemontest.NewSurface()
	d, err := daemon.Listen(daemon.Options{SocketPath: path, Surface: s})
	if err != nil {
		tb.Fatalf("start daemon: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- d.Run(ctx) }()
	td := &testDaemon{d: d, path: path, surface: s, client: wireclient.New(path)}
	td.client.Timeout = 2 * time.Second
	td.stop = sync.OnceFunc(func() {
		cancel()
		select {
		case err := <-errc:
			if err != nil && !errors.Is(err, context.Canceled) {
				tb.Errorf("daemon Run: %v", err)
			}
		case <-time.After(testutil.EventuallyTimeout):
			tb.Errorf("daemon did not stop within %v", testutil.EventuallyTimeout)
		}
	})
	tb.Cleanup(td.stop)
	return td
}

// session waits until want accepts our session in the daemon's status
// (or its absence: found false).
func (td *testDaemon) session(tb testing.TB, want func(s wire.StatusSession, found bool) bool) wire.StatusSession {
	tb.Helper()
	var last wire.StatusSession
	var all []wire.StatusSession
	testutil.EventuallyNoError(tb, "the daemon's session matches", func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		st, err := td.client.Status(ctx)
		cancel()
		if err != nil {
			return err
		}
		last, all = wire.StatusSession{}, st.Sessions
		found := false
		for _, s := range st.Sessions {
			if s.Backend == claudehook.Backend && s.SessionID == sessionID {
				last, found = s, true
			}
		}
		if !want(last, found) {
			return fmt.Errorf("last %+v (found %v), all %+v", last, found, all)
		}
		return nil
	})
	return last
}

// waitState waits until our session is in state s with our label.
func (td *testDaemon) waitState(tb testing.TB, s wire.State) wire.StatusSession {
	tb.Helper()
	return td.session(tb, func(got wire.StatusSession, found bool) bool {
		return found && got.State == s && got.Label == label
	})
}

// fakeHost is a Host with canned pending events that records reports.
type fakeHost struct {
	mu      sync.Mutex
	pending claudehook.PendingEvents
	err     error
	hang    bool // block until the context ends
	reports []claudehook.Report
	reads   int
	// tb checks every report against schemas/claude-report.schema.json.
	tb testing.TB
}

// validate checks one report body against its schema: every body a hook
// sends the host in these tests is validated.
func (h *fakeHost) validate(r claudehook.Report) {
	body, err := json.Marshal(r)
	if err != nil {
		h.tb.Errorf("encode report: %v", err)
		return
	}
	if err := schemas.ValidateJSON(reportSchema(h.tb), body); err != nil {
		h.tb.Errorf("report %s does not match claude-report.schema.json: %v", body, err)
	}
}

func newFakeHost(tb testing.TB) *fakeHost {
	tb.Helper()
	var p claudehook.PendingEvents
	if err := json.Unmarshal(readFile(tb, "testdata/pending.json"), &p); err != nil {
		tb.Fatal(err)
	}
	return &fakeHost{pending: p, tb: tb}
}

func (h *fakeHost) Pending(ctx context.Context) (claudehook.PendingEvents, error) {
	h.mu.Lock()
	h.reads++
	hang, err, p := h.hang, h.err, h.pending
	h.mu.Unlock()
	if ctx.Err() != nil {
		return claudehook.PendingEvents{}, ctx.Err()
	}
	if hang {
		<-ctx.Done()
		return claudehook.PendingEvents{}, ctx.Err()
	}
	return p, err
}

func (h *fakeHost) Report(ctx context.Context, r claudehook.Report) error {
	h.validate(r)
	h.mu.Lock()
	hang, err := h.hang, h.err
	h.reports = append(h.reports, r)
	h.mu.Unlock()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if hang {
		<-ctx.Done()
		return ctx.Err()
	}
	return err
}

func (h *fakeHost) Reports() []claudehook.Report {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]claudehook.Report(nil), h.reports...)
}

// waitReports waits until the host got n reports.
func (h *fakeHost) waitReports(tb testing.TB, n int) []claudehook.Report {
	tb.Helper()
	var rs []claudehook.Report
	testutil.Eventually(tb, fmt.Sprintf("the host got %d reports", n), func() bool {
		rs = h.Reports()
		return len(rs) >= n
	})
	return rs
}

func readFile(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func stdinOf(tb testing.TB, event string) []byte {
	tb.Helper()
	return readFile(tb, filepath.Join("testdata", "stdin", event+".json"))
}

// checkGolden compares got with testdata/golden/<name>.out (rewritten
// with -update).
func checkGolden(tb testing.TB, name string, got []byte) {
	tb.Helper()
	checkGoldenFile(tb, name+".out", got)
}

// checkGoldenFile compares got with testdata/golden/<file>.
func checkGoldenFile(tb testing.TB, file string, got []byte) {
	tb.Helper()
	file = filepath.Join("testdata", "golden", file)
	if *update {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(file, got, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	if len(got) > 0 && strings.HasSuffix(file, ".out") {
		if err := schemas.ValidateJSON(outputSchema(tb), bytes.TrimSuffix(got, []byte("\n"))); err != nil {
			tb.Errorf("hook output %q does not match claude-hook-output.schema.json: %v", got, err)
		}
	}
	if strings.HasSuffix(file, ".wire") {
		for _, line := range bytes.Split(bytes.TrimSuffix(got, []byte("\n")), []byte("\n")) {
			if err := schemas.ValidateJSON(schemaOf(tb, "wire-protocol-1.schema.json"), line); err != nil {
				tb.Errorf("Wire line %s does not match wire-protocol-1.schema.json: %v", line, err)
			}
		}
	}
	want := readFile(tb, file)
	if !bytes.Equal(got, want) {
		tb.Fatalf("stdout differs from %s\n got: %q\nwant: %q", file, got, want)
	}
}

// logBuffer is a logger writing into a buffer safe for concurrent use.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *logBuffer) Logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// options returns hook options against td (nil: no daemon) and host.
func options(td *testDaemon, host claudehook.Host, logs *logBuffer) claudehook.Options {
	o := claudehook.Options{
		NewRequestID: func() string { return requestID },
		ClaudePID:    claudePID,
	}
	if td != nil {
		o.Wire = claudehook.WireClient{C: td.client}
	}
	if host != nil {
		o.Host = host
	}
	if logs != nil {
		o.Logger = logs.Logger()
	}
	return o
}

func testCtx(tb testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*testutil.EventuallyTimeout)
	tb.Cleanup(cancel)
	return ctx
}
