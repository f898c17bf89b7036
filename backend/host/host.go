// Package host is the HTTP host of Lets on 127.0.0.1 (LIP 1 §1, §6, §8):
// the privileged API for the CLI, hooks and the MCP server (host token),
// the window endpoints for shell pages (window tokens: the shell page, its
// WebSocket, uploads and the runner), one origin per unique for the
// unique's own files (origin U), and the pages of the app.
package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/lets-app/lets/backend/changes"
	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/hostapi"
	"github.com/lets-app/lets/backend/lip"
	"github.com/lets-app/lets/backend/netguard"
	"github.com/lets-app/lets/backend/registry"
	"github.com/lets-app/lets/backend/ring"
	"github.com/lets-app/lets/backend/ring/cursorfile"
	"github.com/lets-app/lets/backend/runner"
	"github.com/lets-app/lets/backend/sessions"
	"github.com/lets-app/lets/shell"
	"github.com/lets-app/lets/uniques"
)

// Options configure a Server. Only Token is required; everything else has
// a default.
type Options struct {
	// Addr to listen on; must be a loopback address. "127.0.0.1:0" picks a
	// free port.
	Addr    string
	Token   string
	Version string
	// DataDir is the Lets data folder (~/.lets). Without it the host
	// serves only its status and pages: the LIP endpoints answer 503.
	DataDir string
	// Pages is the app's own static pages (the frontend bundle).
	Pages fs.FS
	// Extra reports additional status fields (services, sockets).
	Extra func(*hostapi.Status)
	Now   func() time.Time
	Log   *slog.Logger

	// Builtin holds the built-in uniques; nil means the ones embedded in
	// the binary (package uniques).
	Builtin fs.FS
	// Shell holds the bundled shell assets; nil means package shell's.
	Shell fs.FS
	// RingCapacity is the number of up-events kept; 0 means 2000.
	RingCapacity int
	// UploadMaxBytes caps one upload; 0 means 25 MB.
	UploadMaxBytes int64
	// Handoff overrides config.json's "handoff" ("close" or "stay");
	// empty uses Config.
	Handoff string
	// Config is config.json as loaded once and kept current by its
	// watcher; the host reads settings from it (a change applies at once,
	// without reading the file per request). nil means the defaults.
	Config *config.Watcher
	// Getenv gives the runner's PATH, HOME and LANG; nil means os.Getenv.
	Getenv func(string) string

	// OnOpen, when set, is told about every window POST /lip/open made, so
	// the app can show it: a native window process (pass URL through the
	// child's environment or stdin, never argv) or the desktop browser.
	// The one-time URL never goes into the answer of a host-token caller:
	// when OnOpen is nil or returns an error, the window waits for the
	// person on the home page (waiting.go). It must not block.
	OnOpen func(WindowLaunch) error
	// OnShowHomeLink, when set, shows the person a fresh one-time home
	// link for POST /lip/home-link (the desktop browser, or the terminal
	// `lets serve` runs in) and says where ("browser", "terminal"); the
	// link never goes back to the caller. nil answers 501.
	OnShowHomeLink func(link string) (shown string, err error)
	// OnWindowClosed, when set, is told when a window is gone for good
	// (session.close done, a handoff, the process ended), so the app ends
	// that window's native process. It must not block.
	OnWindowClosed func(window string)
	// OnWindowClosing, when set, is told when POST /lip/close sent a
	// window session.close: the app may end the window's process if its
	// shell does not go by itself soon. It must not block.
	OnWindowClosing func(window string)

	// OnShowHome, when set, shows the app's home window; POST
	// /app/show-home (a second `lets` starting) calls it on its own
	// goroutine. nil means the host has no home window (`lets serve`).
	OnShowHome func()
	// Home is what the home page shows beyond the host's own data (home.go).
	Home HomeOptions

	// ClaudeActions, when set, passes the human's answer on an approval
	// card in a window bound to a Claude session to the Wire daemon
	// (claude.go). nil (no agent daemon in this process) means bound
	// windows show no approval card; the companion still follows Claude.
	ClaudeActions ClaudeActions
	// Chats, when set, are the app's conversations with Claude (chat
	// window, `lets chat`, the home page's chat card; chat_route.go). nil
	// means this Lets has no chat: those answer 501 and the card says so.
	Chats Chats

	// MaxConns caps the open connections of origin A, MaxUniqueConns those
	// of each unique origin; connections over the cap are closed at once.
	// 0 means DefaultMaxConns / DefaultMaxUniqueConns.
	MaxConns       int
	MaxUniqueConns int
	// ReadHeaderTimeout and IdleTimeout apply to every listener of the
	// host; 0 means DefaultReadHeaderTimeout / DefaultIdleTimeout.
	ReadHeaderTimeout time.Duration
	IdleTimeout       time.Duration

	// timing shortens the shell channel's timers in tests.
	timing *wsTiming
}

