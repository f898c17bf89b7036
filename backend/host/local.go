package host

import (
	"net/http"
	"strconv"
)

// LocalHandler is the host's HTTP surface for Go code in this process (the
// tray, the chat manager): give it to hostclient.NewLocal. Requests reach
// the same handlers as over TCP, authenticated as a holder of the host
// token, without a socket and without host.json. It is only reachable
// through this method, so the TCP path keeps every check it has: a
// request over the network still needs the token, a loopback Host and no
// foreign Origin.
func (s *Server) LocalHandler() http.Handler {
	h := s.srv.Handler
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r = r.Clone(r.Context())
		r.Host = "127.0.0.1:" + strconv.Itoa(s.Port())
		r.Header.Del("Origin")
		r.Header.Del("X-Lets-Token")
		r.Header.Set("Authorization", "Bearer "+s.opts.Token)
		if r.RemoteAddr == "" {
			r.RemoteAddr = "127.0.0.1:0"
		}
		h.ServeHTTP(w, r)
	})
}
