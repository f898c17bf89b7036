package cli

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/hostapi"
	"github.com/lets-app/lets/backend/sessions"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// startLIPServe runs `lets serve` in-process on a free port and waits for
// host.json.
func startLIPServe(t *testing.T, setup ...func(*testEnv)) (*testEnv, config.HostInfo) {
	t.Helper()
	e := newTestEnv(t)
	for _, f := range setup {
		f(e)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() { done <- Run(ctx, e.Env, []string{"serve", "--port", "0", "--no-pad"}) }()
	t.Cleanup(func() {
		cancel()
		testutil.Wait(t, "lets serve stops", done)
	})
	var info config.HostInfo
	testutil.Eventually(t, "lets serve writes host.json", func() bool {
		var err error
		info, err = config.ReadHostInfo(config.Paths{Home: e.home})
		return err == nil && strings.Contains(e.out.String(), "Press Ctrl+C")
	})
	e.out.Reset()
	return e, info
}

func runCmd(e *testEnv, f func(context.Context, *Env, []string) error, args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return f(ctx, e.Env, args)
}

// loadWindow loads a window's one-time URL as its page does and returns
// the window token the shell page carries.
func loadWindow(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	page, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("load %s: %d %s", url, resp.StatusCode, page)
	}
	_, rest, ok := strings.Cut(string(page), `<script type="application/json" id="lets-config">`)
	cfgText, _, ok2 := strings.Cut(rest, "</script>")
	var cfg struct {
		Token string `json:"token"`
	}
	if !ok || !ok2 || json.Unmarshal([]byte(cfgText), &cfg) != nil || cfg.Token == "" {
		t.Fatalf("the shell page has no token:\n%s", page)
	}
	return cfg.Token
}

// browserRecord is a desktop browser that writes down what it was asked
// to open (the serve process's own, issue #23).
type browserRecord struct {
	mu     sync.Mutex
	opened []string
}

func (b *browserRecord) open(u string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.opened = append(b.opened, u)
	return nil
}

func (b *browserRecord) list() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.opened...)
}

// onADesktop gives serve a display and a recording browser.
func onADesktop(b *browserRecord) func(*testEnv) {
	return func(e *testEnv) {
		get := e.Env.Getenv
		e.Env.Getenv = func(k string) string {
			if k == "DISPLAY" {
				return ":99"
			}
			return get(k)
		}
		e.Env.OpenURL = b.open
	}
}

