package host

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// A home link may be handed to the browser through xdg-open, whose command
// line every local user can read for a moment. So on Linux the link's key
// is honoured only on a connection whose socket belongs to the user who
// runs Lets: the kernel lists every TCP socket with its owner in
// /proc/net/tcp and /proc/net/tcp6, and the browser's end of the
// connection is the row whose local address is the peer and whose remote
// address is ours. A refusal leaves the key unspent, so the person's own
// browser can still use it.

// errNoSocketRow means no socket table row matched the connection.
var errNoSocketRow = errors.New("no socket table entry for the connection")

// claimFromOwner reports whether r came from a socket of the user running
// Lets. Without /proc (not Linux) the key alone decides.
func (s *Server) claimFromOwner(r *http.Request) bool {
	s.home.mu.Lock()
	lookup := s.home.peerUID
	s.home.mu.Unlock()
	if lookup == nil {
		if runtime.GOOS != "linux" {
			return true
		}
		lookup = procSocketUID
	}
	peer, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	la, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return false
	}
	local, err := netip.ParseAddrPort(la.String())
	if err != nil {
		return false
	}
	uid, err := lookup(peer, local)
	if err != nil {
		s.opts.Log.Warn("could not tell who opened the home link; refused it", "peer", peer, "err", err)
		return false
	}
	if uid != os.Getuid() {
		s.opts.Log.Warn("a home link was opened by another user of this computer; refused it", "peer", peer, "uid", uid)
		return false
	}
	return true
}

// procSocketUID returns the uid owning the TCP socket client → server.
func procSocketUID(client, server netip.AddrPort) (int, error) {
	for _, name := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(name)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return -1, fmt.Errorf("read the socket table: %w", err)
		}
		uid, found, err := socketRowUID(f, client, server)
		f.Close()
		if err != nil {
			return -1, fmt.Errorf("read %s: %w", name, err)
		}
		if found {
			return uid, nil
		}
	}
	return -1, errNoSocketRow
}

// socketRowUID scans one table in /proc/net/tcp's format for the socket
// local → remote and returns its uid.
func socketRowUID(r io.Reader, local, remote netip.AddrPort) (int, bool, error) {
	local = netip.AddrPortFrom(local.Addr().Unmap(), local.Port())
	remote = netip.AddrPortFrom(remote.Addr().Unmap(), remote.Port())
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 512), 4096)
	for line := 0; sc.Scan(); line++ {
		// sl local_address rem_address st tx:rx tr:when retrnsmt uid …
		f := strings.Fields(sc.Text())
		if line == 0 || len(f) < 8 {
			continue
		}
		l, errL := procAddr(f[1])
		rm, errR := procAddr(f[2])
		if errL != nil || errR != nil || l != local || rm != remote {
			continue
		}
		uid, err := strconv.Atoi(f[7])
		if err != nil {
			return -1, false, fmt.Errorf("bad uid %q", f[7])
		}
		return uid, true, nil
	}
	return -1, false, sc.Err()
}

// procAddr parses "0100007F:1F90": the address as the kernel's 32-bit
// words in the machine's byte order, then the port in hex. IPv4-mapped
// IPv6 addresses come back as IPv4.
func procAddr(s string) (netip.AddrPort, error) {
	hexAddr, hexPort, ok := strings.Cut(s, ":")
	if !ok {
		return netip.AddrPort{}, fmt.Errorf("no port in %q", s)
	}
	raw, err := hex.DecodeString(hexAddr)
	if err != nil || (len(raw) != 4 && len(raw) != 16) {
		return netip.AddrPort{}, fmt.Errorf("bad address %q", hexAddr)
	}
	port, err := strconv.ParseUint(hexPort, 16, 16)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("bad port %q", hexPort)
	}
	b := make([]byte, len(raw))
	for i := 0; i < len(raw); i += 4 {
		binary.NativeEndian.PutUint32(b[i:], binary.BigEndian.Uint32(raw[i:]))
	}
	addr, _ := netip.AddrFromSlice(b)
	return netip.AddrPortFrom(addr.Unmap(), uint16(port)), nil
}
