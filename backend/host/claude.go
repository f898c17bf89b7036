package host

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lets-app/lets/backend/approval"
	"github.com/lets-app/lets/backend/hostapi"
	"github.com/lets-app/lets/backend/lip"
	"github.com/lets-app/lets/backend/textsafe"
	"github.com/lets-app/lets/backend/wire"
)

// Windows bound to a Claude session (spec claude-integration §3, §4).
//
// `lets mcp` and `lets hook` are both children of the same `claude`
// process. POST /lip/open carries that parent pid in hostapi.HeaderClaudePID, so
// the window is bound to it; every hook event reports the session's state
// for the same pid on ClaudeRoute. A bound window's companion follows the
// state, and while Claude waits for a permission the window shows the
// approval card; the human's answer goes to the Wire daemon as approve or
// reject (ClaudeActions), the same action a pad or a phone sends.

// ClaudeRoute is where `lets hook` reports a Claude session's state (host
// token). Body: {"pid", "session_id", "label", "state", "request_id"?,
// "tool"?, "summary"?, "about"?}; answer: {"windows": number of bound windows}.
const ClaudeRoute = "POST " + hostapi.PathClaude

// ClaudeStateEnded is the state a report carries when the session ended
// (SessionEnd); every other state is a Wire state.
const ClaudeStateEnded = "ended"

// ClaudeBackend is the Wire backend of Claude Code sessions.
const ClaudeBackend = "claude"

// CodexBackend is the Wire backend of Codex sessions: `lets hook codex`
// reports them with "backend": "codex", and their cards name Codex.
const CodexBackend = "codex"

// agentNames are the backends a report may name, with how a person
// knows each agent (the card's words: "Codex wants to run a command").
var agentNames = map[string]string{ClaudeBackend: "Claude", CodexBackend: "Codex"}

// ClaudeActions passes a person's answer on a bound window's approval card
// to the Wire daemon, which routes it to the waiting PermissionRequest
// hook: Allow is wire.ActionApprove, Deny wire.ActionReject.
type ClaudeActions interface {
	Answer(ctx context.Context, id wire.Identity, requestID string, a wire.Action) error
}

// typeShellDismiss takes a host prompt (shell.ask) down without an answer:
// it was answered elsewhere or is no longer asked. Like shell.ask it is
// host-only: /lip/send refuses the shell domain, so neither Claude nor the
// unique can send it.
const typeShellDismiss = "shell.dismiss"

// Limits of a report.
const (
	claudeBodyMax      = 16 << 10
	claudeIDMax        = 128
	claudeLabelMax     = 64
	claudeAgentsMax    = 256
	claudeAnswerWithin = 10 * time.Second
)

// claudeReport is one validated POST /lip/claude body.
type claudeReport struct {
	PID       int
	SessionID string
	Label     string
	State     string
	RequestID string
	Tool      string
	Summary   string
	// About is Claude's own words for the tool use, when any.
	About string
	// Backend is ClaudeBackend or CodexBackend.
	Backend string
}

