package web

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"html"
	"net/http"
	"net/netip"
	"os"
	"strconv"
	"strings"

	"github.com/lets-app/lets/backend/peercred"
)

// One-time admin links. The admin URL carries the admin token, and a
// program's command line is readable by every local user (ps), so the CLI
// never passes it to the desktop opener (xdg-open and the browser it
// starts). It opens AdminOpenURL instead: a loopback link with a random
// code that works once, within AdminOpenTTL, only from this machine and,
// on Linux, only for a socket owned by the user running Lets (the code is
// in the opener's command line for a moment).
// Its answer is a redirect to "/#admin=<token>": the token travels only in
// a response on the loopback connection and lands in the fragment, which
// the app reads, stores and removes from the address bar.
const (
	// AdminOpenTTL is how long a one-time admin link works, in seconds.
	AdminOpenTTL = 60.0
	// adminOpenPrefix is the path of one-time admin links.
	adminOpenPrefix = "/admin/open/"
	// maxAdminOpenCodes bounds the live links; making one more forgets
	// the oldest.
	maxAdminOpenCodes = 8
)

// adminOpenCode is one live one-time admin link.
type adminOpenCode struct {
	code    string
	expires float64
	view    AdminView
}

// AdminView is the view of the pad page a one-time admin link opens.
type AdminView string

const (
	// AdminViewPad is the virtual pad with its admin panel (the tray's
	// "Virtual pad").
	AdminViewPad AdminView = ""
	// AdminViewPair is "Pair a phone" (the tray's "Pair a phone…"): only
	// what pairing needs — the consent to let phones connect, then the QR
	// code and PIN, and the way to switch phones off again.
	AdminViewPair AdminView = "pair"
)

// AdminOpenURL makes a one-time link to the admin page,
// http://127.0.0.1:PORT/admin/open/<43 random characters>, for handing to
// the desktop browser. The first visit from this machine within
// AdminOpenTTL seconds opens the admin page; any later visit gets a page
// that explains the link was used. Open the server first.
func (s *Server) AdminOpenURL() (string, error) {
	return s.AdminOpenURLFor(AdminViewPad)
}

