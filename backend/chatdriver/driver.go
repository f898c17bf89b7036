package chatdriver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/lets-app/lets/backend/agent"
	"github.com/lets-app/lets/backend/approval"
	"github.com/lets-app/lets/backend/clock"
	"github.com/lets-app/lets/backend/conversations"
	"github.com/lets-app/lets/backend/hostapi"
	"github.com/lets-app/lets/backend/hostclient"
	"github.com/lets-app/lets/backend/textsafe"
)

// Up-events the driver listens for in its window.
var listenTypes = []string{"chat.message", "talk.stop", "talk.new", "component.action", "session.closed"}

// Limits of what the window is sent back (the chat unique's talk.load).
const (
	loadMaxMessages = 200
	loadMaxText     = 20000
	listenWait      = 20 * time.Second
	sendTimeout     = 5 * time.Second
)

// envelope is an up-event as GET /lip/listen returns it.
type envelope struct {
	ID   string          `json:"id"`
	Type string          `json:"type"`
	Win  string          `json:"win"`
	From string          `json:"from"` // stamped by the host: "shell:…" or "unique:…"
	Data json.RawMessage `json:"data"`
}

// turn is one human message and the reply streaming for it.
type turn struct {
	re        string // the chat.message's envelope id
	seq       int    // chat.say chunks sent
	full      strings.Builder
	pending   strings.Builder
	lastIndex int
	gotDelta  bool
	lastSay   time.Time
	stopped   bool
}

// driver binds one conversation to one chat window and one agent. Its
// state is owned by loop; other goroutines hand work to it through async.
type driver struct {
	m      *Manager
	log    *slog.Logger
	cancel context.CancelFunc
	async  chan func(ctx context.Context)
	done   chan struct{}

	mu sync.Mutex // window, url, client and asking, read by Manager
	// asking withdraws the open permission questions, by claude's request id.
	asking map[string]context.CancelFunc
	window string
	// url is the window's one-time URL when no native window took it
	// (headless), until the Manager hands it out once.
	url    string
	client *hostclient.Client

	life         context.Context // the driver's; set by start
	conv         *conversations.Conversation
	agent        Agent
	listenCancel context.CancelFunc
	inbox        chan envelope
	turns        []*turn
	flush        clock.Timer
	flushC       <-chan time.Time
	screen       string // "", "install", "signin"
	login        Login
	loginURL     string
	mood         string
	closing      bool
	trust        int // the trust question: trustNotAsked, trustAsking, trustDeclined
}

func newDriver(m *Manager, conv *conversations.Conversation, cancel context.CancelFunc) *driver {
	return &driver{
		m:      m,
		log:    m.opts.Logger.With("conversation", conv.ID),
		cancel: cancel,
		async:  make(chan func(context.Context), 16),
		done:   make(chan struct{}),
		inbox:  make(chan envelope, 64),
		conv:   conv,
	}
}

func (d *driver) currentWindow() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.window
}

// takeWindow returns the window and, the first time only, its one-time URL.
func (d *driver) takeWindow() (window, url string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	url, d.url = d.url, ""
	return d.window, url
}

// start checks Claude Code, starts the agent when it can, opens the window
// (bound to the agent's pid) and draws the conversation or the first-run
// screen. dctx is the driver's life.
func (d *driver) start(ctx, dctx context.Context) error {
	d.life = dctx
	state := d.authState(ctx)
	if state == LoggedIn {
		err := d.startAgent(dctx)
		switch {
		case errors.Is(err, agent.ErrNotInstalled):
			// FindClaude found none although auth said otherwise.
			state = NotInstalled
		case err != nil:
			return err
		}
	}
	if err := d.openWindow(ctx, dctx); err != nil {
		return err
	}
	switch state {
	case NotInstalled:
		d.showInstall(ctx)
	case LoggedOut:
		d.showSignIn(ctx)
	}
	return nil
}

// authState asks Claude Code whether it is installed and signed in. An
// answer Lets cannot read counts as signed in: the first turn then shows
// the sign-in screen if it was not.
func (d *driver) authState(ctx context.Context) AuthState {
	if d.m.opts.Auth == nil {
		return LoggedIn
	}
	s, err := d.m.opts.Auth(ctx)
	switch {
	case s == NotInstalled || s == LoggedOut || s == LoggedIn:
		return s
	case err != nil:
		d.log.Warn("chat: cannot tell whether Claude Code is signed in; trying anyway", "err", err)
	}
	return LoggedIn
}