// TestOpenListenSendAgainstServe drives the LIP commands against a real
// `lets serve` (issue #10, CLI affordances) on a desktop: `lets open`
// prints the window; Lets itself (not the CLI) opens it in the browser
// (issue #23); `lets windows`, `lets sessions` and `lets close` work;
// errors point to commands, never to API paths.
func TestOpenListenSendAgainstServe(t *testing.T) {
	browser := &browserRecord{}
	e, info := startLIPServe(t, onADesktop(browser))
	fi, err := os.Stat(config.Paths{Home: e.home}.HostFile())
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("host.json must be 0600: %v %v", fi, err)
	}
	// The commands get their own Env, whose browser must stay unused: the
	// CLI never gets a window's link.
	cliEnv := *e.Env
	cliEnv.OpenURL = func(u string) error { t.Errorf("the CLI opened %s itself", u); return nil }
	e = &testEnv{Env: &cliEnv, out: e.out, err: e.err, home: e.home}

	if err := runCmd(e, runOpen, "hello"); err != nil {
		t.Fatalf("open: %v (%s)", err, e.err.String())
	}
	out := e.out.String()
	opened := browser.list()
	if len(opened) != 1 || !strings.HasPrefix(opened[0], "http://127.0.0.1:") || !strings.Contains(opened[0], "/w/w1/") {
		t.Fatalf("the browser was asked to open %v", opened)
	}
	if strings.Contains(out, "/w/w1/") || strings.Contains(out, "?t=") {
		t.Errorf("lets open printed the window's link: %q", out)
	}
	for _, want := range []string{"Opened hello as window w1.", "Lets opened it on your screen", "`lets close w1`", "Events it sends: hello.export, hello.note"} {
		if !strings.Contains(out, want) {
			t.Errorf("open printed %q, want %q in it", out, want)
		}
	}
	if strings.Contains(out, "--print-url") || strings.Contains(out, "lets open hello") {
		t.Errorf("open must not advise opening a second window: %q", out)
	}
	wtok := loadWindow(t, opened[0]) // the browser loads it

	e.out.Reset()
	if err := runCmd(e, runListen, "--wait", "2s", "--types", "session.open", "--json"); err != nil {
		t.Fatalf("listen: %v", err)
	}
	var ans hostapi.ListenResult
	if err := json.Unmarshal([]byte(e.out.String()), &ans); err != nil || len(ans.Events) != 1 || ans.Epoch == "" {
		t.Fatalf("listen --json: %v %s", err, e.out.String())
	}

	// The window's shell channel, as the shell page opens it.
	port := info.Port
	ws, _, err := websocket.DefaultDialer.Dial("ws://127.0.0.1:"+itoaPort(port)+"/lip/ws?t="+wtok, http.Header{"Origin": {"http://127.0.0.1:" + itoaPort(port)}})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	defer ws.Close()
	_ = ws.WriteJSON(map[string]any{"lip": 1, "id": "h1", "type": "lip.hello", "from": "shell", "data": map[string]any{"window": "w1"}})
	_ = ws.WriteJSON(map[string]any{"lip": 1, "id": "r1", "type": "lip.ready", "from": "shell", "data": map[string]any{}})

	e.out.Reset()
	if err := runCmd(e, runSend, "w1", "hello.show", `{"text":"from the CLI"}`); err != nil {
		t.Fatalf("send: %v %s", err, e.err.String())
	}
	if !strings.Contains(e.out.String(), "Queued cm_") {
		t.Fatalf("send printed %q", e.out.String())
	}
	_ = ws.SetReadDeadline(time.Now().Add(3 * time.Second))
	got := false
	for !got {
		_, data, err := ws.ReadMessage()
		if err != nil {
			t.Fatalf("no command arrived: %v", err)
		}
		got = strings.Contains(string(data), `"type":"hello.show"`) && strings.Contains(string(data), "from the CLI")
	}

	// An undeclared type is refused with exit code 1 and a reason.
	e.err.Reset()
	err = runCmd(e, runSend, "w1", "hello.explode")
	if ee, ok := err.(exitError); !ok || ee.code != 1 || !strings.Contains(e.err.String(), "undeclared_type") {
		t.Fatalf("undeclared send: %v, stderr %q", err, e.err.String())
	}
	// The unique's event, in the plain listing.
	_ = ws.WriteJSON(map[string]any{"lip": 1, "id": "ev_x1", "type": "hello.wave", "from": "unique", "data": map[string]any{"n": 1}})
	e.out.Reset()
	if err := runCmd(e, runListen, "--wait", "3s", "--types", "hello.wave", "--window", "w1"); err != nil {
		t.Fatal(err)
	}
	if line := e.out.String(); !strings.Contains(line, "\tw1\thello.wave\tunique:hello#w1\t{\"n\":1}") {
		t.Fatalf("listen line %q", line)
	}

	// --no-browser is gone, and says so.
	if err := runCmd(e, runOpen, "hello", "--no-browser"); err == nil || !strings.Contains(err.Error(), "--no-browser is gone") {
		t.Fatalf("open --no-browser: %v", err)
	}
	// A second window, for machines: --json, with no URL in it.
	e.out.Reset()
	if err := runCmd(e, runOpen, "hello", "--json"); err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Window, Unique, Shown string
		Events                map[string]string
	}
	if err := json.Unmarshal([]byte(e.out.String()), &rep); err != nil || rep.Window != "w2" || strings.Contains(e.out.String(), `"url"`) || strings.Contains(e.out.String(), "?t=") || rep.Unique != "hello" || rep.Shown != "window" || rep.Events["hello.wave"] == "" {
		t.Fatalf("open --json: %v %s", err, e.out.String())
	}

	// lets windows lists both; --json for machines.
	e.out.Reset()
	if err := runCmd(e, runWindows); err != nil {
		t.Fatal(err)
	}
	if w := e.out.String(); !regexp.MustCompile(`(?m)^w1\s+hello\s+.*connected`).MatchString(w) || !regexp.MustCompile(`(?m)^w2\s+hello\s+.*waiting for its page`).MatchString(w) {
		t.Fatalf("windows printed %q", w)
	}
	e.out.Reset()
	if err := runCmd(e, runWindows, "--json"); err != nil {
		t.Fatal(err)
	}
	var rows []hostapi.Window
	if err := json.Unmarshal([]byte(e.out.String()), &rows); err != nil || len(rows) != 2 || rows[0].Window != "w1" || !rows[0].Connected {
		t.Fatalf("windows --json: %v %s", err, e.out.String())
	}

	// lets sessions: none yet, then the snapshot the unique saves.
	e.out.Reset()
	if err := runCmd(e, runSessions, "hello"); err != nil || !strings.Contains(e.out.String(), "hello has no saved sessions yet") {
		t.Fatalf("sessions (none): %v %q", err, e.out.String())
	}
	_ = ws.WriteJSON(map[string]any{"lip": 1, "id": "ev_s1", "type": "hello.snapshot", "from": "unique", "data": map[string]any{"summary": "two notes", "notes": []any{}}})
	var sess []sessions.Info
	testutil.Eventually(t, "lets sessions lists the snapshot", func() bool {
		e.out.Reset()
		if err := runCmd(e, runSessions, "hello", "--json"); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(e.out.String()), &sess); err != nil {
			t.Fatalf("sessions --json: %v %s", err, e.out.String())
		}
		return len(sess) > 0
	})
	if len(sess) != 1 || sess[0].Unique != "hello" || sess[0].ID == "" {
		t.Fatalf("sessions after a snapshot: %+v", sess)
	}
	e.out.Reset()
	if err := runCmd(e, runSessions); err != nil || !strings.Contains(e.out.String(), sess[0].ID) || !strings.Contains(e.out.String(), "--resume") {
		t.Fatalf("sessions: %v %q", err, e.out.String())
	}

	// lets close: the window that never loaded goes at once.
	e.out.Reset()
	if err := runCmd(e, runClose, "w2"); err != nil || !strings.Contains(e.out.String(), "Asked window w2 to close") {
		t.Fatalf("close: %v %q", err, e.out.String())
	}
	e.out.Reset()
	if err := runCmd(e, runWindows, "--json"); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(e.out.String()), &rows); err != nil || len(rows) != 1 || rows[0].Window != "w1" {
		t.Fatalf("after close: %v %s", err, e.out.String())
	}

	// Mistakes point to the commands that help, never to API paths.
	errs := map[string]error{}
	errs["open nosuch"] = runCmd(e, runOpen, "nosuch")
	errs["open --resume"] = runCmd(e, runOpen, "hello", "--resume", "ss_nothing")
	errs["close w9"] = runCmd(e, runClose, "w9")
	e.err.Reset()
	errs["send w9"] = runCmd(e, runSend, "w9", "ui.toast", `{"text":"hi"}`)
	for name, want := range map[string]string{
		"open nosuch": "`lets uniques`", "open --resume": "`lets sessions hello`", "close w9": "`lets windows`",
	} {
		if err := errs[name]; err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "/lip/") {
			t.Errorf("%s: %v, want a pointer to %s", name, err, want)
		}
	}
	if ee, ok := errs["send w9"].(exitError); !ok || ee.code != 1 || !strings.Contains(e.err.String(), "`lets windows`") || strings.Contains(e.err.String(), "/lip/") {
		t.Errorf("send w9: %v, stderr %q", errs["send w9"], e.err.String())
	}
	if err := runCmd(e, runSend, "w1"); err == nil {
		t.Fatal("send without a type must be a usage error")
	}
	if err := runCmd(e, runListen, "--wait", "60s"); err == nil {
		t.Fatal("--wait 60s must be refused")
	}
	// The host token never reaches the output, nor do API paths.
	all := e.out.String() + e.err.String()
	if strings.Contains(all, info.Token) {
		t.Fatal("the host token was printed")
	}
	if strings.Contains(all, "GET /lip") || strings.Contains(all, "POST /lip") {
		t.Fatalf("an API path was printed: %q", all)
	}
}

