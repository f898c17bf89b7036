// Package claudehook is `lets hook <event>`: one Claude Code command hook
// invocation (spec/claude-integration.md §2–§4, lip-1 §13.2). It reports
// the Claude session's state to the Wire daemon and to the LIP host, gives
// Claude the window events it has not seen yet, and answers permission
// prompts with a press on a pad, a phone or a window.
//
// A hook must never get in Claude's way: on any failure it prints nothing
// and returns, so Claude Code behaves as if no hook were installed. Every
// hook but PermissionRequest finishes within QuickBudget.
package claudehook

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lets-app/lets/backend/approval"
	"github.com/lets-app/lets/backend/hostapi"
	"github.com/lets-app/lets/backend/textsafe"
	"github.com/lets-app/lets/backend/wire"
	"github.com/lets-app/lets/backend/wireclient"
)

// Time limits.
const (
	// QuickBudget bounds every hook except PermissionRequest: with the
	// daemon or the host down or hung, the hook still returns within it
	// (claude-integration §2: under 1 s).
	QuickBudget = 800 * time.Millisecond
	// DefaultApprovalTimeout is how long a PermissionRequest waits for a
	// press (claude-integration §3, config approvalTimeoutS).
	DefaultApprovalTimeout = 120 * time.Second
	// setupBudget bounds the reports that open a permission request.
	setupBudget = 800 * time.Millisecond
	// exitBudget bounds the reports made when a permission request ends.
	exitBudget = 500 * time.Millisecond
)

// Wire is what the hook needs from the Wire daemon (Wire Protocol 1).
// WireClient adapts *wireclient.Client.
type Wire interface {
	// ReportState sends a state update (fire-and-forget).
	ReportState(ctx context.Context, cmd wire.StateCommand) error
	// ApplyState sends a state update and returns once the daemon has
	// applied it (reply: true, answered by state_ack). Each fire-and-forget
	// report travels on a connection of its own, and the daemon orders
	// lines per connection only, so a report that a later one must not
	// overtake goes through here.
	ApplyState(ctx context.Context, cmd wire.StateCommand) error
	// EndSession sends session_end.
	EndSession(ctx context.Context, id wire.Identity) error
	// Subscribe opens an action subscription; cancelling ctx ends it.
	Subscribe(ctx context.Context, cmd wire.SubscribeActionsCommand) (Actions, error)
}

// Actions is a live action subscription (*wireclient.Subscription).
type Actions interface {
	// Receive waits for the next action.
	Receive(ctx context.Context) (wire.ActionEvent, error)
	// Close ends the subscription.
	Close() error
}

// Host is what the hook needs from the LIP host. HostHTTP adapts an HTTP
// client of the host API.
type Host interface {
	// Pending returns the up-events beyond the claude cursor, read with the
	// hook cursor (GET /lip/listen?cursor=hook&beyond=claude&wait_ms=0).
	Pending(ctx context.Context) (PendingEvents, error)
	// Report tells the host the Claude session's state (POST /lip/claude),
	// so windows bound to it follow it and show approval cards.
	Report(ctx context.Context, r Report) error
}

// Report is what the hook tells the host about its claude session
// (POST /lip/claude): hostapi's body, named here for the hook's code.
type Report = hostapi.ClaudeReport

