package host

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lets-app/lets/backend/changes"
	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/hostapi"
	"github.com/lets-app/lets/backend/lip"
	"github.com/lets-app/lets/backend/manifest"
	"github.com/lets-app/lets/backend/registry"
	"github.com/lets-app/lets/backend/sessions"
	"github.com/lets-app/lets/backend/token"
)

// coreCommands are the down-command types every window accepts whatever its
// unique declares (spec §4): a command of any other type must be declared
// by the unique, else it is refused with undeclared_type.
var coreCommands = map[string]bool{
	"session.close": true,
	"entity.say":    true, "entity.mood": true, "entity.suggest": true, "entity.move": true,
	"entity.show": true, "entity.hide": true, "entity.persona": true, "entity.react": true,
	"chat.open": true, "chat.close": true, "chat.say": true, "chat.typing": true,
	"component.create": true, "component.update": true, "component.remove": true,
	"ui.toast": true, "ui.theme": true,
	"lip.error": true, "lip.ping": true,
}

// lipCore is the transport-independent part of the host: windows, their
// queues, the ring, sessions and uniques.
type lipCore struct {
	// shells counts the shell connections being served (their handlers
	// run after the HTTP server hands them over, so its Shutdown does not
	// wait for them); once shellsStopped, no new one starts. Run waits
	// for them, so nothing writes a session after it returned.
	shellMu       sync.Mutex
	shellsStopped bool
	shells        sync.WaitGroup

	log      *slog.Logger
	now      func() time.Time
	paths    config.Paths
	registry *registry.Registry
	sessions *sessions.Store
	ring     *eventRing
	ids      *lip.IDs
	// handoff overrides config.json's "handoff" when set (tests).
	handoff string
	// settings is the loaded config.json; nil means the defaults.
	settings  *config.Watcher
	version   string
	uploadMax int64
	// onForget runs when a window is gone for good (origin bookkeeping).
	onForget func(*window)
	// changes hears of every change to the windows and sessions; nil
	// tells nobody.
	changes *changes.Feed
	// claude is what hooks reported per claude process (claude.go);
	// claudeActions passes approval answers on (nil: no cards).
	claude        *claudeAgents
	claudeActions ClaudeActions

	mu      sync.Mutex
	windows map[string]*window
	nextWin int
}

func (c *lipCore) window(id string) (*window, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	w, ok := c.windows[id]
	return w, ok
}

// windowByToken finds the window whose token is tok (constant-time per
// comparison; there are few windows).
func (c *lipCore) windowByToken(tok string) (*window, bool) {
	if tok == "" {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var found *window
	for _, w := range c.windows {
		if token.Equal(tok, w.token) {
			found = w
		}
	}
	return found, found != nil
}

// launchOutcome is what a load of a window's one-time URL found.
type launchOutcome int

const (
	launchOK      launchOutcome = iota
	launchUnknown               // no such window (closed, or never opened)
	launchUsed                  // the URL was already loaded once
	launchBadKey                // a missing or wrong key
)

// claimLaunch spends window id's one-time key: on the first load with the
// right key it mints the window token, which from then on exists only in
// the shell page being served.
func (c *lipCore) claimLaunch(id, key string) (*window, launchOutcome, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	w, ok := c.windows[id]
	switch {
	case !ok:
		return nil, launchUnknown, nil
	case w.launched:
		return w, launchUsed, nil
	case !token.Equal(key, w.launch):
		return w, launchBadKey, nil
	}
	tok, err := token.New()
	if err != nil {
		return nil, launchBadKey, err
	}
	w.token, w.launch, w.launched = tok, "", true
	return w, launchOK, nil
}

// isWindowToken reports whether tok is some window's token.
func (c *lipCore) isWindowToken(tok string) bool {
	_, ok := c.windowByToken(tok)
	return ok
}

func (c *lipCore) listWindows() []hostapi.Window {
	c.mu.Lock()
	ws := make([]*window, 0, len(c.windows))
	for _, w := range c.windows {
		ws = append(ws, w)
	}
	c.mu.Unlock()
	out := make([]hostapi.Window, len(ws))
	for i, w := range ws {
		out[i] = w.info()
		if out[i].ClaudePID > 0 {
			out[i].ClaudeSession = c.claude.session(out[i].ClaudePID)
		}
	}
	sort.Slice(out, func(i, j int) bool { return winNum(out[i].Window) < winNum(out[j].Window) })
	return out
}

func winNum(id string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(id, "w"))
	return n
}

