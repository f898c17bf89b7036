package hostclient

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/clock"
	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/hostapi"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// fakeHost is a loopback HTTP server that answers like the host: bearer
// token or 401 with the host's error body.
type fakeHost struct {
	srv   *httptest.Server
	token string
	mu    sync.Mutex
	seen  []*http.Request
	// handle answers an authorized request; nil answers {"ok":true}.
	handle func(w http.ResponseWriter, r *http.Request)
}

func newFakeHost(t *testing.T, token string) *fakeHost {
	t.Helper()
	f := &fakeHost{token: token}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.seen = append(f.seen, r.Clone(context.Background()))
		f.mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer "+f.token {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"error":{"code":"unauthorized","message":"a valid host token is required"}}`))
			return
		}
		if f.handle != nil {
			f.handle(w, r)
			return
		}
		_, _ = w.Write([]byte(`{"ok":true,"path":"` + r.URL.Path + `"}`))
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeHost) port() int { return f.srv.Listener.Addr().(*net.TCPAddr).Port }

func (f *fakeHost) requests() []*http.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*http.Request(nil), f.seen...)
}

func writeHostFile(t *testing.T, paths config.Paths, port int, token string) {
	t.Helper()
	if err := config.WriteHostInfo(paths, config.HostInfo{Port: port, PID: 4242, Token: token, Version: "test"}); err != nil {
		t.Fatal(err)
	}
}

// freePort returns a loopback port nobody listens on (it was free a moment
// ago).
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close()
	return p
}

func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testutil.EventuallyTimeout)
	t.Cleanup(cancel)
	return ctx
}

func TestDoSendsTokenPidAndBody(t *testing.T) {
	paths := config.Paths{Home: t.TempDir()}
	f := newFakeHost(t, "tok-1")
	f.handle = func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		_ = json.NewEncoder(w).Encode(map[string]any{"got": body, "q": r.URL.RawQuery, "ct": r.Header.Get("Content-Type")})
	}
	writeHostFile(t, paths, f.port(), "tok-1")
	c := New(paths, Options{ClaudePID: 777})
	var out struct {
		Got map[string]any `json:"got"`
		Q   string         `json:"q"`
		CT  string         `json:"ct"`
	}
	if err := c.Do(testCtx(t), http.MethodPost, "/lip/open", url.Values{"a": {"b c"}}, map[string]string{"unique": "hello"}, &out); err != nil {
		t.Fatal(err)
	}
	if out.Got["unique"] != "hello" || out.Q != "a=b+c" || out.CT != "application/json" {
		t.Fatalf("the host saw %+v", out)
	}
	reqs := f.requests()
	if len(reqs) != 1 || reqs[0].Header.Get(hostapi.HeaderClaudePID) != "777" {
		t.Fatalf("want one request with %s: 777, got %d requests %v", hostapi.HeaderClaudePID, len(reqs), reqs[0].Header)
	}
	// Without a pid there is no header.
	c2 := New(paths, Options{})
	if err := c2.Do(testCtx(t), http.MethodGet, "/lip/status", nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	if reqs := f.requests(); reqs[1].Header.Get(hostapi.HeaderClaudePID) != "" {
		t.Fatalf("no ClaudePID, yet %s = %q", hostapi.HeaderClaudePID, reqs[1].Header.Get(hostapi.HeaderClaudePID))
	}
}