// WindowLaunch is what a native window needs to show a window's shell page.
type WindowLaunch struct {
	Window string
	Unique string
	Title  string
	// URL is the shell page with the window's one-time key: the first
	// load opens the window, later loads are refused.
	URL string
}

// WindowGone tells the host that a window's process ended (the person
// closed it, or it crashed): the window is forgotten and session.closed
// reports reason ("human", "crash", …). Unknown ids are ignored.
func (s *Server) WindowGone(id, reason string) {
	if s.core == nil {
		return
	}
	if w, ok := s.core.window(id); ok {
		w.mu.Lock()
		conn := w.conn
		w.mu.Unlock()
		if conn != nil {
			conn.shutdown(4410, "this window was closed")
		}
		s.core.forget(w, reason)
	}
}

// DefaultUploadMaxBytes is the upload cap when config says nothing (spec §8.2).
const DefaultUploadMaxBytes = 25 << 20

// Server is the host. Create it with Listen, then Run it.
type Server struct {
	opts    Options
	ln      net.Listener
	port    atomic.Int64
	started time.Time
	srv     *http.Server
	timing  wsTiming

	// LIP parts; nil when Options.DataDir is empty.
	core    *lipCore
	rng     *ring.Ring
	origins *originSet
	shell   fs.FS
	perms   *runner.Permissions
	runner  *runner.Runner
	home    homeState       // the home page's links and tokens (home.go)
	changes *changes.Feed   // in-process listeners of changes (changes.go)
	homeAct homeActionState // one Set up Claude at a time (home_actions.go)
}

// Listen opens the loopback listener, so the port is known (and can be
// written to host.json) before Run starts serving.
func Listen(opts Options) (*Server, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Token == "" {
		return nil, errors.New("host: a token is required")
	}
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	if opts.UploadMaxBytes <= 0 {
		opts.UploadMaxBytes = DefaultUploadMaxBytes
	}
	if opts.MaxConns <= 0 {
		opts.MaxConns = DefaultMaxConns
	}
	if opts.MaxUniqueConns <= 0 {
		opts.MaxUniqueConns = DefaultMaxUniqueConns
	}
	if opts.ReadHeaderTimeout <= 0 {
		opts.ReadHeaderTimeout = DefaultReadHeaderTimeout
	}
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = DefaultIdleTimeout
	}
	h, _, err := net.SplitHostPort(opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("host address %q: %w", opts.Addr, err)
	}
	if ip := net.ParseIP(h); ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("host address %q is not a loopback address; Lets only listens on 127.0.0.1 or ::1", opts.Addr)
	}
	s := &Server{opts: opts, started: opts.Now(), changes: &changes.Feed{}, timing: wsTiming{ping: pingInterval, write: writeDeadline, hello: helloDeadline}}
	if opts.timing != nil {
		s.timing = *opts.timing
	}
	if opts.DataDir != "" {
		if err := s.setupLIP(); err != nil {
			return nil, err
		}
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		// The hint (a flag or a config.json key) is the command's to add.
		return nil, fmt.Errorf("listen on %s: %w", opts.Addr, err)
	}
	s.ln = netguard.LimitLocal(ln, opts.MaxConns, "host", opts.Log)
	s.port.Store(int64(ln.Addr().(*net.TCPAddr).Port))
	s.srv = &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: opts.ReadHeaderTimeout,
		IdleTimeout:       opts.IdleTimeout,
		ErrorLog:          slog.NewLogLogger(opts.Log.Handler(), slog.LevelDebug),
	}
	return s, nil
}

