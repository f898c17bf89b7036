package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lets-app/lets/backend/atomicfile"
	"github.com/lets-app/lets/backend/manifest"
	"github.com/lets-app/lets/backend/netguard"
	"github.com/lets-app/lets/backend/peercred"
	"github.com/lets-app/lets/backend/token"
)

// originSet runs one loopback listener per unique in use (origin U, spec
// §1.4), on a port remembered in state/ports.json so the unique's storage
// survives restarts.
type originSet struct {
	log       *slog.Logger
	portsFile string // "" keeps ports in memory only
	hostPort  func() int
	sdk       func() ([]byte, error)
	// maxConns, readHeaderTimeout and idleTimeout bound every origin's
	// listener (Options.MaxUniqueConns and the timeouts).
	maxConns          int
	readHeaderTimeout time.Duration
	idleTimeout       time.Duration

	mu      sync.Mutex
	origins map[string]*uniqueOrigin
	stopped bool
	// peerUID replaces the socket-owner lookup in tests (nil: the real
	// one on Linux, none elsewhere). Guarded by mu.
	peerUID func(client, server netip.AddrPort) (int, error)
}

// uniqueOrigin is the listener of one unique.
type uniqueOrigin struct {
	set    *originSet
	unique *manifest.Unique
	port   int
	ln     net.Listener
	srv    *http.Server
	// secret is the cookie value this origin hands out for a valid frame
	// token: it says "a window of this unique was opened in this browser".
	secret string
	cookie string
	// fresh is true until the first browser is let in on a port this unique
	// did not have before: that browser is told to clear whatever storage
	// the port's origin may hold from another unique.
	fresh atomic.Bool

	mu      sync.Mutex
	windows map[string]*window
}

// portsState is state/ports.json: each unique's port, and where the
// unique was installed from when the port was given. A port belongs to a
// unique from one source: another unique installed later under the same
// name (after an uninstall, or from another source) gets a new port, so it
// never inherits the first one's browser storage (issue #10).
type portsState struct {
	Uniques map[string]int    `json:"uniques"`
	Sources map[string]string `json:"sources,omitempty"`
}

func (s *originSet) readPorts() portsState {
	st := portsState{Uniques: map[string]int{}, Sources: map[string]string{}}
	if s.portsFile == "" {
		return st
	}
	data, err := os.ReadFile(s.portsFile)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			s.log.Warn("ports.json could not be read; uniques get new ports (their saved browser storage may look empty)", "err", err)
		}
		return st
	}
	if err := json.Unmarshal(data, &st); err != nil || st.Uniques == nil {
		s.log.Warn("ports.json is damaged; uniques get new ports", "err", err)
		return portsState{Uniques: map[string]int{}, Sources: map[string]string{}}
	}
	if st.Sources == nil {
		st.Sources = map[string]string{}
	}
	return st
}

// portFor is the remembered port of u, or 0 when there is none for this
// unique from this source. A file written before sources were recorded
// names no source; its ports are kept.
func (st portsState) portFor(u *manifest.Unique) int {
	src, known := st.Sources[u.Name()]
	if known && src != u.Source() {
		return 0
	}
	return st.Uniques[u.Name()]
}

func (s *originSet) writePorts(st portsState) {
	data, _ := json.MarshalIndent(st, "", "  ")
	if err := os.MkdirAll(filepath.Dir(s.portsFile), 0o700); err != nil {
		s.log.Warn("could not save the uniques' ports", "err", err)
		return
	}
	if err := atomicfile.Write(s.portsFile, append(data, '\n'), 0o600); err != nil {
		s.log.Warn("could not save the uniques' ports", "err", err)
	}
}

func (s *originSet) rememberPort(u *manifest.Unique, port int) {
	if s.portsFile == "" {
		return
	}
	st := s.readPorts()
	if st.Uniques[u.Name()] == port && st.Sources[u.Name()] == u.Source() {
		return
	}
	st.Uniques[u.Name()] = port
	st.Sources[u.Name()] = u.Source()
	s.writePorts(st)
}