func TestHostFileIsReadLazilyAndCached(t *testing.T) {
	paths := config.Paths{Home: t.TempDir()}
	c := New(paths, Options{}) // no host.json yet: New must not fail
	f := newFakeHost(t, "tok")
	writeHostFile(t, paths, f.port(), "tok")
	if _, err := c.Status(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	// A host.json pointing elsewhere is not read while the cached host
	// answers.
	writeHostFile(t, paths, freePort(t), "other")
	if _, err := c.Status(testCtx(t)); err != nil {
		t.Fatalf("the cached host answers, yet: %v", err)
	}
	if n := len(f.requests()); n != 2 {
		t.Fatalf("the fake host saw %d requests, want 2", n)
	}
}

func TestReconnectsAfterHostRestartWithNewPortAndToken(t *testing.T) {
	paths := config.Paths{Home: t.TempDir()}
	first := newFakeHost(t, "old-token")
	writeHostFile(t, paths, first.port(), "old-token")
	c := New(paths, Options{})
	if _, err := c.Status(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	// The host restarts: the old one is gone, the new one has another
	// port and token.
	first.srv.Close()
	second := newFakeHost(t, "new-token")
	writeHostFile(t, paths, second.port(), "new-token")
	var raw json.RawMessage
	err := c.Do(testCtx(t), http.MethodGet, hostapi.PathStatus, nil, nil, &raw)
	if err != nil {
		t.Fatalf("the client did not follow the restarted host: %v", err)
	}
	if string(raw) == "" || len(second.requests()) != 1 {
		t.Fatalf("answer %s, the new host saw %d requests", raw, len(second.requests()))
	}
}

func TestRetriesOnceAfter401WithTheNewToken(t *testing.T) {
	paths := config.Paths{Home: t.TempDir()}
	f := newFakeHost(t, "old")
	writeHostFile(t, paths, f.port(), "old")
	c := New(paths, Options{})
	if _, err := c.Status(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	// Same port, new token (a host restarted on a fixed port).
	f.mu.Lock()
	f.token = "new"
	f.mu.Unlock()
	writeHostFile(t, paths, f.port(), "new")
	var out map[string]any
	if err := c.Do(testCtx(t), http.MethodPost, "/lip/send", nil, map[string]any{"win": "w1"}, &out); err != nil {
		t.Fatalf("401 then a new token in host.json: %v", err)
	}
	reqs := f.requests()
	if len(reqs) != 3 || reqs[1].Header.Get("Authorization") != "Bearer old" || reqs[2].Header.Get("Authorization") != "Bearer new" {
		t.Fatalf("want old, old (401), new; got %d requests", len(reqs))
	}
	// A token that stays wrong is an APIError 401 after one retry, not a
	// loop.
	f.mu.Lock()
	f.token = "newer"
	f.mu.Unlock()
	err := c.Do(testCtx(t), http.MethodGet, "/lip/status", nil, nil, nil)
	var ae *APIError
	if !errors.As(err, &ae) || ae.Status != 401 || ae.Code != "unauthorized" {
		t.Fatalf("want *APIError 401 unauthorized, got %v", err)
	}
	if n := len(f.requests()); n != 5 {
		t.Fatalf("a refused token was tried %d times, want 2", n-3)
	}
}

func TestNotRunningErrors(t *testing.T) {
	paths := config.Paths{Home: t.TempDir()}
	// A clock that never moves: a client that waited on it (instead of
	// reporting at once) would never answer.
	c := New(paths, Options{Clock: clock.NewFake(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))})
	err := c.Do(testCtx(t), http.MethodGet, "/lip/status", nil, nil, nil)
	if !errors.Is(err, ErrNotRunning) || !errors.Is(err, config.ErrHostNotRunning) {
		t.Fatalf("no host.json: got %v, want ErrNotRunning (and config.ErrHostNotRunning)", err)
	}
	// host.json names a port nobody listens on: UnreachableError.
	writeHostFile(t, paths, freePort(t), "tok")
	err = c.Do(testCtx(t), http.MethodPost, "/lip/send", nil, map[string]any{}, nil)
	var ue *UnreachableError
	if !errors.As(err, &ue) || !ue.Dial || ue.TimedOut || ue.PID != 4242 {
		t.Fatalf("dead host: got %#v, want *UnreachableError from dialing", err)
	}
}

func TestAPIErrorCarriesTheHostsCode(t *testing.T) {
	paths := config.Paths{Home: t.TempDir()}
	f := newFakeHost(t, "tok")
	f.handle = func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"error":{"code":"unknown_window","message":"window \"w9\" is not open (see GET /lip/windows)"}}`))
	}
	writeHostFile(t, paths, f.port(), "tok")
	_, err := New(paths, Options{}).Close(testCtx(t), "w9")
	var ae *APIError
	if !errors.As(err, &ae) || ae.Status != 404 || ae.Code != "unknown_window" || ae.Message == "" {
		t.Fatalf("got %v", err)
	}
	if n := len(f.requests()); n != 1 {
		t.Fatalf("a 404 was retried: %d requests", n)
	}
}

func TestDecodeErrorOnBadAnswer(t *testing.T) {
	paths := config.Paths{Home: t.TempDir()}
	f := newFakeHost(t, "tok")
	f.handle = func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(`{"events": 12`)) }
	writeHostFile(t, paths, f.port(), "tok")
	_, err := New(paths, Options{}).Listen(testCtx(t), ListenQuery{})
	var de *DecodeError
	if !errors.As(err, &de) || de.Path != "/lip/listen" {
		t.Fatalf("got %v, want *DecodeError", err)
	}
}

func TestStartIsCalledOnceAndWaitedFor(t *testing.T) {
	paths := config.Paths{Home: t.TempDir()}
	var calls atomic.Int32
	host := newFakeHost(t, "started")
	// The started host has written host.json but is not ready at first:
	// its first GET /lip/status says so (503), as a real one still loading
	// its state does; the client must keep asking.
	var statuses atomic.Int32
	host.handle = func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/lip/status" && statuses.Add(1) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(`{"error":{"code":"internal","message":"starting"}}`))
			return
		}
		_, _ = w.Write([]byte(`{"ok":true,"path":"` + r.URL.Path + `"}`))
	}
	c := New(paths, Options{
		StartWait: testutil.EventuallyTimeout, // a limit for a host that never comes up, not a tolerance
		Start: func(ctx context.Context) error {
			calls.Add(1)
			writeHostFile(t, paths, host.port(), "started")
			return nil
		},
	})
	var out map[string]any
	if err := c.Do(testCtx(t), http.MethodGet, "/lip/uniques", nil, nil, &out); err != nil {
		t.Fatalf("the started host was not waited for: %v", err)
	}
	if calls.Load() != 1 || out["path"] != "/lip/uniques" {
		t.Fatalf("Start called %d times, answer %v", calls.Load(), out)
	}
	// The client polled GET /lip/status (until it answered) before sending
	// the request.
	reqs := host.requests()
	if len(reqs) < 3 || reqs[0].URL.Path != "/lip/status" || reqs[1].URL.Path != "/lip/status" || reqs[len(reqs)-1].URL.Path != "/lip/uniques" {
		var got []string
		for _, r := range reqs {
			got = append(got, r.URL.Path)
		}
		t.Fatalf("requests %v; want /lip/status until it answers, then /lip/uniques", got)
	}
	// Now the host runs: no more starts.
	if _, err := c.Status(testCtx(t)); err != nil || calls.Load() != 1 {
		t.Fatalf("status %v, Start calls %d", err, calls.Load())
	}
}

func TestStartThatNeverAnswersGivesUp(t *testing.T) {
	paths := config.Paths{Home: t.TempDir()}
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	fc := clock.NewFake(t0)
	c := New(paths, Options{StartWait: 300 * time.Millisecond, Clock: fc, Start: func(context.Context) error { return nil }})
	done := make(chan error, 1)
	go func() { done <- c.Do(testCtx(t), http.MethodGet, "/lip/status", nil, nil, nil) }()
	// The client polls on its clock's ticker and keeps waiting until
	// StartWait has passed on that clock.
	for fc.Now().Sub(t0) < 300*time.Millisecond {
		if err := fc.BlockUntil(testCtx(t), 1); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-done:
			t.Fatalf("gave up after %v of its 300ms: %v", fc.Now().Sub(t0), err)
		default:
		}
		fc.Advance(pollEvery)
	}
	err := testutil.Wait(t, "the client to give up", done)
	var se *StartError
	if !errors.As(err, &se) || se.Waited != 300*time.Millisecond || !errors.Is(err, ErrNotRunning) {
		t.Fatalf("got %v, want *StartError that is ErrNotRunning", err)
	}
	// A failing Start says why.
	boom := errors.New("no display and no lets binary")
	c = New(paths, Options{Start: func(context.Context) error { return boom }})
	err = c.Do(testCtx(t), http.MethodGet, "/lip/status", nil, nil, nil)
	if !errors.As(err, &se) || !errors.Is(err, boom) || !errors.Is(err, config.ErrHostNotRunning) {
		t.Fatalf("got %v", err)
	}
}

func TestConcurrentRequestsStartOneHost(t *testing.T) {
	paths := config.Paths{Home: t.TempDir()}
	host := newFakeHost(t, "tok")
	var calls atomic.Int32
	c := New(paths, Options{StartWait: testutil.EventuallyTimeout, Start: func(context.Context) error {
		calls.Add(1)
		writeHostFile(t, paths, host.port(), "tok")
		return nil
	}})
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.Windows(testCtx(t))
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := calls.Load(); n != 1 {
		t.Fatalf("Start was called %d times for 8 concurrent requests, want 1", n)
	}
}

func TestTimeoutIsNotNoHost(t *testing.T) {
	paths := config.Paths{Home: t.TempDir()}
	release := make(chan struct{})
	f := newFakeHost(t, "tok")
	f.handle = func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}
	t.Cleanup(func() { close(release) })
	writeHostFile(t, paths, f.port(), "tok")
	var started atomic.Int32
	c := New(paths, Options{Timeout: 200 * time.Millisecond, Start: func(context.Context) error { started.Add(1); return nil }})
	err := c.Do(testCtx(t), http.MethodPost, "/lip/send", nil, map[string]any{}, nil)
	var ue *UnreachableError
	if !errors.As(err, &ue) || !ue.TimedOut {
		t.Fatalf("got %v, want a timed-out *UnreachableError", err)
	}
	if started.Load() != 0 || len(f.requests()) != 1 {
		t.Fatalf("a slow host must not be restarted or sent a POST twice: starts %d, requests %d", started.Load(), len(f.requests()))
	}
}

func TestCallerCancelIsContextError(t *testing.T) {
	paths := config.Paths{Home: t.TempDir()}
	f := newFakeHost(t, "tok")
	f.handle = func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }
	writeHostFile(t, paths, f.port(), "tok")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := New(paths, Options{}).Listen(ctx, ListenQuery{Wait: time.Second})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want the caller's deadline", err)
	}
}

func TestListenQueryValues(t *testing.T) {
	q := ListenQuery{Cursor: "claude", Wait: 1500 * time.Millisecond, Max: 7, Types: []string{"a.b", "c.d"}, Window: "w2", Beyond: "claude"}
	want := url.Values{"cursor": {"claude"}, "wait_ms": {"1500"}, "max": {"7"}, "types": {"a.b,c.d"}, "window": {"w2"}, "beyond": {"claude"}}
	if got := q.Values(); got.Encode() != want.Encode() {
		t.Fatalf("got %s, want %s", got.Encode(), want.Encode())
	}
	if got := (ListenQuery{Wait: -1}).Values(); len(got) != 0 {
		t.Fatalf("a default query should be empty, got %s", got.Encode())
	}
	if got := (ListenQuery{}).Values().Get("wait_ms"); got != "0" {
		t.Fatalf("Wait 0 means do not wait; got wait_ms=%q", got)
	}
}

func TestHostFileReadableByOthersIsRefused(t *testing.T) {
	paths := config.Paths{Home: t.TempDir()}
	writeHostFile(t, paths, 1, "tok")
	if err := os.Chmod(paths.HostFile(), 0o644); err != nil {
		t.Fatal(err)
	}
	err := New(paths, Options{}).Do(testCtx(t), http.MethodGet, "/lip/status", nil, nil, nil)
	var he *HostFileError
	if !errors.As(err, &he) || he.Path != paths.HostFile() {
		t.Fatalf("got %v, want *HostFileError", err)
	}
}

// TestWireSocketIsTheAnnouncedOne: a hook learns the pad daemon's socket
// from the running host's host.json through the client (nothing else
// reads that file), "" when no host runs or it runs no daemon, and a
// restarted host's new socket is seen.
func TestWireSocketIsTheAnnouncedOne(t *testing.T) {
	paths := config.Paths{Home: t.TempDir()}
	c := New(paths, Options{})
	if got := c.WireSocket(); got != "" {
		t.Fatalf("no host runs, but WireSocket = %q", got)
	}
	for _, sock := range []string{"/run/user/1000/lets/pad.sock", "", "/tmp/other/pad.sock"} {
		if err := config.WriteHostInfo(paths, config.HostInfo{Port: 1, PID: 4242, Token: "t", WireSocket: sock}); err != nil {
			t.Fatal(err)
		}
		if got := c.WireSocket(); got != sock {
			t.Errorf("WireSocket = %q, want %q", got, sock)
		}
	}
}