// setupLIP opens the registry, the session store, the ring and the runner.
func (s *Server) setupLIP() error {
	o := s.opts
	paths := config.Paths{Home: o.DataDir}
	builtin := o.Builtin
	if builtin == nil {
		builtin = uniques.FS()
	}
	reg, err := registry.OpenRegistry(registry.RegistryOptions{Builtin: builtin, UserDir: paths.UniquesDir(), HostVersion: o.Version, Log: o.Log, Now: o.Now})
	if err != nil {
		return fmt.Errorf("load the uniques: %w", err)
	}
	s.shell = o.Shell
	if s.shell == nil {
		if s.shell, err = shell.Files(); err != nil {
			return fmt.Errorf("load the shell: %w", err)
		}
	}
	s.rng = ring.New(ring.Config{Capacity: o.RingCapacity, Store: cursorfile.New(paths.StateDir()), Logger: o.Log})
	s.core = &lipCore{
		log: o.Log, now: o.Now, paths: paths, registry: reg,
		sessions:      sessions.NewStore(paths.SessionsDir(), sessions.Options{Log: o.Log}),
		ring:          &eventRing{r: s.rng},
		ids:           lip.NewIDs(nil),
		handoff:       o.Handoff,
		settings:      o.Config,
		windows:       map[string]*window{},
		version:       o.Version,
		uploadMax:     o.UploadMaxBytes,
		claude:        newClaudeAgents(claudeAgentsMax),
		claudeActions: o.ClaudeActions,
		changes:       s.changes,
	}
	s.origins = &originSet{log: o.Log, maxConns: o.MaxUniqueConns, readHeaderTimeout: o.ReadHeaderTimeout, idleTimeout: o.IdleTimeout, portsFile: filepath.Join(paths.StateDir(), "ports.json"), hostPort: s.Port, sdk: s.sdkBytes, origins: map[string]*uniqueOrigin{}}
	s.core.onForget = func(w *window) {
		if o, ok := s.origins.get(w.name); ok {
			o.removeWindow(w)
		}
		if s.opts.OnWindowClosed != nil {
			s.opts.OnWindowClosed(w.id)
		}
	}
	s.perms = runner.OpenPermissions(paths.PermissionsFile())
	s.runner = runner.New(filepath.Join(o.DataDir, "run"), o.Getenv)
	s.runner.SetLogger(o.Log)
	return nil
}

func (s *Server) sdkBytes() ([]byte, error) { return fs.ReadFile(s.shell, "sdk.js") }

// Port is the listening port.
func (s *Server) Port() int { return int(s.port.Load()) }

// URL is the host's base URL.
func (s *Server) URL() string { return "http://127.0.0.1:" + strconv.Itoa(s.Port()) }

// Name is the service name.
func (s *Server) Name() string { return "host" }

// privilegedRoutes are the host-token endpoints (spec §8.1).
var privilegedRoutes = []string{
	routeStatus, routeUniques, routeInstall, routeRemove,
	routeOpen, routeSend, routeListenGet, routeListenPost, routeClose,
	routeSessions, routeWindows, ShowHomeRoute, ApproveRoute, ClaudeRoute, BindRoute, ChatRoute,
}

// The host-token routes of hostapi as ServeMux patterns.
const (
	routeStatus     = "GET " + hostapi.PathStatus
	routeUniques    = "GET " + hostapi.PathUniques
	routeInstall    = "POST " + hostapi.PathInstall
	routeRemove     = "DELETE " + hostapi.PathUniques + "/{name}"
	routeOpen       = "POST " + hostapi.PathOpen
	routeSend       = "POST " + hostapi.PathSend
	routeListenGet  = "GET " + hostapi.PathListen
	routeListenPost = "POST " + hostapi.PathListen
	routeClose      = "POST " + hostapi.PathClose
	routeSessions   = "GET " + hostapi.PathSessions
	routeWindows    = "GET " + hostapi.PathWindows
)

// Handler is the host's whole HTTP surface, with the loopback guard.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	handlers := map[string]http.HandlerFunc{
		routeStatus:     s.handleStatus,
		routeUniques:    s.lipOnly(s.handleUniques),
		routeInstall:    s.lipOnly(s.handleInstall),
		routeRemove:     s.lipOnly(s.handleRemove),
		routeOpen:       s.lipOnly(s.handleOpen),
		routeSend:       s.lipOnly(s.handleSend),
		routeListenGet:  s.lipOnly(s.handleListen),
		routeListenPost: s.lipOnly(s.handleListen),
		routeClose:      s.lipOnly(s.handleClose),
		routeSessions:   s.lipOnly(s.handleSessions),
		routeWindows:    s.lipOnly(s.handleWindows),
		ShowHomeRoute:   s.handleShowHome,
		ApproveRoute:    s.lipOnly(s.handleApprove),
		ClaudeRoute:     s.lipOnly(s.handleClaude),
		BindRoute:       s.lipOnly(s.handleBind),
		ChatRoute:       s.handleChatOpen,
	}
	for _, route := range privilegedRoutes {
		mux.Handle(route, s.requireHostToken(handlers[route]))
	}
	mux.HandleFunc("GET "+hostapi.PathHealth, s.handleHealth)
	mux.HandleFunc("GET /w/{wid}/{$}", s.handleShellPage)
	mux.Handle("GET /w/{wid}/{file}", s.requireWindowToken(s.handleShellAsset))
	mux.Handle("GET /lip/ws", s.requireWindowToken(s.handleWS))
	mux.Handle("POST /lip/upload", s.requireWindowToken(s.handleUpload))
	mux.Handle("POST /lip/run", s.requireWindowToken(s.handleRun))
	s.registerHome(mux)
	s.registerChat(mux)
	if s.opts.Pages != nil {
		mux.Handle("GET /", pagesHandler(s.opts.Pages))
	}
	return loopbackGuard(s.Port, mux)
}