// forget stops the origin of an uninstalled unique and forgets its port,
// so a unique installed later under the same name starts with empty
// browser storage on a port of its own.
func (s *originSet) forget(name string) {
	s.mu.Lock()
	o, running := s.origins[name]
	delete(s.origins, name)
	if s.portsFile != "" {
		st := s.readPorts()
		if _, ok := st.Uniques[name]; ok {
			delete(st.Uniques, name)
			delete(st.Sources, name)
			s.writePorts(st)
		}
	}
	s.mu.Unlock()
	if running {
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		if err := o.srv.Shutdown(ctx); err != nil {
			_ = o.srv.Close()
		}
	}
}

// ensure returns the running origin of u, starting it when needed.
func (s *originSet) ensure(u *manifest.Unique) (*uniqueOrigin, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return nil, errors.New("Lets is stopping; open the unique again after it restarts")
	}
	if o, ok := s.origins[u.Name()]; ok {
		o.unique = u // a reinstall may have replaced it
		return o, nil
	}
	var ln net.Listener
	var err error
	fresh := true
	if p := s.readPorts().portFor(u); p > 0 && p != s.hostPort() {
		ln, err = net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			s.log.Info("the unique's usual port is taken; using another (its browser storage starts empty)", "unique", u.Name(), "port", p)
		} else {
			fresh = false
		}
	}
	if ln == nil {
		ln, err = net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("open a loopback port for %s: %w", u.Name(), err)
		}
	}
	secret, err := token.New()
	if err != nil {
		_ = ln.Close()
		return nil, err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln = netguard.LimitLocal(ln, s.maxConns, "unique "+u.Name(), s.log)
	o := &uniqueOrigin{set: s, unique: u, port: port, ln: ln, secret: secret, cookie: "lets_u_" + strconv.Itoa(port), windows: map[string]*window{}}
	o.fresh.Store(fresh)
	o.srv = &http.Server{
		Handler:           o,
		ConnContext:       o.connContext,
		ReadHeaderTimeout: s.readHeaderTimeout,
		IdleTimeout:       s.idleTimeout,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
	}
	s.origins[u.Name()] = o
	go func() {
		if err := o.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Warn("a unique's origin stopped", "unique", u.Name(), "err", err)
		}
	}()
	s.rememberPort(u, port)
	s.log.Info("unique origin listening", "unique", u.Name(), "url", o.url())
	return o, nil
}

// get returns the origin of a unique if it runs.
func (s *originSet) get(name string) (*uniqueOrigin, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.origins[name]
	return o, ok
}

func (s *originSet) stop() {
	s.mu.Lock()
	s.stopped = true
	all := make([]*uniqueOrigin, 0, len(s.origins))
	for _, o := range s.origins {
		all = append(all, o)
	}
	s.mu.Unlock()
	for _, o := range all {
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		if err := o.srv.Shutdown(ctx); err != nil {
			_ = o.srv.Close()
		}
		cancel()
	}
}

func (o *uniqueOrigin) url() string { return "http://127.0.0.1:" + strconv.Itoa(o.port) }

func (o *uniqueOrigin) addWindow(w *window) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.windows[w.id] = w
}

func (o *uniqueOrigin) removeWindow(w *window) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.windows, w.id)
}

// frameURL is what the shell's iframe loads for w.
func (o *uniqueOrigin) frameURL(w *window) string {
	return o.url() + "/" + o.unique.Manifest.Entry + "?t=" + w.frameToken
}

// validFrameToken reports whether t is the frame token of an open window
// of this unique.
func (o *uniqueOrigin) validFrameToken(t string) bool {
	if t == "" {
		return false
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	ok := false
	for _, w := range o.windows {
		if token.Equal(t, w.frameToken) {
			ok = true
		}
	}
	return ok
}

func (o *uniqueOrigin) hasWindows() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.windows) > 0
}

