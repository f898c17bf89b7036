//go:build linux

package host

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/lets-app/lets/backend/netguard"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// nobodyUID is the uid the attack runs as: another local user.
const nobodyUID = 65534

// dialAsUID opens a TCP connection to addr whose socket belongs to uid.
// The kernel gives a new socket the file-system uid of the thread that
// creates it, so a thread locked for the purpose sets its fsuid, dials and
// then ends with its goroutine (a locked thread that is never unlocked is
// thrown away, so no other goroutine ever runs with the changed fsuid).
// It needs root (CAP_SETUID); the caller checks that first.
func dialAsUID(t *testing.T, addr string, uid int) net.Conn {
	t.Helper()
	type result struct {
		c   net.Conn
		err error
		fs  int
	}
	done := make(chan result, 1)
	go func() {
		runtime.LockOSThread()           // never unlocked: the thread dies with this goroutine
		_ = unix.Setfsuid(uid)           // the kernel reports no error; the next line checks
		fs, _ := unix.SetfsuidRetUid(-1) // -1 changes nothing and reports the current fsuid
		if fs != uid {
			done <- result{fs: fs}
			return
		}
		c, err := net.DialTimeout("tcp", addr, ioTimeout)
		done <- result{c: c, err: err, fs: fs}
	}()
	r := testutil.Wait(t, "the dial as uid "+strconv.Itoa(uid), done)
	if r.fs != uid {
		testutil.Missing(t, testutil.RequireToolsEnv, "could not take the file-system uid "+strconv.Itoa(uid)+" (it stayed "+strconv.Itoa(r.fs)+")",
			"run the tests as root with CAP_SETUID and uid "+strconv.Itoa(uid)+" mapped (CI does)")
	}
	if r.err != nil {
		t.Fatalf("dial %s as uid %d: %v", addr, uid, r.err)
	}
	t.Cleanup(func() { r.c.Close() })
	return r.c
}

// getOver sends one GET for target over c and reads the answer.
func getOver(t *testing.T, c net.Conn, host, target string) (int, string) {
	t.Helper()
	_ = c.SetDeadline(time.Now().Add(ioTimeout))
	if _, err := io.WriteString(c, "GET "+target+" HTTP/1.1\r\nHost: "+host+"\r\nConnection: close\r\n\r\n"); err != nil {
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

// Point (#23 High 1), the attack as it happened: another local user reads
// a window's one-time link from xdg-open's command line and loads it
// first. The host refuses it (403, the key unspent), and the person's own
// browser still gets the window afterwards.
func TestWindowLinkAttackFromAnotherUID(t *testing.T) {
	if os.Geteuid() != 0 {
		testutil.Missing(t, testutil.RequireToolsEnv, "the attack needs a socket of another uid, which only root can make",
			"run this test as root (CI and `make test` do)")
	}
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

	c := dialAsUID(t, u.Host, nobodyUID)
	// The test checks itself: the kernel must list this socket as nobody's.
	client, _ := netip.ParseAddrPort(c.LocalAddr().String())
	server, _ := netip.ParseAddrPort(c.RemoteAddr().String())
	if uid, err := netguard.SocketOwnerUID(client, server); err != nil || uid != nobodyUID {
		t.Fatalf("the attacker's socket belongs to uid %d (%v), want %d", uid, err, nobodyUID)
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
