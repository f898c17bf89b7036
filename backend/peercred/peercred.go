// Package peercred tells who is on the other end of a local socket and who
// owns a file, so that Lets' Wire clients and daemon can refuse to talk to a
// socket another local user put in a shared folder such as /tmp
// (DESIGN.md "Trust": local clients prove who they are by peer credentials).
package peercred

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/user"
	"strconv"
	"syscall"

	"github.com/lets-app/lets/backend/wire"
)

// ErrUnsupported is returned by UID where the platform cannot tell a Unix
// socket's peer.
var ErrUnsupported = errors.New("peer credentials are not supported on this platform")

// UID returns the effective uid of the process on the other end of c: the
// client for an accepted connection, the listening process for a dialled
// one. It reads SO_PEERCRED on Linux and LOCAL_PEERCRED on macOS.
func UID(c *net.UnixConn) (int, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return 0, fmt.Errorf("peer credentials: %w", err)
	}
	var uid int
	var credErr error
	if err := raw.Control(func(fd uintptr) { uid, credErr = peerUID(int(fd)) }); err != nil {
		return 0, fmt.Errorf("peer credentials: %w", err)
	}
	if credErr != nil {
		return 0, fmt.Errorf("peer credentials: %w", credErr)
	}
	return uid, nil
}

// Stat describes what sits at path without following a symbolic link, in
// the terms wire.ChooseSocketPath decides on. A path that cannot be
// inspected (other than not existing) is reported as existing with
// Unreadable set, so a caller never mistakes it for a free path.
func Stat(path string) wire.PathInfo {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return wire.PathInfo{}
	}
	if err != nil {
		return wire.PathInfo{Exists: true, UID: -1, Unreadable: true}
	}
	info := wire.PathInfo{Exists: true, Mode: fi.Mode(), UID: -1}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		info.UID = int(st.Uid)
	}
	return info
}

// UserName returns the login name of uid, or "" when it has none.
func UserName(uid int) string {
	u, err := user.LookupId(strconv.Itoa(uid))
	if err != nil {
		return ""
	}
	return u.Username
}

// Describe names uid for a person: "user 1001 (sam)", or "user 1001" when
// the uid has no name.
func Describe(uid int) string {
	if name := UserName(uid); name != "" {
		return fmt.Sprintf("user %d (%s)", uid, name)
	}
	return fmt.Sprintf("user %d", uid)
}

// Short names uid briefly, by login name when it has one ("sam"), else
// "user 1001": for the "not you (…)" of a message that already names the
// other user in full.
func Short(uid int) string {
	if name := UserName(uid); name != "" {
		return name
	}
	return fmt.Sprintf("user %d", uid)
}
