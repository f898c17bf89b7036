//go:build linux

package netguard_test

import (
	"fmt"
	"net"
	"net/netip"
	"testing"

	"github.com/lets-app/lets/backend/netguard"
)

// BenchmarkSocketOwnerUID is the cost of one socket-owner lookup, which
// LimitLocal pays per accepted connection and a one-time link per use, as
// the machine holds more TCP sockets: the kernel's table is read whole.
// The connection looked up is the newest, so the scan goes through every
// row before it finds it (the kernel lists sockets by hash, not age, so
// in practice it is somewhere in the middle).
func BenchmarkSocketOwnerUID(b *testing.B) {
	for _, n := range []int{0, 500, 2000} {
		b.Run(fmt.Sprintf("%d-other-connections", n), func(b *testing.B) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			// Cleanup, not defer: closing thousands of sockets is not part
			// of a lookup (a deferred close would run inside the timing).
			b.Cleanup(func() { ln.Close() })
			accepted := make(chan net.Conn, n+1)
			go func() {
				for {
					c, err := ln.Accept()
					if err != nil {
						return
					}
					accepted <- c
				}
			}()
			var conns []net.Conn
			b.Cleanup(func() {
				for _, c := range conns {
					c.Close()
				}
			})
			for i := 0; i <= n; i++ {
				c, err := net.Dial("tcp", ln.Addr().String())
				if err != nil {
					b.Skipf("open connection %d of %d: %v (raise the open-files limit to measure this size)", i, n, err)
				}
				conns = append(conns, c, <-accepted)
			}
			last := conns[len(conns)-1] // the server's end of the newest connection
			client := netip.MustParseAddrPort(last.RemoteAddr().String())
			server := netip.MustParseAddrPort(last.LocalAddr().String())
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				uid, err := netguard.SocketOwnerUID(client, server)
				if err != nil || uid < 0 {
					b.Fatalf("lookup: %d %v", uid, err)
				}
			}
			b.StopTimer()
		})
	}
}