// uniqueCSP is the policy of the unique's HTML pages (spec §1.4), plus
// webrtc 'block' for the engines that enforce it (issue #10).
func uniqueCSP(hostPort int) string {
	return "default-src 'self'; base-uri 'self'; form-action 'self'; frame-ancestors http://127.0.0.1:" + strconv.Itoa(hostPort) + "; object-src 'none'; webrtc 'block'"
}

// uniqueFileCSP is the policy of every other answer of origin U (scripts,
// styles, images, the SDK, errors). frame-ancestors already keeps the
// unique from framing its own files; sandbox backs it up: any of them
// opened as a document is a page of its own opaque origin, so the unique
// cannot reach that frame's fresh globals (WebRTC) without the SDK in it.
// Scripts and styles ignore a policy sent with them.
func uniqueFileCSP(hostPort int) string {
	return uniqueCSP(hostPort) + "; sandbox"
}

func (o *uniqueOrigin) setHeaders(h http.Header) {
	h.Set("Content-Security-Policy", uniqueFileCSP(o.set.hostPort()))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
}

func (o *uniqueOrigin) plain(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, msg+"\n")
}

// page answers a person who reached the unique's address outside a
// window (a bookmark, a copied or expired link) with the kind page of a
// window link, in plain words, instead of a line of text (#26). It keeps
// the origin's frame-ancestors and sandbox: it may show inside a window's
// frame.
func (o *uniqueOrigin) page(w http.ResponseWriter, status int, heading, text string) {
	csp := "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors http://127.0.0.1:" +
		strconv.Itoa(o.set.hostPort()) + "; sandbox"
	writeLinkPageWith(w, status, linkPage{Heading: heading, Text: text, Unique: o.unique.Manifest.Name, Title: o.unique.Manifest.Title}, csp)
}

