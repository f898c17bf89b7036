package lets

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/lets-app/lets/app/window"
	"github.com/lets-app/lets/app/window/spawn"
	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/host"
	"github.com/lets-app/lets/backend/logging"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// scriptedWindow is a window process the test ends by hand.
type scriptedWindow struct {
	launch window.Launch
	r      *io.PipeReader
	w      *io.PipeWriter
	once   sync.Once
	exit   chan spawn.Exit
	termed chan struct{}
}

func (c *scriptedWindow) PID() int           { return 4242 }
func (c *scriptedWindow) Reports() io.Reader { return c.r }
func (c *scriptedWindow) Wait() spawn.Exit   { return <-c.exit }
func (c *scriptedWindow) end(e spawn.Exit) {
	c.once.Do(func() { _ = c.w.Close(); c.exit <- e })
}
func (c *scriptedWindow) Terminate() error {
	select {
	case <-c.termed:
	default:
		close(c.termed)
	}
	c.end(spawn.Exit{Code: 0})
	return nil
}
func (c *scriptedWindow) Kill() error { c.end(spawn.Exit{Code: -1, Signal: "killed"}); return nil }

// newScriptedWindow is a fake window process for launch l.
func newScriptedWindow(l window.Launch) *scriptedWindow {
	r, w := io.Pipe()
	return &scriptedWindow{launch: l, r: r, w: w, exit: make(chan spawn.Exit, 1), termed: make(chan struct{})}
}

// startWindowsHost runs, until the test ends, a host (with token) whose
// windows open as native windows started by start, and the window
// processes' service.
func startWindowsHost(t *testing.T, token string, start spawn.Starter) (*host.Server, *nativeWindows, *Setup) {
	t.Helper()
	home := t.TempDir()
	st := &Setup{Paths: config.Paths{Home: home}, Log: logging.New(io.Discard, nil, 0)}
	if err := config.Ensure(st.Paths, st.Log); err != nil {
		t.Fatal(err)
	}
	wins := newNativeWindowsWith(start, st)
	srv, err := host.Listen(wins.hostOptions(host.Options{Token: token, DataDir: home}))
	if err != nil {
		t.Fatal(err)
	}
	services := wins.attach(srv, nil)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); _ = srv.Run(ctx) }()
	go func() { defer wg.Done(); _ = services[0].Run(ctx) }()
	t.Cleanup(func() { cancel(); wg.Wait() })
	return srv, wins, st
}

// rigDesktop is the desktop around srv, its browser replaced by opened.
func rigDesktop(srv *host.Server, st *Setup, opened chan string) *Desktop {
	env := &Env{Stdout: io.Discard, Stderr: io.Discard, OpenURL: func(u string) error { opened <- u; return nil }}
	return &Desktop{Env: env, hostURL: srv.URL(), homeLink: srv.HomeLink, log: st.Log}
}

// TestNativeWindowsWiring: with native windows on, POST /lip/open starts a
// window process with the one-time URL (the caller does not get it); the
// person closing it becomes session.closed "human", a crash "crash", and
// POST /lip/close ends the process.
func TestNativeWindowsWiring(t *testing.T) {
	started := make(chan *scriptedWindow, 4)
	const tok = "wiring-test-host-token-0123456789abcdef"
	srv, _, _ := startWindowsHost(t, tok, func(l window.Launch) (spawn.Child, error) {
		c := newScriptedWindow(l)
		started <- c
		return c, nil
	})

	call := func(method, path string, body any) map[string]any {
		t.Helper()
		b, _ := json.Marshal(body)
		req, _ := http.NewRequest(method, srv.URL()+path, bytes.NewReader(b))
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&out)
		if resp.StatusCode != 200 {
			t.Fatalf("%s %s: %d %v", method, path, resp.StatusCode, out)
		}
		return out
	}
	next := func() *scriptedWindow {
		t.Helper()
		return testutil.Wait(t, "a window process to be started", started)
	}
	closedReason := func(win string) string {
		t.Helper()
		var reason string
		// Each listen waits up to a second for the event itself.
		testutil.Eventually(t, "session.closed for "+win, func() bool {
			out := call("GET", "/lip/listen?cursor=wiring&wait=1s&types=session.closed", nil)
			evs, _ := out["events"].([]any)
			for _, e := range evs {
				m := e.(map[string]any)
				if m["win"] == win {
					reason = m["data"].(map[string]any)["reason"].(string)
					return true
				}
			}
			return false
		})
		return reason
	}

	// The person closes the window.
	ans := call("POST", "/lip/open", map[string]string{"unique": "hello"})
	c := next()
	if ans["url"] != nil || !strings.Contains(c.launch.URL, "/w/"+ans["window"].(string)+"/?t=") || c.launch.Title == "" {
		t.Fatalf("answer %v, launch %+v: the one-time URL goes to the window only", ans, c.launch)
	}
	c.end(spawn.Exit{Code: 0})
	if r := closedReason(ans["window"].(string)); r != "human" {
		t.Fatalf("closed by the person: reason %q", r)
	}

	// The window process crashes.
	ans = call("POST", "/lip/open", map[string]string{"unique": "hello"})
	c = next()
	c.end(spawn.Exit{Code: -1, Signal: "killed"})
	if r := closedReason(ans["window"].(string)); r != "crash" {
		t.Fatalf("crashed: reason %q", r)
	}

	// Claude closes it: the process is ended.
	ans = call("POST", "/lip/open", map[string]string{"unique": "hello"})
	c = next()
	call("POST", "/lip/close", map[string]string{"window": ans["window"].(string)})
	testutil.Wait(t, "the window process to be ended after POST /lip/close", c.termed)
	if r := closedReason(ans["window"].(string)); r != "claude" {
		t.Fatalf("closed by Claude: reason %q", r)
	}
}

// TestWindowProgramIsTheSiblingInAPlainBuild: a lets built without the
// desktop tags (the fast one Claude Code runs for hooks) shows native
// windows through lets-window beside it, found through a symlinked lets
// too; a build with window support uses itself; without an executable
// sibling windows open in the browser.
func TestWindowProgramIsTheSiblingInAPlainBuild(t *testing.T) {
	dir := t.TempDir()
	lets := filepath.Join(dir, "lets")
	if err := os.WriteFile(lets, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if p, ok := windowProgram(lets, true); !ok || p != lets {
		t.Fatalf("with window support: %q %v", p, ok)
	}
	if p, ok := windowProgram(lets, false); ok {
		t.Fatalf("no sibling, yet %q", p)
	}
	sib := filepath.Join(dir, WindowProgram)
	if err := os.WriteFile(sib, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if p, ok := windowProgram(lets, false); ok {
		t.Fatalf("a sibling that is not executable was taken: %q", p)
	}
	if err := os.Chmod(sib, 0o755); err != nil {
		t.Fatal(err)
	}
	if p, ok := windowProgram(lets, false); !ok || p != sib {
		t.Fatalf("sibling: %q %v, want %q", p, ok, sib)
	}
	// /usr/local/bin/lets → /opt/lets/lets: the sibling of the real file.
	links := t.TempDir()
	link := filepath.Join(links, "lets")
	if err := os.Symlink(lets, link); err != nil {
		t.Fatal(err)
	}
	if p, ok := windowProgram(link, false); !ok || p != sib {
		t.Fatalf("through a symlink: %q %v, want %q", p, ok, sib)
	}
}
