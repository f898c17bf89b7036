package host

import (
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/lets-app/lets/backend/lip"
	"github.com/lets-app/lets/backend/runner"
)

// typeShellAsk asks the shell page to draw the allow prompt; the shell
// answers with typeShellAnswer {id, choice: "once"|"always"|"deny"}. Both
// stay between the host and its own shell page: they never enter the ring.
const (
	typeShellAsk    = "shell.ask"
	typeShellAnswer = "shell.answer"
)

// askTimeout bounds how long a run waits for the human.
const askTimeout = 2 * time.Minute

// answer delivers the human's choice to a waiting run or approval; false
// when nothing of this window waits for id.
func (w *window) answer(id, choice string) bool {
	w.mu.Lock()
	ch, ok := w.ask[id]
	delete(w.ask, id)
	w.mu.Unlock()
	if ok {
		ch <- choice
	}
	return ok
}

// permissionKey is the installed commit a grant is tied to.
func permissionKey(win *window) string {
	if c := win.unique.Commit(); c != "" {
		return c
	}
	if win.unique.Builtin {
		return "builtin@" + win.unique.Manifest.Version
	}
	return "local@" + win.unique.Manifest.Version
}

// handleRun is POST /lip/run (spec §10).
func (s *Server) handleRun(w http.ResponseWriter, r *http.Request, win *window) {
	body, ok := readBody(w, r, runner.MaxCode+runner.MaxStdin+64<<10)
	if !ok {
		return
	}
	var req runner.Request
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, string(lip.CodeBadEnvelope), "the body must be {language, code, stdin?, timeoutMs?}")
		return
	}
	m := win.unique.Manifest
	if !m.AllowsExec(req.Language) {
		writeError(w, http.StatusForbidden, string(lip.CodeExecDenied), m.Name+" may not run "+req.Language+": its unique.json does not list it in permissions.exec")
		return
	}
	if _, _, err := runner.Check(req); err != nil {
		code := lip.CodeBadEnvelope
		if errors.Is(err, runner.ErrUnknownLanguage) {
			code = lip.CodeExecDenied
		}
		writeError(w, code.HTTPStatus(), string(code), err.Error())
		return
	}
	commit := permissionKey(win)
	if !s.perms.Allowed(win.name, commit, req.Language) {
		choice := s.askHuman(r, win, req.Language)
		switch choice {
		case "always":
			if err := s.perms.Allow(win.name, commit, req.Language, s.opts.Now()); err != nil {
				s.opts.Log.Warn("the permission could not be remembered", "unique", win.name, "err", err)
			}
		case "once":
		default:
			writeError(w, http.StatusForbidden, string(lip.CodeExecDenied), "the person at this computer did not allow "+m.Title+" to run "+req.Language)
			return
		}
	}
	res, err := s.runner.Run(r.Context(), win.name, req)
	if err != nil {
		switch {
		case errors.Is(err, runner.ErrBusy):
			writeError(w, http.StatusTooManyRequests, string(lip.CodeRateLimited), err.Error())
		case errors.Is(err, runner.ErrBadRequest):
			writeError(w, http.StatusBadRequest, string(lip.CodeBadEnvelope), err.Error())
		default:
			writeError(w, http.StatusInternalServerError, string(lip.CodeInternal), err.Error())
		}
		return
	}
	writeJSON(w, http.StatusOK, res)
}

// askHuman shows the allow prompt in the window's shell page and waits for
// the answer: "once", "always", or anything else (deny). Without a shell
// connected nobody can be asked, so the answer is deny.
func (s *Server) askHuman(r *http.Request, win *window, language string) string {
	now := s.opts.Now()
	id := s.core.ids.New("ask", now)
	ch := make(chan string, 1)
	win.mu.Lock()
	connected := win.conn != nil && !win.closed
	if connected {
		win.ask[id] = ch
	}
	win.mu.Unlock()
	if !connected {
		return "deny"
	}
	defer func() {
		win.mu.Lock()
		delete(win.ask, id)
		win.mu.Unlock()
	}()
	s.core.hostCommand(win, typeShellAsk, map[string]any{
		"id": id, "kind": "exec", "unique": win.name, "title": win.unique.Manifest.Title, "language": language,
		"question": "Allow " + win.unique.Manifest.Title + " to run " + language + " on this computer?",
	})
	t := time.NewTimer(askTimeout)
	defer t.Stop()
	select {
	case c, ok := <-ch:
		if !ok {
			return "deny"
		}
		return c
	case <-t.C:
		return "deny"
	case <-r.Context().Done():
		return "deny"
	}
}