// TestLIPCommandsWithoutHost say how to start Lets.
func TestLIPCommandsWithoutHost(t *testing.T) {
	e := newTestEnv(t)
	for name, f := range map[string]func(context.Context, *Env, []string) error{"open": runOpen, "listen": runListen, "send": runSend, "windows": runWindows, "sessions": runSessions, "close": runClose} {
		args := map[string][]string{"open": {"hello"}, "listen": {"--wait", "0s"}, "send": {"w1", "ui.toast"}, "close": {"w1"}}[name]
		err := runCmd(e, f, args...)
		if err == nil || !strings.Contains(err.Error(), "not running") {
			t.Errorf("%s without a host: %v", name, err)
		}
	}
}

func itoaPort(p int) string {
	b, _ := json.Marshal(p)
	return string(b)
}

// TestOpenOnHeadlessServeWaitsOnHome (issue #23): on a `lets serve`
// without a display nothing can show a window, so it waits for the person
// on the home page. `lets open` (the host token) says where, with no link
// to the window, also in --json; serve's own output (the person's
// terminal) says a window waits, without its key.
func TestOpenOnHeadlessServeWaitsOnHome(t *testing.T) {
	e, info := startLIPServe(t)
	e.Env.OpenURL = func(u string) error { t.Errorf("something opened %s in a browser on a headless Lets", u); return nil }
	if err := runCmd(e, runOpen, "hello"); err != nil {
		t.Fatalf("open: %v (%s)", err, e.err.String())
	}
	home := "http://127.0.0.1:" + itoaPort(info.Port) + "/"
	testutil.Eventually(t, "serve says a window waits and lets open says where", func() bool {
		out := e.out.String()
		return strings.Contains(out, "Opened hello as window w1.") &&
			strings.Contains(out, "It is waiting for you on Lets' home page: "+home) &&
			strings.Contains(out, "A window is waiting for you: ")
	})
	if out := e.out.String(); strings.Contains(out, "/w/") || strings.Contains(out, "?t=") {
		t.Fatalf("a window's link was printed: %q", out)
	}
	e.out.Reset()
	if err := runCmd(e, runOpen, "hello", "--json"); err != nil {
		t.Fatal(err)
	}
	var rep map[string]any
	_, js, _ := strings.Cut(e.out.String(), "{")
	if err := json.Unmarshal([]byte("{"+js), &rep); err != nil {
		// serve's own line may come first; the JSON is the rest.
		t.Fatalf("open --json: %v %q", err, e.out.String())
	}
	if rep["url"] != nil || rep["shown"] != "waiting" || rep["home"] != home || rep["window"] != "w2" {
		t.Fatalf("open --json: %v", rep)
	}
}
