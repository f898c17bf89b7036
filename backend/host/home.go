package host

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"path"
	"sync"
	"time"

	"github.com/lets-app/lets/backend/claudefind"
	"github.com/lets-app/lets/backend/claudeinstall"
	"github.com/lets-app/lets/backend/claudesetup"

	"github.com/lets-app/lets/backend/hostapi"
	"github.com/lets-app/lets/backend/lip"
	"github.com/lets-app/lets/backend/manifest"
	"github.com/lets-app/lets/backend/sessions"
	"github.com/lets-app/lets/backend/token"
)

// The home page (frontend/static/index.html) is a public file, but what it
// shows and does (the uniques, installing, opening windows) needs a home
// token. The app gets a link with a one-time key from HomeLink (or
// POST /lip/home-link with the host token); the page trades the key for a
// home token once (POST /home/api/claim) and keeps it in sessionStorage,
// which is per origin and per tab. A home token opens only the home API
// below, not the rest of the host API; Host/Origin checks (loopbackGuard)
// apply as everywhere.

// HomeOptions are what the home page shows beyond the host's own data.
type HomeOptions struct {
	// Devices lists the phones paired with the web pad surface; nil when
	// the pad surface does not run in this process (the page then says how
	// to pair one).
	Devices func() []PairedDevice
	// FindClaude finds Claude Code (backend/claudefind, the finder the
	// chat, setup and doctor use too); nil means claudefind.Find with the
	// host's Getenv and no data folder.
	FindClaude func(context.Context) (claudefind.Found, error)
	// InstallClaude installs Claude Code into Lets' own folder (the home
	// page's Install Claude Code button, home_install.go); nil when this
	// Lets cannot.
	InstallClaude func(context.Context, func(claudeinstall.Progress)) (claudefind.Found, error)
	// PairPhone opens the pad page's pairing view on this computer, as
	// the tray's "Pair a phone…" does; nil when this Lets cannot (the
	// page then says how to pair one). See home_actions.go.
	PairPhone func(context.Context) error
	// SetupClaude connects Claude Code to Lets, as the tray's "Set up
	// Claude…" does; nil when this Lets cannot.
	SetupClaude func(context.Context) HomeSetupResult
	// SetupCodex runs `lets setup codex` (remove: `--uninstall`) in the
	// app, for the home page's Codex card; nil when this Lets cannot.
	SetupCodex func(ctx context.Context, remove bool) HomeSetupResult
}

// PairedDevice is one phone paired with the web pad surface.
type PairedDevice struct {
	Name      string    `json:"name"`
	PairedAt  time.Time `json:"paired_at"`
	Connected int       `json:"connected"`
}

const (
	// homeKeyTTL bounds how long an unclaimed home link works.
	homeKeyTTL = 2 * time.Minute
	// maxHomeKeys and maxHomeTokens bound the state; the oldest goes first.
	maxHomeKeys   = 16
	maxHomeTokens = 16
	// maxIconBytes caps an icon the home page shows.
	maxIconBytes = 1 << 20
	// homeInstallTimeout bounds one install started from the home page.
	homeInstallTimeout = 5 * time.Minute
)

// homeState holds the one-time keys and the home tokens. The zero value
// is ready.
type homeState struct {
	mu     sync.Mutex
	keys   map[string]time.Time // key → minted at
	tokens map[string]time.Time // token → issued at
	// peerUID replaces the socket-owner lookup (home_peer.go) in tests.
	peerUID func(client, server netip.AddrPort) (int, error)
	// claude is the one Install Claude Code that may run (home_install.go).
	claude claudeInstallState
}

func oldest(m map[string]time.Time) string {
	var k string
	var at time.Time
	for key, t := range m {
		if k == "" || t.Before(at) {
			k, at = key, t
		}
	}
	return k
}

