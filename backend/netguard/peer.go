package netguard

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"strconv"
	"strings"
)

// ErrSocketOwnerUnknown means no socket table row matched the connection.
var ErrSocketOwnerUnknown = errors.New("no socket table entry for the connection")

// socketTables are the kernel's TCP socket tables (IPv4, then IPv6 for
// dual-stack clients that reach 127.0.0.1 as ::ffff:127.0.0.1).
var socketTables = [...]string{"/proc/net/tcp", "/proc/net/tcp6"}

// SocketOwnerUID returns the uid owning the TCP socket whose local end is
// client and whose remote end is server: for a connection a server
// accepted, client is the request's remote address and server its local
// one. On Linux the kernel's sock_diag interface finds the socket by its
// addresses (as `ss` does); where that is not allowed, the answer comes
// from /proc/net/tcp and /proc/net/tcp6, which list every TCP socket of
// the network namespace with its owner. Elsewhere the answer is
// ErrSocketOwnerUnknown.
func SocketOwnerUID(client, server netip.AddrPort) (int, error) {
	uid, found, err := diagSocketUID(client, server)
	switch {
	case err == nil && found:
		return uid, nil
	case err == nil:
		return -1, ErrSocketOwnerUnknown
	}
	return tableSocketUID(client, server)
}

// tableSocketUID is SocketOwnerUID from the socket tables, for a system
// without the sock_diag lookup (sockdiag_linux.go). The tables are read in
// large pieces: the kernel walks its sockets again for every read.
func tableSocketUID(client, server netip.AddrPort) (int, error) {
	for _, name := range socketTables {
		f, err := os.Open(name)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			return -1, fmt.Errorf("read the socket table: %w", err)
		}
		uid, found, err := FindSocketUID(bufio.NewReaderSize(f, 1<<18), client, server)
		f.Close()
		if err != nil {
			return -1, fmt.Errorf("read %s: %w", name, err)
		}
		if found {
			return uid, nil
		}
	}
	return -1, ErrSocketOwnerUnknown
}

// FindSocketUID scans one socket table (the format of /proc/net/tcp) for
// the socket local → remote and returns its uid. The reverse row (the
// other end of the same connection) does not match.
func FindSocketUID(r io.Reader, local, remote netip.AddrPort) (uid int, found bool, err error) {
	local = netip.AddrPortFrom(local.Addr().Unmap(), local.Port())
	remote = netip.AddrPortFrom(remote.Addr().Unmap(), remote.Port())
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 512), 4096)
	first := true
	for sc.Scan() {
		if first { // the header line
			first = false
			continue
		}
		// sl local_address rem_address st tx:rx tr:when retrnsmt uid ...
		f := strings.Fields(sc.Text())
		if len(f) < 8 {
			continue
		}
		l, errL := ParseSocketAddr(f[1])
		rm, errR := ParseSocketAddr(f[2])
		if errL != nil || errR != nil || l != local || rm != remote {
			continue
		}
		n, err := strconv.Atoi(f[7])
		if err != nil {
			return -1, false, fmt.Errorf("bad uid %q", f[7])
		}
		return n, true, nil
	}
	return -1, false, sc.Err()
}

// ParseSocketAddr reads "0100007F:1F90" (IPv4) or a 32-digit IPv6 address
// and port. The kernel prints each 32-bit word of the address as a number
// in the machine's byte order, the port as a plain hex number. IPv4-mapped
// IPv6 addresses come back as IPv4.
func ParseSocketAddr(s string) (netip.AddrPort, error) {
	hexAddr, hexPort, ok := strings.Cut(s, ":")
	if !ok || (len(hexAddr) != 8 && len(hexAddr) != 32) {
		return netip.AddrPort{}, fmt.Errorf("bad socket address %q", s)
	}
	port, err := strconv.ParseUint(hexPort, 16, 16)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("bad socket port %q", s)
	}
	raw, err := hex.DecodeString(hexAddr)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("bad socket address %q", s)
	}
	for i := 0; i < len(raw); i += 4 {
		binary.NativeEndian.PutUint32(raw[i:], binary.BigEndian.Uint32(raw[i:]))
	}
	a, _ := netip.AddrFromSlice(raw)
	return netip.AddrPortFrom(a.Unmap(), uint16(port)), nil
}
