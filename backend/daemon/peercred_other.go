//go:build !linux && !darwin

package daemon

import (
	"errors"
	"net"
)

// peerUID is unavailable here; like the reference on platforms without
// SO_PEERCRED, the daemon then accepts every client (§2.3). The socket's
// mode 0600 still keeps other users out.
func peerUID(*net.UnixConn) (int, error) {
	return 0, errors.New("peer credentials are not supported on this platform")
}

const peerCheckAvailable = false
