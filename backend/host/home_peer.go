package host

import (
	"net/http"
	"os"

	"github.com/lets-app/lets/backend/peercred"
)

// A home or window link reaches the browser through the desktop's opener.
// Lets hands it a private redirect page (backend/desktopopen), never the
// link, but a link could still leak (an older Lets, a link copied by
// hand), and another local user who loads it first would become the
// person. So on Linux a one-time link's key
// is honoured only on a connection whose socket belongs to the user who
// runs Lets: the kernel lists every TCP socket with its owner in
// /proc/net/tcp and /proc/net/tcp6, and the browser's end of the
// connection is the row whose local address is the peer and whose remote
// address is ours. A refusal leaves the key unspent, so the person's own
// browser can still use it.

// claimFromOwner reports whether r came from a socket of the user running
// Lets. Without /proc (not Linux) the key alone decides.
func (s *Server) claimFromOwner(r *http.Request) bool {
	return s.fromOwner(r, "home link")
}

// fromOwner is claimFromOwner for any one-time link; what names the link in
// the log ("home link", "window link").
func (s *Server) fromOwner(r *http.Request, what string) bool {
	s.home.mu.Lock()
	lookup := peercred.TCPLookup(s.home.peerUID)
	s.home.mu.Unlock()
	if lookup == nil {
		if lookup = peercred.SystemTCPLookup(); lookup == nil {
			return true
		}
	}
	local, peer, err := peercred.RequestEnds(r)
	if err != nil {
		return false
	}
	uid, err := lookup.PeerUID(local, peer)
	if err != nil {
		s.opts.Log.Warn("could not tell who opened the "+what+"; refused it", "peer", peer, "err", err)
		return false
	}
	if uid != os.Getuid() {
		s.opts.Log.Warn("a "+what+" was opened by another user of this computer; refused it", "peer", peer, "uid", uid)
		return false
	}
	return true
}
