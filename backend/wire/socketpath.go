package wire

import (
	"io/fs"
	"path"
	"strconv"
)

// PathInfo is what sits at a path, seen without following a symbolic link
// (an lstat). The caller does the I/O (backend/peercred.Stat) so that the
// choice below stays pure.
type PathInfo struct {
	// Exists is false when nothing is at the path.
	Exists bool
	// Mode holds the file type and permission bits.
	Mode fs.FileMode
	// UID owns the file; -1 when unknown.
	UID int
	// Unreadable: something is there but could not be inspected.
	Unreadable bool
}

// SocketRole says who asks ChooseSocketPath: a client that connects or
// the daemon that listens.
type SocketRole int

// The two roles.
const (
	RoleClient SocketRole = iota
	RoleDaemon
)

// PrivateSocketName is the socket's name inside the private folder.
const PrivateSocketName = "pad-lattice.sock"

// SocketChoice is where a client connects or the daemon listens.
type SocketChoice struct {
	// Path is the socket to use.
	Path string
	// Spec is the path the protocol's rules gave (ResolveSocketPath or a
	// path the person chose).
	Spec string
	// Private is true when Path is the private folder's socket instead of
	// Spec.
	Private bool
	// Foreign is true when something at Spec belongs to another user;
	// ForeignUID is that user (-1 when it could not be read).
	Foreign    bool
	ForeignUID int
}

// HasPrivateFallback reports whether spec is the protocol's per-user
// default name, pad-lattice-<uid>.sock, which sits in a folder every user
// can write (/tmp when XDG_RUNTIME_DIR is unset). Only such a path can be
// taken by another user first, so only it gets the private fallback; a path
// inside XDG_RUNTIME_DIR (a folder only its user can enter) or one the
// person chose under another name is used as given.
func HasPrivateFallback(spec string, uid int) bool {
	return path.Base(spec) == "pad-lattice-"+strconv.Itoa(uid)+".sock"
}

// PrivateSocketPath is the fallback of a default-name path: the same name
// without ".sock" as a folder of mode 0700 owned by the user, holding
// pad-lattice.sock. For /tmp/pad-lattice-1000.sock that is
// /tmp/pad-lattice-1000/pad-lattice.sock. Another user can create the
// folder first too, but cannot put anything into a folder of ours, and
// whoever made it shows as its owner, so it cannot be used unnoticed.
func PrivateSocketPath(spec string) string {
	dir := spec[:len(spec)-len(".sock")]
	return dir + "/" + PrivateSocketName
}

// ChooseSocketPath decides where the user uid's Wire daemon lives, given
// the protocol's path spec and a view of the file system (an lstat).
//
// The protocol's own path wins whenever it is safe, so the unchanged
// Python Pad-Lattice client keeps finding Lets' daemon there. When
// XDG_RUNTIME_DIR is unset that path is /tmp/pad-lattice-<uid>.sock, and
// another local user can listen there first to receive the user's agent
// reports and answer their approvals. Then:
//
//   - the daemon (RoleDaemon) listens on PrivateSocketPath(spec) instead;
//   - a client (RoleClient) connects there when the private socket is in
//     place (a folder of ours with mode 0700 holding a socket of ours), and
//     otherwise stays on spec, where its owner check refuses the other
//     user's socket and names them.
//
// With nothing at spec a client still looks in the private folder: the
// daemon may have moved there while the other user's socket was in the
// way and stayed after it went.
func ChooseSocketPath(spec string, uid int, role SocketRole, stat func(string) PathInfo) SocketChoice {
	ch := SocketChoice{Path: spec, Spec: spec, ForeignUID: -1}
	if !HasPrivateFallback(spec, uid) || stat == nil {
		return ch
	}
	priv := PrivateSocketPath(spec)
	at := stat(spec)
	switch {
	case at.Exists && (at.Unreadable || at.UID != uid):
		ch.Foreign, ch.ForeignUID = true, at.UID
		if role == RoleDaemon || privateSocketReady(priv, uid, stat) {
			ch.Path, ch.Private = priv, true
		}
	case !at.Exists && role == RoleClient && privateSocketReady(priv, uid, stat):
		ch.Path, ch.Private = priv, true
	}
	return ch
}

// privateSocketReady reports whether priv is a socket of uid inside a
// folder of uid that no one else can enter.
func privateSocketReady(priv string, uid int, stat func(string) PathInfo) bool {
	if !PrivateFolderOK(stat(path.Dir(priv)), uid) {
		return false
	}
	s := stat(priv)
	return s.Exists && !s.Unreadable && s.Mode.Type() == fs.ModeSocket && s.UID == uid
}

// PrivateFolderOK reports whether d is a real folder (not a link) owned by
// uid with no permissions for group or others.
func PrivateFolderOK(d PathInfo, uid int) bool {
	return d.Exists && !d.Unreadable && d.Mode.IsDir() && d.Mode&fs.ModeSymlink == 0 && d.UID == uid && d.Mode.Perm()&0o077 == 0
}
