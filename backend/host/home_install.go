package host

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/lets-app/lets/backend/claudeinstall"
)

// The home page's Install Claude Code button: POST /home/api/install-claude
// installs Claude Code into Lets' own folder (HomeOptions.InstallClaude)
// and streams its progress as NDJSON, like POST /home/api/install does for
// uniques. Closing the request (the page's Cancel) stops the install. One
// install runs at a time; the overview says when one runs.

// homeClaudeInstallTimeout bounds one install of Claude Code.
const homeClaudeInstallTimeout = 10 * time.Minute

// claudeInstallState is whether an install runs. The zero value is ready.
type claudeInstallState struct {
	mu sync.Mutex
	on bool
}

func (c *claudeInstallState) start() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.on {
		return false
	}
	c.on = true
	return true
}

func (c *claudeInstallState) stop() { c.mu.Lock(); c.on = false; c.mu.Unlock() }

func (c *claudeInstallState) running() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.on
}

// claudeInstallLine is one line of POST /home/api/install-claude's answer.
type claudeInstallLine struct {
	Progress *claudeinstall.Progress `json:"progress,omitempty"`
	Done     *claudeInstalled        `json:"done,omitempty"`
	Error    *installProblem         `json:"error,omitempty"`
}

type claudeInstalled struct {
	Path    string `json:"path"`
	Version string `json:"version"`
}

// Codes of a failed install the page words itself.
const (
	codeNodeMissing   = "node_missing"
	codeInstallFailed = "install_failed"
	codeCancelled     = "cancelled"
)

// ndjson starts a streamed NDJSON answer (200, not cached, the headers on
// their way at once) and returns send, which writes one line and flushes
// it; send is safe from several goroutines.
func ndjson(w http.ResponseWriter) func(v any) {
	w.Header().Set("Content-Type", "application/x-ndjson; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	var mu sync.Mutex
	enc := json.NewEncoder(w)
	return func(v any) {
		mu.Lock()
		defer mu.Unlock()
		_ = enc.Encode(v)
		_ = rc.Flush()
	}
}

func (s *Server) registerHomeInstallClaude(mux *http.ServeMux) {
	mux.Handle("POST /home/api/install-claude", s.requireHomeToken(s.handleHomeInstallClaude))
}

func (s *Server) handleHomeInstallClaude(w http.ResponseWriter, r *http.Request) {
	install := s.opts.Home.InstallClaude
	if install == nil {
		writeError(w, http.StatusNotImplemented, "unavailable", "this Lets cannot install Claude Code by itself; install it from your package manager or ask whoever looks after this computer")
		return
	}
	if !s.home.claude.start() {
		writeError(w, http.StatusConflict, "busy", "Claude Code is being installed already; wait for it to finish")
		return
	}
	defer s.home.claude.stop()
	// Reading the (empty) body to its end lets the server notice when the
	// page closes the request (its Cancel), which ends r.Context().
	_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, 4096))
	line := ndjson(w)
	send := func(l claudeInstallLine) { line(l) }
	ctx, cancel := context.WithTimeout(r.Context(), homeClaudeInstallTimeout)
	defer cancel()
	found, err := install(ctx, func(p claudeinstall.Progress) { send(claudeInstallLine{Progress: &p}) })
	if err != nil {
		code := codeInstallFailed
		var nm *claudeinstall.NodeMissingError
		switch {
		case errors.As(err, &nm):
			code = codeNodeMissing
		case errors.Is(err, context.Canceled):
			code = codeCancelled
		}
		s.opts.Log.Warn("installing Claude Code from the home page failed", "err", err)
		send(claudeInstallLine{Error: &installProblem{Code: code, Message: err.Error()}})
		return
	}
	send(claudeInstallLine{Done: &claudeInstalled{Path: found.Path, Version: found.Version}})
}
