package host

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/gorilla/websocket"
)

// TestOpenAnswerHoldsNoWindowSecret (issue #10, human acts): POST
// /lip/open answers only what spec lip-1 §8.1 lists plus a one-time URL;
// the window token is not in it, and nothing the API caller holds opens
// the window's shell channel once the window loaded its page.
func TestOpenAnswerHoldsNoWindowSecret(t *testing.T) {
	th := startLIPHost(t)
	code, raw := th.call(t, "POST", "/lip/open", map[string]any{"unique": "coder"}, testHostToken)
	if code != 200 {
		t.Fatalf("open: %d %v", code, raw)
	}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if strings.Join(keys, ",") != "commands,events,guide,shown,window" {
		t.Fatalf("open answered %v, want only window, shown, guide, events, commands", keys)
	}
	launchURL := th.launches.get("w1")
	u, err := url.Parse(launchURL)
	if err != nil || u.Path != "/w/w1/" || u.Query().Get("t") == "" {
		t.Fatalf("url %q", launchURL)
	}
	key := u.Query().Get("t")

	// The window (a browser, here its HTTP twin) loads the URL first and
	// gets the window token in its page.
	winToken := loadShellToken(t, launchURL)
	if winToken == key {
		t.Fatal("the window token must not be the one-time key from the API answer")
	}
	answer, _ := json.Marshal(raw)
	if strings.Contains(string(answer), winToken) {
		t.Fatal("the open answer holds the window token")
	}

	// The API caller tries every secret it holds on the shell channel.
	wsURL := "ws://127.0.0.1:" + strconv.Itoa(th.Port()) + "/lip/ws?t="
	for _, tc := range []struct {
		name, tok string
		want      int
	}{{"host token", testHostToken, 403}, {"the URL's spent key", key, 401}} {
		c, resp, err := websocket.DefaultDialer.Dial(wsURL+url.QueryEscape(tc.tok), http.Header{"Origin": {th.URL()}})
		if err == nil {
			c.Close()
			t.Fatalf("%s opened the shell channel", tc.name)
		}
		if resp == nil || resp.StatusCode != tc.want {
			t.Fatalf("%s on /lip/ws: %v, want HTTP %d", tc.name, resp, tc.want)
		}
	}
	// Nor can it load the page again to read the token from it.
	resp, err := http.Get(launchURL)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusGone || strings.Contains(string(page), winToken) {
		t.Fatalf("second load: %d, token leaked %v", resp.StatusCode, strings.Contains(string(page), winToken))
	}
}

// TestReloadedWindowLinkIsAKindPage (issue #10, F5): loading a window's
// link again gives an HTML page, not JSON, that says the link was used
// and how to open the unique again, in light and dark.
func TestReloadedWindowLinkIsAKindPage(t *testing.T) {
	th := startLIPHost(t)
	win := th.open(t, "board", "") // spends the link
	for _, tc := range []struct {
		name, path string
		status     int
		want       []string
	}{
		{"reload without the key", "/w/w1/", 410, []string{"already used", "<code>lets open board</code>", "<code>lets windows</code>", "Board board"}},
		{"the same link again", strings.TrimPrefix(win.URL, th.URL()), 410, []string{"already used", "lets open board"}},
		{"a closed window", "/w/w9/", 404, []string{"This window is closed", "lets open &lt;unique&gt;", "lets windows"}},
	} {
		resp, err := http.Get(th.URL() + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		page := string(body)
		if resp.StatusCode != tc.status || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
			t.Errorf("%s: %d %s, want %d HTML", tc.name, resp.StatusCode, resp.Header.Get("Content-Type"), tc.status)
		}
		for _, w := range append(tc.want, "prefers-color-scheme: dark", `<meta name="color-scheme" content="light dark">`) {
			if !strings.Contains(page, w) {
				t.Errorf("%s: the page lacks %q:\n%s", tc.name, w, page)
			}
		}
		if strings.Contains(page, `"error"`) || strings.Contains(page, "unauthorized") {
			t.Errorf("%s: raw error text in the page:\n%s", tc.name, page)
		}
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.HasPrefix(csp, "default-src 'none'") {
			t.Errorf("%s: CSP %q", tc.name, csp)
		}
	}
}