// decodeClaudeReport reads and validates a report. Errors are
// *lip.Error (bad_envelope) saying what to send instead.
func decodeClaudeReport(b []byte) (claudeReport, error) {
	var in struct {
		PID       *int64  `json:"pid"`
		SessionID *string `json:"session_id"`
		Label     string  `json:"label"`
		State     *string `json:"state"`
		RequestID string  `json:"request_id"`
		Tool      string  `json:"tool"`
		Summary   string  `json:"summary"`
		About     string  `json:"about"`
		Backend   string  `json:"backend"`
	}
	if err := json.Unmarshal(b, &in); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return claudeReport{}, lip.Errorf(lip.CodeBadEnvelope, "%q has the wrong type (got a JSON %s): send {\"pid\": number, \"session_id\": string, \"label\": string, \"state\": string, \"request_id\"?: string, \"tool\"?: string, \"summary\"?: string}", te.Field, te.Value)
		}
		return claudeReport{}, lip.Errorf(lip.CodeBadEnvelope, "the body must be one JSON object {\"pid\", \"session_id\", \"label\", \"state\", …}: %v", err)
	}
	var r claudeReport
	switch {
	case in.PID == nil:
		return r, lip.Errorf(lip.CodeBadEnvelope, `"pid" is required: the process id of the claude process the hook runs under`)
	case *in.PID <= 0 || *in.PID > math.MaxInt32:
		return r, lip.Errorf(lip.CodeBadEnvelope, `"pid" must be a positive process id, got %d`, *in.PID)
	}
	r.PID = int(*in.PID)
	if in.SessionID == nil || *in.SessionID == "" {
		return r, lip.Errorf(lip.CodeBadEnvelope, `"session_id" is required: the Claude Code session id from the hook's input`)
	}
	if !plainID(*in.SessionID) {
		return r, lip.Errorf(lip.CodeBadEnvelope, `"session_id" must be 1 to %d visible ASCII characters without spaces`, claudeIDMax)
	}
	r.SessionID = *in.SessionID
	if in.State == nil || *in.State == "" {
		return r, lip.Errorf(lip.CodeBadEnvelope, `"state" is required: a Wire state (%s) or %q`, stateList(), ClaudeStateEnded)
	}
	if _, ok := wire.ParseState(*in.State); !ok && *in.State != ClaudeStateEnded {
		return r, lip.Errorf(lip.CodeBadEnvelope, `"state" %q is not known: use a Wire state (%s) or %q`, textsafe.ClipBytes(*in.State, 40), stateList(), ClaudeStateEnded)
	}
	r.State = *in.State
	if in.RequestID != "" && !plainID(in.RequestID) {
		return r, lip.Errorf(lip.CodeBadEnvelope, `"request_id" must be 1 to %d visible ASCII characters without spaces`, claudeIDMax)
	}
	r.RequestID = in.RequestID
	r.Backend = ClaudeBackend
	if in.Backend != "" {
		if _, ok := agentNames[in.Backend]; !ok {
			return r, lip.Errorf(lip.CodeBadEnvelope, `"backend" %q is not known: use %q (Claude Code, the default) or %q`, textsafe.ClipBytes(in.Backend, 40), ClaudeBackend, CodexBackend)
		}
		r.Backend = in.Backend
	}
	r.Label = textsafe.OneLine(in.Label, claudeLabelMax)
	r.Tool = textsafe.OneLine(in.Tool, approval.ToolMax)
	r.Summary = textsafe.OneLine(in.Summary, approval.SummaryMax)
	r.About = textsafe.OneLine(in.About, approval.AboutMax)
	return r, nil
}

