package daemon

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/lets-app/lets/backend/peercred"
	"github.com/lets-app/lets/backend/wire"
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
	// ErrForeignOwner: the socket path, or the daemon answering on it,
	// belongs to another user. Whoever listens there reads the agents'
	// reports and can answer their approvals, so it is never "another
	// daemon of yours"; the *SocketError names that user.
	ErrForeignOwner = errors.New("socket path belongs to another user")
	// ErrPrivateFolder: the private folder of the fallback socket is not
	// a folder of this user's that no one else can enter.
	ErrPrivateFolder = errors.New("the private socket folder is not usable")

	// ErrSocketInUse matches (errors.Is) a *SocketError whose path is
	// taken: by a live daemon (ErrAlreadyRunning) or by something that is
	// not a socket (ErrNotSocket).
	ErrSocketInUse = errors.New("socket path is in use")
)

// SocketError is a socket path the daemon could not claim.
type SocketError struct {
	Path string
	// Err is ErrNotSocket, ErrAlreadyRunning, ErrForeignOwner,
	// ErrPrivateFolder, ErrSocketPathTooLong or ErrNoSocketPath.
	Err error
	// Owner is the other user of ErrForeignOwner (-1: unknown), and
	// Listener tells that it is the process answering on the socket
	// rather than the socket file.
	Owner    int
	Listener bool
	// folder: Path is the private folder, not a socket.
	folder bool
	// Fallback is why the private folder (wire.PrivateSocketPath) could
	// not be used instead of Path either; nil when it was not tried.
	Fallback error
}

func (e *SocketError) Error() string {
	var msg string
	switch {
	case errors.Is(e.Err, ErrSocketPathTooLong):
		msg = fmt.Sprintf("%v: '%s' is %d bytes long; Unix sockets allow at most %d", e.Err, e.Path, len(e.Path), maxSocketPath-1)
	case errors.Is(e.Err, ErrForeignOwner):
		who := "another user"
		if e.Owner >= 0 {
			who = peercred.Describe(e.Owner)
		}
		what := "the socket %s belongs to %s"
		switch {
		case e.Listener:
			what = "the program answering on the socket %s runs as %s"
		case e.folder:
			what = "the folder %s belongs to %s"
		}
		msg = fmt.Sprintf(what+", not you (%s)", e.Path, who, peercred.Short(os.Geteuid()))
	case e.Path == "":
		msg = e.Err.Error()
	default:
		msg = fmt.Sprintf("%v: '%s'", e.Err, e.Path)
	}
	if e.Fallback != nil {
		msg += "; the private place Lets uses instead cannot be used either: " + e.Fallback.Error()
	}
	return msg
}

func (e *SocketError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrSocketInUse) true for a taken path.
func (e *SocketError) Is(target error) bool {
	return target == ErrSocketInUse && (errors.Is(e.Err, ErrAlreadyRunning) || errors.Is(e.Err, ErrNotSocket) || errors.Is(e.Err, ErrForeignOwner))
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
	// moved is the error that sent the daemon from the protocol's path to
	// the private one (nil when it listens where it was asked to).
	moved *SocketError
}

// claim takes the socket path as §2.2 describes: refuse a non-socket, refuse
// a live daemon, replace a stale socket, then bind with mode 0600. On top of
// the reference it refuses a path that belongs to another user, and moves
// off the protocol's default path when another user holds it
// (wire.ChooseSocketPath): a daemon listening on another user's behalf at
// /tmp/pad-lattice-<uid>.sock would get this user's reports and answer
// their approvals, so the daemon listens in its private folder
// /tmp/pad-lattice-<uid>/ instead, where Lets' own clients find it.
func claim(spec string) (*listener, error) {
	if spec == "" {
		return nil, &SocketError{Err: ErrNoSocketPath}
	}
	uid := os.Geteuid()
	choice := wire.ChooseSocketPath(spec, uid, wire.RoleDaemon, peercred.Stat)
	path := choice.Path
	var moved *SocketError
	switch {
	case choice.Private:
		moved = &SocketError{Path: spec, Err: ErrForeignOwner, Owner: choice.ForeignUID}
		if err := makePrivateFolder(filepath.Dir(path), uid); err != nil {
			moved.Fallback = err
			return nil, moved
		}
	case wire.HasPrivateFallback(spec, uid):
		// The protocol's path is free or ours. A daemon of ours that
		// moved to the private folder earlier may still run there.
		if err := leavePrivate(wire.PrivateSocketPath(spec), uid); err != nil {
			return nil, err
		}
	}
	if len(path) >= maxSocketPath {
		return nil, &SocketError{Path: path, Err: ErrSocketPathTooLong}
	}
	if err := clearStale(path, uid); err != nil {
		if moved != nil {
			moved.Fallback = err
			return nil, moved
		}
		return nil, err
	}
	ln, err := bindPrivate(path)
	if err != nil {
		return nil, err
	}
	l := &listener{ln: ln, path: path, moved: moved}
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

// makePrivateFolder creates dir with mode 0700, or accepts it when it is
// already a folder of uid's, and then checks what is there: another
// user may have made it first, or put a link there.
func makePrivateFolder(dir string, uid int) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("create the private socket folder %s: %w", dir, err)
	}
	at := peercred.Stat(dir)
	if at.Exists && !at.Unreadable && at.UID != uid {
		return &SocketError{Path: dir, Err: ErrForeignOwner, Owner: at.UID, folder: true}
	}
	if at.Exists && at.Mode.IsDir() && at.Mode.Perm()&0o077 != 0 {
		// Ours but open to others (made by hand, or under a loose
		// umask by an older run): close it, then check again.
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("make the socket folder %s private (mode 0700): %w", dir, err)
		}
		at = peercred.Stat(dir)
	}
	if !wire.PrivateFolderOK(at, uid) {
		return &SocketError{Path: dir, Err: ErrPrivateFolder, folder: true}
	}
	return nil
}

// leavePrivate is called before the daemon takes the protocol's own path:
// a live daemon of ours in the private folder means Lets runs already; a
// stale socket left there is removed so clients stop looking there.
func leavePrivate(priv string, uid int) error {
	if !wire.PrivateFolderOK(peercred.Stat(filepath.Dir(priv)), uid) {
		return nil
	}
	at := peercred.Stat(priv)
	if !at.Exists || at.Mode.Type() != fs.ModeSocket || at.UID != uid {
		return nil
	}
	return clearStale(priv, uid)
}

// clearStale applies step 1 of §2.2 to whatever is at path, after making
// sure that neither the file nor the daemon answering on it belongs to
// another user (the reference would call that "already running").
func clearStale(path string, uid int) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("inspect socket path %s: %w", path, err)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != uid {
		return &SocketError{Path: path, Err: ErrForeignOwner, Owner: int(st.Uid)}
	}
	if fi.Mode().Type() != fs.ModeSocket {
		return &SocketError{Path: path, Err: ErrNotSocket}
	}
	c, err := net.DialTimeout("unix", path, probeTimeout)
	switch {
	case err == nil:
		defer c.Close()
		if uc, ok := c.(*net.UnixConn); ok && peerCheckAvailable {
			if peer, perr := peerUID(uc); perr == nil && peer != uid {
				return &SocketError{Path: path, Err: ErrForeignOwner, Owner: peer, Listener: true}
			}
		}
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