// Options configure Run. Wire or Host may be nil (nothing is reported
// there); everything else has a default.
type Options struct {
	// Agent is the program running the hook (default ClaudeCode).
	Agent Agent
	// LeaseID, when set, binds the session to the launcher's Wire lease
	// (`lets codex` holds one while Codex runs): every state report
	// carries it, and the session ends when the launcher does.
	LeaseID string
	Wire    Wire
	Host    Host
	// Now is the wall clock (used for the durations in the log).
	Now func() time.Time
	// ApprovalTimeout bounds a PermissionRequest's wait for a press
	// (default DefaultApprovalTimeout).
	ApprovalTimeout time.Duration
	// NewRequestID makes a PermissionRequest's request id (default
	// wireclient.NewID, 32 random hex digits).
	NewRequestID func() string
	// Logger gets one line per failure (default: discard).
	Logger *slog.Logger
	// ClaudePID is the pid of the claude process (the hook's parent).
	ClaudePID int
	// Label, when set, names the session on the pads instead of the
	// working folder (LabelEnv; "Chat" for the conversations Lets runs).
	Label string
	// Chat says the hook runs under the Claude Code of a Lets chat
	// (ChatEnv): a PermissionRequest then does nothing at all.
	Chat bool
	// Seq is this invocation's place in the session's event order, sent
	// with every state report (SeqKey) so the daemon never lets an older
	// report overtake a newer one and takes a newer one as the end of any
	// question still pending. Default: Now() in nanoseconds at the start
	// (Claude Code starts a session's hooks in event order).
	Seq int64
}

// SeqKey is the agent metadata member carrying Options.Seq; the Wire
// daemon of Lets takes it out (backend/daemon SeqKey, the same name).
const SeqKey = "lets_seq"

// Acker is a Wire that also returns the daemon's state_ack of an applied
// report (WireClient is one): the PermissionRequest hook learns from it
// that its question was settled before it was even asked.
type Acker interface {
	ApplyStateAck(ctx context.Context, cmd wire.StateCommand) (wire.StateAck, error)
}

// SessionReader is a Wire that can read a session's current state
// (WireClient is one, through status): a PermissionRequest hook whose
// subscription the daemon closed tells the daemon being alive (the
// question was withdrawn) from the daemon gone.
type SessionReader interface {
	SessionState(ctx context.Context, id wire.Identity) (wire.State, bool, error)
}

// ChatEnv names the environment variable Lets sets to "1" for the Claude
// Code it runs behind "Chat with Claude" (Options.Chat). That Claude asks
// its permission questions through Lets itself (on stdio, in the chat
// window and on the pads at once); the PermissionRequest hook that
// `lets setup claude` installs for the person's own Claude still applies
// to it (user settings), and would put up a second card for the same
// question and hold the session waiting after the answer.
const ChatEnv = "LETS_CHAT_CLAUDE"

// LabelEnv names the environment variable that sets Options.Label for
// `lets hook`: Lets sets it for the Claude Code it runs behind the chat.
const LabelEnv = "LETS_CLAUDE_LABEL"

