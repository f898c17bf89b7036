package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gorilla/websocket"

	"github.com/lets-app/lets/backend/hostapi"
	"github.com/lets-app/lets/backend/lip"
)

// ioTimeout bounds every wait for something that must happen (an event, a
// command, a frame, a close). It is a failure detector, not a budget: the
// one limit every wait uses, so a loaded machine makes a failing test fail
// slower, never a correct host fail. Checks that something does NOT come
// keep their own short windows.
const ioTimeout = testutil.EventuallyTimeout

const testHostToken = "test-host-token-0123456789abcdefghijklmnop"

// boardFiles is a small test unique: declared events and commands, the
// default session types, and a page whose script reacts to commands.
func boardFiles(name string, exec []string) map[string]string {
	execJSON, _ := json.Marshal(exec)
	return map[string]string{
		"unique.json": `{
  "lip": 1, "name": "` + name + `", "version": "0.1.0", "title": "Board ` + name + `",
  "description": "A test board.", "entry": "index.html", "guide": "GUIDE.md",
  "domains": ["` + name + `"],
  "events": {
    "` + name + `.note": {"summary": "a note"},
    "` + name + `.changed": {"summary": "the board changed"}
  },
  "commands": {"` + name + `.add": {"summary": "add an item"}},
  "permissions": {"exec": ` + string(execJSON) + `}
}`,
		"GUIDE.md": "# " + name + "\nSay hello.\n",
		"index.html": `<!doctype html>
<html><head><meta charset="utf-8"><title>` + name + `</title><script src="app.js" defer></script></head>
<body><h1>Board</h1><ul id="log"></ul><button id="probe">probe</button><p id="probe-result"></p></body></html>
`,
		"app.js": `window.commands = [];
lip.on("*", function (data, env) { window.commands.push(env.type); });
lip.on("` + name + `.add", function (d) {
  var li = document.createElement("li"); li.textContent = d.label; document.getElementById("log").append(li);
});
lip.on("` + name + `.load", function (d) { window.loaded = d; });
document.addEventListener("securitypolicyviolation", function (e) {
  document.getElementById("probe-result").dataset.violation = e.violatedDirective + " " + e.blockedURI;
});
document.getElementById("probe").addEventListener("click", function () {
  var out = document.getElementById("probe-result");
  fetch(document.body.dataset.target).then(function (r) { out.textContent = "reached " + r.status; })
    .catch(function (e) { out.textContent = "blocked"; });
});
`,
		"style.css": "body { font-family: sans-serif; }\n",
		".secret":   "dot-file\n",
		"sub/a.txt": "inside\n",
	}
}

// testHost is a running host with a data folder.
type testHost struct {
	*Server
	home   string
	logBuf *syncBuffer
	cancel context.CancelFunc
	done   chan error
	// launches are what Options.OnOpen got (the test acts as the native
	// window): the one-time URL by window id. The open answer never
	// carries it for the host token (issue #23).
	launches *launchBook
}

// launchBook keeps the launches a test host's OnOpen took.
type launchBook struct {
	mu  sync.Mutex
	url map[string]string
}

func (b *launchBook) record(l WindowLaunch) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.url == nil {
		b.url = map[string]string{}
	}
	b.url[l.Window] = l.URL
}

func (b *launchBook) get(id string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.url[id]
}

// wrap is the test host's OnOpen: by default the test is the native
// window (every launch is taken and kept); a test's own OnOpen runs first
// and its taken launches are kept too; headless leaves OnOpen nil.
func (b *launchBook) wrap(own func(WindowLaunch) error) func(WindowLaunch) error {
	switch {
	case own == nil:
		return func(l WindowLaunch) error { b.record(l); return nil }
	case reflect.ValueOf(own).Pointer() == reflect.ValueOf(headlessMarker).Pointer():
		return nil
	}
	return func(l WindowLaunch) error {
		if err := own(l); err != nil {
			return err
		}
		b.record(l)
		return nil
	}
}

// headless makes a test host without any window: OnOpen stays nil, so
// every opened window waits for the person (as `lets serve` without a
// display).
func headless(o *Options) { o.OnOpen = headlessMarker }

// headlessMarker stands for "no OnOpen" in the options until the host
// starts (startLIPHostAt puts nil back).
var headlessMarker = func(WindowLaunch) error { return errHeadlessMarker }

var errHeadlessMarker = errors.New("headless test host")

type hostOpt func(*Options)

