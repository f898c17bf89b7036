package host

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/lets-app/lets/backend/token"
)

// loopbackGuard rejects requests that did not come for this listener by a
// loopback name (421, DNS-rebinding defence) and cross-origin requests (403).
func loopbackGuard(port func() int, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := strconv.Itoa(port())
		if !allowedHost(r.Host, p) {
			writeError(w, http.StatusMisdirectedRequest, "misdirected", "this server answers only to 127.0.0.1, localhost or [::1] on its own port")
			return
		}
		if o := r.Header.Get("Origin"); o != "" && !allowedOrigin(o, p) {
			writeError(w, http.StatusForbidden, "forbidden", "requests from other origins are not allowed")
			return
		}
		w.Header().Set("Referrer-Policy", "no-referrer")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		next.ServeHTTP(w, r)
	})
}

func allowedHost(host, port string) bool {
	switch host {
	case "127.0.0.1:" + port, "localhost:" + port, "[::1]:" + port:
		return true
	}
	return false
}

func allowedOrigin(origin, port string) bool {
	switch origin {
	case "http://127.0.0.1:" + port, "http://localhost:" + port, "http://[::1]:" + port:
		return true
	}
	return false
}

// presentedToken finds the token in Authorization: Bearer, X-Lets-Token, or
// (GET only) the query parameter t.
func presentedToken(r *http.Request) string {
	if t := headerToken(r); t != "" {
		return t
	}
	if r.Method == http.MethodGet {
		return r.URL.Query().Get("t")
	}
	return ""
}

// headerToken is the token in Authorization: Bearer or X-Lets-Token. The
// home token is taken only from there (issue #23): an address with a
// token in it stays in the browser's history and can leak, and the home
// token lives for hours. The one-time window link and the unique's frame
// token still come in ?t=, as they are spent or good for one frame only.
func headerToken(r *http.Request) string {
	if a := r.Header.Get("Authorization"); a != "" {
		if t, ok := strings.CutPrefix(a, "Bearer "); ok {
			return strings.TrimSpace(t)
		}
	}
	return r.Header.Get("X-Lets-Token")
}

// requireHostToken lets only holders of the host token through: no or an
// unknown token is 401, a window token is 403 (a window token is a
// capability for one window, not for the API).
func (s *Server) requireHostToken(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t := presentedToken(r)
		if token.Equal(t, s.opts.Token) {
			next.ServeHTTP(w, r)
			return
		}
		if s.core != nil && s.core.isWindowToken(t) {
			writeError(w, http.StatusForbidden, "forbidden", "a window token cannot use the host API")
			return
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="lets"`)
		writeError(w, http.StatusUnauthorized, "unauthorized", "a valid host token is required (see ~/.lets/host.json)")
	})
}

// windowHandler serves one window's endpoint.
type windowHandler func(w http.ResponseWriter, r *http.Request, win *window)

// requireWindowToken lets only the holder of a window's token through, to
// that window: no or an unknown token is 401, the host token is 403, and
// on /w/<wid>/ another window's token is 403.
func (s *Server) requireWindowToken(next windowHandler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t := presentedToken(r)
		if s.core == nil {
			writeError(w, http.StatusServiceUnavailable, "internal", "this host runs without a data folder, so it has no windows")
			return
		}
		if token.Equal(t, s.opts.Token) {
			writeError(w, http.StatusForbidden, "forbidden", "the host token is not a window token")
			return
		}
		win, ok := s.core.windowByToken(t)
		if !ok {
			writeError(w, http.StatusUnauthorized, "unauthorized", "a valid window token is required; open the window again from Lets")
			return
		}
		if wid := r.PathValue("wid"); wid != "" && wid != win.id {
			writeError(w, http.StatusForbidden, "forbidden", "this token belongs to another window")
			return
		}
		next(w, r, win)
	})
}
