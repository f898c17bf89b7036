//go:build linux

// Package otheruser plays another local user in attack tests: it makes
// Unix listeners whose socket file and listening process belong to a
// second uid, the way a squatter in /tmp would, and connections whose
// socket belongs to that uid, the way a flooding or link-stealing user
// would. Tests run as root (as in
// CI); without root they skip loudly, or fail under LETS_REQUIRE_TOOLS=1.
package otheruser

import (
	"fmt"
	"net"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/lets-app/lets/backend/testenv/testutil"
)

// Nobody is the uid and gid the attacker plays (Debian's nobody/nogroup).
const Nobody = 65534

// RequireRoot stops a test that cannot become another user.
func RequireRoot(tb testing.TB) {
	tb.Helper()
	if os.Geteuid() != 0 {
		testutil.Missing(tb, testutil.RequireToolsEnv,
			fmt.Sprintf("this attack test plays another local user (uid %d) and must run as root to become it; it runs as uid %d", Nobody, os.Geteuid()),
			"run the tests as root (CI and `make test` in the container do)")
	}
}

// SharedDir returns a new folder that every user may write to and only a
// file's owner may delete from (mode 1777, like /tmp), with a short path
// so sockets fit in sun_path.
func SharedDir(tb testing.TB) string {
	tb.Helper()
	dir, err := os.MkdirTemp("", "sq")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o1777); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// ListenAs listens on the Unix socket path as uid/gid: the socket file
// belongs to uid and SO_PEERCRED of every connection to it reports uid.
//
// The credentials are changed on one locked OS thread only, with raw
// system calls (Go's syscall.Setuid changes every thread), and that
// thread is never unlocked, so Go discards it when the goroutine ends; Go
// creates no new threads from a locked one. The rest of the test process
// stays root.
func ListenAs(tb testing.TB, uid, gid int, path string) *net.UnixListener {
	tb.Helper()
	RequireRoot(tb)
	type result struct {
		ln  *net.UnixListener
		err error
	}
	done := make(chan result, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread dies with this goroutine
		if _, _, e := unix.RawSyscall(unix.SYS_SETGROUPS, 0, 0, 0); e != 0 {
			done <- result{err: fmt.Errorf("setgroups: %w", e)}
			return
		}
		if _, _, e := unix.RawSyscall(unix.SYS_SETRESGID, uintptr(gid), uintptr(gid), uintptr(gid)); e != 0 {
			done <- result{err: fmt.Errorf("setresgid %d: %w", gid, e)}
			return
		}
		if _, _, e := unix.RawSyscall(unix.SYS_SETRESUID, uintptr(uid), uintptr(uid), uintptr(uid)); e != 0 {
			done <- result{err: fmt.Errorf("setresuid %d: %w", uid, e)}
			return
		}
		ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
		done <- result{ln, err}
	}()
	r := <-done
	if r.err != nil {
		tb.Fatalf("listen on %s as uid %d: %v", path, uid, r.err)
	}
	tb.Cleanup(func() { r.ln.Close() })
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil || int(st.Uid) != uid {
		tb.Fatalf("the socket %s should belong to uid %d: stat %+v, %v", path, uid, st.Uid, err)
	}
	return r.ln
}

// DialAs opens a connection to addr on network ("tcp" or "unix") whose
// socket belongs to uid. The kernel gives a new socket the file-system
// uid of the thread that creates it, so a thread locked for the purpose
// sets its fsuid and dials; the goroutine then ends without unlocking, so
// the thread is thrown away and no other goroutine runs with that fsuid.
// It needs root (RequireRoot).
func DialAs(tb testing.TB, network, addr string, uid int) (net.Conn, error) {
	tb.Helper()
	RequireRoot(tb)
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

// TCPSquatter is a loopback TCP listener of another user: its listening
// socket and every connection it accepts belong to that uid, as a program
// the other user runs would. It counts the bytes it receives and answers
// nothing.
type TCPSquatter struct {
	Addr     string
	received chan int
}

// Received is how many bytes the squatter has read so far.
func (s *TCPSquatter) Received() int {
	n := <-s.received
	s.received <- n
	return n
}

// ServeTCPAs listens on a free 127.0.0.1 port as uid/gid and accepts on
// the same thread (the accepted socket takes the acceptor's uid), so the
// whole listener is the other user's. Until the test ends.
func ServeTCPAs(tb testing.TB, uid, gid int) *TCPSquatter {
	tb.Helper()
	RequireRoot(tb)
	s := &TCPSquatter{received: make(chan int, 1)}
	s.received <- 0
	ready := make(chan error, 1)
	stop := make(chan struct{})
	var ln net.Listener
	go func() {
		runtime.LockOSThread() // never unlocked: the thread dies with this goroutine
		if err := becomeUser(uid, gid); err != nil {
			ready <- err
			return
		}
		var err error
		ln, err = net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			ready <- err
			return
		}
		s.Addr = ln.Addr().String()
		ready <- nil
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, 4096)
				for {
					n, err := c.Read(buf)
					if n > 0 {
						s.received <- <-s.received + n
					}
					if err != nil {
						return
					}
					select {
					case <-stop:
						return
					default:
					}
				}
			}()
		}
	}()
	select {
	case err := <-ready:
		if err != nil {
			tb.Fatalf("listen as uid %d: %v", uid, err)
		}
	case <-time.After(testutil.EventuallyTimeout):
		tb.Fatalf("listening as uid %d did not finish", uid)
	}
	tb.Cleanup(func() { close(stop); ln.Close() })
	return s
}

// becomeUser changes the calling thread's credentials to uid/gid with raw
// system calls (only this thread; the caller has locked it for good).
func becomeUser(uid, gid int) error {
	if _, _, e := unix.RawSyscall(unix.SYS_SETGROUPS, 0, 0, 0); e != 0 {
		return fmt.Errorf("setgroups: %w", e)
	}
	if _, _, e := unix.RawSyscall(unix.SYS_SETRESGID, uintptr(gid), uintptr(gid), uintptr(gid)); e != 0 {
		return fmt.Errorf("setresgid %d: %w", gid, e)
	}
	if _, _, e := unix.RawSyscall(unix.SYS_SETRESUID, uintptr(uid), uintptr(uid), uintptr(uid)); e != 0 {
		return fmt.Errorf("setresuid %d: %w", uid, e)
	}
	return nil
}