func (d *driver) startAgent(ctx context.Context) error {
	dir, err := conversations.EnsureDir(d.conv)
	if err != nil {
		return err
	}
	o := d.m.opts.Agent
	if d.m.opts.FindClaude != nil {
		claude, err := d.m.opts.FindClaude()
		if err != nil {
			return fmt.Errorf("find Claude Code: %w", err)
		}
		o.Claude = claude
	}
	o.Dir = dir
	o.SessionID = d.conv.ClaudeSessionID
	o.Resume = len(d.conv.Transcript) > 0
	o.PermissionMode = d.conv.PermissionMode
	d.agentTrust(&o)
	if o.Logger == nil {
		o.Logger = d.log
	}
	a, err := d.m.opts.Start(ctx, o)
	if err != nil {
		return fmt.Errorf("start Claude Code for the conversation: %w", err)
	}
	d.agent = a
	d.log.Info("chat: agent started", "pid", a.PID(), "resume", o.Resume, "dir", dir)
	return nil
}

// openWindow opens a chat window bound to the agent's pid (none yet on a
// first-run screen), starts listening to it and puts the conversation back.
func (d *driver) openWindow(ctx, dctx context.Context) error {
	pid := 0
	if d.agent != nil {
		pid = d.agent.PID()
	}
	c := d.m.client(pid)
	ans, err := c.Open(ctx, hostapi.OpenRequest{Unique: ChatUnique, Title: d.conv.Title})
	if err != nil {
		return fmt.Errorf("open the chat window: %w", err)
	}
	if ans.Window == "" {
		return fmt.Errorf("open the chat window: the host's answer names no window")
	}
	d.mu.Lock()
	d.window, d.client, d.url = ans.Window, c, ans.URL
	d.mu.Unlock()
	lctx, cancel := context.WithCancel(dctx)
	d.listenCancel = cancel
	go d.listen(lctx, c, ans.Window)

	if msgs := loadMessages(d.conv.Transcript); len(msgs) > 0 {
		d.send(ctx, "talk.load", map[string]any{"messages": msgs}, "")
	}
	d.send(ctx, "talk.agent", map[string]any{"working": false, "folder": d.conv.Dir}, "")
	return nil
}

// loadMessages is Lets' transcript as the chat unique's talk.load takes it.
func loadMessages(ts []conversations.Turn) []map[string]any {
	if len(ts) > loadMaxMessages {
		ts = ts[len(ts)-loadMaxMessages:]
	}
	out := make([]map[string]any, 0, len(ts))
	for _, t := range ts {
		m := map[string]any{"role": t.Role, "text": textsafe.Clip(t.Text, loadMaxText), "at": t.At.UTC().Format(time.RFC3339)}
		if len(t.Attachments) > 0 {
			as := make([]map[string]string, 0, len(t.Attachments))
			for _, a := range t.Attachments {
				x := map[string]string{"path": a.Path}
				if a.Mime != "" {
					x["mime"] = a.Mime
				}
				as = append(as, x)
			}
			m["attachments"] = as
		}
		out = append(out, m)
	}
	return out
}

// listen hands the window's up-events to the loop until ctx ends.
func (d *driver) listen(ctx context.Context, c *hostclient.Client, window string) {
	q := hostclient.ListenQuery{Cursor: "chat-" + window, Window: window, Wait: listenWait, Types: listenTypes, Max: 50}
	backoff := 200 * time.Millisecond
	for ctx.Err() == nil {
		res, err := c.Listen(ctx, q)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			var ae *hostclient.APIError
			if errors.As(err, &ae) && ae.Status == http.StatusNotFound {
				d.log.Warn("chat: the window is gone", "window", window, "err", err)
				d.post(func(ctx context.Context) { d.windowClosed(ctx, window) })
				return
			}
			d.log.Warn("chat: listen failed; trying again", "window", window, "err", err)
			wait := d.m.opts.Clock.NewTimer(backoff)
			select {
			case <-ctx.Done():
				wait.Stop()
				return
			case <-wait.C():
			}
			backoff = min(backoff*2, 5*time.Second)
			continue
		}
		backoff = 200 * time.Millisecond
		for _, raw := range res.Events {
			var e envelope
			if json.Unmarshal(raw, &e) != nil || (e.Win != "" && e.Win != window) {
				continue
			}
			select {
			case d.inbox <- e:
			case <-ctx.Done():
				return
			}
		}
	}
}

