package host

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

// rawGet sends one GET with a request-target exactly as given (no client
// cleaning) and returns the answer.
func rawGet(t *testing.T, port int, target string, headers ...string) *http.Response {
	t.Helper()
	c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), ioTimeout)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(ioTimeout))
	req := "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + strconv.Itoa(port) + "\r\nConnection: close\r\n"
	for _, h := range headers {
		req += h + "\r\n"
	}
	if _, err := io.WriteString(c, req+"\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("GET %s: %v", target, err)
	}
	return resp
}

// TestUniqueTokenExchangeRedirectsOnlyOnItsOrigin (issue #10, open
// redirect): whatever path the frame URL names, the 303 after the token
// exchange goes to a path on origin U, never to another host.
func TestUniqueTokenExchangeRedirectsOnlyOnItsOrigin(t *testing.T) {
	th := startLIPHost(t)
	th.open(t, "board", "")
	o, _ := th.origins.get("board")
	w, _ := th.core.window("w1")
	ft := url.QueryEscape(w.frameToken)
	for _, tc := range []struct{ target, want string }{
		{"/index.html?t=" + ft, "/index.html"},
		{"/index.html?x=1&t=" + ft, "/index.html?x=1"},
		{"/sub/?t=" + ft, "/sub/"},
		{"//evil.example/x?t=" + ft, "/evil.example/x"},
		{"///evil.example/x?t=" + ft, "/evil.example/x"},
		{"/%2F%2Fevil.example/x?t=" + ft, "/evil.example/x"},
		{"/\\evil.example/x?t=" + ft, "/index.html"},
		{"/%5Cevil.example/x?t=" + ft, "/index.html"},
		{"/%5C%5Cevil.example?t=" + ft, "/index.html"},
		{"/%09/evil.example?t=" + ft, "/index.html"},
		{"/%0D%0ALocation:%20http://evil.example?t=" + ft, "/index.html"},
		{"/./..//evil.example?t=" + ft, "/evil.example"},
		{"/a/../..//evil.example/?t=" + ft, "/evil.example/"},
		{"http://evil.example/x?t=" + ft, ""}, // absolute form: wrong Host, 421
	} {
		resp := rawGet(t, o.port, tc.target)
		resp.Body.Close()
		loc := resp.Header.Get("Location")
		if tc.want == "" {
			if resp.StatusCode != http.StatusMisdirectedRequest || loc != "" {
				t.Errorf("GET %s: %d → %q, want 421 and no redirect", tc.target, resp.StatusCode, loc)
			}
			continue
		}
		if resp.StatusCode != http.StatusSeeOther || loc != tc.want {
			t.Errorf("GET %s: %d → %q, want 303 → %q", tc.target, resp.StatusCode, loc, tc.want)
		}
		if u, err := url.Parse(loc); err != nil || u.Host != "" || u.Scheme != "" || strings.HasPrefix(loc, "//") || strings.Contains(loc, "\\") {
			t.Errorf("GET %s: Location %q leaves the origin", tc.target, loc)
		}
	}
}

// TestUniqueCookieTossedByAnotherUniqueDoesNotLockItOut (issue #10, cookie
// tossing): another unique on 127.0.0.1 can set a cookie named after this
// origin with a longer path; the browser then sends both, the tossed one
// first. The origin accepts the request when any cookie of its name holds
// its secret, and still refuses when none does.
func TestUniqueCookieTossedByAnotherUniqueDoesNotLockItOut(t *testing.T) {
	th := startLIPHost(t)
	th.open(t, "board", "")
	o, _ := th.origins.get("board")
	name := "lets_u_" + strconv.Itoa(o.port)
	for _, tc := range []struct {
		name, cookie string
		want         int
	}{
		{"own cookie only", name + "=" + o.secret, 200},
		{"tossed cookie first", name + "=junk; " + name + "=" + o.secret, 200},
		{"tossed cookie last", name + "=" + o.secret + "; " + name + "=junk", 200},
		{"two cookie headers", name + "=junk\r\nCookie: " + name + "=" + o.secret, 200},
		{"only tossed cookies", name + "=junk; " + name + "=" + o.secret[:len(o.secret)-1], 401},
		{"the secret under another port's name", "lets_u_1=" + o.secret, 401},
	} {
		resp := rawGet(t, o.port, "/index.html", "Cookie: "+tc.cookie)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s: %d %s, want %d", tc.name, resp.StatusCode, body, tc.want)
		}
	}
}