// lipOnly answers 503 when the host runs without a data folder.
func (s *Server) lipOnly(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.core == nil {
			writeError(w, http.StatusServiceUnavailable, string(lip.CodeInternal), "this host runs without a data folder, so it has no uniques or windows")
			return
		}
		h(w, r)
	}
}

// Status returns the current status.
func (s *Server) Status() hostapi.Status {
	now := s.opts.Now()
	st := hostapi.Status{
		Version:   s.opts.Version,
		PID:       pid(),
		Port:      s.Port(),
		URL:       s.URL(),
		DataDir:   s.opts.DataDir,
		StartedAt: s.started.UTC(),
		UptimeSec: now.Sub(s.started).Seconds(),
		Services:  []string{"host"},
		LIP:       lip.Version,
		Windows:   []hostapi.Window{},
	}
	if s.core != nil {
		rs := s.rng.Stats()
		st.Epoch = rs.Epoch
		st.Ring = &hostapi.RingStatus{Size: rs.Size, Capacity: rs.Capacity, Oldest: rs.Oldest, Newest: rs.Newest, Waiting: rs.Waiting}
		st.Windows = s.core.listWindows()
		st.Uniques = len(s.core.registry.List())
	}
	if s.opts.Extra != nil {
		s.opts.Extra(&st)
	}
	return st
}

func (s *Server) handleStatus(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.Status())
}

// handleHealth tells a page (or a probe) only that the host is up; it holds
// nothing secret, so it needs no token.
func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"ok":       true,
		"version":  s.opts.Version,
		"uptime_s": s.opts.Now().Sub(s.started).Seconds(),
	})
}

// Run serves until ctx is cancelled, then shuts down gracefully.
func (s *Server) Run(ctx context.Context) error {
	errc := make(chan error, 1)
	go func() { errc <- s.srv.Serve(s.ln) }()
	s.opts.Log.Info("host listening", "url", s.URL())
	select {
	case err := <-errc:
		s.stopLIP()
		if s.core != nil {
			s.core.waitShells(shellDrain)
		}
		return fmt.Errorf("host stopped serving: %w", err)
	case <-ctx.Done():
	}
	s.stopLIP()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := s.srv.Shutdown(shutdownCtx); err != nil {
		_ = s.srv.Close()
	}
	<-errc
	// The window connections outlive Shutdown (it does not wait for a
	// connection it handed over): their handlers may still be saving a
	// session a closing window sent.
	if s.core != nil {
		s.core.waitShells(shellDrain)
	}
	return nil
}

// shellDrain bounds Run's wait for the window connections' handlers.
const shellDrain = 5 * time.Second

// stopLIP wakes blocked listeners, closes shell connections and stops the
// unique origins.
func (s *Server) stopLIP() {
	if s.core == nil {
		return
	}
	s.rng.Close()
	s.core.stop(context.Background())
	s.origins.stop()
}

// Close releases the listener of a server that was never Run.
func (s *Server) Close() error {
	s.stopLIP()
	return s.ln.Close()
}

// writeError answers a refusal; the hint is the one that goes with code
// (hostapi.HintFor).
func writeError(w http.ResponseWriter, status int, code, msg string) {
	writeHinted(w, status, code, msg, hostapi.HintFor(lip.Code(code)))
}

// writeHinted answers a refusal with an explicit hint.
func writeHinted(w http.ResponseWriter, status int, code, msg string, hint hostapi.Hint) {
	writeJSON(w, status, hostapi.ErrorBody{Error: hostapi.ErrorDetail{Code: lip.Code(code), Message: msg, Hint: hint}})
}

func writeLIPError(w http.ResponseWriter, e *lip.Error) {
	writeError(w, e.Code.HTTPStatus(), string(e.Code), e.Message)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