func (o Options) withDefaults() Options {
	if o.Agent.Backend == "" {
		o.Agent = ClaudeCode
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.ApprovalTimeout <= 0 {
		o.ApprovalTimeout = DefaultApprovalTimeout
	}
	if o.NewRequestID == nil {
		o.NewRequestID = wireclient.NewID
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Seq == 0 {
		o.Seq = o.Now().UnixNano()
	}
	return o
}

// Run handles one hook invocation: event is the hook event name (from
// `lets hook <event>`), stdin the hook input, stdout what Claude Code
// reads back. It returns an *UnknownEventError or *InputError when the
// invocation cannot be handled (nothing was printed or reported; the
// caller logs it in one line and exits 0); every other failure — daemon
// or host down, slow or gone — is logged through opts.Logger, prints
// nothing and returns nil.
func Run(ctx context.Context, opts Options, event string, stdin io.Reader, stdout io.Writer) error {
	o := opts.withDefaults()
	if !o.Agent.Known(event) {
		return &UnknownEventError{Name: event}
	}
	ev, err := DecodeEvent(stdin)
	if err != nil {
		return err
	}
	if ev.HookEventName != "" && ev.HookEventName != event {
		o.Logger.Debug("claude hook: the input names another event; using the command's", "event", event, "input_event", ev.HookEventName)
	}
	// Whatever the hook starts in the background ends with ctx, and Run
	// waits for it before it returns.
	ctx, cancel := context.WithCancel(ctx)
	h := &hook{Options: o, event: event, ev: ev, start: o.Now()}
	defer func() {
		cancel()
		h.bg.Wait()
	}()
	if event == EventPermissionRequest && o.Chat {
		o.Logger.Debug("claude hook: the chat asks its own questions; staying out", "session", ev.SessionID)
		return nil
	}
	if event == EventPermissionRequest {
		h.approve(ctx, stdout)
		return nil
	}
	h.quick(ctx, stdout)
	return nil
}

// hook is one invocation.
type hook struct {
	Options
	event string
	ev    Event
	start time.Time
	// bg counts the goroutines the hook left running (a subscription
	// that came too late); Run waits for them.
	bg sync.WaitGroup
}

func (h *hook) identity() wire.Identity {
	return wire.Identity{Backend: h.Agent.Backend, SessionID: h.ev.SessionID}
}

func (h *hook) stateCommand(s wire.State) wire.StateCommand {
	cmd := wire.StateCommand{State: s, Agent: h.identity(), LeaseID: h.LeaseID}
	if l := h.label(); l != "" {
		cmd.Metadata = wire.MetadataOf("label", l)
	}
	cmd.Metadata = append(cmd.Metadata, wire.MetaEntry{Key: SeqKey, Value: strconv.FormatInt(h.Seq, 10)})
	return cmd
}

// label is Options.Label when set (a conversation Lets itself runs is
// "Chat"), else the working folder's name.
func (h *hook) label() string {
	if h.Label != "" {
		return textsafe.OneLine(strings.ToValidUTF8(h.Label, "\uFFFD"), maxLabelRunes)
	}
	return Label(h.ev.Cwd)
}

func (h *hook) report(state string) Report {
	r := Report{PID: h.ClaudePID, SessionID: h.ev.SessionID, Label: h.label(), State: state}
	if h.Agent.Backend != Backend {
		// The host answers the card on this backend and names the agent.
		r.Backend = h.Agent.Backend
	}
	return r
}

// hostReport sends r to the host. Without the claude process's pid the
// host could not tie the report to any window, so nothing is sent.
func (h *hook) hostReport(ctx context.Context, r Report) error {
	if r.PID <= 0 {
		return nil
	}
	return h.Host.Report(ctx, r)
}

func (h *hook) fail(what string, err error) {
	h.Logger.Warn("claude hook: "+what, "event", h.event, "session", h.ev.SessionID,
		"after", h.Now().Sub(h.start).Round(time.Millisecond).String(), "err", err)
}

// quick runs every event but PermissionRequest: the Wire report, the host
// report and (SessionStart, UserPromptSubmit) the pending events, all at
// once, within QuickBudget.
func (h *hook) quick(parent context.Context, stdout io.Writer) {
	p, ok := h.Agent.plan(h.event, h.ev)
	if !ok {
		h.Logger.Debug("claude hook: nothing to report", "event", h.event, "notification_type", h.ev.NotificationType)
		return
	}
	ctx, cancel := context.WithTimeout(parent, QuickBudget)
	defer cancel()
	var wg sync.WaitGroup
	if h.Wire != nil {
		wg.Go(func() {
			// Applied (acknowledged) before the hook exits: Claude Code
			// runs a session's hooks one event after another, so the
			// reports take effect in that order. A report that is not
			// waiting_for_approval also ends any question still pending
			// (the person answered in the terminal); a session's end
			// settles them first.
			state := p.state
			if p.end {
				state = wire.StateWaitingForReply
			}
			err := h.Wire.ApplyState(ctx, h.stateCommand(state))
			if err == nil && p.end {
				err = h.Wire.EndSession(ctx, h.identity())
			}
			if err != nil {
				h.fail("could not reach the pad daemon", err)
			}
		})
	}
	if h.Host != nil {
		state := string(p.state)
		if p.end {
			state = StateEnded
		}
		wg.Go(func() {
			if err := h.hostReport(ctx, h.report(state)); err != nil {
				h.fail("could not report to the Lets host", err)
			}
		})
	}
	// SessionStart also tells Claude which windows are open.
	var windows []OpenWindow
	if lister, ok := h.Host.(WindowLister); ok && h.event == EventSessionStart && h.Agent.windowContext {
		wg.Go(func() {
			ws, err := lister.Windows(ctx)
			if err != nil {
				h.fail("could not list the open windows of the Lets host", err)
				return
			}
			windows = ws
		})
	}
	var pending PendingEvents
	pendingOK := false
	if p.context && h.Host != nil && h.Agent.windowContext {
		var err error
		if pending, err = h.Host.Pending(ctx); err != nil {
			h.fail("could not read pending window events from the Lets host", err)
		} else {
			pendingOK = true
		}
	}
	wg.Wait()
	var text string
	switch {
	case !h.Agent.windowContext:
		// Codex reads nothing from these hooks.
	case h.event == EventSessionStart:
		if !pendingOK {
			pending = PendingEvents{}
		}
		text = SessionContext(windows, pending)
	case pendingOK:
		text = PromptContext(pending)
	}
	if text == "" {
		return
	}
	if _, err := stdout.Write(contextOutput(h.event, text)); err != nil {
		h.fail("could not write to Claude Code", err)
	}
}

// approve is the PermissionRequest flow (claude-integration §3).
//
// Order matters so that a press cannot be lost: the subscription is
// opened first and the waiting_for_approval state reported after it. The
// daemon lights Approve and Reject only while the state permits them and
// a live subscription advertises them (wire-protocol-1 §9.10), so
// whichever of the two lines it handles first (the protocol orders lines
// per connection only), every press it accepts reaches this hook, and a
// window's answer for this request id finds the subscription in place.
// The waiting_for_approval report is acknowledged (ApplyState) before the
// hook looks for a press: Stop is lit while the session still runs, so it
// can be pressed before that report lands, and the closing cancelled
// report, on a connection of its own, would otherwise race it and could
// leave the session showing waiting_for_approval with no one waiting.
// Reported the other way round, the session would show
// waiting_for_approval with no one listening: a press then is dropped, or
// goes to another subscriber of the session. Subscribing first also makes
// the daemon hold waiting_for_approval against running reports of
// parallel tool hooks (§9.5) until the request is answered.
//
// Claude Code asks in its terminal at the same time and does not stop
// this hook when the person answers there. Any later hook of the session
// (PreToolUse, PostToolUse, Stop, UserPromptSubmit, SessionEnd, …) reports
// with a newer Seq, and Lets' daemon then closes this hook's subscription
// (backend/daemon settle.go): the hook sees it end while the daemon still
// answers, takes the card off the windows and returns printing nothing.
// A waiting_for_approval report the daemon acknowledges with another
// state was settled before it was asked: no card, nothing printed.
func (h *hook) approve(parent context.Context, stdout io.Writer) {
	reqID := h.NewRequestID()
	tool := h.ev.ToolName
	q := &hookQuestion{h: h, tool: tool, summary: approval.Summary(tool, h.ev.ToolInput), about: approval.About(tool, h.ev.ToolInput)}
	// The window's card answers through the Wire daemon too (the host
	// turns a press on it into an action for reqID), so the pad question
	// is the one surface here.
	d, err := approval.Ask(parent, approval.Request{Tool: tool, Summary: q.summary, About: q.about}, reqID, approval.Surfaces{
		Pads: q, Wait: h.ApprovalTimeout, EndWhenUnanswerable: true,
	})
	if q.sub == nil {
		// Nothing can answer (Claude asks in its terminal), or the
		// question was settled before Lets asked it.
		return
	}
	if d.From == approval.FromNobody {
		switch {
		case err == nil:
			h.Logger.Info("claude hook: no answer from Lets in time; Claude asks in its terminal", "session", h.ev.SessionID, "timeout", h.ApprovalTimeout.String())
		case parent.Err() == nil && h.withdrawn(parent):
			return
		default:
			h.fail("stopped waiting for an approval", err)
		}
		h.finish(parent, "", false)
		return
	}
	line, after, _ := h.Agent.Decision(actionOf(d))
	if _, err := io.WriteString(stdout, line); err != nil {
		h.fail("could not write the decision to Claude Code", err)
	}
	h.finish(parent, after, true)
}

// actionOf is the press behind a decision.
func actionOf(d approval.Decision) wire.Action {
	switch {
	case d.Stop:
		return wire.ActionStop
	case d.Allow:
		return wire.ActionApprove
	}
	return wire.ActionReject
}

// hookQuestion is the PermissionRequest's question on the pads, the
// phones and the windows (approval.Pads and approval.Question): a
// request-scoped one-shot subscription to Approve, Reject and Stop, and
// the waiting_for_approval reports that make the daemon light them and
// the host draw the card.
type hookQuestion struct {
	h                    *hook
	tool, summary, about string
	reqID                string
	sub                  Actions // nil until the question is open
}

// errSettled: the question was answered (in Claude's terminal) before
// Lets asked it.
var errSettled = errors.New("the question was answered before Lets asked it")

// Open implements approval.Pads. Without a subscription the host still
// learns that Claude waits (no card); a question settled before it was
// asked gets nothing.
func (q *hookQuestion) Open(ctx context.Context, reqID string) (approval.Question, error) {
	h := q.h
	q.reqID = reqID
	var sub Actions
	var subErr error
	if h.Wire != nil {
		dialCtx, cancelDial := context.WithTimeout(ctx, setupBudget)
		s, err := subscribeBounded(dialCtx, ctx, &h.bg, h.Wire, wire.SubscribeActionsCommand{
			Agent: h.identity(), Actions: ApprovalActions(), RequestID: reqID, OneShot: true,
		})
		cancelDial()
		if err != nil {
			h.fail("could not subscribe to approvals on the pad daemon", err)
			subErr = err
		} else {
			sub = s
		}
	} else {
		subErr = errors.New("no pad daemon")
	}

	// Tell the daemon, then the host: a question settled before it was
	// asked (the person answered in the terminal and a later hook
	// reported first) gets no card.
	setup, cancelSetup := context.WithTimeout(ctx, setupBudget)
	defer cancelSetup()
	if sub != nil {
		ack, err := h.applyState(setup, h.stateCommand(wire.StateWaitingForApproval))
		switch {
		case err != nil:
			h.fail("could not report waiting_for_approval to the pad daemon", err)
		case ack != nil && ack.State != wire.StateWaitingForApproval:
			cancelSetup()
			_ = sub.Close()
			h.Logger.Info("claude hook: the question was answered elsewhere before Lets asked it", "session", h.ev.SessionID, "state", string(ack.State))
			return nil, errSettled
		}
	}
	if h.Host != nil {
		r := h.report(string(wire.StateWaitingForApproval))
		if sub != nil { // only an answerable request gets a card
			r.RequestID, r.Tool, r.Summary, r.About = reqID, q.tool, q.summary, q.about
		}
		if err := h.hostReport(setup, r); err != nil {
			h.fail("could not report the permission request to the Lets host", err)
		}
	}
	if sub == nil {
		return nil, subErr
	}
	q.sub = sub
	return q, nil
}

// Receive implements approval.Question: the first Approve, Reject or
// Stop addressed to the request.
func (q *hookQuestion) Receive(ctx context.Context) (approval.Decision, error) {
	a, err := q.h.waitForPress(ctx, q.sub, q.reqID)
	if err != nil {
		return approval.Decision{}, err
	}
	return approval.Decision{Allow: a == wire.ActionApprove, Stop: a == wire.ActionStop}, nil
}

// Withdraw implements approval.Question: the subscription ends; the
// reports that end the question are the hook's (finish, withdrawn).
func (q *hookQuestion) Withdraw(approval.Decision) {
	_ = q.sub.Close()
}

// applyState reports cmd and waits until the daemon applied it; the ack
// is nil when the Wire cannot return it.
func (h *hook) applyState(ctx context.Context, cmd wire.StateCommand) (*wire.StateAck, error) {
	if a, ok := h.Wire.(Acker); ok {
		ack, err := a.ApplyStateAck(ctx, cmd)
		if err != nil {
			return nil, err
		}
		return &ack, nil
	}
	return nil, h.Wire.ApplyState(ctx, cmd)
}

// withdrawn reports whether the daemon ended this hook's subscription
// because the question was settled elsewhere (a later hook of the session
// reported; see backend/daemon settle.go): the daemon still answers. The
// host then gets the session's state as the daemon has it, which takes
// the card down. False when the daemon is gone (or cannot tell).
func (h *hook) withdrawn(parent context.Context) bool {
	r, ok := h.Wire.(SessionReader)
	if !ok {
		return false
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(parent), exitBudget)
	defer cancel()
	state, found, err := r.SessionState(ctx, h.identity())
	if err != nil {
		return false
	}
	h.Logger.Info("claude hook: the question was answered elsewhere; Lets stops asking", "session", h.ev.SessionID)
	if h.Host != nil {
		hs := string(state)
		if !found {
			hs = StateEnded
		}
		if hs == string(wire.StateWaitingForApproval) {
			// Another question of the session is pending: its own
			// hook keeps its card; this one only goes.
			hs = string(wire.StateRunning)
		}
		if err := h.hostReport(ctx, h.report(hs)); err != nil {
			h.fail("could not take the answered question off the Lets windows", err)
		}
	}
	return true
}

// subscribeBounded opens a subscription that lives as long as life, but
// gives up when dial ends first (a hung daemon must not hold the hook).
// A subscription that comes too late is closed in the background; bg
// counts that work, which ends with life.
func subscribeBounded(dial, life context.Context, bg *sync.WaitGroup, w Wire, cmd wire.SubscribeActionsCommand) (Actions, error) {
	type result struct {
		a   Actions
		err error
	}
	done := make(chan result) // unbuffered: handed over, or closed here
	late := make(chan struct{})
	bg.Add(1)
	go func() {
		defer bg.Done()
		a, err := w.Subscribe(life, cmd)
		select {
		case done <- result{a, err}:
		case <-late:
			// Nobody takes it any more: it ends here.
			if a != nil {
				_ = a.Close()
			}
		}
	}()
	select {
	case r := <-done:
		return r.a, r.err
	case <-dial.Done():
		close(late)
		return nil, dial.Err()
	}
}

// waitForPress waits for one approval action addressed to reqID; anything
// else is ignored.
func (h *hook) waitForPress(ctx context.Context, sub Actions, reqID string) (wire.Action, error) {
	for {
		ev, err := sub.Receive(ctx)
		if err != nil {
			return "", err
		}
		if _, _, ok := h.Agent.Decision(ev.Action); ok && ev.RequestID == reqID {
			return ev.Action, nil
		}
		h.Logger.Debug("claude hook: ignoring an action for another request", "action", string(ev.Action), "request_id", ev.RequestID)
	}
}

// finish reports how a permission request ended. answered false means
// Claude asks in its terminal: the Wire state stays waiting_for_approval
// (the person still has to answer) and the host drops the card.
func (h *hook) finish(parent context.Context, after wire.State, answered bool) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(parent), exitBudget)
	defer cancel()
	var wg sync.WaitGroup
	if answered && h.Wire != nil {
		wg.Go(func() {
			if err := h.Wire.ApplyState(ctx, h.stateCommand(after)); err != nil {
				h.fail("could not report the answered approval to the pad daemon", err)
			}
		})
	}
	if h.Host != nil {
		state := string(after)
		if !answered {
			state = string(wire.StateWaitingForApproval)
		}
		wg.Go(func() {
			if err := h.hostReport(ctx, h.report(state)); err != nil {
				h.fail("could not report the end of the permission request to the Lets host", err)
			}
		})
	}
	wg.Wait()
}
