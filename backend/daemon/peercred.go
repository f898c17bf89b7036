package daemon

import (
	"net"

	"github.com/lets-app/lets/backend/peercred"
)

// peerUID reads the connecting process's uid (§2.3): SO_PEERCRED on Linux,
// LOCAL_PEERCRED on macOS, which the spec allows as a stricter equivalent.
// Where neither exists the daemon, like the reference, accepts every
// client; the socket's mode 0600 still keeps other users out.
func peerUID(c *net.UnixConn) (int, error) { return peercred.UID(c) }

// peerCheckAvailable reports whether peerUID works on this platform.
const peerCheckAvailable = peercred.Available
