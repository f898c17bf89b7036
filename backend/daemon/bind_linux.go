package daemon

import (
	"fmt"
	"net"
	"os"

	"golang.org/x/sys/unix"
)

// bindPrivate binds and listens on path with the socket file created as
// 0600 from the start. Linux derives a Unix socket file's mode from the
// socket inode's mode, so fchmod before bind closes the window in which the
// reference's socket carries umask-derived permissions, without touching the
// process-wide umask that other goroutines depend on.
func bindPrivate(path string) (*net.UnixListener, error) {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("create a Unix socket: %w", err)
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close() // net.FileListener dups the descriptor
	_ = unix.Fchmod(fd, 0o600)
	if err := unix.Bind(fd, &unix.SockaddrUnix{Name: path}); err != nil {
		return nil, fmt.Errorf("bind the socket %s (does its folder exist and is it writable?): %w", path, err)
	}
	if err := unix.Listen(fd, unix.SOMAXCONN); err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("listen on the socket %s: %w", path, err)
	}
	ln, err := net.FileListener(f)
	if err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("listen on the socket %s: %w", path, err)
	}
	ul, ok := ln.(*net.UnixListener)
	if !ok {
		ln.Close()
		os.Remove(path)
		return nil, fmt.Errorf("listen on the socket %s: unexpected listener type %T", path, ln)
	}
	return ul, nil
}