// ServeHTTP serves the unique's folder and /lip/sdk.js, nothing else.
func (o *uniqueOrigin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	o.setHeaders(w.Header())
	p := strconv.Itoa(o.port)
	if !allowedHost(r.Host, p) {
		o.plain(w, http.StatusMisdirectedRequest, "this server answers only to 127.0.0.1, localhost or [::1] on its own port")
		return
	}
	if org := r.Header.Get("Origin"); org != "" && !allowedOrigin(org, p) {
		o.plain(w, http.StatusForbidden, "requests from other origins are not allowed")
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		o.plain(w, http.StatusMethodNotAllowed, "a unique's files are read-only")
		return
	}
	owner := o.ownerOf(r)
	if owner == connOther {
		o.page(w, http.StatusForbidden, "This app belongs to someone else",
			"It is open in Lets for another account on this computer, so it stays closed here.")
		return
	}
	if t := r.URL.Query().Get("t"); t != "" {
		if !o.validFrameToken(t) {
			o.page(w, http.StatusUnauthorized, "This link has expired",
				"Links into an app work only while its window is open.")
			return
		}
		if o.fresh.Swap(false) {
			w.Header().Set("Clear-Site-Data", `"cache", "storage"`)
		}
		http.SetCookie(w, &http.Cookie{Name: o.cookie, Value: o.secret, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		w.Header().Set("Location", sameOriginTarget(r.URL, "/"+o.unique.Manifest.Entry))
		w.WriteHeader(http.StatusSeeOther)
		return
	}
	if !o.hasWindows() || !(o.hasCookie(r) || (owner == connPerson && fromOwnPage(r))) {
		o.page(w, http.StatusUnauthorized, "Open this app from Lets",
			"This address belongs to an app in Lets. It opens only inside the app's own Lets window, not on its own.")
		return
	}
	if r.URL.Path == "/lip/sdk.js" {
		o.serveSDK(w, r)
		return
	}
	urlPath := r.URL.Path
	if urlPath == "/" {
		http.Redirect(w, r, "/"+o.unique.Manifest.Entry, http.StatusSeeOther)
		return
	}
	f, err := o.unique.Open(urlPath)
	if err != nil {
		o.plain(w, http.StatusNotFound, "not found")
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		o.plain(w, http.StatusNotFound, "not found")
		return
	}
	ctype := mime.TypeByExtension(path.Ext(urlPath))
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Cache-Control", "no-cache")
	if strings.HasPrefix(ctype, "text/html") {
		w.Header().Set("Content-Security-Policy", uniqueCSP(o.set.hostPort()))
		data, err := io.ReadAll(io.LimitReader(f, 16<<20))
		if err != nil {
			o.plain(w, http.StatusInternalServerError, "read failed")
			return
		}
		data = injectSDK(data)
		http.ServeContent(w, r, filepath.Base(urlPath), st.ModTime(), bytes.NewReader(data))
		return
	}
	rs, ok := f.(io.ReadSeeker)
	if !ok {
		o.plain(w, http.StatusInternalServerError, "unreadable file")
		return
	}
	http.ServeContent(w, r, filepath.Base(urlPath), st.ModTime(), rs)
}

// hasCookie reports whether any cookie named after this origin holds its
// secret. Cookies are not isolated by port, so another unique can set a
// cookie of this name with a longer path, which the browser sends first;
// looking at every cookie of the name keeps that from locking this unique
// out. (A script cannot overwrite the HttpOnly cookie itself.)
func (o *uniqueOrigin) hasCookie(r *http.Request) bool {
	ok := false
	for _, c := range r.CookiesNamed(o.cookie) {
		if token.Equal(c.Value, o.secret) {
			ok = true
		}
	}
	return ok
}

// Who may load a unique's files (issue #23, cookie flood). The cookie says
// "a window of this unique was opened in this browser", but cookies are
// not scoped by port: another unique can set a few hundred cookies on
// 127.0.0.1 and make the browser evict this one's (Chromium keeps about
// 180 per host). So a request is also let in without the cookie when both
//
//   - the connection's socket belongs to the person's uid (the kernel's
//     socket table, as for one-time links: home_peer.go), and
//   - the browser says a page of this very origin made it
//     (Sec-Fetch-Site: same-origin).
//
// Only a page this origin served after the token exchange is of this
// origin: every other answer carries CSP sandbox, which makes it an
// opaque origin. Other uniques (same site, another port), web pages and
// typed addresses are not same-origin, so they still need the cookie,
// which SameSite=Strict keeps from them. A browser that sends no
// Sec-Fetch-Site, and a system without the socket lookup, keep the cookie
// alone. Either way a window of the unique must be open.
//
// On Linux a connection whose socket belongs to another uid is refused
// outright, cookie or not: the cookie is HttpOnly in the person's browser
// profile, but another user who somehow had its value still gets nothing.

// connOwnership is what the socket table says about a connection.
type connOwnership int

const (
	connUnknown connOwnership = iota // no lookup here, or it failed
	connPerson                       // the uid running Lets
	connOther                        // another local user
)

type connOwnerKey struct{}

// connOwner resolves a connection's owner once, on its first request, in
// the connection's own goroutine (ConnContext runs in the accept loop).
type connOwner struct {
	once           sync.Once
	client, server netip.AddrPort
	valid          bool
	owner          connOwnership
}

// connContext hangs a connOwner on every connection of the origin.
func (o *uniqueOrigin) connContext(ctx context.Context, c net.Conn) context.Context {
	co := &connOwner{}
	if server, client, err := peercred.ConnEnds(c); err == nil {
		co.client, co.server, co.valid = client, server, true
	}
	return context.WithValue(ctx, connOwnerKey{}, co)
}

// ownerLookup is the socket-owner lookup of this system, or nil.
func (s *originSet) ownerLookup() func(client, server netip.AddrPort) (int, error) {
	s.mu.Lock()
	lookup := s.peerUID
	s.mu.Unlock()
	if lookup == nil {
		lookup = peercred.SystemTCPLookup()
	}
	return lookup
}

// ownerOf tells whose socket r came in on.
func (o *uniqueOrigin) ownerOf(r *http.Request) connOwnership {
	co, ok := r.Context().Value(connOwnerKey{}).(*connOwner)
	if !ok || !co.valid {
		return connUnknown
	}
	co.once.Do(func() {
		lookup := o.set.ownerLookup()
		if lookup == nil {
			return
		}
		uid, err := lookup(co.client, co.server)
		switch {
		case err != nil:
			o.set.log.Debug("could not tell who opened a connection to a unique; its cookie alone decides", "unique", o.unique.Name(), "peer", co.client, "err", err)
		case uid == os.Getuid():
			co.owner = connPerson
		default:
			o.set.log.Debug("another user of this computer tried to load a unique; refused it", "unique", o.unique.Name(), "peer", co.client, "uid", uid)
			co.owner = connOther
		}
	})
	return co.owner
}

// fromOwnPage reports whether the browser says a page of this origin made
// r. Browsers set Sec-Fetch-Site themselves; a page cannot.
func fromOwnPage(r *http.Request) bool {
	return r.Header.Get("Sec-Fetch-Site") == "same-origin"
}

// sameOriginTarget is where the token exchange sends the browser: the
// requested path without the token, as a path on this origin only. A path
// a browser could read as another host ("//evil.example/x", "/\evil",
// control characters it strips) becomes fallback.
func sameOriginTarget(u *url.URL, fallback string) string {
	p := u.Path
	if p == "" || p[0] != '/' || strings.ContainsAny(p, "\\") || strings.IndexFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0 {
		p = fallback
	}
	trailing := strings.HasSuffix(p, "/")
	p = path.Clean(p) // also folds "//" runs into one "/"
	if trailing && p != "/" {
		p += "/"
	}
	q := u.Query()
	q.Del("t")
	target := (&url.URL{Path: p}).EscapedPath()
	if strings.HasPrefix(target, "//") || !strings.HasPrefix(target, "/") {
		target = fallback
	}
	if enc := q.Encode(); enc != "" {
		target += "?" + enc
	}
	return target
}

func (o *uniqueOrigin) serveSDK(w http.ResponseWriter, r *http.Request) {
	data, err := o.set.sdk()
	if err != nil {
		o.plain(w, http.StatusInternalServerError, "the SDK is missing from this build")
		return
	}
	data = bytes.ReplaceAll(data, []byte(sdkShellOriginPlaceholder), []byte("http://127.0.0.1:"+strconv.Itoa(o.set.hostPort())))
	data = bytes.ReplaceAll(data, []byte(sdkDeclaredPlaceholder), sdkDeclared(o.unique.Manifest))
	w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	http.ServeContent(w, r, "sdk.js", time.Time{}, bytes.NewReader(data))
}

// sdkShellOriginPlaceholder is replaced in sdk.js with the shell's origin,
// the only origin the SDK talks to.
const sdkShellOriginPlaceholder = "__LETS_SHELL_ORIGIN__"

var headOpen = regexp.MustCompile(`(?i)<head(\s[^>]*)?>`)

// sdkTag loads the SDK before the unique's own scripts.
const sdkTag = `<script src="/lip/sdk.js"></script>`

// injectSDK puts the SDK's script tag at the start of <head> (or of the
// document when it has no head tag).
func injectSDK(html []byte) []byte {
	if loc := headOpen.FindIndex(html); loc != nil {
		out := make([]byte, 0, len(html)+len(sdkTag))
		out = append(out, html[:loc[1]]...)
		out = append(out, sdkTag...)
		return append(out, html[loc[1]:]...)
	}
	// ASCII-only lowering keeps byte offsets equal to html's; bytes.ToLower
	// turns invalid UTF-8 into longer replacement runes.
	lower := asciiLower(html)
	if i := bytes.Index(lower, []byte("<!doctype")); i >= 0 {
		if j := bytes.IndexByte(html[i:], '>'); j >= 0 {
			k := i + j + 1
			out := append([]byte{}, html[:k]...)
			out = append(out, sdkTag...)
			return append(out, html[k:]...)
		}
	}
	return append([]byte(sdkTag), html...)
}

func asciiLower(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
}
