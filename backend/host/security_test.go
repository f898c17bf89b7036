package host

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestCase023_PrivilegedRoutesNeedTheHostToken: every privileged path
// without a token is 401, with a window token 403.
func TestCase023_PrivilegedRoutesNeedTheHostToken(t *testing.T) {
	th := startLIPHost(t)
	win := th.open(t, "board", "")
	for _, route := range privilegedRoutes {
		method, path, _ := strings.Cut(route, " ")
		path = strings.Replace(path, "{name}", "board", 1)
		for _, tc := range []struct {
			name, tok string
			want      int
		}{{"none", "", 401}, {"wrong", "nope", 401}, {"window token", win.Token, 403}} {
			code, body := th.call(t, method, path, `{}`, tc.tok)
			if code != tc.want {
				t.Errorf("%s %s with %s: %d, want %d (%v)", method, path, tc.name, code, tc.want, body)
			}
		}
	}
	// The window endpoints refuse the host token (403) and no token (401);
	// the page itself, already loaded once, is gone for everyone (410).
	if code, _ := th.call(t, "GET", "/w/w1/", nil, testHostToken); code != 403 {
		t.Errorf("the shell page with the host token: %d, want 403", code)
	}
	if code, _ := th.call(t, "GET", "/w/w1/", nil, ""); code != 410 {
		t.Errorf("the shell page loaded a second time: %d, want 410", code)
	}
	for _, route := range []string{"GET /w/w1/shell.js", "GET /lip/ws", "POST /lip/upload", "POST /lip/run"} {
		method, path, _ := strings.Cut(route, " ")
		if code, _ := th.call(t, method, path, nil, testHostToken); code != 403 {
			t.Errorf("%s with the host token: %d, want 403", route, code)
		}
		if code, _ := th.call(t, method, path, nil, ""); code != 401 {
			t.Errorf("%s without a token: %d, want 401", route, code)
		}
	}
}

// TestWindowTokenDrivesOnlyItsWindow: w1's token cannot load w2's page,
// and its WebSocket is w1's.
func TestWindowTokenDrivesOnlyItsWindow(t *testing.T) {
	th := startLIPHost(t)
	w1 := th.open(t, "board", "")
	w2 := th.openOnly(t, "board", "")
	if code, _ := th.call(t, "GET", "/w/w2/?t="+w1.Token, nil, ""); code != 401 {
		t.Fatalf("w1's token on w2's page: %d, want 401", code)
	}
	if code, _ := th.call(t, "GET", "/w/w2/shell.js?t="+w1.Token, nil, ""); code != 403 {
		t.Fatalf("w1's token on w2's asset: %d, want 403", code)
	}
	w2.Token = loadShellToken(t, w2.URL) // the wrong key did not spend w2's link
	if sc2 := th.dialShell(t, w2, nil); sc2.welcome.Win != "w2" {
		t.Fatalf("w2's socket welcomed as %q", sc2.welcome.Win)
	}
	sc := th.dialShell(t, w1, nil)
	if sc.welcome.Win != "w1" {
		t.Fatalf("w1's socket welcomed as %q", sc.welcome.Win)
	}
	// A hello naming another window is refused.
	c := th.dialRaw(t, w1.Token)
	_ = c.WriteJSON(map[string]any{"lip": 1, "id": "h1", "type": "lip.hello", "data": map[string]any{"window": "w2"}})
	_ = c.SetReadDeadline(time.Now().Add(ioTimeout))
	_, _, err := c.ReadMessage()
	if err == nil || !strings.Contains(err.Error(), "4403") {
		t.Fatalf("hello for w2 on w1's token: %v", err)
	}
}

// TestCase024_HostRebindingIs421: a foreign Host header is refused on
// origin A and on origin U; a foreign Origin is 403.
func TestCase024_HostRebindingIs421(t *testing.T) {
	th := startLIPHost(t)
	th.open(t, "board", "")
	o, _ := th.origins.get("board")
	for _, base := range []struct {
		name string
		port int
	}{{"host", th.Port()}, {"unique", o.port}} {
		p := strconv.Itoa(base.port)
		req, _ := http.NewRequest("GET", "http://127.0.0.1:"+p+"/lip/health", nil)
		req.Host = "evil.example:" + p
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 421 {
			t.Errorf("%s: Host evil.example → %d, want 421", base.name, resp.StatusCode)
		}
		req, _ = http.NewRequest("GET", "http://127.0.0.1:"+p+"/index.html", nil)
		req.Header.Set("Origin", "http://evil.example")
		resp, err = http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 403 {
			t.Errorf("%s: Origin evil.example → %d, want 403", base.name, resp.StatusCode)
		}
	}
}