// startLIPHost runs a host with built-in test uniques "board" (no exec)
// and "coder" (exec python) in a fresh data folder.
func startLIPHost(t testing.TB, opts ...hostOpt) *testHost {
	t.Helper()
	home := t.TempDir()
	return startLIPHostAt(t, home, opts...)
}

func startLIPHostAt(t testing.TB, home string, opts ...hostOpt) *testHost {
	t.Helper()
	builtin := fstest.MapFS{}
	for _, u := range []struct {
		name string
		exec []string
	}{{"board", []string{}}, {"coder", []string{"python", "shell"}}} {
		for p, data := range boardFiles(u.name, u.exec) {
			builtin[u.name+"/"+p] = &fstest.MapFile{Data: []byte(data), Mode: 0o644}
		}
	}
	buf := &syncBuffer{}
	o := Options{
		Token: testHostToken, Version: "0.1.0", DataDir: home, Builtin: builtin,
		Log: slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	book := &launchBook{}
	for _, f := range opts {
		f(&o)
	}
	o.OnOpen = book.wrap(o.OnOpen)
	s, err := Listen(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	th := &testHost{Server: s, home: home, logBuf: buf, cancel: cancel, done: make(chan error, 1), launches: book}
	go func() { th.done <- s.Run(ctx) }()
	t.Cleanup(th.stop)
	return th
}

func (th *testHost) stop() {
	if th.cancel == nil {
		return
	}
	th.cancel()
	th.cancel = nil
	select {
	case <-th.done:
	case <-time.After(ioTimeout):
	}
}

// call does an HTTP request against the host and decodes a JSON answer.
func (th *testHost) call(t testing.TB, method, path string, body any, tok string) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	case string:
		rd = strings.NewReader(b)
	default:
		data, _ := json.Marshal(b)
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, th.URL()+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	out := map[string]any{}
	_ = json.Unmarshal(data, &out)
	return resp.StatusCode, out
}

// testWindow is a window as a test drives it: the open answer plus the
// window token a shell page got when it loaded the one-time URL ("" when
// nothing loaded it yet).
type testWindow struct {
	hostapi.OpenAnswer
	Token string
}

// openOnly opens a unique and returns the answer; its one-time URL is not
// loaded yet (a browser test navigates to it).
func (th *testHost) openOnly(t testing.TB, unique string, resume string) testWindow {
	t.Helper()
	body := map[string]any{"unique": unique}
	if resume != "" {
		body["resume"] = resume
	}
	data, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", th.URL()+"/lip/open", bytes.NewReader(data))
	req.Header.Set("Authorization", "Bearer "+testHostToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("open %s: %d %s", unique, resp.StatusCode, raw)
	}
	var res hostapi.OpenAnswer
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	if res.URL != "" {
		t.Fatalf("open %s: the answer to the host token carries the window's one-time URL %q (issue #23)", unique, res.URL)
	}
	// The test is the native window: it takes the URL OnOpen got.
	res.URL = th.launches.get(res.Window)
	return testWindow{OpenAnswer: res}
}

// open opens a unique and loads its shell page once, as the window does,
// taking the window token from the page's config.
func (th *testHost) open(t testing.TB, unique string, resume string) testWindow {
	t.Helper()
	win := th.openOnly(t, unique, resume)
	win.Token = loadShellToken(t, win.URL)
	return win
}

// loadShellToken loads a one-time shell URL and returns the window token
// its page carries.
func loadShellToken(t testing.TB, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	page, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("load the shell page %s: %d %s", url, resp.StatusCode, page)
	}
	const open = `<script type="application/json" id="lets-config">`
	_, rest, ok := strings.Cut(string(page), open)
	cfgText, _, ok2 := strings.Cut(rest, "</script>")
	var cfg shellConfig
	if !ok || !ok2 || json.Unmarshal([]byte(cfgText), &cfg) != nil || cfg.Token == "" {
		t.Fatalf("the shell page has no config with a token:\n%s", page)
	}
	return cfg.Token
}

// send posts down-commands with the host token.
func (th *testHost) send(t testing.TB, body any) (int, map[string]any) {
	t.Helper()
	return th.call(t, "POST", "/lip/send", body, testHostToken)
}

// listenResult is a decoded listen answer.
type listenResult struct {
	Events  []lip.Envelope `json:"events"`
	Cursor  string         `json:"cursor"`
	Seq     uint64         `json:"seq"`
	Epoch   string         `json:"epoch"`
	Gap     *struct{ From, To, Lost uint64 }
	Pending int `json:"pending"`
}