// post hands work to the loop (dropped when the driver ended).
func (d *driver) post(f func(ctx context.Context)) {
	select {
	case d.async <- f:
	case <-d.done:
	}
}

// send sends one command to the window; failures are logged, not fatal.
func (d *driver) send(ctx context.Context, typ string, data any, re string) bool {
	d.mu.Lock()
	c, win := d.client, d.window
	d.mu.Unlock()
	if c == nil || win == "" {
		return false
	}
	env := map[string]any{"lip": 1, "win": win, "type": typ, "data": data}
	if re != "" {
		env["re"] = re
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), sendTimeout)
	defer cancel()
	res, err := c.Send(sctx, env)
	if err != nil {
		d.log.Warn("chat: send failed", "type", typ, "err", err)
		return false
	}
	if len(res.Rejected) > 0 {
		d.log.Warn("chat: the host refused a command", "type", typ, "code", res.Rejected[0].Code, "message", res.Rejected[0].Message)
		return false
	}
	return true
}

func (d *driver) setMood(ctx context.Context, mood string) {
	if mood == d.mood {
		return
	}
	d.mood = mood
	d.send(ctx, "entity.mood", map[string]string{"mood": mood}, "")
}

func (d *driver) setWorking(ctx context.Context, on bool) {
	d.send(ctx, "talk.agent", map[string]any{"working": on, "folder": d.conv.Dir}, "")
}

// stop ends the driver; closeWindow also closes its window.
func (d *driver) stop(closeWindow bool) {
	if closeWindow {
		d.mu.Lock()
		c, win := d.client, d.window
		d.mu.Unlock()
		if c != nil && win != "" {
			ctx, cancel := context.WithTimeout(context.Background(), sendTimeout)
			_, _ = c.Close(ctx, win)
			cancel()
		}
	}
	d.cancel()
	<-d.done
}

// cleanup stops what start began when it failed or the driver ended.
func (d *driver) cleanup() {
	if d.listenCancel != nil {
		d.listenCancel()
	}
	if d.agent != nil {
		if err := d.agent.Close(); err != nil {
			d.log.Warn("chat: stopping the agent", "err", err)
		}
		d.agent = nil
	}
	if d.login != nil {
		d.login.Cancel()
		d.login = nil
	}
	if d.flush != nil {
		d.flush.Stop()
	}
}

// loop is the driver's one goroutine of state.
func (d *driver) loop(ctx context.Context) {
	defer close(d.done)
	defer d.cleanup()
	for !d.closing {
		var events <-chan Event
		var agentDone <-chan struct{}
		if d.agent != nil {
			events, agentDone = d.agent.Events(), d.agent.Done()
		}
		select {
		case <-ctx.Done():
			return
		case e := <-d.inbox:
			d.onEnvelope(ctx, e)
		case ev, ok := <-events:
			if !ok {
				d.agentGone(ctx)
				continue
			}
			d.onAgent(ctx, ev)
		case <-agentDone:
			d.drainAgent(ctx)
			d.agentGone(ctx)
		case <-d.flushC:
			d.flushC = nil
			if t := d.current(); t != nil {
				d.sayPending(ctx, t, false)
			}
		case f := <-d.async:
			f(ctx)
		}
	}
}

// drainAgent handles events the agent reported before it ended.
func (d *driver) drainAgent(ctx context.Context) {
	if d.agent == nil {
		return
	}
	for {
		select {
		case ev, ok := <-d.agent.Events():
			if !ok {
				return
			}
			d.onAgent(ctx, ev)
		default:
			return
		}
	}
}

