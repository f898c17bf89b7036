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
// has seen Pad-Lattice's messages recognises them. They reach the caller
// inside a *SocketError naming the path; what to do about them depends on
// the command that started the daemon, so the hint is the caller's to add.
var (
	// ErrNotSocket: something that is not a Unix socket sits at the path.
	// It is left untouched.
	ErrNotSocket = errors.New("socket path exists and is not a Unix socket")
	// ErrAlreadyRunning: a live daemon answers on the path.
	ErrAlreadyRunning = errors.New("another Pad-Lattice daemon is already running")
	// ErrSocketPathTooLong: the path does not fit in a Unix socket address.
	ErrSocketPathTooLong = errors.New("socket path is too long for a Unix socket")
	// ErrNoSocketPath: the path is empty.
	ErrNoSocketPath = errors.New("socket path is empty")

	// ErrSocketInUse matches (errors.Is) a *SocketError whose path is
	// taken: by a live daemon (ErrAlreadyRunning) or by something that is
	// not a socket (ErrNotSocket).
	ErrSocketInUse = errors.New("socket path is in use")
)

// SocketError is a socket path the daemon could not claim.
type SocketError struct {
	Path string
	// Err is ErrNotSocket, ErrAlreadyRunning, ErrSocketPathTooLong or
	// ErrNoSocketPath.
	Err error
}

func (e *SocketError) Error() string {
	if errors.Is(e.Err, ErrSocketPathTooLong) {
		return fmt.Sprintf("%v: '%s' is %d bytes long; Unix sockets allow at most %d", e.Err, e.Path, len(e.Path), maxSocketPath-1)
	}
	if e.Path == "" {
		return e.Err.Error()
	}
	return fmt.Sprintf("%v: '%s'", e.Err, e.Path)
}

func (e *SocketError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrSocketInUse) true for a taken path.
func (e *SocketError) Is(target error) bool {
	return target == ErrSocketInUse && (errors.Is(e.Err, ErrAlreadyRunning) || errors.Is(e.Err, ErrNotSocket))
}

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
		return nil, &SocketError{Err: ErrNoSocketPath}
	}
	if len(path) >= maxSocketPath {
		return nil, &SocketError{Path: path, Err: ErrSocketPathTooLong}
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
		return &SocketError{Path: path, Err: ErrNotSocket}
	}
	c, err := net.DialTimeout("unix", path, probeTimeout)
	switch {
	case err == nil:
		c.Close()
		return &SocketError{Path: path, Err: ErrAlreadyRunning}
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
