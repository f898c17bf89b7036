package host

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/lets-app/lets/backend/claudefind"
	"github.com/lets-app/lets/backend/claudesetup"
)

// homeLink mints a link the way the app does and returns its key.
func homeKey(t *testing.T, th *testHost) string {
	t.Helper()
	link, err := th.HomeLink()
	if err != nil {
		t.Fatal(err)
	}
	prefix := th.URL() + "/#k="
	if !strings.HasPrefix(link, prefix) {
		t.Fatalf("home link %q should be the home page with its key in the fragment", link)
	}
	return strings.TrimPrefix(link, prefix)
}

func claimHome(t *testing.T, th *testHost, key string) (int, string) {
	t.Helper()
	code, body := th.call(t, "POST", "/home/api/claim", map[string]string{"key": key}, "")
	tok, _ := body["token"].(string)
	return code, tok
}

// Point: a home link works once. Its key gives a home token; the same key
// again, a made-up key or no key gives 401 with words that say how to get a
// fresh link.
func TestHomeLinkWorksOnce(t *testing.T) {
	th := startLIPHost(t)
	key := homeKey(t, th)
	code, tok := claimHome(t, th, key)
	if code != 200 || tok == "" || tok == key || tok == testHostToken {
		t.Fatalf("first claim: %d %q", code, tok)
	}
	for _, k := range []string{key, "made-up", ""} {
		code, body := th.call(t, "POST", "/home/api/claim", map[string]string{"key": k}, "")
		if code != 401 || !strings.Contains(body["error"].(map[string]any)["message"].(string), "tray menu") {
			t.Errorf("claim %q: %d %v", k, code, body)
		}
	}
	if code, _ := th.call(t, "GET", "/home/api/overview", nil, tok); code != 200 {
		t.Fatalf("overview with the home token: %d", code)
	}
}

// Point: an unclaimed home link stops working after two minutes.
func TestHomeLinkExpires(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	th := startLIPHost(t, func(o *Options) { o.Now = clock })
	key := homeKey(t, th)
	mu.Lock()
	now = now.Add(homeKeyTTL + time.Second)
	mu.Unlock()
	if code, _ := claimHome(t, th, key); code != 401 {
		t.Fatalf("an expired key claimed: %d", code)
	}
}

