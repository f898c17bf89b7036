package host

import (
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/lets-app/lets/backend/lip"
)

// ApproveRoute asks the person at a window to approve one tool use (the
// approval card, issue #11). It is for a Claude hook holding the host
// token: the request blocks until the human answers in that window's
// shell page, over the shell's own channel (shell.answer), or the wait
// ends. Neither the unique (another origin, and shell.* is reserved) nor
// the privileged API (/lip/send refuses shell.answer) can answer it.
const ApproveRoute = "POST /lip/approve"

// Approval limits: what the card shows stays short, and a request cannot
// hold a connection for ever.
const (
	approveToolMax     = 80
	approveSummaryMax  = 200
	approveAboutMax    = 120
	approveDefaultWait = 2 * time.Minute
	approveMaxWait     = 10 * time.Minute
)

type approveRequest struct {
	Window  string `json:"window"`
	Tool    string `json:"tool"`
	Summary string `json:"summary"`
	// About is Claude's own words for the tool use ("Run the tests"),
	// when any: the card leads with it.
	About     string `json:"about"`
	TimeoutMs int64  `json:"timeoutMs"`
}

// approveAnswer is the answer of POST /lip/approve. Choice is "allow" only
// when the human pressed Allow; everything else — Deny, Esc, no answer in
// time, no shell connected — is "deny", with the reason.
type approveAnswer struct {
	Choice string `json:"choice"`
	Reason string `json:"reason"` // answered | timeout | no_shell | gone
	Ms     int64  `json:"ms"`
}

func (s *Server) handleApprove(w http.ResponseWriter, r *http.Request) {
	var req approveRequest
	if !decodeBody(w, r, &req) {
		return
	}
	tool := oneLine(req.Tool, approveToolMax)
	if tool == "" {
		writeError(w, http.StatusBadRequest, string(lip.CodeBadEnvelope), `"tool" is required: the name of the tool Claude wants to use, like "Bash"`)
		return
	}
	summary := oneLine(req.Summary, approveSummaryMax)
	about := oneLine(req.About, approveAboutMax)
	wait := approveDefaultWait
	if req.TimeoutMs > 0 {
		wait = min(max(time.Duration(req.TimeoutMs)*time.Millisecond, time.Second), approveMaxWait)
	}
	win, ok := s.core.window(req.Window)
	if !ok {
		writeLIPError(w, lip.Errorf(lip.CodeUnknownWindow, "window %q is not open (see GET /lip/windows)", req.Window))
		return
	}
	start := s.opts.Now()
	choice, reason := s.askApproval(r, win, tool, summary, about, wait)
	writeJSON(w, http.StatusOK, approveAnswer{Choice: choice, Reason: reason, Ms: s.opts.Now().Sub(start).Milliseconds()})
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
		return "deny", "no_shell"
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
			return "deny", "gone"
		}
		if c == "allow" {
			return "allow", "answered"
		}
		return "deny", "answered"
	case <-t.C:
		s.core.hostCommand(win, typeShellDismiss, map[string]string{"id": id})
		return "deny", "timeout"
	case <-r.Context().Done():
		// The caller stopped waiting (answered elsewhere, or gone): the
		// card must not stay up for a question nobody asks any more.
		s.core.hostCommand(win, typeShellDismiss, map[string]string{"id": id})
		return "deny", "gone"
	}
}

// oneLine collapses whitespace (a summary must not fake extra lines on the
// card) and cuts s to max runes with an ellipsis.
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max-1]) + "…"
}