// publish stamps an event the host itself produces and puts it in the ring.
func (c *lipCore) publish(win, typ string, data any) {
	now := c.now()
	e := &lip.Envelope{LIP: lip.Version, ID: c.ids.Event(now), Type: typ, Data: dataObject(data)}
	if err := lip.StampUp(e, lip.Source{Kind: lip.KindHost}, now); err != nil {
		c.log.Error("host event refused by its own stamp", "type", typ, "err", err)
		return
	}
	e.Win = win
	c.ring.append(e, now)
}

// The answer of POST /lip/open (hostapi.OpenAnswer) never carries the
// window token, and never the one-time URL for a caller with the host
// token (issue #23): URL goes only to the person's home page.

type uniqueSummary struct {
	Name        string   `json:"name"`
	Version     string   `json:"version"`
	Title       string   `json:"title"`
	Description string   `json:"description,omitempty"`
	Domains     []string `json:"domains"`
	Source      string   `json:"source"`
	Commit      string   `json:"commit,omitempty"`
	Builtin     bool     `json:"builtin"`
	ExecAllowed []string `json:"exec,omitempty"`
}

func summarize(u *manifest.Unique) uniqueSummary {
	m := u.Manifest
	return uniqueSummary{Name: m.Name, Version: m.Version, Title: m.Title, Description: m.Description,
		Domains: m.Domains, Source: u.Source(), Commit: u.Commit(), Builtin: u.Builtin, ExecAllowed: m.Permissions.Exec}
}

func summaries(in map[string]manifest.TypeInfo) map[string]string {
	out := make(map[string]string, len(in))
	for k, v := range in {
		out[k] = v.Summary
	}
	return out
}

// errUnknownSession: open {resume} named no saved session.
var errUnknownSession = errors.New("no saved session")

// open creates a window record (spec §8.1 open). Launching a native window
// is the caller's business; the answer carries the URL to load.
// claudePID binds the window to a claude process (hostapi.HeaderClaudePID);
// 0 for none.
func (c *lipCore) open(req hostapi.OpenRequest, claudePID int, origins *originSet, hostURL string) (hostapi.OpenAnswer, *window, error) {
	u, err := c.registry.Get(req.Unique)
	if err != nil {
		return hostapi.OpenAnswer{}, nil, err
	}
	var saved *sessions.Session
	if req.Resume != "" {
		s, err := c.sessions.Get(u.Name(), req.Resume)
		if err != nil {
			return hostapi.OpenAnswer{}, nil, fmt.Errorf("%w %q for %s: %w", errUnknownSession, req.Resume, u.Name(), err)
		}
		saved = &s
	}
	origin, err := origins.ensure(u)
	if err != nil {
		return hostapi.OpenAnswer{}, nil, err
	}
	launch, err := token.New()
	if err != nil {
		return hostapi.OpenAnswer{}, nil, err
	}
	ft, err := token.New()
	if err != nil {
		return hostapi.OpenAnswer{}, nil, err
	}
	guide, err := u.GuideText()
	if err != nil {
		c.log.Warn("the unique's guide could not be read", "unique", u.Name(), "err", err)
	}
	now := c.now()
	title := req.Title
	if title == "" {
		title = u.Manifest.Title
	}
	c.mu.Lock()
	c.nextWin++
	w := &window{core: c, id: "w" + strconv.Itoa(c.nextWin), unique: u, name: u.Name(), title: title, launch: launch, frameToken: ft, opened: now, ask: map[string]chan string{}}
	w.claudePID.Store(int64(claudePID))
	c.windows[w.id] = w
	c.mu.Unlock()
	origin.addWindow(w)
	c.changes.Notify()

	res := hostapi.OpenAnswer{Window: w.id, URL: launchURL(hostURL, w.id, launch), Guide: guide,
		Events: summaries(u.Manifest.Events), Commands: summaries(u.Manifest.Commands)}
	openData := map[string]any{"unique": u.Name(), "window": w.id}
	if saved != nil {
		restore := &lip.Envelope{LIP: lip.Version, ID: c.ids.Command(now), Type: u.Manifest.Session.Restore, Data: saved.Payload, Win: w.id, Re: saved.ID}
		if perr := lip.StampDown(restore, lip.Source{Kind: lip.KindHost}, now); perr != nil {
			return hostapi.OpenAnswer{}, nil, perr
		}
		w.prepend(restore)
		w.session, w.resumed = saved.ID, saved.ID
		info := saved.Info
		res.Session = &info
		openData["resumed"] = saved.ID
	}
	c.publish(w.id, "session.open", openData)
	c.claudeWindowOpened(w)
	return res, w, nil
}