// Point: the home token opens the home API only. It cannot use the host
// API (status, send, listen); a window token cannot use the home API; no
// token is 401; a foreign Host or Origin is refused as everywhere.
func TestHomeTokenIsScoped(t *testing.T) {
	th := startLIPHost(t)
	_, tok := claimHome(t, th, homeKey(t, th))
	for _, p := range []string{"/lip/status", "/lip/windows", "/lip/sessions"} {
		if code, _ := th.call(t, "GET", p, nil, tok); code != 401 {
			t.Errorf("home token on %s: %d, want 401", p, code)
		}
	}
	if code, _ := th.call(t, "POST", "/lip/send", `[]`, tok); code != 401 {
		t.Errorf("home token on /lip/send: %d", code)
	}
	if code, _ := th.call(t, "GET", "/home/api/overview", nil, ""); code != 401 {
		t.Errorf("no token: %d", code)
	}
	win := th.open(t, "board", "")
	if code, _ := th.call(t, "GET", "/home/api/overview", nil, win.Token); code != 403 {
		t.Errorf("window token on the home API: %d, want 403", code)
	}
	for _, hdr := range []struct{ k, v string }{{"Host", "evil.test"}, {"Origin", "http://evil.test"}} {
		req, _ := http.NewRequest("GET", th.URL()+"/home/api/overview", nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		if hdr.k == "Host" {
			req.Host = hdr.v
		} else {
			req.Header.Set(hdr.k, hdr.v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 421 && resp.StatusCode != 403 {
			t.Errorf("%s %s: %d, want refused", hdr.k, hdr.v, resp.StatusCode)
		}
	}
	// The CLI's way to the home page: POST /lip/home-link with the host
	// token; a host that cannot show it itself says so (and never hands
	// the caller a link: TestAgentGetsNoHomeLink).
	if code, _ := th.call(t, "POST", "/lip/home-link", nil, tok); code != 401 {
		t.Errorf("home token minting links: %d", code)
	}
	if code, body := th.call(t, "POST", "/lip/home-link", nil, testHostToken); code != 501 {
		t.Errorf("home-link without OnShowHomeLink: %d %v", code, body)
	}
}

// Point: the overview lists the uniques, saved sessions, open windows, the
// paired phones from Options.Home.Devices (or says there is no list), and
// whether Claude is set up: claude on PATH and `lets hook` in
// ~/.claude/settings.json.
func TestHomeOverview(t *testing.T) {
	fakeHome := t.TempDir()
	getenv := func(k string) string {
		if k == "HOME" {
			return fakeHome
		}
		return os.Getenv(k)
	}
	claudeFound := false
	find := func(context.Context) (claudefind.Found, error) {
		if claudeFound {
			return claudefind.Found{Path: "/opt/bin/claude", Source: claudefind.SourcePath, Version: claudefind.TestedVersion}, nil
		}
		return claudefind.Found{}, &claudefind.NotFoundError{Searched: []string{"/opt/bin"}}
	}
	paired := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	th := startLIPHost(t, func(o *Options) {
		o.Getenv = getenv
		o.Home = HomeOptions{FindClaude: find, Devices: func() []PairedDevice {
			return []PairedDevice{{Name: "Ada's phone", PairedAt: paired, Connected: 1}}
		}}
	})
	_, tok := claimHome(t, th, homeKey(t, th))
	th.open(t, "board", "")

	overview := func() homeOverview {
		t.Helper()
		req, _ := http.NewRequest("GET", th.URL()+"/home/api/overview", nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var ov homeOverview
		if err := json.NewDecoder(resp.Body).Decode(&ov); err != nil {
			t.Fatal(err)
		}
		return ov
	}
	ov := overview()
	names := map[string]homeUnique{}
	for _, u := range ov.Uniques {
		names[u.Name] = u
	}
	if b := names["board"]; b.Title != "Board board" || b.Description != "A test board." || !b.Builtin {
		t.Errorf("board in the overview: %+v", b)
	}
	if len(ov.Windows) != 1 || ov.Windows[0].Unique != "board" {
		t.Errorf("windows %+v", ov.Windows)
	}
	if !ov.Devices.Available || len(ov.Devices.List) != 1 || ov.Devices.List[0].Name != "Ada's phone" {
		t.Errorf("devices %+v", ov.Devices)
	}
	if ov.Claude.CLI || ov.Claude.Hooks {
		t.Errorf("claude with nothing installed: %+v", ov.Claude)
	}
	claudeFound = true
	if err := os.MkdirAll(filepath.Join(fakeHome, ".claude"), 0o700); err != nil {
		t.Fatal(err)
	}
	// One hook of Lets' is not a set-up Claude; all of them are, even
	// behind a quoted path with a space.
	settings := `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"lets hook Stop"}]}]}}`
	if err := os.WriteFile(filepath.Join(fakeHome, ".claude", "settings.json"), []byte(settings), 0o600); err != nil {
		t.Fatal(err)
	}
	if c := overview().Claude; !c.CLI || c.Hooks || c.CLIPath != "/opt/bin/claude" {
		t.Errorf("claude with one hook: %+v", c)
	}
	full, _, err := claudesetup.Merge([]byte(settings), claudesetup.Hooks("/My Apps/lets", 2*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(fakeHome, ".claude", "settings.json"), full, 0o600); err != nil {
		t.Fatal(err)
	}
	if c := overview().Claude; !c.CLI || !c.Hooks || c.SettingsPath != filepath.Join(fakeHome, ".claude", "settings.json") {
		t.Errorf("claude set up: %+v", c)
	}

	// Without the pad surface in this process there is no device list.
	th2 := startLIPHost(t)
	_, tok2 := claimHome(t, th2, homeKey(t, th2))
	code, body := th2.call(t, "GET", "/home/api/overview", nil, tok2)
	if d := body["devices"].(map[string]any); code != 200 || d["available"] != false {
		t.Errorf("devices without a pad surface: %d %v", code, d)
	}
}

// Point: a unique's icon is served to the home page with a sandbox CSP,
// so an SVG icon opened on its own cannot run script on the host's origin;
// a unique without an icon answers 404.
func TestHomeIconIsSandboxed(t *testing.T) {
	builtin := fstest.MapFS{}
	for p, data := range boardFiles("board", []string{}) {
		if p == "unique.json" {
			data = strings.Replace(data, `"guide": "GUIDE.md",`, `"guide": "GUIDE.md", "icon": "icon.svg",`, 1)
		}
		builtin["board/"+p] = &fstest.MapFile{Data: []byte(data), Mode: 0o644}
	}
	svg := `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 2 2"><script>alert(1)</script><rect width="2" height="2"/></svg>`
	builtin["board/icon.svg"] = &fstest.MapFile{Data: []byte(svg), Mode: 0o644}
	th := startLIPHost(t, func(o *Options) { o.Builtin = builtin })
	_, tok := claimHome(t, th, homeKey(t, th))
	req, _ := http.NewRequest("GET", th.URL()+"/home/api/icon/board", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(data) != svg || resp.Header.Get("Content-Type") != "image/svg+xml" {
		t.Fatalf("icon: %d %q %q", resp.StatusCode, resp.Header.Get("Content-Type"), data)
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "sandbox") || !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("icon CSP %q should sandbox it", csp)
	}
	if resp, err := http.Get(th.URL() + "/home/api/icon/board"); err == nil {
		resp.Body.Close()
		if resp.StatusCode != 401 {
			t.Errorf("icon without a token: %d", resp.StatusCode)
		}
	}
	if code, _ := th.call(t, "GET", "/home/api/icon/coder", nil, tok); code != 404 {
		t.Errorf("a unique without an icon: %d", code)
	}
}

// Point: an install from the home page streams its progress as it happens
// and ends with done or a clear error (NDJSON lines).
func TestHomeInstallStreamsProgressAndErrors(t *testing.T) {
	th := startLIPHost(t)
	_, tok := claimHome(t, th, homeKey(t, th))
	install := func(source string) []installLine {
		t.Helper()
		body, _ := json.Marshal(map[string]string{"source": source})
		req, _ := http.NewRequest("POST", th.URL()+"/home/api/install", strings.NewReader(string(body)))
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || !strings.HasPrefix(ct, "application/x-ndjson") {
			t.Fatalf("install %s: %d %s", source, resp.StatusCode, ct)
		}
		var lines []installLine
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			var l installLine
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				t.Fatalf("line %q: %v", sc.Text(), err)
			}
			lines = append(lines, l)
		}
		return lines
	}

	// A plain folder holding a unique.
	dir := t.TempDir()
	for p, data := range boardFiles("notes", []string{}) {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lines := install(dir)
	if len(lines) < 3 || lines[0].Progress == "" || lines[len(lines)-1].Done == nil || lines[len(lines)-1].Done.Name != "notes" {
		t.Fatalf("install lines %+v: want progress lines, then done", lines)
	}

	lines = install("ftp://127.0.0.1/nothing.git")
	last := lines[len(lines)-1]
	if last.Error == nil || last.Error.Code != "install_failed" || !strings.Contains(last.Error.Message, "https://") {
		t.Fatalf("a bad URL: %+v", lines)
	}
	if code, _ := th.call(t, "POST", "/home/api/install", map[string]string{"source": ""}, tok); code != 400 {
		t.Errorf("no source: %d", code)
	}
}

// Point: a home link opened by another user of this computer (who could
// read it from xdg-open's command line) is refused, and the refusal leaves
// the key usable for the person's own browser.
func TestHomeLinkRefusedForAnotherUsersSocket(t *testing.T) {
	th := startLIPHost(t)
	other := os.Getuid() + 1
	th.Server.home.mu.Lock()
	th.Server.home.peerUID = func(client, server netip.AddrPort) (int, error) { return other, nil }
	th.Server.home.mu.Unlock()
	key := homeKey(t, th)
	code, body := th.call(t, "POST", "/home/api/claim", map[string]string{"key": key}, "")
	if code != 403 || !strings.Contains(body["error"].(map[string]any)["message"].(string), "another user") {
		t.Fatalf("claim from another user's socket: %d %v", code, body)
	}
	th.Server.home.mu.Lock()
	th.Server.home.peerUID = nil // the real lookup: this test's own socket
	th.Server.home.mu.Unlock()
	if code, tok := claimHome(t, th, key); code != 200 || tok == "" {
		t.Fatalf("the owner's claim after a refusal: %d", code)
	}
}
