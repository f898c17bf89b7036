// Package otheruid lets a test act as another local user: it opens
// connections whose sockets belong to a uid other than the test's, the
// way a hostile user on the same machine would. Tests run as root in CI;
// elsewhere they skip loudly, or fail under LETS_REQUIRE_TOOLS=1.
package otheruid

import (
	"fmt"
	"net"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/testenv/testutil"
	"golang.org/x/sys/unix"
)

// Nobody is the uid attacks run as: another local user.
const Nobody = 65534

// Require checks that this test can act as another user (it runs as root
// on Linux, so it may change its file-system uid).
func Require(tb testing.TB) {
	tb.Helper()
	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		testutil.Missing(tb, testutil.RequireToolsEnv,
			fmt.Sprintf("acting as another local user needs root on Linux (this is %s, euid %d)", runtime.GOOS, os.Geteuid()),
			"run the test as root (make test does in CI), e.g. sudo go test")
	}
}

// Dial opens a connection to addr on network ("tcp" or "unix") whose
// socket belongs to uid. The kernel gives a new socket the file-system
// uid of the thread that creates it, so a thread locked for the purpose
// sets its fsuid and dials; the goroutine then ends without unlocking, so
// the thread is thrown away and no other goroutine runs with that fsuid.
// Call Require first.
func Dial(tb testing.TB, network, addr string, uid int) (net.Conn, error) {
	tb.Helper()
	type result struct {
		c   net.Conn
		err error
	}
	done := make(chan result, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread dies with this goroutine
		_ = unix.Setfsgid(uid)
		_ = unix.Setfsuid(uid)
		if fs, _ := unix.SetfsuidRetUid(-1); fs != uid { // -1 changes nothing and reports the current fsuid
			done <- result{err: fmt.Errorf("could not take the file-system uid %d (it stayed %d)", uid, fs)}
			return
		}
		c, err := net.DialTimeout(network, addr, testutil.EventuallyTimeout)
		done <- result{c: c, err: err}
	}()
	select {
	case r := <-done:
		if r.err == nil {
			tb.Cleanup(func() { _ = r.c.Close() })
		}
		return r.c, r.err
	case <-time.After(testutil.EventuallyTimeout + time.Second):
		tb.Fatalf("dialling %s as uid %s did not finish", addr, strconv.Itoa(uid))
		return nil, nil
	}
}
