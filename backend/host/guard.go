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
	if a := r.Header.Get("Authorization"); a != "" {
		if t, ok := strings.CutPrefix(a, "Bearer "); ok {
			return strings.TrimSpace(t)
		}
	}
	if t := r.Header.Get("X-Lets-Token"); t != "" {
		return t
	}
	if r.Method == http.MethodGet {
		return r.URL.Query().Get("t")
	}
	return ""
}

// requireHostToken lets only holders of the host token through (401 else).
func requireHostToken(hostToken string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !token.Equal(presentedToken(r), hostToken) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="lets"`)
			writeError(w, http.StatusUnauthorized, "unauthorized", "a valid host token is required (see ~/.lets/host.json)")
			return
		}
		next.ServeHTTP(w, r)
	})
}
