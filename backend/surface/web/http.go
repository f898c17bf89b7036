package web

import (
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
)

// ContentSecurityPolicy is sent on every response (§3.5); img-src allows
// data: for the pairing QR code.
const ContentSecurityPolicy = "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"

// LiveConfig is the generated /config.json (§3.1): it puts the app in live
// mode. The app bundle's own config.json is never served.
const LiveConfig = `{"mode":"live","protocol":1}`

// contentTypes maps file extensions to media types; every type is sent with
// "; charset=utf-8" (§3.4).
var contentTypes = map[string]string{
	".html":        "text/html",
	".htm":         "text/html",
	".js":          "text/javascript",
	".mjs":         "text/javascript",
	".css":         "text/css",
	".json":        "application/json",
	".map":         "application/json",
	".webmanifest": "application/manifest+json",
	".svg":         "image/svg+xml",
	".png":         "image/png",
	".jpg":         "image/jpeg",
	".jpeg":        "image/jpeg",
	".gif":         "image/gif",
	".webp":        "image/webp",
	".ico":         "image/vnd.microsoft.icon",
	".wav":         "audio/x-wav",
	".mp3":         "audio/mpeg",
	".ogg":         "audio/ogg",
	".txt":         "text/plain",
	".woff":        "font/woff",
	".woff2":       "font/woff2",
}

func contentType(name string) string {
	t, ok := contentTypes[strings.ToLower(path.Ext(name))]
	if !ok {
		t = "application/octet-stream"
	}
	return t + "; charset=utf-8"
}

// writeResponse writes a complete response with the headers of §3.5.
func writeResponse(w http.ResponseWriter, status int, ctype string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", ctype)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	setSecurityHeaders(h)
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func setSecurityHeaders(h http.Header) {
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", ContentSecurityPolicy)
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
}

func writeText(w http.ResponseWriter, status int, text string) {
	writeResponse(w, status, "text/plain; charset=utf-8", []byte(text))
}

// ServeHTTP is the request pipeline of §3.1, the same on both listeners:
// GET only, the Host check, then /ws (Origin check, upgrade),
// /config.json (generated) or a static file.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet || r.ContentLength != 0 || len(r.TransferEncoding) > 0 {
		w.Header().Set("Allow", "GET")
		w.Header().Set("Connection", "close")
		writeText(w, http.StatusMethodNotAllowed, "Method not allowed\n")
		return
	}
	if !s.hostAllowed(r) {
		writeText(w, http.StatusBadRequest, "Invalid Host\n")
		return
	}
	p, ok := requestPath(r)
	if !ok {
		writeText(w, http.StatusNotFound, "Not found\n")
		return
	}
	if p == "/ws" {
		if !originAllowed(r) {
			writeText(w, http.StatusForbidden, "WebSocket origin rejected\n")
			return
		}
		s.serveWebSocket(w, r)
		return
	}
	if code, ok := strings.CutPrefix(p, adminOpenPrefix); ok {
		s.serveAdminOpen(w, r, code)
		return
	}
	name, ok := staticName(p)
	if !ok {
		writeText(w, http.StatusNotFound, "Not found\n")
		return
	}
	if name == "config.json" {
		writeResponse(w, http.StatusOK, "application/json; charset=utf-8", []byte(LiveConfig))
		return
	}
	s.serveFile(w, name)
}

// requestPath is the decoded path of the request target with its query
// and fragment dropped (§3.1 routes on the path alone). Browsers never send
// a fragment, but a raw client may ("GET /config.json#x"), and Go's parser
// keeps it in URL.Path; an encoded "%23" stays part of the path.
func requestPath(r *http.Request) (string, bool) {
	raw := r.RequestURI
	if i := strings.IndexAny(raw, "?#"); i >= 0 {
		raw = raw[:i]
	}
	p, err := url.PathUnescape(raw)
	if err != nil {
		return "", false
	}
	return p, true
}

// hostAllowed is §3.2: one non-empty Host naming 127.0.0.1, localhost or
// (with a LAN listener) the advertised host, on the bound port (80 when no
// port is given).
func (s *Server) hostAllowed(r *http.Request) bool {
	if r.Host == "" || !strings.HasPrefix(r.RequestURI, "/") || len(r.Header.Values("Host")) > 0 {
		// Go moves a single Host header to r.Host; one left in the map or
		// an absolute-form request line means something unusual.
		return false
	}
	host, port, ok := splitAuthority(r.Host)
	if !ok || port != s.Port() {
		return false
	}
	if host == "localhost" || host == "127.0.0.1" {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lnLAN != nil && s.lan != nil && host == s.lan.host
}

// originAllowed is §3.3: exactly one Origin whose scheme is http and whose
// authority is byte-for-byte the Host header.
func originAllowed(r *http.Request) bool {
	origins := r.Header.Values("Origin")
	if len(origins) != 1 {
		return false
	}
	scheme, rest, ok := strings.Cut(origins[0], "://")
	if !ok || !strings.EqualFold(scheme, "http") {
		return false
	}
	netloc := rest
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		netloc = rest[:i]
	}
	return netloc != "" && netloc == r.Host
}

// staticName resolves a decoded URL path to a file name in the app (§3.4):
// leading "/" stripped, empty and "." segments dropped, any ".." refused,
// "" is index.html.
func staticName(p string) (string, bool) {
	var parts []string
	for _, seg := range strings.Split(p, "/") {
		switch {
		case seg == "" || seg == ".":
			continue
		case seg == "..", strings.ContainsAny(seg, "\x00\\"):
			return "", false
		}
		parts = append(parts, seg)
	}
	if len(parts) == 0 {
		return "index.html", true
	}
	name := strings.Join(parts, "/")
	if !fs.ValidPath(name) {
		return "", false
	}
	return name, true
}

// serveFile sends one app file; directories, missing files and paths that
// continue below a file are 404.
func (s *Server) serveFile(w http.ResponseWriter, name string) {
	if s.opts.App == nil {
		writeText(w, http.StatusNotFound, "Not found\n")
		return
	}
	f, err := s.opts.App.Open(name)
	if err != nil {
		writeText(w, http.StatusNotFound, "Not found\n")
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		writeText(w, http.StatusNotFound, "Not found\n")
		return
	}
	h := w.Header()
	h.Set("Content-Type", contentType(name))
	h.Set("Content-Length", strconv.FormatInt(fi.Size(), 10))
	setSecurityHeaders(h)
	w.WriteHeader(http.StatusOK)
	_, _ = io.CopyN(w, f, fi.Size())
}