// AdminOpenURLFor is AdminOpenURL for a view of the page: the link lands
// on /#admin=<token>&view=pair for AdminViewPair.
func (s *Server) AdminOpenURLFor(view AdminView) (string, error) {
	if view != AdminViewPad && view != AdminViewPair {
		return "", fmt.Errorf("browser surface: no admin view %q", view)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.opened || s.closed {
		return "", errors.New("browser surface: open the server before making an admin link")
	}
	code, err := s.auth.token(32)
	if err != nil {
		return "", err
	}
	now := s.clock()
	live := s.adminOpen[:0]
	for _, c := range s.adminOpen {
		if now < c.expires {
			live = append(live, c)
		}
	}
	if len(live) >= maxAdminOpenCodes {
		live = live[len(live)-maxAdminOpenCodes+1:]
	}
	s.adminOpen = append(live, adminOpenCode{code: code, expires: now + AdminOpenTTL, view: view})
	return "http://127.0.0.1:" + strconv.Itoa(s.port) + adminOpenPrefix + code, nil
}

// takeAdminOpenCode reports whether code is a live one-time link and, if
// so, uses it up and returns its view. Every live code is compared in
// constant time, so the answer's timing says nothing about how close a
// guess was.
func (s *Server) takeAdminOpenCode(code string) (AdminView, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock()
	hit := -1
	for i, c := range s.adminOpen {
		if subtle.ConstantTimeCompare([]byte(code), []byte(c.code)) == 1 && now < c.expires {
			hit = i
		}
	}
	if hit < 0 {
		return "", false
	}
	view := s.adminOpen[hit].view
	s.adminOpen = append(s.adminOpen[:hit], s.adminOpen[hit+1:]...)
	return view, true
}

// serveAdminOpen answers GET /admin/open/<code> (after the Host check): a
// 303 to /#admin=<token> for a live code from a loopback peer, otherwise a
// page that says what to do instead.
func (s *Server) serveAdminOpen(w http.ResponseWriter, r *http.Request, code string) {
	peer, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil || !s.isLoopback(peer.Addr().Unmap()) {
		adminLinkElsewhere.write(w)
		return
	}
	if !s.sameUser(r, peer) {
		adminLinkOtherAccount.write(w)
		return
	}
	view, ok := s.takeAdminOpenCode(code)
	if !ok {
		adminLinkUsed.write(w)
		return
	}
	target := "/#admin=" + s.auth.adminToken
	if view == AdminViewPair {
		target += "&view=pair"
	}
	w.Header().Set("Location", target)
	writeResponse(w, http.StatusSeeOther, "text/plain; charset=utf-8", nil)
}

// sameUser reports whether the peer's socket belongs to the user running
// this process: the one-time code is readable by every local user while
// the opener runs, the socket's owner is not forgeable. Where the system
// cannot tell (peerUID nil: not Linux), the code alone decides.
func (s *Server) sameUser(r *http.Request, peer netip.AddrPort) bool {
	return s.ownedByUs(peer, localAddrOf(r))
}

// ownedByUs reports whether the loopback connection peer → local belongs
// to the user running this process (true where the system cannot tell).
func (s *Server) ownedByUs(peer, local netip.AddrPort) bool {
	if s.peerUID == nil {
		return true
	}
	if !local.IsValid() {
		return false
	}
	uid, err := s.peerUID(peer, local)
	if err != nil {
		s.log.Warn("could not tell which account on this computer a connection belongs to; refused it", "err", err)
		return false
	}
	return uid == os.Getuid()
}

// localAddrOf is the server's end of r's connection (invalid when
// unknown).
func localAddrOf(r *http.Request) netip.AddrPort {
	local, _ := peercred.RequestLocalAddr(r) // the zero AddrPort on error
	return local
}

// htmlPage is one of the small pages a one-time admin link answers with
// instead of the pad.
type htmlPage struct {
	status               int
	title, text, details string
}

func (p htmlPage) write(w http.ResponseWriter) { writeHTML(w, p.status, p.title, p.text, p.details) }

var (
	adminLinkElsewhere = htmlPage{http.StatusForbidden, "This link works only on the computer running Lets",
		"It opens the pad's own page on the computer where Lets runs. On a phone or tablet, open the pad's address and pair with the PIN shown on the computer.", ""}
	adminLinkOtherAccount = htmlPage{http.StatusForbidden, "This link is for the person who started Lets",
		"Another account on this computer opened the pad's link, so it was not accepted. " +
			"If that was you, open the pad from the Lets menu while signed in to your own account.",
		"The “Local admin” link Lets printed in its terminal works too, in your own browser."}
	adminLinkUsed = htmlPage{http.StatusGone, "This admin link was already used",
		"To keep the pad safe, the link that opens its admin page works once and only for a minute. " +
			"If this browser had the admin page open before, the pad's own address opens it again. " +
			"Otherwise open the pad again from the Lets menu.",
		"The “Local admin” link Lets printed in its terminal works too, or restart the pad for a fresh link."}
)

// htmlPageStyle is the one style of the pages writeHTML sends: light or
// dark as the person's system prefers (#26), with contrast of 4.5:1 and
// more. htmlPageCSP allows it by its hash and nothing else inline.
const htmlPageStyle = `:root { color-scheme: light dark; background: #f6f5f2; color: #1d1f24; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; }
main { max-width: 34rem; margin: 2rem auto; padding: 0 1rem; }
h1 { font-size: 1.35rem; }
a { color: #1f5fbf; }
summary { cursor: pointer; }
:focus-visible { outline: 3px solid currentColor; outline-offset: 2px; }
@media (prefers-color-scheme: dark) { :root { background: #121316; color: #eceae6; } a { color: #9ecbff; } }`

var htmlPageCSP = func() string {
	sum := sha256.Sum256([]byte(htmlPageStyle))
	return strings.Replace(ContentSecurityPolicy, "style-src 'self'", "style-src 'self' 'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'", 1)
}()

// writeHTML sends a small self-contained page (no scripts; one style,
// allowed by its hash) with a link to the pad. details, when not empty, is
// for people who run Lets from a terminal: behind a Details toggle (#26).
func writeHTML(w http.ResponseWriter, status int, title, text, details string) {
	more := ""
	if details != "" {
		more = "<details><summary>Details</summary><p>" + html.EscapeString(details) + "</p></details>\n"
	}
	body := "<!doctype html>\n<html lang=\"en\">\n<meta charset=\"utf-8\">\n" +
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n" +
		"<meta name=\"color-scheme\" content=\"light dark\">\n" +
		"<title>" + html.EscapeString(title) + "</title>\n" +
		"<style>" + htmlPageStyle + "</style>\n" +
		"<main>\n<h1>" + html.EscapeString(title) + "</h1>\n" +
		"<p>" + html.EscapeString(text) + "</p>\n" + more +
		"<p><a href=\"/\">Open the pad</a></p>\n</main>\n"
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	setSecurityHeaders(h)
	h.Set("Content-Security-Policy", htmlPageCSP)
	w.WriteHeader(status)
	_, _ = w.Write([]byte(body))
}