// send accepts down-commands from Claude (or the hook) for /lip/send.
func (c *lipCore) send(body []byte, src lip.Source) (accepted []string, rejected []hostapi.Rejection, whole *lip.Error) {
	now := c.now()
	batch, err := lip.DecodeWith(body, lip.DecodeOptions{AssignID: func() string { return c.ids.Command(now) }})
	if err != nil {
		return nil, nil, err
	}
	for _, r := range batch.Rejected() {
		rejected = append(rejected, hostapi.Rejection{Index: r.Index, ID: r.ID, Code: r.Code, Message: r.Message, Hint: hostapi.HintFor(r.Code)})
	}
	for _, it := range batch.Items {
		e := it.Envelope
		if e == nil {
			continue
		}
		if perr := c.acceptDown(e, src, now); perr != nil {
			hint := hostapi.HintFor(perr.Code)
			if e.Win == "" {
				hint = hostapi.HintWindows
			}
			rejected = append(rejected, hostapi.Rejection{Index: it.Index, ID: e.ID, Code: perr.Code, Message: perr.Message, Hint: hint})
			continue
		}
		accepted = append(accepted, e.ID)
	}
	sort.Slice(rejected, func(i, j int) bool { return rejected[i].Index < rejected[j].Index })
	if accepted == nil {
		accepted = []string{}
	}
	if rejected == nil {
		rejected = []hostapi.Rejection{}
	}
	return accepted, rejected, nil
}

func (c *lipCore) acceptDown(e *lip.Envelope, src lip.Source, now time.Time) *lip.Error {
	if e.Dir == lip.Up {
		return lip.Errorf(lip.CodeBadEnvelope, "%s says dir \"up\"; only down-commands can be sent to a window", e.ID)
	}
	if e.Win == "" {
		return lip.Errorf(lip.CodeBadEnvelope, "%s has no win: name the target window", e.ID)
	}
	w, ok := c.window(e.Win)
	if !ok {
		return lip.Errorf(lip.CodeUnknownWindow, "window %q is not open", e.Win)
	}
	m := w.unique.Manifest
	if !coreCommands[e.Type] {
		if _, declared := m.Command(e.Type); !declared && e.Type != m.Session.Restore {
			return lip.Errorf(lip.CodeUndeclaredType, "%s is neither a core command nor a command %s declares; see its commands in the open answer", e.Type, w.name)
		}
	}
	if derr := m.CheckCommandData(e.Type, e.DataOrEmpty()); derr != nil {
		return lip.Errorf(lip.CodeBadData, "%v; fix the data and send it again", derr)
	}
	if err := lip.StampDown(e, src, now); err != nil {
		return err
	}
	c.deliver(w, e)
	if e.Type == "session.close" {
		w.mu.Lock()
		if w.closing == "" {
			w.closing = "claude"
		}
		w.mu.Unlock()
	}
	return nil
}

// deliver queues a stamped down-command and reports drops and expiries.
func (c *lipCore) deliver(w *window, e *lip.Envelope) {
	dropped := w.enqueue(e, func(ids []string) {
		c.publish(w.id, "lip.expired", map[string]any{"ids": ids, "reason": "ttl"})
	})
	if len(dropped) > 0 {
		c.publish(w.id, "lip.expired", map[string]any{"ids": dropped, "reason": "queue_full"})
	}
}

// hostCommand queues a command the host itself issues to a window.
func (c *lipCore) hostCommand(w *window, typ string, data any) *lip.Envelope {
	now := c.now()
	e := &lip.Envelope{LIP: lip.Version, ID: c.ids.Command(now), Type: typ, Data: dataObject(data), Win: w.id}
	if err := lip.StampDown(e, lip.Source{Kind: lip.KindHost}, now); err != nil {
		c.log.Error("host command refused by its own stamp", "type", typ, "err", err)
		return nil
	}
	c.deliver(w, e)
	return e
}

