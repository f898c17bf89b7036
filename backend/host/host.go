// Package host is the HTTP host of Lets on 127.0.0.1: the privileged API
// for the CLI, hooks and the MCP server, and the pages of the app.
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
	"strconv"
	"sync/atomic"
	"time"
)

// Status is what GET /lip/status answers.
type Status struct {
	Version   string    `json:"version"`
	PID       int       `json:"pid"`
	Port      int       `json:"port"`
	URL       string    `json:"url"`
	DataDir   string    `json:"data_dir"`
	StartedAt time.Time `json:"started_at"`
	UptimeSec float64   `json:"uptime_s"`
	// Services lists the running parts, e.g. "host", "wire".
	Services []string `json:"services"`
	// WireSocket is the agent daemon's socket when it runs.
	WireSocket string `json:"wire_socket,omitempty"`
}

// Options configure a Server.
type Options struct {
	// Addr to listen on; must be a loopback address. "127.0.0.1:0" picks a
	// free port.
	Addr    string
	Token   string
	Version string
	DataDir string
	// Pages is the app's own static pages (the frontend bundle).
	Pages fs.FS
	// Extra reports additional status fields (services, sockets).
	Extra func(*Status)
	Now   func() time.Time
	Log   *slog.Logger
}

// Server is the host. Create it with Listen, then Run it.
type Server struct {
	opts    Options
	ln      net.Listener
	port    atomic.Int64
	started time.Time
	srv     *http.Server
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
	if opts.Token == "" {
		return nil, errors.New("host: a token is required")
	}
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	h, _, err := net.SplitHostPort(opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("host address %q: %w", opts.Addr, err)
	}
	if ip := net.ParseIP(h); ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("host address %q is not a loopback address; Lets only listens on 127.0.0.1 or ::1", opts.Addr)
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s (is another program using that port? set \"host_port\" to 0 in config.json to pick a free one): %w", opts.Addr, err)
	}
	s := &Server{opts: opts, ln: ln, started: opts.Now()}
	s.port.Store(int64(ln.Addr().(*net.TCPAddr).Port))
	s.srv = &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(opts.Log.Handler(), slog.LevelDebug),
	}
	return s, nil
}

// Port is the listening port.
func (s *Server) Port() int { return int(s.port.Load()) }

// URL is the host's base URL.
func (s *Server) URL() string { return "http://127.0.0.1:" + strconv.Itoa(s.Port()) }

// Name is the service name.
func (s *Server) Name() string { return "host" }

// Handler is the host's whole HTTP surface, with the loopback guard.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /lip/status", requireHostToken(s.opts.Token, http.HandlerFunc(s.handleStatus)))
	mux.HandleFunc("GET /lip/health", s.handleHealth)
	if s.opts.Pages != nil {
		mux.Handle("GET /", pagesHandler(s.opts.Pages))
	}
	return loopbackGuard(s.Port, mux)
}

// Status returns the current status.
func (s *Server) Status() Status {
	now := s.opts.Now()
	st := Status{
		Version:   s.opts.Version,
		PID:       pid(),
		Port:      s.Port(),
		URL:       s.URL(),
		DataDir:   s.opts.DataDir,
		StartedAt: s.started.UTC(),
		UptimeSec: now.Sub(s.started).Seconds(),
		Services:  []string{"host"},
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
		return fmt.Errorf("host stopped serving: %w", err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := s.srv.Shutdown(shutdownCtx); err != nil {
		_ = s.srv.Close()
	}
	<-errc
	return nil
}

// Close releases the listener of a server that was never Run.
func (s *Server) Close() error { return s.ln.Close() }

type errorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	var b errorBody
	b.Error.Code, b.Error.Message = code, msg
	writeJSON(w, status, b)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