// agentGone: the agent ended for good (its supervisor gave up).
func (d *driver) agentGone(ctx context.Context) {
	if d.agent == nil {
		return
	}
	d.log.Warn("chat: the agent ended")
	_ = d.agent.Close()
	d.agent = nil
	for len(d.turns) > 0 {
		d.finish(ctx, Result{IsError: true, Error: "agent_ended"})
	}
	d.send(ctx, "ui.toast", map[string]any{"text": "Claude stopped unexpectedly. Close this window and open the conversation again to continue.", "level": "error", "ttl": 15000}, "")
	d.setMood(ctx, "alert")
}

func (d *driver) windowClosed(ctx context.Context, window string) {
	if window != d.currentWindow() {
		return
	}
	d.log.Info("chat: the window closed; the conversation stays", "window", window)
	d.closing = true
}

func (d *driver) onEnvelope(ctx context.Context, e envelope) {
	if e.Win != "" && e.Win != d.currentWindow() {
		return
	}
	switch e.Type {
	case "session.closed":
		d.windowClosed(ctx, d.currentWindow())
	case "chat.message":
		// What the person typed comes from the shell page only; the host
		// already refuses chat.* from a unique, and this holds it here too.
		if !strings.HasPrefix(e.From, "shell:") {
			d.log.Warn("chat: a chat.message not from the shell was ignored", "from", e.From)
			return
		}
		d.onMessage(ctx, e)
	case "talk.stop":
		if d.agent != nil && len(d.turns) > 0 {
			d.current().stopped = true
			if err := d.agent.Interrupt(ctx); err != nil {
				d.log.Warn("chat: interrupt failed", "err", err)
			}
		} else {
			d.setWorking(ctx, false)
		}
	case "talk.new":
		d.newConversation(ctx)
	case "component.action":
		if isTrustAction(e.Data) {
			d.onTrustAction(ctx, e.From, e.Data)
			return
		}
		d.onSetupAction(ctx, e.Data)
	}
}

// chatMessage is a chat.message's data (from the shell page: untrusted).
type chatMessage struct {
	Text        string          `json:"text"`
	Attachments []attachmentRef `json:"attachments"`
}

type attachmentRef struct {
	Path string `json:"path"`
	Mime string `json:"mime"`
}

// Limits of a chat.message the driver passes on.
const (
	maxMessageText = 100_000
	maxPathLen     = 4096
)

// decodeChatMessage reads a chat.message's data: a text of at most 100 000
// bytes of valid UTF-8, and at most 10 attachments with absolute paths.
func decodeChatMessage(raw json.RawMessage) (chatMessage, error) {
	var in chatMessage
	if err := json.Unmarshal(raw, &in); err != nil {
		return chatMessage{}, fmt.Errorf("chat.message data is not {text, attachments?}: %w", err)
	}
	if len(in.Text) > maxMessageText || !utf8.ValidString(in.Text) {
		return chatMessage{}, fmt.Errorf("chat.message text is longer than %d bytes or not UTF-8", maxMessageText)
	}
	if len(in.Attachments) > conversations.MaxAttachments {
		in.Attachments = in.Attachments[:conversations.MaxAttachments]
	}
	kept := in.Attachments[:0]
	for _, a := range in.Attachments {
		if a.Path != "" && len(a.Path) <= maxPathLen && strings.HasPrefix(a.Path, "/") {
			kept = append(kept, a)
		}
	}
	in.Attachments = kept
	return in, nil
}