func (th *testHost) listen(t testing.TB, query string) listenResult {
	t.Helper()
	req, _ := http.NewRequest("GET", th.URL()+"/lip/listen?"+query, nil)
	req.Header.Set("Authorization", "Bearer "+testHostToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("listen %s: %d %s", query, resp.StatusCode, raw)
	}
	var res listenResult
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("listen answer %s: %v", raw, err)
	}
	return res
}

// eventsOfType lists events of one type (all windows) from cursor name.
func (th *testHost) waitEvent(t testing.TB, cursor, typ string, within time.Duration) lip.Envelope {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		res := th.listen(t, "cursor="+cursor+"&types="+typ+"&wait_ms="+strconv.Itoa(int(time.Until(deadline).Milliseconds())))
		if len(res.Events) > 0 {
			return res.Events[0]
		}
	}
	t.Fatalf("no %s event within %v", typ, within)
	return lip.Envelope{}
}

// nextEvent long-polls listen on cursor for events of typ (each answer
// comes when an event arrives, not after a pause; one at a time, so the
// events after it stay for the next call) and returns the first
// one ok accepts; it fails the test after testutil.EventuallyTimeout.
func (th *testHost) nextEvent(t testing.TB, cursor, typ string, ok func(lip.Envelope) bool) lip.Envelope {
	t.Helper()
	deadline := time.Now().Add(testutil.EventuallyTimeout)
	for time.Now().Before(deadline) {
		wait := min(time.Until(deadline), 5*time.Second)
		res := th.listen(t, "cursor="+cursor+"&types="+typ+"&max=1&wait_ms="+strconv.Itoa(max(1, int(wait.Milliseconds()))))
		for _, e := range res.Events {
			if ok == nil || ok(e) {
				return e
			}
		}
	}
	t.Fatalf("no matching %s event within %v", typ, testutil.EventuallyTimeout)
	return lip.Envelope{}
}

// shellClient is a WebSocket client that speaks to /lip/ws exactly as the
// shell page does.
type shellClient struct {
	t       testing.TB
	ws      *websocket.Conn
	window  string
	welcome lip.Envelope
	mu      sync.Mutex
	// frames is fed by a reader goroutine, so a read that times out in a
	// test does not break the connection (gorilla's reads cannot resume
	// after a deadline).
	frames chan []lip.Envelope
	errMu  sync.Mutex
	err    error
}

func newShellClient(t testing.TB, c *websocket.Conn, window string) *shellClient {
	sc := &shellClient{t: t, ws: c, window: window, frames: make(chan []lip.Envelope, 4096)}
	go func() {
		defer close(sc.frames)
		for {
			_, data, err := c.ReadMessage()
			if err == nil {
				var envs []lip.Envelope
				envs, err = decodeFrame(data)
				if err == nil {
					sc.frames <- envs
					continue
				}
			}
			sc.errMu.Lock()
			sc.err = err
			sc.errMu.Unlock()
			return
		}
	}()
	return sc
}

func (th *testHost) dialShell(t testing.TB, win testWindow, resume *uint64) *shellClient {
	t.Helper()
	c := th.dialRaw(t, win.Token)
	sc := newShellClient(t, c, win.Window)
	data := map[string]any{"shell": "test-shell", "version": "0", "window": win.Window, "medium": "screen", "caps": []string{}}
	if resume != nil {
		data["resume"] = *resume
	}
	sc.sendEnv("lip.hello", data, "shell")
	sc.welcome = sc.read(ioTimeout)[0]
	if sc.welcome.Type != "lip.welcome" {
		t.Fatalf("first frame %s, want lip.welcome", sc.welcome.Type)
	}
	return sc
}

