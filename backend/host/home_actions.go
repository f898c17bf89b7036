package host

import (
	"context"
	"net/http"
	"sync"
	"time"
)

// The home page's own actions for what the tray menu offers too (#21: on
// a desktop without a tray host the home window is Lets' main window, so
// "choose Pair a phone… in the tray menu" would send the person nowhere).
// The app hands the host the same work its tray items do; the page shows
// a button for an action only when the host has it (overview "actions").

// HomeSetupResult says how setting up Claude went, in the person's words.
type HomeSetupResult struct {
	// Done is true when Claude is connected to Lets (or only Claude Code
	// itself is missing: Lets did its part).
	Done bool `json:"done"`
	// Text is one short line; Detail what to do next.
	Text   string `json:"text"`
	Detail string `json:"detail"`
}

// homeActionTimeout bounds a pairing link; Set up Claude has the app's
// own bound (it runs `lets setup claude`).
const homeActionTimeout = 30 * time.Second

// homeActions is what the overview says the page may offer.
type homeActions struct {
	PairPhone   bool `json:"pair_phone"`
	SetupClaude bool `json:"setup_claude"`
	SetupCodex  bool `json:"setup_codex"`
}

// homeActionState keeps one Set up Claude, and one Set up or Remove
// Codex, at a time.
type homeActionState struct {
	setup sync.Mutex
	codex sync.Mutex
}

func (s *Server) homeActions() homeActions {
	return homeActions{PairPhone: s.opts.Home.PairPhone != nil, SetupClaude: s.opts.Home.SetupClaude != nil, SetupCodex: s.opts.Home.SetupCodex != nil}
}

// registerHomeActions adds the actions' routes; the same home token as
// the rest of the home API (claimed from a link opened by the user who
// runs Lets).
func (s *Server) registerHomeActions(mux *http.ServeMux) {
	mux.Handle("POST /home/api/pair-phone", s.requireHomeToken(s.handleHomePairPhone))
	mux.Handle("POST /home/api/setup-claude", s.requireHomeToken(s.handleHomeSetupClaude))
	mux.Handle("POST /home/api/setup-codex", s.requireHomeToken(s.handleHomeSetupCodex(false)))
	mux.Handle("POST /home/api/remove-codex", s.requireHomeToken(s.handleHomeSetupCodex(true)))
}

func (s *Server) handleHomePairPhone(w http.ResponseWriter, r *http.Request) {
	pair := s.opts.Home.PairPhone
	if pair == nil {
		writeError(w, http.StatusNotFound, "not_available", "this Lets cannot pair a phone from here; run `lets pad pair` in a terminal")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), homeActionTimeout)
	defer cancel()
	if err := pair(ctx); err != nil {
		s.opts.Log.Warn("the home page could not open the pairing page", "err", err)
		writeError(w, http.StatusConflict, "pair_failed", err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
}

func (s *Server) handleHomeSetupClaude(w http.ResponseWriter, r *http.Request) {
	setup := s.opts.Home.SetupClaude
	if setup == nil {
		writeError(w, http.StatusNotFound, "not_available", "this Lets cannot set up Claude from here; run `lets setup claude` in a terminal")
		return
	}
	if !s.homeAct.setup.TryLock() {
		writeError(w, http.StatusConflict, "busy", "Lets is already setting up Claude; wait a moment")
		return
	}
	defer s.homeAct.setup.Unlock()
	res := setup(r.Context())
	s.opts.Log.Info("set up Claude from the home page", "done", res.Done, "text", res.Text)
	writeJSON(w, http.StatusOK, res)
}
