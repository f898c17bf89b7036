package peercred

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"runtime"

	"github.com/lets-app/lets/backend/netguard"
)

// A loopback TCP connection carries no credentials, but on Linux the kernel
// lists every TCP socket with its owner (netguard.SocketOwnerUID), so the
// owner of the other end can still be told. The same lookup answers both
// directions: seen from either end, the other end's socket is the one whose
// own address is this end's remote address.

// TCPLookup tells which uid owns the TCP socket whose own end is client and
// whose other end is server (the form of netguard.SocketOwnerUID).
type TCPLookup func(client, server netip.AddrPort) (int, error)

// SystemTCPLookup is this system's TCPLookup: netguard.SocketOwnerUID on
// Linux; nil elsewhere, where a TCP socket's owner cannot be told.
func SystemTCPLookup() TCPLookup {
	if runtime.GOOS == "linux" {
		return netguard.SocketOwnerUID
	}
	return nil
}

// PeerUID returns the uid owning the socket at the other end of the TCP
// connection own → other: the listening program for a connection this
// process dialled, the client for one it accepted.
func (l TCPLookup) PeerUID(own, other netip.AddrPort) (int, error) {
	return l(other, own)
}

// AddrError is a connection end whose address is not an IP and port.
type AddrError struct {
	Addr string
	Err  error
}

func (e *AddrError) Error() string {
	return fmt.Sprintf("could not read the connection's address %q: %v", e.Addr, e.Err)
}

func (e *AddrError) Unwrap() error { return e.Err }

// ConnEnds returns the two ends of c as this process sees them: own is
// c.LocalAddr, other c.RemoteAddr.
func ConnEnds(c net.Conn) (own, other netip.AddrPort, err error) {
	if own, err = parseAddr(c.LocalAddr().String()); err != nil {
		return own, other, err
	}
	other, err = parseAddr(c.RemoteAddr().String())
	return own, other, err
}

// RequestEnds returns the two ends of the connection r came in on: own is
// the server's address (http.LocalAddrContextKey), other r.RemoteAddr.
func RequestEnds(r *http.Request) (own, other netip.AddrPort, err error) {
	if own, err = RequestLocalAddr(r); err != nil {
		return own, other, err
	}
	other, err = parseAddr(r.RemoteAddr)
	return own, other, err
}

// RequestLocalAddr is the server's end of the connection r came in on.
func RequestLocalAddr(r *http.Request) (netip.AddrPort, error) {
	la, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return netip.AddrPort{}, &AddrError{Err: fmt.Errorf("the request carries no local address (serve it with net/http)")}
	}
	return parseAddr(la.String())
}

func parseAddr(s string) (netip.AddrPort, error) {
	a, err := netip.ParseAddrPort(s)
	if err != nil {
		return netip.AddrPort{}, &AddrError{Addr: s, Err: err}
	}
	return a, nil
}