// plainID: 1..claudeIDMax printable ASCII characters, no spaces.
func plainID(s string) bool {
	if len(s) == 0 || len(s) > claudeIDMax {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

func stateList() string {
	st := wire.States()
	names := make([]string, len(st))
	for i, s := range st {
		names[i] = string(s)
	}
	return strings.Join(names, ", ")
}

// claudePIDOf reads hostapi.HeaderClaudePID: a positive pid, or 0 for anything else.
func claudePIDOf(h http.Header) int {
	v := h.Get(hostapi.HeaderClaudePID)
	if v == "" || len(v) > 10 {
		return 0
	}
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return 0
		}
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 || n > math.MaxInt32 {
		return 0
	}
	return n
}

// moodFor is the companion's mood for a session state.
func moodFor(state string) string {
	switch wire.State(state) {
	case wire.StateRunning:
		return "thinking"
	case wire.StateWaitingForApproval, wire.StateError:
		return "alert"
	case wire.StateSuccess:
		return "proud"
	}
	return "idle" // waiting_for_reply, user_typing, cancelled, ended
}

// claudeCard is an approval card waiting for the human: one shell.ask id,
// shown in every window bound to the session's pid.
type claudeCard struct {
	ID        string
	Session   string
	RequestID string
	Label     string
	Tool      string
	Summary   string
	About     string
	// Backend is the Wire backend the answer goes to.
	Backend string
}

// claudeAgent is what the host knows of one claude process.
type claudeAgent struct {
	session string
	label   string
	state   string
	mood    string
	// card is the approval card still open, nil when none.
	card *claudeCard
	// asked is the request id of the last card put up, so a repeated
	// report does not ask again for a request already answered.
	asked string
	seen  time.Time
}

// claudeStep is what one report changes in the bound windows.
type claudeStep struct {
	mood    string      // the companion's new mood; "" when unchanged
	dismiss string      // the card to take down; "" none
	show    *claudeCard // the card to put up; nil none
}

// claudeAgents is the table pid → agent. Its mutex also orders what
// reports and answers send to the windows, so a window never sees them
// out of order. Lock order: claudeAgents.mu, then lipCore.mu, then
// window.mu; nothing takes claudeAgents.mu while holding the others.
type claudeAgents struct {
	mu     sync.Mutex
	agents map[int]*claudeAgent
	max    int
	// warned is set once the host logged that it cannot show cards.
	warned bool
}

func newClaudeAgents(max int) *claudeAgents {
	return &claudeAgents{agents: map[int]*claudeAgent{}, max: max}
}

// stepLocked records a report and returns what the windows must show.
// cards says whether approval cards can be answered at all; newID mints a
// card id.
func (a *claudeAgents) stepLocked(r claudeReport, cards bool, newID func() string, now time.Time) claudeStep {
	ag := a.agents[r.PID]
	if ag == nil {
		if len(a.agents) >= a.max {
			a.evictLocked()
		}
		ag = &claudeAgent{mood: "idle"}
		a.agents[r.PID] = ag
	}
	var st claudeStep
	if c := ag.card; c != nil {
		// Still the same question? A waiting_for_approval report without a
		// request id comes from a hook whose wait ended (deadline, daemon
		// gone): Claude now asks in its terminal only, so the card goes.
		same := r.SessionID == c.Session && r.State == string(wire.StateWaitingForApproval) &&
			r.RequestID == c.RequestID
		if !same {
			st.dismiss = c.ID
			ag.card = nil
		}
	}
	if r.SessionID != ag.session {
		ag.asked = ""
	}
	ag.session, ag.label, ag.state, ag.seen = r.SessionID, r.Label, r.State, now
	if m := moodFor(r.State); m != ag.mood {
		ag.mood, st.mood = m, m
	}
	if cards && r.State == string(wire.StateWaitingForApproval) && r.RequestID != "" && ag.card == nil && r.RequestID != ag.asked {
		ag.card = &claudeCard{ID: newID(), Session: r.SessionID, RequestID: r.RequestID, Label: r.Label, Tool: r.Tool, Summary: r.Summary, About: r.About, Backend: r.Backend}
		ag.asked = r.RequestID
		c := *ag.card
		st.show = &c
	}
	return st
}

// evictLocked forgets the agent heard from least recently.
func (a *claudeAgents) evictLocked() {
	oldest, found := 0, false
	for pid, ag := range a.agents {
		if !found || ag.seen.Before(a.agents[oldest].seen) {
			oldest, found = pid, true
		}
	}
	if found {
		delete(a.agents, oldest)
	}
}

// takeCardLocked settles card id of pid: it is answered once, by whoever
// answers first.
func (a *claudeAgents) takeCardLocked(pid int, id string) (claudeCard, bool) {
	ag := a.agents[pid]
	if ag == nil || ag.card == nil || ag.card.ID != id {
		return claudeCard{}, false
	}
	c := *ag.card
	ag.card = nil
	return c, true
}

// session is the session id last reported for pid ("" when none).
func (a *claudeAgents) session(pid int) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if ag := a.agents[pid]; ag != nil {
		return ag.session
	}
	return ""
}

// cardData is a card's shell.ask data.
func cardData(c *claudeCard, w *window) map[string]any {
	return map[string]any{"id": c.ID, "kind": "approval", "tool": c.Tool, "summary": c.Summary, "about": c.About, "label": c.Label, "title": w.unique.Manifest.Title, "agent": agentNames[c.Backend]}
}

// boundWindows lists the open windows bound to pid, oldest first.
func (c *lipCore) boundWindows(pid int) []*window {
	c.mu.Lock()
	out := make([]*window, 0, 2)
	for _, w := range c.windows {
		if w.boundPID() == pid {
			out = append(out, w)
		}
	}
	c.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return winNum(out[i].id) < winNum(out[j].id) })
	return out
}

// claudeReport applies one report to the windows bound to its pid and
// returns how many there are.
func (c *lipCore) claudeReport(r claudeReport) int {
	a := c.claude
	a.mu.Lock()
	defer a.mu.Unlock()
	now := c.now()
	cards := c.claudeActions != nil
	if !cards && r.State == string(wire.StateWaitingForApproval) && r.RequestID != "" && !a.warned {
		a.warned = true
		c.log.Info("no approval cards in windows bound to Claude: the agent daemon is not running in this process, so an answer could not reach Claude")
	}
	st := a.stepLocked(r, cards, func() string { return c.ids.New("ask", now) }, now)
	wins := c.boundWindows(r.PID)
	for _, w := range wins {
		if st.dismiss != "" {
			c.hostCommand(w, typeShellDismiss, map[string]string{"id": st.dismiss})
		}
		if st.mood != "" {
			c.hostCommand(w, lip.TypeEntityMood, map[string]string{"mood": st.mood})
		}
		if st.show != nil {
			c.hostCommand(w, typeShellAsk, cardData(st.show, w))
		}
	}
	return len(wins)
}

