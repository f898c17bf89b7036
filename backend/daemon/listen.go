package daemon

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"syscall"
	"time"
)

// Startup errors (§2.2). Both carry the reference's wording, so a person who
// has seen Pad-Lattice's messages recognises them.
var (
	// ErrNotSocket: something that is not a Unix socket sits at the path.
	// It is left untouched.
	ErrNotSocket = errors.New("socket path exists and is not a Unix socket")
	// ErrAlreadyRunning: a live daemon answers on the path.
	ErrAlreadyRunning = errors.New("another Pad-Lattice daemon is already running")
)

// maxSocketPath is the size of sockaddr_un.sun_path on Linux (104 on the
// BSDs, which then fail in bind with their own error); the path and its
// terminating NUL must fit.
const maxSocketPath = 108

// probeTimeout bounds the connect used to tell a live daemon from a stale
// socket file.
const probeTimeout = time.Second

// listener is a claimed socket path: the listening socket plus what is needed
// to remove exactly the file this process created.
type listener struct {
	ln   *net.UnixListener
	path string
	// dev and ino identify the socket file we bound, so shutdown never
	// unlinks a file that another daemon put there after us.
	dev, ino uint64
}

// claim takes the socket path as §2.2 describes: refuse a non-socket, refuse
// a live daemon, replace a stale socket, then bind with mode 0600.
func claim(path string) (*listener, error) {
	if path == "" {
		return nil, errors.New("socket path is empty; set PAD_LATTICE_SOCKET or pass --socket")
	}
	if len(path) >= maxSocketPath {
		return nil, fmt.Errorf("socket path %s is %d bytes long; Unix sockets allow at most %d, so choose a shorter path with --socket or PAD_LATTICE_SOCKET", path, len(path), maxSocketPath-1)
	}
	if err := clearStale(path); err != nil {
		return nil, err
	}
	ln, err := bindPrivate(path)
	if err != nil {
		return nil, err
	}
	l := &listener{ln: ln, path: path}
	fi, err := os.Lstat(path)
	if err != nil {
		l.closeAndUnlink()
		return nil, fmt.Errorf("inspect the new socket %s: %w", path, err)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		l.dev, l.ino = uint64(st.Dev), uint64(st.Ino)
	}
	// bindPrivate already created the file with mode 0600 where the system
	// allows it; chmod anyway, as the reference does, for every platform.
	if err := os.Chmod(path, 0o600); err != nil {
		l.closeAndUnlink()
		return nil, fmt.Errorf("make the socket %s private (mode 0600): %w", path, err)
	}
	return l, nil
}

// clearStale applies step 1 of §2.2 to whatever is at path.
func clearStale(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("inspect socket path %s: %w", path, err)
	}
	if fi.Mode().Type() != fs.ModeSocket {
		return &os.PathError{Op: "claim", Path: path, Err: fmt.Errorf("%w (move it away or choose another path with --socket)", ErrNotSocket)}
	}
	c, err := net.DialTimeout("unix", path, probeTimeout)
	switch {
	case err == nil:
		c.Close()
		return &os.PathError{Op: "claim", Path: path, Err: fmt.Errorf("%w (stop it first, or choose another path with --socket)", ErrAlreadyRunning)}
	case errors.Is(err, syscall.ECONNREFUSED):
		// A socket file nobody listens on: left by a daemon that was killed.
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove the stale socket %s: %w", path, err)
		}
		return nil
	case errors.Is(err, fs.ErrNotExist):
		return nil
	default:
		return fmt.Errorf("probe the existing socket %s: %w", path, err)
	}
}

// owned reports whether the file at the path is still the socket we bound.
func (l *listener) owned() bool {
	fi, err := os.Lstat(l.path)
	if err != nil || fi.Mode().Type() != fs.ModeSocket {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || l.ino == 0 {
		return true
	}
	return uint64(st.Dev) == l.dev && uint64(st.Ino) == l.ino
}

// closeAndUnlink closes the listener and removes the socket file if it is
// still ours. Safe to call more than once.
func (l *listener) closeAndUnlink() {
	// Go's UnixListener removes its path on Close when it created it; turn
	// that off and unlink ourselves, only if the file is still ours.
	l.ln.SetUnlinkOnClose(false)
	mine := l.owned()
	l.ln.Close()
	if mine {
		os.Remove(l.path)
	}
}
