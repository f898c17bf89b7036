package cli

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/testenv/letstest"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

type testEnv struct {
	*Env
	out, err *syncBuffer
	home     string
}

func newTestEnv(t *testing.T) *testEnv {
	t.Helper()
	le := letstest.New(t)
	return &testEnv{
		Env:  &Env{Stdout: le.Out, Stderr: le.Err, Getenv: le.Getenv},
		out:  le.Out,
		err:  le.Err,
		home: le.Home,
	}
}

func (e *testEnv) run(args ...string) int {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return Run(ctx, e.Env, args)
}

func TestUsageErrorsExitTwoAndNameTheToken(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"bogus"}, `unknown command "bogus"`},
		{[]string{"stauts"}, `did you mean "status"`},
		{[]string{"--frobnicate"}, `unknown flag "--frobnicate"`},
		{[]string{"status", "--nope"}, "unknown flag -nope"},
		{[]string{"version", "extra"}, `unexpected argument "extra"`},
		{[]string{"serve", "--port", "99999"}, "--port 99999 is not a port number"},
		{[]string{"serve", "--port", "abc"}, `invalid value "abc" for flag -port`},
		{[]string{"help", "nope"}, `unknown command "nope"`},
		{[]string{"doctor", "x"}, `unexpected argument "x"`},
	}
	for _, c := range cases {
		e := newTestEnv(t)
		if code := e.run(c.args...); code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", c.args, code, e.err.String())
		}
		if !strings.Contains(e.err.String(), c.want) {
			t.Errorf("%v: stderr %q should contain %q", c.args, e.err.String(), c.want)
		}
		if !strings.Contains(e.err.String(), "Usage:") {
			t.Errorf("%v: usage not printed: %q", c.args, e.err.String())
		}
		if strings.Count(strings.TrimSpace(strings.SplitN(e.err.String(), "Usage", 2)[0]), "\n") > 0 {
			t.Errorf("%v: the error should be one line before the usage: %q", c.args, e.err.String())
		}
	}
}

func TestHelpAndVersion(t *testing.T) {
	e := newTestEnv(t)
	if code := e.run("help"); code != 0 {
		t.Fatalf("help exit %d", code)
	}
	for _, name := range []string{"serve", "status", "doctor", "version"} {
		if !strings.Contains(e.out.String(), "  "+name) {
			t.Errorf("help does not list %s:\n%s", name, e.out.String())
		}
	}
	e = newTestEnv(t)
	if code := e.run("status", "-h"); code != 0 || !strings.Contains(e.out.String(), "-json") {
		t.Fatalf("status -h: exit %d, %q", code, e.out.String())
	}
	e = newTestEnv(t)
	if code := e.run("help", "serve"); code != 0 || !strings.Contains(e.out.String(), "Usage: lets serve") || !strings.Contains(e.out.String(), "-port") {
		t.Fatalf("help serve: exit %d, %q", code, e.out.String())
	}
	e = newTestEnv(t)
	if code := e.run("--version"); code != 0 || !strings.HasPrefix(e.out.String(), "lets "+Version) {
		t.Fatalf("--version: %d %q", code, e.out.String())
	}
}

func TestStatusWhenNotRunning(t *testing.T) {
	e := newTestEnv(t)
	if code := e.run("status"); code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	if !strings.Contains(e.out.String(), "Lets is not running") || !strings.Contains(e.out.String(), "lets serve") {
		t.Fatalf("got %q", e.out.String())
	}
}

// startServe runs `lets serve` in-process until the returned stop is called.
func startServe(t *testing.T, e *testEnv, args ...string) (stop func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() { done <- Run(ctx, e.Env, append([]string{"serve"}, args...)) }()
	var once sync.Once
	code := 0
	stop = func() int {
		once.Do(func() {
			cancel()
			code = testutil.Wait(t, "serve stops", done)
		})
		return code
	}
	t.Cleanup(func() { stop() })
	testutil.Eventually(t, "serve starts", func() bool {
		select {
		case code := <-done:
			done <- code // for stop
			t.Fatalf("serve exited early with %d: %s%s", code, e.out.String(), e.err.String())
		default:
		}
		return strings.Contains(e.out.String(), "Press Ctrl+C")
	})
	return stop
}

