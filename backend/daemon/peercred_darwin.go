package daemon

import (
	"fmt"
	"net"

	"golang.org/x/sys/unix"
)

// peerUID reads the connecting process's effective uid with LOCAL_PEERCRED,
// which §2.3 allows as a stricter equivalent of Linux's SO_PEERCRED.
func peerUID(c *net.UnixConn) (int, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return 0, fmt.Errorf("peer credentials: %w", err)
	}
	var cred *unix.Xucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	}); err != nil {
		return 0, fmt.Errorf("peer credentials: %w", err)
	}
	if credErr != nil {
		return 0, fmt.Errorf("peer credentials: %w", credErr)
	}
	return int(cred.Uid), nil
}

const peerCheckAvailable = true
