// Package window is the `lets window` process: one native window (Wails v2,
// one window per process) that shows a window's shell page from the host.
//
// The app starts it with a Launch on stdin (never argv: the URL holds the
// window's one-time key, and argv is readable by every user of the
// machine) and reads Reports from it on a pipe (file descriptor 3).
package window

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"

	"github.com/lets-app/lets/app/window/geometry"
)

// maxLaunchBytes bounds what a window process reads from stdin.
const maxLaunchBytes = 64 << 10

// Launch is what one window process needs: which window, for which unique,
// under which title, and the shell page to show.
type Launch struct {
	Window string `json:"window"`
	Unique string `json:"unique"`
	Title  string `json:"title"`
	// URL is the shell page on the host (loopback) with the window's
	// one-time key.
	URL string `json:"url"`
	// Geometry is where the unique's window was last time; nil opens it
	// at the default size, centred.
	Geometry *geometry.Rect `json:"geometry,omitempty"`
	// Home says the URL is the host's home page with a one-time key
	// (http://127.0.0.1:<port>/#k=…) instead of a window's shell page.
	Home bool `json:"home,omitempty"`
}

// HomeWindow is the window id and the geometry key of the home window; it
// cannot clash with a unique's name or a host window id (neither starts
// with "_").
const HomeWindow = "_home"

// Home window size without a remembered place.
const (
	HomeWidth  = 960
	HomeHeight = 720
)

// HomeLaunch is the launch of the home window for a one-time home link
// the host made (host.Server.HomeLink). The link must be exactly the
// host's own origin (hostURL, http://127.0.0.1:<port>) and root path with
// the key in the fragment; anything else is refused.
func HomeLaunch(link, hostURL string) (Launch, error) {
	u, err := url.Parse(link)
	if err != nil {
		return Launch{}, fmt.Errorf("%w: the home link does not parse: %v", ErrBadLaunch, err)
	}
	h, err := url.Parse(hostURL)
	if err != nil || h.Scheme == "" || h.Host == "" {
		return Launch{}, fmt.Errorf("%w: the host address %q is not a URL", ErrBadLaunch, hostURL)
	}
	if u.Scheme != h.Scheme || u.Host != h.Host {
		return Launch{}, fmt.Errorf("%w: the home link must be on the Lets host (%s://%s), not %s://%s", ErrBadLaunch, h.Scheme, h.Host, u.Scheme, u.Host)
	}
	l := Launch{Window: HomeWindow, Unique: HomeWindow, Title: "Lets", URL: link, Home: true}
	if err := l.check(); err != nil {
		return Launch{}, err
	}
	return l, nil
}

// DefaultWidth and DefaultHeight size a window that has no remembered
// geometry.
const (
	DefaultWidth  = 1024
	DefaultHeight = 768
)

// ErrBadLaunch means the window process was not given a usable Launch.
var ErrBadLaunch = errors.New("the window was not told what to show")

// Encode is the Launch as the one JSON line the window process reads.
func (l Launch) Encode() ([]byte, error) {
	b, err := json.Marshal(l)
	if err != nil {
		return nil, fmt.Errorf("encode the window launch: %w", err)
	}
	return append(b, '\n'), nil
}

// ReadLaunch reads and checks the Launch the app wrote on stdin.
func ReadLaunch(r io.Reader) (Launch, error) {
	return readLaunch(bufio.NewReaderSize(r, 4096))
}

// readLaunch reads the Launch line from br, leaving what follows it (Lets'
// control lines) in br.
func readLaunch(br *bufio.Reader) (Launch, error) {
	line, err := readLine(br, maxLaunchBytes)
	if err != nil && !errors.Is(err, io.EOF) {
		return Launch{}, fmt.Errorf("%w: reading stdin: %v", ErrBadLaunch, err)
	}
	var l Launch
	if err := json.Unmarshal(line, &l); err != nil {
		return Launch{}, fmt.Errorf("%w: stdin must hold one JSON line with the window and its URL (Lets writes it when it opens a window; run `lets open <unique>` instead of `lets window`): %v", ErrBadLaunch, err)
	}
	if err := l.check(); err != nil {
		return Launch{}, err
	}
	if l.Geometry != nil && !l.Geometry.Valid() {
		// A place that cannot be a window's (a hand-edited windows.json)
		// is dropped: the window opens at its default size.
		l.Geometry = nil
	}
	return l, nil
}

// check refuses a launch whose page is not the host's shell page: the
// window must never show anything but a Lets window from this machine.
func (l Launch) check() error {
	if l.Window == "" || l.URL == "" {
		return fmt.Errorf("%w: the launch names no window or no URL", ErrBadLaunch)
	}
	u, err := url.Parse(l.URL)
	if err != nil {
		return fmt.Errorf("%w: the URL does not parse: %v", ErrBadLaunch, err)
	}
	host := u.Hostname()
	ip := net.ParseIP(host)
	if u.Scheme != "http" || ip == nil || !ip.IsLoopback() || u.Port() == "" {
		return fmt.Errorf("%w: the URL must be the Lets host on this machine (http://127.0.0.1:<port>/w/…), not %s://%s", ErrBadLaunch, u.Scheme, u.Host)
	}
	if u.User != nil {
		return fmt.Errorf("%w: the URL must not carry a user name or password", ErrBadLaunch)
	}
	if l.Home {
		// The home page: the root path, no query, the one-time key in
		// the fragment.
		if u.Path != "/" || u.RawQuery != "" || u.Opaque != "" || !strings.HasPrefix(u.Fragment, "k=") || len(u.Fragment) <= len("k=") {
			return fmt.Errorf("%w: the home window shows only the host's home page (http://127.0.0.1:<port>/#k=<key>)", ErrBadLaunch)
		}
	} else if !strings.HasPrefix(u.Path, "/w/") {
		return fmt.Errorf("%w: the URL must be a window's shell page (/w/<window>/), not %s", ErrBadLaunch, u.Path)
	}
	return nil
}

// size is the width and height the window opens at.
func (l Launch) size() (int, int) {
	if l.Geometry != nil && l.Geometry.Valid() {
		return l.Geometry.Width, l.Geometry.Height
	}
	if l.Home {
		return HomeWidth, HomeHeight
	}
	return DefaultWidth, DefaultHeight
}

// title is the window's title: the unique's, or a plain one.
func (l Launch) title() string {
	if t := strings.TrimSpace(l.Title); t != "" {
		return t
	}
	if l.Unique != "" {
		return l.Unique + " — Lets"
	}
	return "Lets"
}

// errLineTooLong means a line on stdin was longer than allowed.
var errLineTooLong = errors.New("the line is too long")

// readLine reads one line (with its newline, if any) of at most limit
// bytes from br.
func readLine(br *bufio.Reader, limit int) ([]byte, error) {
	var line []byte
	for {
		part, err := br.ReadSlice('\n')
		line = append(line, part...)
		if len(line) > limit {
			return nil, errLineTooLong
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, err
		}
	}
}