// claudeWindowOpened brings a window just bound to pid up to date: the
// session's mood and its open card.
func (c *lipCore) claudeWindowOpened(w *window) {
	pid := w.boundPID()
	if pid == 0 {
		return
	}
	a := c.claude
	a.mu.Lock()
	defer a.mu.Unlock()
	ag := a.agents[pid]
	if ag == nil {
		return
	}
	if ag.mood != "" && ag.mood != "idle" {
		c.hostCommand(w, lip.TypeEntityMood, map[string]string{"mood": ag.mood})
	}
	if ag.card != nil {
		c.hostCommand(w, typeShellAsk, cardData(ag.card, w))
	}
}

// claudeAnswered handles the human's answer on a Claude approval card in
// window w; false when id is not such a card (or was already answered).
// The card goes down in the other bound windows, and the answer goes to
// the Wire daemon on its own goroutine.
func (c *lipCore) claudeAnswered(w *window, id, choice string) bool {
	pid := w.boundPID()
	if pid == 0 || c.claudeActions == nil {
		return false
	}
	a := c.claude
	a.mu.Lock()
	card, ok := a.takeCardLocked(pid, id)
	if ok {
		for _, o := range c.boundWindows(pid) {
			if o != w {
				c.hostCommand(o, typeShellDismiss, map[string]string{"id": id})
			}
		}
	}
	a.mu.Unlock()
	if !ok {
		return false
	}
	action := wire.ActionReject
	if choice == "allow" {
		action = wire.ActionApprove
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), claudeAnswerWithin)
		defer cancel()
		err := c.claudeActions.Answer(ctx, wire.Identity{Backend: card.Backend, SessionID: card.Session}, card.RequestID, action)
		if err != nil {
			name := agentNames[card.Backend]
			c.log.Warn("an approval answer could not reach the agent", "agent", name, "window", w.id, "session", card.Session, "request", card.RequestID, "action", action, "err", err)
			c.hostCommand(w, "ui.toast", map[string]any{"text": "Your answer could not be passed on to " + name + ". If " + name + " is still waiting, answer in its terminal.", "level": "error", "ttl": 8000})
		}
	}()
	return true
}

// handleClaude is ClaudeRoute.
func (s *Server) handleClaude(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r, claudeBodyMax)
	if !ok {
		return
	}
	rep, err := decodeClaudeReport(body)
	if err != nil {
		writeFailure(w, err, http.StatusBadRequest, lip.CodeBadEnvelope)
		return
	}
	n := s.core.claudeReport(rep)
	writeJSON(w, http.StatusOK, hostapi.ClaudeReported{Windows: n})
}

// BindRoute (host token) moves an open window to the claude process named
// by hostapi.HeaderClaudePID: the conversation the window belongs to goes on in a
// new claude (started again after a crash, or first started after sign-in),
// and the window should follow it without being closed and opened again.
// Body: {"window"}; answer: {"ok": true, "window", "claude_pid"}.
const BindRoute = "POST " + hostapi.PathBind

// handleBind is BindRoute.
func (s *Server) handleBind(w http.ResponseWriter, r *http.Request) {
	var req hostapi.WindowRequest
	if !decodeBody(w, r, &req) {
		return
	}
	pid := claudePIDOf(r.Header)
	if pid == 0 {
		writeError(w, http.StatusBadRequest, string(lip.CodeBadEnvelope), "send the claude process to bind the window to as the "+hostapi.HeaderClaudePID+" header (a positive pid)")
		return
	}
	if err := s.core.bindWindow(req.Window, pid); err != nil {
		writeFailure(w, err, http.StatusInternalServerError, lip.CodeInternal)
		return
	}
	writeJSON(w, http.StatusOK, hostapi.Bound{OK: true, Window: req.Window, ClaudePID: pid})
}

// bindWindow binds window id to pid. A card the old claude showed there
// goes down (nobody can answer it any more); the new claude's mood and card
// come up.
func (c *lipCore) bindWindow(id string, pid int) error {
	w, ok := c.window(id)
	if !ok {
		return lip.Errorf(lip.CodeUnknownWindow, "window %q is not open", id)
	}
	old := int(w.claudePID.Swap(int64(pid)))
	if old == pid {
		return nil
	}
	c.changes.Notify()
	if old != 0 {
		a := c.claude
		a.mu.Lock()
		if ag := a.agents[old]; ag != nil && ag.card != nil {
			c.hostCommand(w, typeShellDismiss, map[string]string{"id": ag.card.ID})
		}
		a.mu.Unlock()
	}
	c.claudeWindowOpened(w)
	return nil
}
