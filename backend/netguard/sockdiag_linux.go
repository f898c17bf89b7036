//go:build linux

package netguard

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"syscall"

	"golang.org/x/sys/unix"
)

// The kernel's sock_diag netlink interface finds one TCP socket by its
// four-tuple in the socket hash, as `ss` does: a constant cost, where
// reading /proc/net/tcp walks every socket of the machine (and restarts
// the walk for each page read, so a machine with 2 000 sockets took over
// a second per lookup). Layouts from linux/inet_diag.h.
const (
	// inetDiagSockIDLen is struct inet_diag_sockid: sport, dport (big
	// endian), src[4], dst[4] (big endian words), if, cookie[2].
	inetDiagSockIDLen = 2 + 2 + 16 + 16 + 4 + 8
	// inetDiagReqV2Len is struct inet_diag_req_v2: family, protocol,
	// ext, pad, states, then the socket id.
	inetDiagReqV2Len = 8 + inetDiagSockIDLen
	// inetDiagMsgUIDOffset is where idiag_uid sits in struct
	// inet_diag_msg: family, state, timer, retrans, the socket id, then
	// expires, rqueue, wqueue, uid.
	inetDiagMsgUIDOffset = 4 + inetDiagSockIDLen + 12
	// inetDiagNoCookie asks for any socket with the four-tuple.
	inetDiagNoCookie = ^uint32(0)
	// tcpAllStates is the states mask with every TCP state set.
	tcpAllStates = ^uint32(0)
)

// errDiagUnavailable means the kernel offers no sock_diag lookup here
// (no netlink, a sandbox that forbids it, an old kernel without the
// module): the caller reads the socket tables instead.
var errDiagUnavailable = errors.New("sock_diag is not available")

// diagSocketUID asks the kernel for the owner of the TCP socket whose
// local end is local and whose remote end is remote. found is false when
// no such socket exists.
func diagSocketUID(local, remote netip.AddrPort) (uid int, found bool, err error) {
	local = netip.AddrPortFrom(local.Addr().Unmap(), local.Port())
	remote = netip.AddrPortFrom(remote.Addr().Unmap(), remote.Port())
	if local.Addr().Is4() != remote.Addr().Is4() {
		return -1, false, nil
	}
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.NETLINK_SOCK_DIAG)
	if err != nil {
		return -1, false, fmt.Errorf("%w: %v", errDiagUnavailable, err)
	}
	defer unix.Close(fd)
	// A reply never takes long; a kernel that does not answer must not
	// hold up an accept.
	tv := unix.Timeval{Sec: 1}
	_ = unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return -1, false, fmt.Errorf("%w: %v", errDiagUnavailable, err)
	}
	families := []uint8{unix.AF_INET6}
	if local.Addr().Is4() {
		// A dual-stack socket reaching 127.0.0.1 is an AF_INET6 socket
		// with a mapped address; ask as IPv4 first, then as mapped IPv6.
		families = []uint8{unix.AF_INET, unix.AF_INET6}
	}
	for i, fam := range families {
		uid, found, err := diagAsk(fd, uint32(i+1), fam, local, remote)
		if err != nil || found {
			return uid, found, err
		}
	}
	return -1, false, nil
}

// diagAsk sends one exact-match request for family and reads its answer.
func diagAsk(fd int, seq uint32, family uint8, local, remote netip.AddrPort) (int, bool, error) {
	req := make([]byte, unix.NLMSG_HDRLEN+inetDiagReqV2Len)
	ne := binary.NativeEndian
	ne.PutUint32(req[0:], uint32(len(req)))
	ne.PutUint16(req[4:], unix.SOCK_DIAG_BY_FAMILY)
	ne.PutUint16(req[6:], unix.NLM_F_REQUEST)
	ne.PutUint32(req[8:], seq)
	r := req[unix.NLMSG_HDRLEN:]
	r[0] = family
	r[1] = unix.IPPROTO_TCP
	ne.PutUint32(r[4:], tcpAllStates)
	id := r[8:]
	binary.BigEndian.PutUint16(id[0:], local.Port())
	binary.BigEndian.PutUint16(id[2:], remote.Port())
	putDiagAddr(id[4:20], local.Addr(), family)
	putDiagAddr(id[20:36], remote.Addr(), family)
	ne.PutUint32(id[40:], inetDiagNoCookie)
	ne.PutUint32(id[44:], inetDiagNoCookie)
	if err := unix.Sendto(fd, req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return -1, false, fmt.Errorf("%w: send: %v", errDiagUnavailable, err)
	}
	buf := make([]byte, 8192)
	for {
		n, _, err := unix.Recvfrom(fd, buf, 0)
		if err != nil {
			if errors.Is(err, syscall.EINTR) {
				continue
			}
			return -1, false, fmt.Errorf("%w: receive: %v", errDiagUnavailable, err)
		}
		msgs, err := syscall.ParseNetlinkMessage(buf[:n])
		if err != nil {
			return -1, false, fmt.Errorf("%w: %v", errDiagUnavailable, err)
		}
		for _, m := range msgs {
			if m.Header.Seq != seq {
				continue // an answer to an earlier request of this socket
			}
			switch m.Header.Type {
			case unix.NLMSG_ERROR:
				if len(m.Data) < 4 {
					return -1, false, fmt.Errorf("%w: short error message", errDiagUnavailable)
				}
				switch code := -int32(ne.Uint32(m.Data)); syscall.Errno(code) {
				case unix.ENOENT:
					return -1, false, nil
				default:
					return -1, false, fmt.Errorf("%w: %v", errDiagUnavailable, syscall.Errno(code))
				}
			case unix.SOCK_DIAG_BY_FAMILY:
				if len(m.Data) < inetDiagMsgUIDOffset+4 {
					return -1, false, fmt.Errorf("%w: short answer", errDiagUnavailable)
				}
				return int(ne.Uint32(m.Data[inetDiagMsgUIDOffset:])), true, nil
			}
		}
	}
}

// putDiagAddr writes a as the kernel's src/dst words: an IPv4 address in
// the first word for AF_INET, an IPv4-mapped one for AF_INET6.
func putDiagAddr(dst []byte, a netip.Addr, family uint8) {
	if family == unix.AF_INET {
		b := a.As4()
		copy(dst, b[:])
		return
	}
	b := a.As16()
	copy(dst, b[:])
}