func (h *homeState) mintKey(now time.Time) (string, error) {
	key, err := token.New()
	if err != nil {
		return "", fmt.Errorf("make a home link: %w", err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.keys == nil {
		h.keys = map[string]time.Time{}
	}
	for k, t := range h.keys {
		if now.Sub(t) > homeKeyTTL {
			delete(h.keys, k)
		}
	}
	for len(h.keys) >= maxHomeKeys {
		delete(h.keys, oldest(h.keys))
	}
	h.keys[key] = now
	return key, nil
}

// claim spends a one-time key and issues a home token; ok is false for an
// unknown, used or expired key.
func (h *homeState) claim(key string, now time.Time) (string, bool, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var found string
	for k, t := range h.keys {
		if token.Equal(key, k) && now.Sub(t) <= homeKeyTTL {
			found = k
		}
	}
	if found == "" || key == "" {
		return "", false, nil
	}
	delete(h.keys, found)
	tok, err := token.New()
	if err != nil {
		return "", false, fmt.Errorf("make a home token: %w", err)
	}
	if h.tokens == nil {
		h.tokens = map[string]time.Time{}
	}
	for len(h.tokens) >= maxHomeTokens {
		delete(h.tokens, oldest(h.tokens))
	}
	h.tokens[tok] = now
	return tok, true, nil
}

func (h *homeState) valid(tok string) bool {
	if tok == "" {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	ok := false
	for t := range h.tokens {
		if token.Equal(tok, t) {
			ok = true
		}
	}
	return ok
}

// HomeLink returns the home page's address with a fresh one-time key (in
// the fragment, so it never reaches a server log). Give it to the home
// window or the browser; it works once, within two minutes.
func (s *Server) HomeLink() (string, error) {
	key, err := s.home.mintKey(s.opts.Now())
	if err != nil {
		return "", err
	}
	return s.URL() + "/#k=" + key, nil
}

// registerHome adds the home page's API to mux.
func (s *Server) registerHome(mux *http.ServeMux) {
	mux.Handle("POST "+hostapi.PathHomeLink, s.requireHostToken(http.HandlerFunc(s.handleHomeLink)))
	mux.HandleFunc("POST /home/api/claim", s.handleHomeClaim)
	mux.Handle("GET /home/api/overview", s.requireHomeToken(s.handleHomeOverview))
	mux.Handle("GET /home/api/icon/{name}", s.requireHomeToken(s.lipOnly(s.handleHomeIcon)))
	mux.Handle("POST /home/api/open", s.requireHomeToken(s.lipOnly(s.handleOpen)))
	mux.Handle("POST /home/api/install", s.requireHomeToken(s.lipOnly(s.handleHomeInstall)))
	mux.Handle("DELETE /home/api/uniques/{name}", s.requireHomeToken(s.lipOnly(s.handleRemove)))
	s.registerHomeActions(mux)
	s.registerHomeInstallClaude(mux)
	s.registerWaiting(mux)
}

// handleHomeLink is POST /lip/home-link (host token: a second `lets`
// finding a headless one). The link is a person's sign-in, so it never
// goes back to the caller (issue #23): the host shows it itself through
// Options.OnShowHomeLink (the desktop browser, or the terminal `lets
// serve` runs in) and says where.
func (s *Server) handleHomeLink(w http.ResponseWriter, r *http.Request) {
	if s.opts.OnShowHomeLink == nil {
		writeError(w, http.StatusNotImplemented, "no_home_link", "this Lets cannot show its home page by itself; open Home from the Lets tray menu")
		return
	}
	link, err := s.HomeLink()
	if err != nil {
		writeError(w, http.StatusInternalServerError, string(lip.CodeInternal), err.Error())
		return
	}
	shown, err := s.opts.OnShowHomeLink(link)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "home_not_shown", "Lets could not show its home page: "+err.Error())
		return
	}
	writeJSON(w, http.StatusOK, hostapi.HomeLinkAnswer{Shown: shown})
}

// requireHomeToken lets through a home token in a header (or the host
// token, for the CLI); a window token is 403, anything else 401.
func (s *Server) requireHomeToken(next http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t := presentedToken(r)
		if s.home.valid(headerToken(r)) || token.Equal(t, s.opts.Token) {
			next(w, r)
			return
		}
		if s.core != nil && s.core.isWindowToken(t) {
			writeError(w, http.StatusForbidden, "forbidden", "a window token cannot use the home page's API")
			return
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="lets-home"`)
		writeError(w, http.StatusUnauthorized, "unauthorized", "this page needs a fresh link: open Home from the Lets tray menu, or run `lets` again")
	})
}

func (s *Server) handleHomeClaim(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Key string `json:"key"`
	}
	if !decodeBody(w, r, &req) {
		return
	}
	if !s.claimFromOwner(r) {
		writeError(w, http.StatusForbidden, "forbidden", "this home link was opened by another user of this computer, so Lets refused it; open Home from the Lets tray menu in your own session")
		return
	}
	tok, ok, err := s.home.claim(req.Key, s.opts.Now())
	if err != nil {
		writeError(w, http.StatusInternalServerError, string(lip.CodeInternal), err.Error())
		return
	}
	if !ok {
		writeError(w, http.StatusUnauthorized, "unauthorized", "this home link was already used or is too old; open Home from the Lets tray menu, or run `lets` again")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"token": tok})
}

// homeUnique is one unique as the home page shows it.
type homeUnique struct {
	Name        string `json:"name"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Version     string `json:"version"`
	Source      string `json:"source"`
	Builtin     bool   `json:"builtin"`
	Icon        bool   `json:"icon"`
}

type homeDevices struct {
	// Available is false when the pad surface does not run in this process.
	Available bool           `json:"available"`
	List      []PairedDevice `json:"list"`
}

type homeClaude struct {
	CLI     bool   `json:"cli"`
	CLIPath string `json:"cli_path,omitempty"`
	// Version is what `claude --version` said; Old says it is older than
	// the version Lets is tested with (Tested).
	Version string `json:"version,omitempty"`
	Old     bool   `json:"old,omitempty"`
	Tested  string `json:"tested"`
	// Installable: the page may offer Install Claude Code; Installing:
	// an install runs now (started from this page or another).
	Installable  bool   `json:"installable"`
	Installing   bool   `json:"installing"`
	Hooks        bool   `json:"hooks"`
	SettingsPath string `json:"settings_path"`
}

type homeOverview struct {
	Version  string           `json:"version"`
	Uniques  []homeUnique     `json:"uniques"`
	Sessions []sessions.Info  `json:"sessions"`
	Windows  []hostapi.Window `json:"windows"`
	Devices  homeDevices      `json:"devices"`
	Claude   homeClaude       `json:"claude"`
	Codex    homeCodex        `json:"codex"`
	Chat     homeChat         `json:"chat"`
	// Actions are the tray's actions the page may offer itself.
	Actions homeActions `json:"actions"`
	// Problems are things the page could not read, said kindly.
	Problems []string `json:"problems"`
	// Waiting are the windows nothing could show (waiting.go); listed for
	// the person's home token only, empty for the host token.
	Waiting []waitingWindow `json:"waiting"`
}

// maxHomeSessions bounds the saved sessions listed.
const maxHomeSessions = 50

func (s *Server) handleHomeOverview(w http.ResponseWriter, r *http.Request) {
	ov := homeOverview{Version: s.opts.Version, Uniques: []homeUnique{}, Sessions: []sessions.Info{}, Windows: []hostapi.Window{}, Problems: []string{}, Waiting: []waitingWindow{}}
	if s.core == nil {
		ov.Problems = append(ov.Problems, "This Lets runs without a data folder, so it has no apps.")
	} else {
		reg := s.core.registry
		if err := reg.Reload(); err != nil {
			s.opts.Log.Warn("rescanning the uniques folder failed", "err", err)
		}
		for _, u := range reg.List() {
			m := u.Manifest
			ov.Uniques = append(ov.Uniques, homeUnique{Name: m.Name, Title: m.Title, Description: m.Description,
				Version: m.Version, Source: u.Source(), Builtin: u.Builtin, Icon: iconType(m.Icon) != ""})
		}
		list, err := s.core.sessions.List("")
		if err != nil && !errors.Is(err, sessions.ErrNotFound) {
			// In the person's words (#26); the reason goes to the log.
			s.opts.Log.Warn("home: the saved sessions could not be read", "err", err)
			ov.Problems = append(ov.Problems, "Your saved work could not be read just now. Lets tries again when this page refreshes.")
		}
		if len(list) > maxHomeSessions {
			list = list[:maxHomeSessions]
		}
		if list != nil {
			ov.Sessions = list
		}
		ov.Windows = s.core.listWindows()
		if s.isPerson(r) {
			ov.Waiting = s.core.waitingWindows()
		}
	}
	if d := s.opts.Home.Devices; d != nil {
		ov.Devices = homeDevices{Available: true, List: d()}
	}
	if ov.Devices.List == nil {
		ov.Devices.List = []PairedDevice{}
	}
	ov.Claude = s.claudeSetup(r.Context())
	ov.Codex = s.codexSetup()
	ov.Chat = s.homeChats()
	ov.Actions = s.homeActions()
	writeJSON(w, http.StatusOK, ov)
}

// claudeSetup reports whether Claude Code is installed (the finder's
// answer, as the chat sees it) and whether its user settings hold every
// hook `lets setup claude` writes (CLAUDE_CONFIG_DIR or ~/.claude).
func (s *Server) claudeSetup(ctx context.Context) homeClaude {
	find := s.opts.Home.FindClaude
	if find == nil {
		find = func(ctx context.Context) (claudefind.Found, error) {
			return claudefind.Find(ctx, claudefind.Options{Getenv: s.opts.Getenv})
		}
	}
	c := homeClaude{Tested: claudefind.TestedVersion, Installable: s.opts.Home.InstallClaude != nil, Installing: s.home.claude.running()}
	if f, err := find(ctx); err == nil {
		c.CLI, c.CLIPath, c.Version, c.Old = true, f.Path, f.Version, f.Old != nil
	}
	if dir, err := claudesetup.Dir(s.opts.Getenv); err == nil {
		p := claudesetup.Paths{Dir: dir}
		c.SettingsPath = p.Settings()
		c.Hooks = claudesetup.Check(p).Installed()
	}
	return c
}

// iconType is the Content-Type of an icon file the home page shows, or ""
// for a type it does not.
func iconType(name string) string {
	switch path.Ext(name) {
	case ".svg":
		return "image/svg+xml"
	case ".png":
		return "image/png"
	case ".webp":
		return "image/webp"
	case ".jpg", ".jpeg":
		return "image/jpeg"
	case ".gif":
		return "image/gif"
	}
	return ""
}

// handleHomeIcon serves a unique's icon to the home page (an <img>, so the
// token comes in ?t=). The icon comes from the unique, which Lets does not
// trust: a sandbox CSP keeps an SVG opened on its own from running script
// on this origin, and nosniff (loopbackGuard) keeps the type.
func (s *Server) handleHomeIcon(w http.ResponseWriter, r *http.Request) {
	u, err := s.core.registry.Get(r.PathValue("name"))
	if err != nil {
		writeError(w, http.StatusNotFound, string(lip.CodeUnknownUnique), "no unique of that name is installed")
		return
	}
	ctype := iconType(u.Manifest.Icon)
	if ctype == "" {
		writeError(w, http.StatusNotFound, "no_icon", "this unique has no icon the home page can show")
		return
	}
	b, err := u.ReadFile(u.Manifest.Icon)
	if err != nil || len(b) > maxIconBytes {
		writeError(w, http.StatusNotFound, "no_icon", "this unique's icon cannot be read (missing or over 1 MiB)")
		return
	}
	h := w.Header()
	h.Set("Content-Type", ctype)
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; sandbox")
	h.Set("Cache-Control", "private, max-age=60")
	_, _ = w.Write(b)
}

// installLine is one line of POST /home/api/install's answer (NDJSON):
// progress lines while it works, then done or error.
type installLine struct {
	Progress string          `json:"progress,omitempty"`
	Done     *installDone    `json:"done,omitempty"`
	Error    *installProblem `json:"error,omitempty"`
}

type installDone struct {
	Name     string   `json:"name"`
	Title    string   `json:"title"`
	Version  string   `json:"version"`
	Warnings []string `json:"warnings"`
}

type installProblem struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// handleHomeInstall installs a unique (the installer of `lets install`)
// and streams its progress as NDJSON, so the page can show each step as
// it happens. Closing the request cancels the install.
func (s *Server) handleHomeInstall(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Source string `json:"source"`
	}
	if !decodeBody(w, r, &req) {
		return
	}
	if req.Source == "" {
		writeError(w, http.StatusBadRequest, string(lip.CodeBadEnvelope), "give a git URL or a folder to install from")
		return
	}
	line := ndjson(w)
	send := func(l installLine) { line(l) }
	ctx, cancel := context.WithTimeout(r.Context(), homeInstallTimeout)
	defer cancel()
	u, err := s.core.registry.Install(ctx, req.Source, func(msg string) { send(installLine{Progress: msg}) })
	if err != nil {
		send(installLine{Error: &installProblem{Code: installCode(err), Message: err.Error()}})
		return
	}
	s.changes.Notify()
	warnings := u.Warnings
	if warnings == nil {
		warnings = []string{}
	}
	send(installLine{Done: &installDone{Name: u.Name(), Title: u.Manifest.Title, Version: u.Manifest.Version, Warnings: warnings}})
}

func installCode(err error) string {
	if errors.Is(err, manifest.ErrInvalid) {
		return string(lip.CodeInvalidManifest)
	}
	return string(lip.CodeInstallFailed)
}
