package netguard

import (
	"net"
	"net/netip"
	"os"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/lets-app/lets/backend/testenv/otheruser"
)

// pair opens a loopback connection on network ("tcp4" or "tcp6") and
// returns the client's and the server's ends' addresses.
func pair(t *testing.T, network, addr string, dial func(addr string) (net.Conn, error)) (client, server netip.AddrPort) {
	t.Helper()
	ln, err := net.Listen(network, addr)
	if err != nil {
		t.Fatalf("listen on %s %s: %v", network, addr, err)
	}
	t.Cleanup(func() { ln.Close() })
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			accepted <- c
		}
		close(accepted)
	}()
	c, err := dial(ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if sc, ok := <-accepted; ok {
		t.Cleanup(func() { sc.Close() })
	}
	return netip.MustParseAddrPort(c.LocalAddr().String()), netip.MustParseAddrPort(c.RemoteAddr().String())
}

// dialMapped connects to an IPv4 loopback addr from an AF_INET6 socket,
// through the IPv4-mapped address, as a dual-stack client may.
func dialMapped(addr string) (net.Conn, error) {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return nil, err
	}
	fd, err := unix.Socket(unix.AF_INET6, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	sa := &unix.SockaddrInet6{Port: int(ap.Port()), Addr: netip.AddrFrom16(ap.Addr().As16()).As16()}
	if err := unix.Connect(fd, sa); err != nil {
		unix.Close(fd)
		return nil, err
	}
	f := os.NewFile(uintptr(fd), "mapped")
	defer f.Close()
	return net.FileConn(f)
}

func plainDial(network string) func(string) (net.Conn, error) {
	return func(addr string) (net.Conn, error) { return net.Dial(network, addr) }
}

// The sock_diag lookup and the socket tables agree on who owns a
// connection's client end, over IPv4, IPv6 and a dual-stack socket
// reaching 127.0.0.1 (an AF_INET6 socket with a mapped address); the
// server's end of the same connection is not the client's, and a
// connection that does not exist is not found.
func TestSockDiagAgreesWithTheSocketTables(t *testing.T) {
	cases := []struct {
		name, network, addr string
		dial                func(string) (net.Conn, error)
	}{
		{"ipv4", "tcp4", "127.0.0.1:0", plainDial("tcp4")},
		{"ipv6", "tcp6", "[::1]:0", plainDial("tcp6")},
		{"dual-stack to 127.0.0.1", "tcp", "127.0.0.1:0", dialMapped},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			client, server := pair(t, c.network, c.addr, c.dial)
			uid, found, err := diagSocketUID(client, server)
			if err != nil || !found || uid != os.Getuid() {
				t.Fatalf("sock_diag on %v → %v: uid %d found %v err %v, want %d", client, server, uid, found, err, os.Getuid())
			}
			if tuid, err := tableSocketUID(client, server); err != nil || tuid != uid {
				t.Fatalf("the tables say %d (%v), sock_diag %d", tuid, err, uid)
			}
			if _, found, err := diagSocketUID(netip.AddrPortFrom(client.Addr(), 1), server); err != nil || found {
				t.Fatalf("a connection that does not exist: found %v err %v", found, err)
			}
		})
	}
}

// #23: the lookup that keeps other users to their share of connections
// names the other uid for a connection another user opened.
func TestSockDiagNamesAnotherUser(t *testing.T) {
	otheruser.RequireRoot(t)
	client, server := pair(t, "tcp4", "127.0.0.1:0", func(addr string) (net.Conn, error) {
		return otheruser.DialAs(t, "tcp", addr, otheruser.Nobody)
	})
	uid, found, err := diagSocketUID(client, server)
	if err != nil || !found || uid != otheruser.Nobody {
		t.Fatalf("sock_diag: uid %d found %v err %v, want %d", uid, found, err, otheruser.Nobody)
	}
	if got, err := SocketOwnerUID(client, server); err != nil || got != otheruser.Nobody {
		t.Fatalf("SocketOwnerUID: %d %v", got, err)
	}
}