func TestServeThenStatusThenSecondServeThenStop(t *testing.T) {
	e := newTestEnv(t)
	stop := startServe(t, e)

	out := e.out.String()
	for _, want := range []string{"Listening on: http://127.0.0.1:", "Browser pad:  http://127.0.0.1:", "Data folder:  " + e.home, "lets.log"} {
		if !strings.Contains(out, want) {
			t.Errorf("serve output %q should contain %q", out, want)
		}
	}
	paths := config.Paths{Home: e.home}
	info, err := config.ReadHostInfo(paths)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(paths.HostFile())
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("host.json mode %o", fi.Mode().Perm())
	}
	if strings.Contains(e.out.String()+e.err.String(), info.Token) {
		t.Fatal("the host token must never be printed")
	}

	st := newTestEnv(t)
	st.Env.Getenv = e.Env.Getenv
	if code := st.run("status"); code != 0 {
		t.Fatalf("status exit %d: %s%s", code, st.out.String(), st.err.String())
	}
	if !strings.Contains(st.out.String(), "is running") || !strings.Contains(st.out.String(), e.home) {
		t.Fatalf("status output: %q", st.out.String())
	}
	// The browser pad answers with the pad app.
	padURL := regexp.MustCompile(`Browser pad:  (http://127\.0\.0\.1:\d+/)`).FindStringSubmatch(e.out.String())
	if padURL == nil {
		t.Fatalf("no browser pad address in %q", e.out.String())
	}
	resp, err := http.Get(padURL[1])
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(page), "<html") {
		t.Fatalf("browser pad page: %d %.200q", resp.StatusCode, page)
	}
	sock := e.Env.Getenv("PAD_LATTICE_SOCKET")
	if !strings.Contains(st.out.String(), "Pad daemon:   "+sock) || info.WireSocket != sock {
		t.Fatalf("status should name the pad daemon socket %s: %q (host.json %q)", sock, st.out.String(), info.WireSocket)
	}
	ping := newTestEnv(t)
	ping.Env.Getenv = e.Env.Getenv
	if code := ping.run("pad", "ping"); code != 0 {
		t.Fatalf("lets pad ping against lets serve: exit %d %s%s", code, ping.out.String(), ping.err.String())
	}
	doc := newTestEnv(t)
	doc.Env.Getenv = e.Env.Getenv
	doc.run("doctor")
	for _, want := range []string{"answers on " + "http://127.0.0.1:", sock + " answers ping"} {
		if !strings.Contains(doc.out.String(), want) {
			t.Errorf("doctor against a running Lets should report %q:\n%s", want, doc.out.String())
		}
	}
	js := newTestEnv(t)
	js.Env.Getenv = e.Env.Getenv
	if code := js.run("status", "--json"); code != 0 {
		t.Fatalf("status --json exit %d", code)
	}
	var parsed map[string]any
	if err := json.Unmarshal([]byte(js.out.String()), &parsed); err != nil || parsed["data_dir"] != e.home {
		t.Fatalf("status --json: %v %q", err, js.out.String())
	}

	second := newTestEnv(t)
	second.Env.Getenv = e.Env.Getenv
	if code := second.run("serve"); code != 1 {
		t.Fatalf("second serve exit %d, want 1", code)
	}
	if !strings.Contains(second.err.String(), "already running") || !strings.Contains(second.err.String(), "pid") {
		t.Fatalf("second serve should say who holds the lock: %q", second.err.String())
	}
	if _, err := config.ReadHostInfo(paths); err != nil {
		t.Fatalf("the second serve must not disturb the first one's host.json: %v", err)
	}

	if code := stop(); code != 0 {
		t.Fatalf("serve stopped with %d: %s", code, e.err.String())
	}
	if _, err := os.Stat(paths.HostFile()); !os.IsNotExist(err) {
		t.Fatal("host.json should be removed on a clean stop")
	}
	if _, err := os.Stat(sock); !os.IsNotExist(err) {
		t.Fatal("the pad socket should be removed on a clean stop")
	}
	if !strings.Contains(e.out.String(), "Lets stopped") {
		t.Fatalf("no goodbye: %q", e.out.String())
	}
}

func TestServeWarnsAboutBrokenConfigButRuns(t *testing.T) {
	e := newTestEnv(t)
	if err := os.MkdirAll(e.home, 0o700); err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(e.home, "config.json")
	if err := os.WriteFile(cfgPath, []byte("{\n\"handoff\": \n}"), 0o600); err != nil {
		t.Fatal(err)
	}
	stop := startServe(t, e)
	stop()
	if !strings.Contains(e.err.String(), "config.json:3:") {
		t.Fatalf("the warning should name the file and line: %q", e.err.String())
	}
	if data, _ := os.ReadFile(cfgPath); string(data) != "{\n\"handoff\": \n}" {
		t.Fatal("broken config.json was rewritten")
	}
}

func TestServeWithoutPad(t *testing.T) {
	e := newTestEnv(t)
	stop := startServe(t, e, "--no-pad")
	if !strings.Contains(e.out.String(), "Pad daemon:   off") {
		t.Fatalf("serve --no-pad should say the pad daemon is off: %q", e.out.String())
	}
	if _, err := os.Stat(e.Env.Getenv("PAD_LATTICE_SOCKET")); !os.IsNotExist(err) {
		t.Fatal("--no-pad must not create the socket")
	}
	if code := stop(); code != 0 {
		t.Fatalf("stop: %d", code)
	}
}