// uniqueClient fetches from a unique's origin with a cookie jar after the
// frame-token exchange.
func uniqueClient(t *testing.T, th *testHost, unique, wid string) (*http.Client, string) {
	t.Helper()
	o, ok := th.origins.get(unique)
	if !ok {
		t.Fatalf("no origin for %s", unique)
	}
	w, _ := th.core.window(wid)
	jar, _ := cookiejar.New(nil)
	var hops []string
	c := &http.Client{Jar: jar, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		hops = append(hops, req.URL.String())
		return nil
	}}
	resp, err := c.Get(o.frameURL(w))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("frame load: %d %s", resp.StatusCode, body)
	}
	if len(hops) != 1 || strings.Contains(hops[0], "t=") || !strings.HasSuffix(hops[0], "/index.html") {
		t.Fatalf("the token exchange should 303 once to the URL without the token, hops %v", hops)
	}
	if !strings.Contains(string(body), sdkTag) {
		t.Fatalf("entry HTML lacks the SDK tag: %s", body)
	}
	return c, o.url()
}

// TestUniqueOriginTokenExchangeAndHeaders: the frame token becomes an
// HttpOnly SameSite=Strict cookie named after the port, with a 303 to the
// same URL without the token; every answer carries the §1.4 headers.
func TestUniqueOriginTokenExchangeAndHeaders(t *testing.T) {
	th := startLIPHost(t)
	th.open(t, "board", "")
	o, _ := th.origins.get("board")
	w, _ := th.core.window("w1")
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.Get(o.frameURL(w) + "&x=1")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 303 || resp.Header.Get("Location") != "/index.html?x=1" {
		t.Fatalf("exchange: %d → %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	sc := resp.Header.Get("Set-Cookie")
	for _, want := range []string{"lets_u_" + strconv.Itoa(o.port) + "=", "HttpOnly", "SameSite=Strict", "Path=/"} {
		if !strings.Contains(sc, want) {
			t.Errorf("Set-Cookie %q lacks %q", sc, want)
		}
	}
	if strings.Contains(sc, w.frameToken) {
		t.Error("the cookie must not be the frame token itself")
	}
	csp := "default-src 'self'; base-uri 'self'; form-action 'self'; frame-ancestors http://127.0.0.1:" + strconv.Itoa(th.Port()) + "; object-src 'none'; webrtc 'block'"
	want := map[string]string{
		"X-Content-Type-Options":       "nosniff",
		"Referrer-Policy":              "no-referrer",
		"Cross-Origin-Resource-Policy": "same-origin",
	}
	c, base := uniqueClient(t, th, "board", "w1")
	for _, path := range []string{"/index.html", "/app.js", "/lip/sdk.js", "/nope"} {
		resp, err := c.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		for k, v := range want {
			if got := resp.Header.Get(k); got != v {
				t.Errorf("%s %s = %q, want %q", path, k, got, v)
			}
		}
		// Only the unique's pages are documents of origin U; anything
		// else opened as a document is sandboxed (issue #10, WebRTC).
		wantCSP := csp + "; sandbox"
		if path == "/index.html" {
			wantCSP = csp
		}
		if got := resp.Header.Get("Content-Security-Policy"); got != wantCSP {
			t.Errorf("%s CSP = %q, want %q", path, got, wantCSP)
		}
		if path == "/lip/sdk.js" && (!strings.Contains(string(body), "http://127.0.0.1:"+strconv.Itoa(th.Port())) || strings.Contains(string(body), sdkShellOriginPlaceholder)) {
			t.Errorf("sdk.js does not name the shell origin")
		}
	}
	// Without the cookie nothing is served; a wrong token is refused; a
	// cookie of another name (another port's) does not count.
	for _, u := range []string{base + "/index.html", base + "/index.html?t=wrong"} {
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 401 {
			t.Errorf("%s without cookie: %d, want 401", u, resp.StatusCode)
		}
	}
	req, _ := http.NewRequest("GET", base+"/index.html", nil)
	req.AddCookie(&http.Cookie{Name: "lets_u_1", Value: o.secret})
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Errorf("another port's cookie name: %d, want 401", resp.StatusCode)
	}
	// The origin never serves the API.
	resp, _ = c.Get(base + "/lip/status")
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("/lip/status on origin U: %d, want 404", resp.StatusCode)
	}
}