func (th *testHost) dialRaw(t testing.TB, tok string) *websocket.Conn {
	t.Helper()
	u := "ws://127.0.0.1:" + strconv.Itoa(th.Port()) + "/lip/ws?t=" + tok
	hdr := http.Header{"Origin": []string{th.URL()}}
	c, resp, err := websocket.DefaultDialer.Dial(u, hdr)
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		t.Fatalf("dial /lip/ws: %v (HTTP %d)", err, status)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

var testIDs = lip.NewIDs(nil)

func (sc *shellClient) sendEnv(typ string, data any, from string) string {
	sc.t.Helper()
	id := testIDs.Event(time.Now())
	env := map[string]any{"lip": 1, "id": id, "type": typ, "data": data, "from": from}
	sc.writeJSON(env)
	return id
}

func (sc *shellClient) writeJSON(v any) {
	sc.t.Helper()
	sc.mu.Lock()
	defer sc.mu.Unlock()
	_ = sc.ws.SetWriteDeadline(time.Now().Add(ioTimeout))
	if err := sc.ws.WriteJSON(v); err != nil {
		sc.t.Fatalf("write to /lip/ws: %v", err)
	}
}

// read returns the envelopes of the next frame.
func (sc *shellClient) read(within time.Duration) []lip.Envelope {
	sc.t.Helper()
	envs, err := sc.tryRead(within)
	if err != nil {
		sc.t.Fatalf("read from /lip/ws: %v", err)
	}
	return envs
}

func (sc *shellClient) tryRead(within time.Duration) ([]lip.Envelope, error) {
	t := time.NewTimer(within)
	defer t.Stop()
	select {
	case envs, ok := <-sc.frames:
		if !ok {
			sc.errMu.Lock()
			defer sc.errMu.Unlock()
			return nil, sc.err
		}
		return envs, nil
	case <-t.C:
		return nil, errTimeout
	}
}

var errTimeout = errors.New("timed out")

// closeErr waits for the connection to end and returns why.
func (sc *shellClient) closeErr(within time.Duration) error {
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if _, err := sc.tryRead(time.Until(deadline)); err != nil && err != errTimeout {
			return err
		}
	}
	return errTimeout
}

func decodeFrame(data []byte) ([]lip.Envelope, error) {
	var list []json.RawMessage
	if len(data) > 0 && data[0] == '[' {
		if err := json.Unmarshal(data, &list); err != nil {
			return nil, err
		}
	} else {
		list = []json.RawMessage{data}
	}
	out := make([]lip.Envelope, 0, len(list))
	for _, raw := range list {
		e, perr := lip.Parse(raw)
		if perr != nil {
			return nil, perr
		}
		out = append(out, e)
	}
	return out, nil
}

// commands reads frames until n commands (not pings/errors) arrived.
func (sc *shellClient) commands(n int, within time.Duration) []lip.Envelope {
	sc.t.Helper()
	deadline := time.Now().Add(within)
	var out []lip.Envelope
	for len(out) < n && time.Now().Before(deadline) {
		envs, err := sc.tryRead(time.Until(deadline))
		if err != nil {
			break
		}
		for _, e := range envs {
			if strings.HasPrefix(e.Type, "lip.") {
				continue
			}
			out = append(out, e)
		}
	}
	if len(out) < n {
		sc.t.Fatalf("got %d commands, want %d: %v", len(out), n, typesOf(out))
	}
	return out
}

// nextOfType reads until an envelope of typ (including lip.*) arrives.
func (sc *shellClient) nextOfType(typ string, within time.Duration) (lip.Envelope, bool) {
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		envs, err := sc.tryRead(time.Until(deadline))
		if err != nil {
			return lip.Envelope{}, false
		}
		for _, e := range envs {
			if e.Type == typ {
				return e, true
			}
		}
	}
	return lip.Envelope{}, false
}

func (sc *shellClient) ack(envs ...lip.Envelope) {
	ids := make([]string, len(envs))
	for i, e := range envs {
		ids[i] = e.ID
	}
	sc.sendEnv("lip.ack", map[string]any{"ids": ids}, "shell")
}

func typesOf(envs []lip.Envelope) []string {
	out := make([]string, len(envs))
	for i, e := range envs {
		out[i] = e.Type
	}
	return out
}

func dataOf(t testing.TB, e lip.Envelope) map[string]any {
	t.Helper()
	m := map[string]any{}
	if err := json.Unmarshal(e.DataOrEmpty(), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// makeUniqueRepo commits files to a fresh repository and returns the path
// of a bare clone, for installing with the real installer.
func makeUniqueRepo(t testing.TB, files map[string]string) string {
	t.Helper()
	testutil.Command(t, "git")
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	for p, data := range files {
		full := filepath.Join(work, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	git("add", "-A")
	git("commit", "-q", "-m", "test unique")
	bare := filepath.Join(dir, "unique.git")
	git("clone", "-q", "--bare", work, bare)
	return bare
}

// syncBuffer is a goroutine-safe output buffer.
type syncBuffer = testutil.SyncBuffer