// onMessage turns the person's chat.message into a user turn.
func (d *driver) onMessage(ctx context.Context, e envelope) {
	in, err := decodeChatMessage(e.Data)
	if err != nil {
		d.log.Warn("chat: a chat.message Lets cannot read", "err", err)
		return
	}
	if d.agent == nil {
		text := "Let's get Claude ready first — follow the steps below, then write again."
		if d.screen == "" {
			text = "Claude is not running for this conversation. Close this window and open the conversation again."
		}
		d.send(ctx, "chat.say", map[string]any{"text": text, "seq": 1, "done": true}, e.ID)
		return
	}
	var blocks []Block
	if strings.TrimSpace(in.Text) != "" {
		blocks = append(blocks, Block{Type: "text", Text: in.Text})
	}
	var kept []conversations.Attachment
	for _, a := range in.Attachments {
		b, err := imageBlock(d.m.opts.Paths.UploadsDir(), a.Path)
		if err != nil {
			d.log.Warn("chat: attachment refused", "err", err)
			d.send(ctx, "ui.toast", map[string]any{"text": "I could not send one image to Claude: " + textsafe.Clip(err.Error(), 300), "level": "warn"}, "")
			continue
		}
		blocks = append(blocks, b)
		kept = append(kept, conversations.Attachment{Path: a.Path, Mime: b.Source.MediaType})
	}
	if len(blocks) == 0 {
		d.send(ctx, "chat.say", map[string]any{"text": "I did not get anything to send. Write a message or attach an image.", "seq": 1, "done": true}, e.ID)
		return
	}
	if blocks[0].Type != "text" {
		blocks = append([]Block{{Type: "text", Text: "(an image)"}}, blocks...)
	}
	if c, err := d.m.opts.Store.Append(d.conv.ID, conversations.Turn{Role: conversations.RoleHuman, Text: in.Text, Attachments: kept, At: d.m.opts.Clock.Now()}); err != nil {
		d.log.Warn("chat: saving the message failed", "err", err)
	} else {
		d.conv = c
	}
	if err := d.agent.Send(ctx, blocks); err != nil {
		d.log.Warn("chat: sending the turn failed", "err", err)
		d.send(ctx, "chat.say", map[string]any{"text": "I could not reach Claude just now. Please try again in a moment.", "seq": 1, "done": true}, e.ID)
		d.setMood(ctx, "alert")
		return
	}
	d.turns = append(d.turns, &turn{re: e.ID, lastIndex: -1})
	if len(d.turns) == 1 {
		d.beginTurn(ctx)
	}
}

func (d *driver) beginTurn(ctx context.Context) {
	d.send(ctx, "chat.typing", map[string]bool{"on": true}, "")
	d.setMood(ctx, "thinking")
	d.setWorking(ctx, true)
}

func (d *driver) current() *turn {
	if len(d.turns) == 0 {
		return nil
	}
	return d.turns[0]
}

// onAgent handles one agent event.
func (d *driver) onAgent(ctx context.Context, ev Event) {
	switch ev := ev.(type) {
	case Init:
		d.log.Debug("chat: claude session", "session_id", ev.SessionID)
	case TextDelta:
		d.onDelta(ctx, ev)
	case Assistant:
		t := d.current()
		if ev.Error != "" {
			// The CLI made this message up to report an API error; the
			// Result that follows says it in Lets' words.
			return
		}
		for _, b := range ev.Blocks {
			switch b.Type {
			case "tool_use":
				d.setMood(ctx, "busy")
			case "text":
				// Without partial messages no delta came: the block is
				// the text.
				if t != nil && !t.gotDelta && b.Text != "" {
					d.addText(ctx, t, -2, b.Text)
				}
			}
		}
	case ToolResult:
		d.setMood(ctx, "thinking")
	case ControlRequest:
		d.onControl(ctx, ev)
	case ControlCancel:
		// Answered first by something else (a PermissionRequest hook of
		// the person's own): withdraw Lets' question everywhere.
		d.mu.Lock()
		cancel := d.asking[ev.RequestID]
		d.mu.Unlock()
		if cancel != nil {
			cancel()
		}
	case Result:
		d.finish(ctx, ev)
	case Restarted:
		for len(d.turns) > 0 {
			d.finish(ctx, Result{IsError: true, Error: agent.ErrCodeCrashed})
		}
		// The new claude has a new pid: bind the window to it so its
		// hooks' reports and approval cards reach this window again.
		if ev.PID > 0 && d.agent != nil {
			d.rebind(ctx)
		}
	}
}

func (d *driver) onDelta(ctx context.Context, ev TextDelta) {
	t := d.current()
	if t == nil || ev.Text == "" {
		return
	}
	t.gotDelta = true
	d.addText(ctx, t, ev.Index, ev.Text)
}

