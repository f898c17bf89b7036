package host

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"testing/fstest"
)

// Point (#23 note): the home token is never taken from the address. A
// token in a URL stays in the browser's history (and can leak from
// there), so GET /home/api/...?t=<home token> is 401 now; the same token
// in the Authorization header works. The one-time window link keeps its
// ?t= (it is spent on first use).
func TestHomeTokenIsRefusedInTheAddress(t *testing.T) {
	builtin := fstest.MapFS{}
	for p, data := range boardFiles("board", []string{}) {
		if p == "unique.json" {
			data = strings.Replace(data, `"guide": "GUIDE.md",`, `"guide": "GUIDE.md", "icon": "icon.svg",`, 1)
		}
		builtin["board/"+p] = &fstest.MapFile{Data: []byte(data), Mode: 0o644}
	}
	svg := `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 2 2"><rect width="2" height="2"/></svg>`
	builtin["board/icon.svg"] = &fstest.MapFile{Data: []byte(svg), Mode: 0o644}
	th := startLIPHost(t, func(o *Options) { o.Builtin = builtin })
	code, tok := claimHome(t, th, homeKey(t, th))
	if code != 200 || tok == "" {
		t.Fatalf("claim: %d", code)
	}
	get := func(path, header string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", th.URL()+path, nil)
		if header != "" {
			req.Header.Set("Authorization", "Bearer "+header)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	q := "?t=" + url.QueryEscape(tok)
	for _, path := range []string{"/home/api/icon/board", "/home/api/overview", "/home/api/waiting"} {
		if code, body := get(path+q, ""); code != http.StatusUnauthorized {
			t.Errorf("GET %s?t=<home token>: %d %s, want 401", path, code, body)
		}
		if code, body := get(path, tok); code != http.StatusOK {
			t.Errorf("GET %s with the home token in the header: %d %s, want 200", path, code, body)
		}
	}
	if code, body := get("/home/api/icon/board", tok); code != 200 || body != svg {
		t.Errorf("the icon with the header: %d %q", code, body)
	}
	// The window link's one-time ?t= is not affected.
	win := th.openOnly(t, "board", "")
	if !strings.Contains(win.URL, "?t=") {
		t.Fatalf("the window link %q has no ?t=", win.URL)
	}
	if tok := loadShellToken(t, win.URL); tok == "" {
		t.Fatal("the window link's ?t= no longer opens the window")
	}
}
