//go:build !linux && !darwin

package peercred

// Available reports whether UID works on this platform.
const Available = false

func peerUID(int) (int, error) { return 0, ErrUnsupported }