// TestCase021_TraversalOnOriginUIs404 and the files never served to U.
func TestCase021_TraversalOnOriginUIs404(t *testing.T) {
	th := startLIPHost(t)
	th.open(t, "board", "")
	c, base := uniqueClient(t, th, "board", "w1")
	for _, p := range []string{"/../unique.json", "/%2e%2e/unique.json", "/%2E%2E/%2e%2e/etc/passwd", "/sub/..%2f..%2funique.json",
		"/..%2funique.json", "/unique.json", "/GUIDE.md", "/.secret", "/sub/../.secret", "/%2esecret"} {
		req, _ := http.NewRequest("GET", base+"/x", nil)
		req.URL.RawPath, req.URL.Path = "", ""
		req.URL.Opaque = p
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 404 {
			t.Errorf("GET %s: %d %q, want 404", p, resp.StatusCode, body)
		}
	}
	resp, _ := c.Get(base + "/sub/a.txt")
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("a file in a subfolder: %d", resp.StatusCode)
	}
}

// TestCase022_SymlinkOutsideOnOriginUIs404: a user unique whose folder
// holds a symlink to a file outside it.
func TestCase022_SymlinkOutsideOnOriginUIs404(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "uniques", "linky")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for p, data := range boardFiles("linky", []string{}) {
		full := filepath.Join(dir, filepath.FromSlash(p))
		_ = os.MkdirAll(filepath.Dir(full), 0o700)
		if err := os.WriteFile(full, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	outside := filepath.Join(t.TempDir(), "secret.txt")
	_ = os.WriteFile(outside, []byte("outside"), 0o600)
	if err := os.Symlink(outside, filepath.Join(dir, "leak.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Dir(outside), filepath.Join(dir, "leakdir")); err != nil {
		t.Fatal(err)
	}
	th := startLIPHostAt(t, home)
	th.open(t, "linky", "")
	c, base := uniqueClient(t, th, "linky", "w1")
	for _, p := range []string{"/leak.txt", "/leakdir/secret.txt"} {
		resp, err := c.Get(base + p)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 404 || strings.Contains(string(body), "outside") {
			t.Errorf("GET %s: %d %q, want 404", p, resp.StatusCode, body)
		}
	}
}

// TestOriginAResponsesHaveNoReferrer: every answer of origin A, including
// errors, carries Referrer-Policy: no-referrer.
func TestOriginAResponsesHaveNoReferrer(t *testing.T) {
	th := startLIPHost(t)
	win := th.open(t, "board", "")
	for _, path := range []string{"/lip/health", "/lip/status", "/w/w1/?t=" + win.Token, "/w/w1/shell.js?t=" + win.Token, "/w/w1/", "/nope"} {
		resp, err := http.Get(th.URL() + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("Referrer-Policy"); got != "no-referrer" {
			t.Errorf("%s: Referrer-Policy %q", path, got)
		}
	}
}

// TestShellPageCarriesTokenOnlyInItsOwnURLs: the page is rendered with the
// token in its subresource URLs and the CSP of §8.2.
func TestShellPageCarriesTokenOnlyInItsOwnURLs(t *testing.T) {
	th := startLIPHost(t)
	win := th.openOnly(t, "board", "")
	resp, err := http.Get(win.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	page := string(body)
	_, cfgText, _ := strings.Cut(page, `id="lets-config">`)
	cfgText, _, _ = strings.Cut(cfgText, "</script>")
	var cfg shellConfig
	if err := json.Unmarshal([]byte(cfgText), &cfg); err != nil || cfg.Token == "" {
		t.Fatalf("config %q: %v", cfgText, err)
	}
	win.Token = cfg.Token
	o, _ := th.origins.get("board")
	csp := resp.Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'self'", "frame-src " + o.url(), "connect-src 'self'", "img-src 'self' data: blob:"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if !strings.Contains(page, `/w/w1/shell.js?t=`+win.Token) || !strings.Contains(page, `/w/w1/shell.css?t=`+win.Token) {
		t.Fatalf("page lacks tokenised subresources:\n%s", page)
	}
	if !strings.Contains(page, `sandbox="allow-scripts allow-same-origin allow-forms allow-modals allow-downloads"`) ||
		strings.Contains(page, "allow-top-navigation") || strings.Contains(page, "allow-popups") {
		t.Fatal("the iframe sandbox is not exactly the spec's")
	}
	if strings.Contains(page, testHostToken) {
		t.Fatal("the host token leaked into a shell page")
	}
}
