//go:build !linux

package daemon

import (
	"fmt"
	"net"
)

// bindPrivate binds and listens on path; claim then sets mode 0600.
func bindPrivate(path string) (*net.UnixListener, error) {
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("bind the socket %s (does its folder exist and is it writable?): %w", path, err)
	}
	return ln, nil
}
