//go:build linux

package host

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/netguard"
	"github.com/lets-app/lets/backend/testenv/otheruser"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// Point (#23, cookie flood fix, as another uid): the fix lets the person's
// own sockets in without the cookie; another local user must gain nothing
// from it. Over sockets that really belong to another uid, a unique's
// origin answers 403 with no cookie, a made-up cookie, the unique's real
// cookie (as if it had been stolen; it is HttpOnly in the person's
// profile), a same-origin claim, or the frame token.
func TestUniqueOriginRefusesAnotherUID(t *testing.T) {
	otheruser.RequireRoot(t)
	if _, err := os.Stat("/proc/net/tcp"); err != nil {
		testutil.Missing(t, testutil.RequireToolsEnv, "no /proc/net/tcp here", "run the tests on Linux with /proc mounted")
	}
	th := startLIPHost(t)
	win := th.open(t, "board", "")
	o, _ := th.origins.get("board")
	w, _ := th.core.window(win.Window)
	addr := "127.0.0.1:" + strconv.Itoa(o.port)
	right := o.cookie + "=" + o.secret
	for _, tc := range []struct {
		name, target string
		headers      []string
	}{
		{"no cookie", "/style.css", nil},
		{"a made-up cookie", "/style.css", []string{"Cookie: " + o.cookie + "=" + strings.Repeat("A", len(o.secret))}},
		{"a made-up cookie from its own page", "/style.css", []string{"Cookie: " + o.cookie + "=junk", "Sec-Fetch-Site: same-origin"}},
		{"no cookie from its own page", "/style.css", []string{"Sec-Fetch-Site: same-origin"}},
		{"the stolen cookie", "/style.css", []string{"Cookie: " + right}},
		{"the stolen cookie from its own page", "/index.html", []string{"Cookie: " + right, "Sec-Fetch-Site: same-origin"}},
		{"the frame token", "/index.html?t=" + w.frameToken, nil},
	} {
		c, err := otheruser.DialAs(t, "tcp", addr, otheruser.Nobody)
		if err != nil {
			t.Fatalf("dial the unique as uid %d: %v", otheruser.Nobody, err)
		}
		// The test checks itself: the kernel lists this socket as nobody's.
		client, _ := netip.ParseAddrPort(c.LocalAddr().String())
		server, _ := netip.ParseAddrPort(c.RemoteAddr().String())
		if uid, err := netguard.SocketOwnerUID(client, server); err != nil || uid != otheruser.Nobody {
			t.Fatalf("the attacker's socket belongs to uid %d (%v), want %d", uid, err, otheruser.Nobody)
		}
		code, body := getOverWith(t, c, addr, tc.target, tc.headers...)
		if code != http.StatusForbidden {
			t.Errorf("another user, %s: %d %q, want 403", tc.name, code, body)
		}
		if strings.Contains(body, "font-family") || strings.Contains(body, "lip/sdk.js") {
			t.Errorf("another user, %s: the answer carries the unique's file:\n%s", tc.name, body)
		}
	}

	// The person's own socket, with the same cookie and with none (a page
	// of the origin, as after a flood), still loads.
	resp := rawGet(t, o.port, "/style.css", "Cookie: "+right)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("the person's load with the cookie: %d", resp.StatusCode)
	}
	resp = rawGet(t, o.port, "/style.css", "Sec-Fetch-Site: same-origin")
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("the person's load from the unique's page without the cookie: %d", resp.StatusCode)
	}
}

// getOverWith is getOver with extra request headers.
func getOverWith(t *testing.T, c net.Conn, host, target string, headers ...string) (int, string) {
	t.Helper()
	_ = c.SetDeadline(time.Now().Add(ioTimeout))
	req := "GET " + target + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n"
	for _, h := range headers {
		req += h + "\r\n"
	}
	if _, err := io.WriteString(c, req+"\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}
