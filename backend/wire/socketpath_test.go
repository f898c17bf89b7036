package wire

import (
	"io/fs"
	"testing"
)

// A view of the file system for ChooseSocketPath: path → what is there.
type fakeFS map[string]PathInfo

func (f fakeFS) stat(p string) PathInfo { return f[p] }

func TestChooseSocketPath(t *testing.T) {
	const me, other = 1000, 1001
	const spec = "/tmp/pad-lattice-1000.sock"
	const priv = "/tmp/pad-lattice-1000/pad-lattice.sock"
	const dir = "/tmp/pad-lattice-1000"
	sock := func(uid int) PathInfo { return PathInfo{Exists: true, Mode: fs.ModeSocket | 0o600, UID: uid} }
	folder := func(uid int, perm fs.FileMode) PathInfo {
		return PathInfo{Exists: true, Mode: fs.ModeDir | perm, UID: uid}
	}
	ready := fakeFS{dir: folder(me, 0o700), priv: sock(me)}
	with := func(base fakeFS, p string, info PathInfo) fakeFS {
		f := fakeFS{}
		for k, v := range base {
			f[k] = v
		}
		f[p] = info
		return f
	}
	cases := []struct {
		name    string
		spec    string
		role    SocketRole
		fs      fakeFS
		path    string
		foreign bool
	}{
		// The protocol's path whenever it is safe (the Python client
		// keeps working).
		{"free, daemon", spec, RoleDaemon, fakeFS{}, spec, false},
		{"free, client", spec, RoleClient, fakeFS{}, spec, false},
		{"ours, daemon", spec, RoleDaemon, fakeFS{spec: sock(me)}, spec, false},
		{"ours, client even with a private socket", spec, RoleClient, with(ready, spec, sock(me)), spec, false},
		// Another user's socket, file or link on the default name.
		{"taken, daemon moves", spec, RoleDaemon, fakeFS{spec: sock(other)}, priv, true},
		{"taken by a link, daemon moves", spec, RoleDaemon, fakeFS{spec: {Exists: true, Mode: fs.ModeSymlink | 0o777, UID: other}}, priv, true},
		{"unreadable, daemon moves", spec, RoleDaemon, fakeFS{spec: {Exists: true, UID: -1, Unreadable: true}}, priv, true},
		{"taken, client finds the private daemon", spec, RoleClient, with(ready, spec, sock(other)), priv, true},
		{"taken, no private daemon: client stays and refuses", spec, RoleClient, fakeFS{spec: sock(other)}, spec, true},
		{"taken, private folder open to others: client stays", spec, RoleClient, fakeFS{spec: sock(other), dir: folder(me, 0o755), priv: sock(me)}, spec, true},
		{"taken, private folder of another user: client stays", spec, RoleClient, fakeFS{spec: sock(other), dir: folder(other, 0o700), priv: sock(me)}, spec, true},
		{"taken, private socket of another user: client stays", spec, RoleClient, fakeFS{spec: sock(other), dir: folder(me, 0o700), priv: sock(other)}, spec, true},
		{"taken, private folder is a link: client stays", spec, RoleClient, fakeFS{spec: sock(other), dir: {Exists: true, Mode: fs.ModeSymlink | 0o700, UID: me}, priv: sock(me)}, spec, true},
		// The squatter left; the daemon stayed in its private folder.
		{"free, client finds the private daemon", spec, RoleClient, ready, priv, false},
		{"free, daemon takes the protocol's path", spec, RoleDaemon, ready, spec, false},
		// Paths without the fallback: XDG_RUNTIME_DIR's, or a name the
		// person chose; the owner checks still refuse another user's.
		{"runtime dir", "/run/user/1000/pad-lattice.sock", RoleDaemon, fakeFS{"/run/user/1000/pad-lattice.sock": sock(other)}, "/run/user/1000/pad-lattice.sock", false},
		{"another user's default name", "/tmp/pad-lattice-1001.sock", RoleDaemon, fakeFS{"/tmp/pad-lattice-1001.sock": sock(other)}, "/tmp/pad-lattice-1001.sock", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := ChooseSocketPath(c.spec, me, c.role, c.fs.stat)
			if got.Path != c.path || got.Spec != c.spec || got.Foreign != c.foreign || got.Private != (c.path != c.spec) {
				t.Fatalf("got %+v, want path %s, foreign %v", got, c.path, c.foreign)
			}
			if c.foreign && got.ForeignUID != c.fs[c.spec].UID {
				t.Fatalf("ForeignUID = %d, want %d", got.ForeignUID, c.fs[c.spec].UID)
			}
		})
	}
}

func TestDefaultPathHasThePrivateFallback(t *testing.T) {
	spec := ResolveSocketPath(func(string) string { return "" }, 1000)
	if !HasPrivateFallback(spec, 1000) || PrivateSocketPath(spec) != "/tmp/pad-lattice-1000/pad-lattice.sock" {
		t.Fatalf("%s: fallback %v, private %s", spec, HasPrivateFallback(spec, 1000), PrivateSocketPath(spec))
	}
	xdg := ResolveSocketPath(func(k string) string {
		if k == EnvRuntimeDir {
			return "/run/user/1000"
		}
		return ""
	}, 1000)
	if HasPrivateFallback(xdg, 1000) {
		t.Fatalf("%s is in a private folder already and needs no fallback", xdg)
	}
}
