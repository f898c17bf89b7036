package peercred

import "golang.org/x/sys/unix"

// Available reports whether UID works on this platform.
const Available = true

// peerUID reads the peer's effective uid with LOCAL_PEERCRED, which the
// Wire spec (§2.3) allows as a stricter equivalent of SO_PEERCRED.
func peerUID(fd int) (int, error) {
	cred, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return 0, err
	}
	return int(cred.Uid), nil
}