// addText streams text of the current reply: the first chunk at once, then
// at most one chunk per Coalesce.
func (d *driver) addText(ctx context.Context, t *turn, index int, text string) {
	if t.full.Len() > 0 && index != t.lastIndex {
		t.full.WriteString("\n\n")
		t.pending.WriteString("\n\n")
	}
	t.lastIndex = index
	t.full.WriteString(text)
	t.pending.WriteString(text)
	if t.seq == 0 {
		d.sayPending(ctx, t, false)
		return
	}
	if d.flushC != nil {
		return // the pending chunk goes out when the timer fires
	}
	wait := d.m.opts.Coalesce - d.m.opts.Clock.Now().Sub(t.lastSay)
	if wait <= 0 {
		d.sayPending(ctx, t, false)
		return
	}
	if d.flush == nil {
		d.flush = d.m.opts.Clock.NewTimer(wait)
	} else {
		d.flush.Reset(wait)
	}
	d.flushC = d.flush.C()
}

// sayPending sends the text not yet sent as the next chunk.
func (d *driver) sayPending(ctx context.Context, t *turn, done bool) bool {
	if t.pending.Len() == 0 && !done {
		return false
	}
	t.seq++
	data := map[string]any{"text": t.pending.String(), "seq": t.seq}
	if done {
		data["done"] = true
	}
	t.pending.Reset()
	t.lastSay = d.m.opts.Clock.Now()
	return d.send(ctx, "chat.say", data, t.re)
}

// finish ends the current turn with its result.
func (d *driver) finish(ctx context.Context, r Result) {
	t := d.current()
	if t == nil {
		return
	}
	d.turns = d.turns[1:]
	if d.flushC != nil {
		d.flush.Stop()
		d.flushC = nil
	}
	mood := "proud"
	var note string
	switch {
	case t.stopped || r.Error == agent.ErrCodeInterrupted:
		note = "(Stopped.)"
		mood = "idle"
	case r.Error == agent.ErrCodeAuthenticationFailed:
		note = "Claude needs you to sign in before it can answer. The steps are below."
		mood = "alert"
	case r.Error == agent.ErrCodeCrashed:
		note = "Claude had to restart and lost this answer. Please send your message again."
		mood = "alert"
	case r.Error == "agent_ended":
		note = "Claude stopped before it could answer."
		mood = "alert"
	case r.IsError:
		note = "Sorry — something went wrong on Claude's side. Please try again."
		if r.Text != "" {
			note = "Sorry — something went wrong: " + textsafe.Clip(r.Text, 300)
		}
		mood = "alert"
	case t.full.Len() == 0 && r.Text != "":
		t.full.WriteString(r.Text)
		t.pending.WriteString(r.Text)
	}
	if note != "" {
		if t.full.Len() > 0 {
			t.pending.WriteString("\n\n")
		}
		t.pending.WriteString(note)
	}
	d.sayPending(ctx, t, true)
	if text := strings.TrimSpace(t.full.String()); text != "" {
		if c, err := d.m.opts.Store.Append(d.conv.ID, conversations.Turn{Role: conversations.RoleClaude, Text: text, At: d.m.opts.Clock.Now()}); err != nil {
			d.log.Warn("chat: saving the reply failed", "err", err)
		} else {
			d.conv = c
		}
	}
	d.setMood(ctx, mood)
	if r.Error == agent.ErrCodeAuthenticationFailed {
		d.turns = nil
		if d.agent != nil {
			_ = d.agent.Close()
			d.agent = nil
		}
		d.showSignIn(ctx)
		return
	}
	if len(d.turns) > 0 {
		d.beginTurn(ctx)
		return
	}
	d.setWorking(ctx, false)
}