// closeWindow asks a window to close (POST /lip/close). A window that never
// connected is removed at once.
func (c *lipCore) closeWindow(id, reason string) error {
	w, ok := c.window(id)
	if !ok {
		return lip.Errorf(lip.CodeUnknownWindow, "window %q is not open", id)
	}
	w.mu.Lock()
	connected := w.conn != nil
	if w.closing == "" {
		w.closing = reason
	}
	w.mu.Unlock()
	c.hostCommand(w, "session.close", map[string]string{"reason": reason})
	if !connected {
		c.forget(w, reason)
	}
	return nil
}

// forget removes a window for good and reports session.closed.
func (c *lipCore) forget(w *window, reason string) {
	c.mu.Lock()
	_, ok := c.windows[w.id]
	delete(c.windows, w.id)
	c.mu.Unlock()
	if !ok {
		return
	}
	w.mu.Lock()
	w.closed = true
	for _, it := range w.queue {
		if it.timer != nil {
			it.timer.Stop()
		}
	}
	for id, ch := range w.ask {
		close(ch)
		delete(w.ask, id)
	}
	w.mu.Unlock()
	if c.onForget != nil {
		c.onForget(w)
	}
	c.changes.Notify()
	c.publish(w.id, "session.closed", map[string]string{"reason": reason})
}

// handoffMode is config.json's "handoff" as the watcher holds it now, so a
// change applies without a restart.
func (c *lipCore) handoffMode() string {
	if c.handoff != "" {
		return c.handoff
	}
	if c.settings == nil {
		return config.Defaults().Handoff
	}
	return c.settings.Config().Handoff
}

// enterShell counts a shell connection about to be served; false once
// the host is stopping. A true answer is paired with shells.Done.
func (c *lipCore) enterShell() bool {
	c.shellMu.Lock()
	defer c.shellMu.Unlock()
	if c.shellsStopped {
		return false
	}
	c.shells.Add(1)
	return true
}

// waitShells waits until every shell connection's handler has returned
// (stop closed them, so each ends after the frame it is handling), or the
// bound passes: then it says so and returns.
func (c *lipCore) waitShells(bound time.Duration) {
	done := make(chan struct{})
	go func() { c.shells.Wait(); close(done) }()
	t := time.NewTimer(bound)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		c.log.Warn("a window's connection was still being handled when Lets stopped", "waited", bound)
	}
}

// saveSession stores an export or snapshot event (spec §4.2).
func (c *lipCore) saveSession(w *window, e *lip.Envelope, kind sessions.Kind) {
	w.mu.Lock()
	current := w.session
	w.mu.Unlock()
	info, err := c.sessions.Save(w.name, current, kind, e.AppendJSON(nil), c.now())
	if err != nil {
		c.log.Error("a session could not be saved", "unique", w.name, "window", w.id, "err", err)
		c.publish(w.id, "lip.error", lip.Errorf(lip.CodeInternal, "the session could not be saved: %v", err))
		return
	}
	w.mu.Lock()
	w.session = info.ID
	w.mu.Unlock()
	c.changes.Notify()
	if kind != sessions.Export {
		return
	}
	c.publish(w.id, "session.saved", map[string]any{"id": info.ID, "unique": w.name, "summary": info.Summary, "handoff": true})
	if c.handoffMode() == "stay" {
		return
	}
	w.mu.Lock()
	if w.closing == "" {
		w.closing = "handoff"
	}
	w.mu.Unlock()
	c.hostCommand(w, "session.close", map[string]string{"reason": "handoff"})
}

// stop closes every window's timers at host shutdown.
func (c *lipCore) stop(ctx context.Context) {
	c.shellMu.Lock()
	c.shellsStopped = true
	c.shellMu.Unlock()
	c.mu.Lock()
	ws := make([]*window, 0, len(c.windows))
	for _, w := range c.windows {
		ws = append(ws, w)
	}
	c.mu.Unlock()
	for _, w := range ws {
		w.mu.Lock()
		conn := w.conn
		for _, it := range w.queue {
			if it.timer != nil {
				it.timer.Stop()
			}
		}
		w.mu.Unlock()
		if conn != nil {
			conn.shutdown(closeGoingAway, "Lets is stopping")
		}
	}
	_ = ctx
}
