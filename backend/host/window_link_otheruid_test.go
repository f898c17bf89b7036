//go:build linux

package host

import (
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/lets-app/lets/backend/netguard"
	"github.com/lets-app/lets/backend/testenv/otheruser"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// getOver sends one GET for target over c and reads the answer.
func getOver(t *testing.T, c net.Conn, host, target string) (int, string) {
	t.Helper()
	return getOverWith(t, c, host, target)
}

// Point (#23 High 1), the attack as it happened: another local user reads
// a window's one-time link from xdg-open's command line and loads it
// first. The host refuses it (403, the key unspent), and the person's own
// browser still gets the window afterwards.
func TestWindowLinkAttackFromAnotherUID(t *testing.T) {
	otheruser.RequireRoot(t)
	if _, err := os.Stat("/proc/net/tcp"); err != nil {
		testutil.Missing(t, testutil.RequireToolsEnv, "no /proc/net/tcp here", "run the tests on Linux with /proc mounted")
	}
	th := startLIPHost(t)
	win := th.openOnly(t, "board", "")
	u, err := url.Parse(win.URL)
	if err != nil {
		t.Fatal(err)
	}
	target := u.RequestURI()
	if !strings.Contains(target, "t=") {
		t.Fatalf("the window link %q carries no one-time key", win.URL)
	}

	c, err := otheruser.DialAs(t, "tcp", u.Host, otheruser.Nobody)
	if err != nil {
		t.Fatalf("dial the host as uid %d: %v", otheruser.Nobody, err)
	}
	// The test checks itself: the kernel must list this socket as nobody's.
	client, _ := netip.ParseAddrPort(c.LocalAddr().String())
	server, _ := netip.ParseAddrPort(c.RemoteAddr().String())
	if uid, err := netguard.SocketOwnerUID(client, server); err != nil || uid != otheruser.Nobody {
		t.Fatalf("the attacker's socket belongs to uid %d (%v), want %d", uid, err, otheruser.Nobody)
	}
	code, page := getOver(t, c, u.Host, target)
	if code != http.StatusForbidden {
		t.Fatalf("another user loaded the window link: %d, want 403\n%s", code, page)
	}
	if strings.Contains(page, "lets-config") || strings.Contains(page, `"token"`) {
		t.Fatalf("the refusal carries the window:\n%s", page)
	}

	// The person's own browser, after the attempt.
	if tok := loadShellToken(t, win.URL); tok == "" {
		t.Fatal("the person's own load after the refusal got no window token")
	}
}