// onControl asks the person in this window when Claude Code asks for a
// permission no hook answered, and passes the answer back.
func (d *driver) onControl(ctx context.Context, ev ControlRequest) {
	if ev.Subtype != SubtypeCanUseTool || d.agent == nil {
		return
	}
	a := d.agent
	d.setMood(ctx, "alert")
	d.mu.Lock()
	c, win := d.client, d.window
	actx, cancel := context.WithCancel(ctx)
	if d.asking == nil {
		d.asking = map[string]context.CancelFunc{}
	}
	d.asking[ev.RequestID] = cancel
	d.mu.Unlock()
	req := approval.Request{Window: win, Tool: ev.ToolName, Summary: approval.Summary(ev.ToolName, ev.Input),
		About: approval.About(ev.ToolName, ev.Input), TimeoutMs: d.m.opts.ApproveWait.Milliseconds()}
	go func() {
		defer func() {
			cancel()
			d.mu.Lock()
			delete(d.asking, ev.RequestID)
			d.mu.Unlock()
		}()
		// Ask in this window and on the pads and phones (the Wire
		// approval flow) at once: the first answer wins, and the other
		// question is withdrawn (the host takes the card down, the
		// subscription closes). Ending actx withdraws both.
		got, err := approval.Ask(actx, req, ev.RequestID, approval.Surfaces{
			Card:  approval.HostCard{D: c},
			Pads:  d.pads(a),
			Wait:  d.m.opts.ApproveWait + sendTimeout,
			Clock: d.m.opts.Clock,
			OnPadsError: func(err error) {
				d.log.Info("chat: the pads cannot answer this question", "err", err)
			},
		})
		if err != nil && ctx.Err() == nil {
			// claude withdrew the question (answered elsewhere): nothing
			// to answer.
			d.post(func(ctx context.Context) { d.setMood(ctx, "busy") })
			return
		}
		msg := ""
		if !got.Allow {
			msg = "The person declined this in Lets."
			if got.From == approval.FromNobody {
				msg = "Nobody answered the permission request in Lets."
			}
		}
		input := ev.Input
		if len(input) == 0 {
			input = json.RawMessage(`{}`)
		}
		if err := a.AnswerPermission(ev.RequestID, got.Allow, input, msg); err != nil {
			d.log.Warn("chat: answering the permission request failed", "err", err)
		}
		d.post(func(ctx context.Context) {
			if got.Allow {
				d.setMood(ctx, "busy")
			} else {
				d.setMood(ctx, "thinking")
			}
		})
	}()
}

// newConversation: the person pressed "New chat". A fresh conversation
// (and Claude Code session) starts in the same window and folder; the old
// one stays in the list.
func (d *driver) newConversation(ctx context.Context) {
	if len(d.conv.Transcript) == 0 {
		return
	}
	conv, err := d.m.opts.Store.Create(conversations.CreateOptions{Dir: d.conv.Dir, PermissionMode: d.conv.PermissionMode})
	if err != nil {
		d.log.Warn("chat: starting a new conversation failed", "err", err)
		return
	}
	if d.agent != nil {
		_ = d.agent.Close()
		d.agent = nil
	}
	d.turns = nil
	d.conv = conv
	d.m.rekey(d, conv.ID)
	if d.screen != "" {
		return
	}
	if err := d.startAgent(ctx); err != nil {
		d.log.Warn("chat: starting Claude for the new conversation failed", "err", err)
		d.send(ctx, "ui.toast", map[string]any{"text": "Claude could not start for the new chat. Close this window and try again.", "level": "error"}, "")
		return
	}
	// The window stays bound to the old claude pid; reopen so the new
	// agent's hooks reach this conversation's window.
	d.reopen(ctx)
}

// rebind binds the open window to the current agent's pid (POST
// /lip/bind), so the person's window stays where it is; when that fails
// (a host without the route, the window gone) it reopens the window.
func (d *driver) rebind(ctx context.Context) {
	win := d.currentWindow()
	if d.agent == nil || win == "" {
		d.reopen(ctx)
		return
	}
	c := d.m.client(d.agent.PID())
	if _, err := c.Bind(ctx, win); err != nil {
		d.log.Info("chat: the window could not follow the new Claude process; opening it again", "window", win, "err", err)
		d.reopen(ctx)
		return
	}
	d.mu.Lock()
	d.client = c
	d.mu.Unlock()
}

// reopen replaces the window by one bound to the current agent's pid and
// closes the old one.
func (d *driver) reopen(ctx context.Context) {
	old := d.currentWindow()
	oldClient := d.client
	if d.listenCancel != nil {
		d.listenCancel()
	}
	dctx := ctx
	if err := d.openWindow(ctx, dctx); err != nil {
		d.log.Warn("chat: reopening the window failed", "err", err)
		return
	}
	if oldClient != nil && old != "" {
		if _, err := oldClient.Close(ctx, old); err != nil {
			d.log.Warn("chat: closing the old window failed", "err", err)
		}
	}
	d.mood = ""
}
