package host

import (
	"net/http"
	"time"

	"github.com/lets-app/lets/backend/approval"
	"github.com/lets-app/lets/backend/lip"
)

// ApproveRoute asks the person at a window to approve one tool use (the
// approval card, issue #11). It is for a Claude hook holding the host
// token: the request blocks until the human answers in that window's
// shell page, over the shell's own channel (shell.answer), or the wait
// ends. Neither the unique (another origin, and shell.* is reserved) nor
// the privileged API (/lip/send refuses shell.answer) can answer it.
const ApproveRoute = "POST /lip/approve"

func (s *Server) handleApprove(w http.ResponseWriter, r *http.Request) {
	var in approval.Request
	if !decodeBody(w, r, &in) {
		return
	}
	req := in.Clipped()
	if req.Tool == "" {
		writeError(w, http.StatusBadRequest, string(lip.CodeBadEnvelope), `"tool" is required: the name of the tool Claude wants to use, like "Bash"`)
		return
	}
	win, ok := s.core.window(req.Window)
	if !ok {
		writeLIPError(w, lip.Errorf(lip.CodeUnknownWindow, "window %q is not open (see GET /lip/windows)", req.Window))
		return
	}
	start := s.opts.Now()
	choice, reason := s.askApproval(r, win, req.Tool, req.Summary, req.About, req.Wait())
	writeJSON(w, http.StatusOK, approval.Answer{Choice: choice, Reason: reason, Ms: s.opts.Now().Sub(start).Milliseconds()})
}

// askApproval draws the approval card in the window's shell page and
// waits for the human.
func (s *Server) askApproval(r *http.Request, win *window, tool, summary, about string, wait time.Duration) (choice, reason string) {
	id := s.core.ids.New("ask", s.opts.Now())
	ch := make(chan string, 1)
	win.mu.Lock()
	connected := win.conn != nil && !win.closed
	if connected {
		win.ask[id] = ch
	}
	win.mu.Unlock()
	if !connected {
		return approval.ChoiceDeny, approval.ReasonNoShell
	}
	defer func() {
		win.mu.Lock()
		delete(win.ask, id)
		win.mu.Unlock()
	}()
	s.core.hostCommand(win, typeShellAsk, map[string]any{"id": id, "kind": "approval", "tool": tool, "summary": summary, "about": about, "title": win.unique.Manifest.Title})
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case c, ok := <-ch:
		if !ok {
			return approval.ChoiceDeny, approval.ReasonGone
		}
		if c == approval.ChoiceAllow {
			return approval.ChoiceAllow, approval.ReasonAnswered
		}
		return approval.ChoiceDeny, approval.ReasonAnswered
	case <-t.C:
		s.core.hostCommand(win, typeShellDismiss, map[string]string{"id": id})
		return approval.ChoiceDeny, approval.ReasonTimeout
	case <-r.Context().Done():
		// The caller stopped waiting (answered elsewhere, or gone): the
		// card must not stay up for a question nobody asks any more.
		s.core.hostCommand(win, typeShellDismiss, map[string]string{"id": id})
		return approval.ChoiceDeny, approval.ReasonGone
	}
}
