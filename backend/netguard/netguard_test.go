package netguard

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/testenv/testutil"
)

// kernelAddr writes an address the way /proc/net/tcp does (32-bit words in
// the machine's byte order), so the parser tests hold on any machine.
func kernelAddr(ap netip.AddrPort, six bool) string {
	var raw []byte
	if six {
		a := ap.Addr().As16()
		raw = a[:]
	} else {
		a := ap.Addr().As4()
		raw = a[:]
	}
	var b strings.Builder
	for i := 0; i < len(raw); i += 4 {
		fmt.Fprintf(&b, "%08X", binary.NativeEndian.Uint32(raw[i:]))
	}
	fmt.Fprintf(&b, ":%04X", ap.Port())
	return b.String()
}

// The socket table format: IPv4 rows and IPv4-mapped IPv6 rows, the uid in
// the eighth column; the server's own end of the connection (same
// addresses, swapped) must not match, and garbage rows are passed over.
func TestFindSocketUIDInATable(t *testing.T) {
	browser := netip.MustParseAddrPort("127.0.0.1:40000")
	server := netip.MustParseAddrPort("127.0.0.1:8080")
	mapped := func(port uint16) netip.AddrPort {
		return netip.AddrPortFrom(netip.MustParseAddr("::ffff:127.0.0.1"), port)
	}
	row := func(n int, local, remote string, uid int) string {
		return fmt.Sprintf("   %d: %s %s 01 00000000:00000000 00:00000000 00000000  %d        0 %d\n", n, local, remote, uid, n+1)
	}
	tcp := "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n" +
		row(0, kernelAddr(server, false), kernelAddr(browser, false), 1000) +
		row(1, kernelAddr(browser, false), kernelAddr(server, false), 1001) +
		"   2: garbage\n"
	tcp6 := "  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n" +
		row(0, kernelAddr(mapped(40001), true), kernelAddr(mapped(8080), true), 1002)
	for _, c := range []struct {
		table  string
		client string
		uid    int
		found  bool
	}{
		{tcp, "127.0.0.1:40000", 1001, true},
		{tcp, "127.0.0.1:40001", -1, false},
		{tcp6, "127.0.0.1:40001", 1002, true},
		{tcp6, "[::ffff:127.0.0.1]:40001", 1002, true},
		{tcp6, "127.0.0.1:1", -1, false},
	} {
		uid, found, err := FindSocketUID(strings.NewReader(c.table), netip.MustParseAddrPort(c.client), server)
		if err != nil || found != c.found || uid != c.uid {
			t.Errorf("%s: uid %d found %v err %v, want %d %v", c.client, uid, found, err, c.uid, c.found)
		}
	}
	for _, bad := range []string{"0100007F", "0100007F:zz", "XX00007F:1F90", "0100:1F90"} {
		if _, err := ParseSocketAddr(bad); err == nil {
			t.Errorf("ParseSocketAddr(%q) accepted", bad)
		}
	}
	if binary.NativeEndian.Uint16([]byte{1, 0}) == 1 { // little-endian: the kernel's text on x86 and arm64
		if ap, err := ParseSocketAddr("0100007F:1F90"); err != nil || ap != server {
			t.Errorf("ParseSocketAddr of a real x86 row: %v %v", ap, err)
		}
	}
	bad := "header\n   0: " + kernelAddr(browser, false) + " " + kernelAddr(server, false) + " 01 0:0 0:0 0 notanumber 0 1\n"
	if _, _, err := FindSocketUID(strings.NewReader(bad), browser, server); err == nil {
		t.Error("a row with a broken uid was accepted")
	}
}

// The real lookup finds the owner of a live loopback connection: this
// process's user; a connection that does not exist is ErrSocketOwnerUnknown.
func TestSocketOwnerOfALoopbackConnection(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("socket owners are read from /proc/net/tcp on Linux only")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			accepted <- c
		}
		close(accepted)
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if sc, ok := <-accepted; ok {
		defer sc.Close()
	}
	client := netip.MustParseAddrPort(c.LocalAddr().String())
	server := netip.MustParseAddrPort(c.RemoteAddr().String())
	uid, err := SocketOwnerUID(client, server)
	if err != nil || uid != os.Getuid() {
		t.Fatalf("owner of %v → %v: %d %v, want %d", client, server, uid, err, os.Getuid())
	}
	if _, err := SocketOwnerUID(netip.MustParseAddrPort("127.0.0.1:1"), server); !errors.Is(err, ErrSocketOwnerUnknown) {
		t.Fatalf("a connection that does not exist: %v", err)
	}
}

// A listener over its cap closes new connections at once (the client
// reads EOF), counts them, keeps the ones it holds working, and frees a
// slot when one of them closes — once, however often it is closed.
func TestLimitListenerCapsOpenConnections(t *testing.T) {
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := Limit(raw, 2, "test", nil)
	defer ln.Close()
	held := make(chan net.Conn, 8)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				close(held)
				return
			}
			held <- c
		}
	}()
	dial := func() net.Conn {
		c, err := net.DialTimeout("tcp", raw.Addr().String(), testutil.EventuallyTimeout)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	dial()
	dial()
	first, second := <-held, <-held
	testutil.Eventually(t, "two open slots", func() bool { return ln.Open() == 2 })

	over := dial()
	_ = over.SetReadDeadline(time.Now().Add(testutil.EventuallyTimeout))
	if _, err := over.Read(make([]byte, 1)); !errors.Is(err, io.EOF) && !isReset(err) {
		t.Fatalf("a connection over the cap: read %v, want it closed", err)
	}
	testutil.Eventually(t, "the refusal to be counted", func() bool { return ln.Refused() == 1 })
	if ln.Open() != 2 || ln.Cap() != 2 {
		t.Fatalf("open %d cap %d after a refusal, want 2 2", ln.Open(), ln.Cap())
	}

	first.Close()
	first.Close() // a second close gives back nothing more
	testutil.Eventually(t, "the slot to be freed", func() bool { return ln.Open() == 1 })
	dial()
	select {
	case c := <-held:
		c.Close()
	case <-time.After(testutil.EventuallyTimeout):
		t.Fatal("a connection after a slot was freed was not accepted")
	}
	second.Close()
	testutil.Eventually(t, "all slots free", func() bool { return ln.Open() == 0 })
}

func isReset(err error) bool {
	return err != nil && strings.Contains(err.Error(), "connection reset")
}
