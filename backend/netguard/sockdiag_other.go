//go:build !linux

package netguard

import (
	"errors"
	"net/netip"
)

var errDiagUnavailable = errors.New("sock_diag is not available")

// diagSocketUID has no sock_diag to ask outside Linux.
func diagSocketUID(local, remote netip.AddrPort) (int, bool, error) {
	return -1, false, errDiagUnavailable
}
