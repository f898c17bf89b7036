// Package chatdriver binds "Chat with Claude" conversations to chat
// windows: each open conversation gets one chat window (the chat unique)
// and one Claude Code agent. What the person types becomes a user turn;
// the agent's streamed text comes back as chat.say; Stop interrupts;
// permission requests the hooks did not answer show the approval card;
// the first-run screens (Claude Code missing, not signed in) are drawn
// with the shell's components. Everything goes through the host's
// privileged API (hostclient), as `lets mcp` does.
//
// Mood: the driver sets the companion's mood itself (thinking while
// streaming, busy while a tool runs, alert while asking or on an error,
// proud on success). When the agent runs with Lets' hooks the host also
// sets it from the hooks' reports for windows bound to the claude pid;
// both map the same states to the same moods (host.moodFor), and the host
// only sends a mood when its own state changes, so the two agree instead
// of fighting: the driver adds the one state the hooks cannot tell apart
// (busy while a tool runs).
package chatdriver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"sync"
	"time"

	"github.com/lets-app/lets/backend/approval"
	"github.com/lets-app/lets/backend/clock"
	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/conversations"
	"github.com/lets-app/lets/backend/hostclient"
)

// DefaultCoalesce is the shortest time between two chat.say chunks of one
// reply (≤ 30 updates a second); the first chunk goes out at once.
const DefaultCoalesce = 33 * time.Millisecond

// ChatUnique is the unique a conversation is shown in.
const ChatUnique = "chat"

// ErrNotRunning: Open after Run ended, or when Run did not begin within
// a while (startWait) or before the caller gave up.
var ErrNotRunning = errors.New("the chat manager is not running: start Lets again")

// Options configure a Manager.
type Options struct {
	// Paths locates host.json (the host's port and token) and the uploads
	// folder images are read from.
	Paths config.Paths
	// HTTP is the host client's transport; nil means hostclient's default.
	HTTP *http.Client
	// Host, when set, is the host in this process (host.Server's
	// LocalHandler): the manager talks to it in memory, without TCP and
	// without reading host.json; HTTP is then unused.
	Host  http.Handler
	Store *conversations.Store
	Start Starter
	// Agent is the base of every agent's options (Claude, MCPConfig,
	// Settings, Env, PermissionPromptStdio, RestartLimit, …); Dir,
	// SessionID, Resume and PermissionMode come from the conversation.
	// Agent.PermissionMode is what a NEW conversation gets (the person's
	// setting; "" = ask, the default); an existing one keeps its own.
	Agent AgentOptions
	// FindClaude, when set, locates claude each time an agent starts (so
	// a claude installed after Lets started is found); it overrides
	// Agent.Claude.
	FindClaude func() (string, error)
	// Auth checks `claude auth status`; nil assumes the person is signed
	// in. ClaudeAuth makes Auth and Login.
	Auth func(ctx context.Context) (AuthState, error)
	// Login starts `claude auth login`; nil shows how to sign in without
	// running it.
	Login func(ctx context.Context) (Login, error)
	// InstallClaude installs Claude Code when the person presses Install
	// Claude Code on the first-run screen, reporting progress; it returns
	// ctx's error when cancelled. nil leaves the button out.
	InstallClaude func(ctx context.Context, progress func(InstallProgress)) error
	// OpenURL opens the sign-in page in the person's browser; nil leaves
	// the link to be copied.
	OpenURL func(url string) error
	// Trust says which folders' own Claude settings may run (trust.go);
	// nil: none, and no folder asks.
	Trust *FolderTrust
	// Coalesce is the shortest time between two chat.say chunks; 0 means
	// DefaultCoalesce.
	Coalesce time.Duration
	// ApproveWait bounds how long the approval card waits for the person
	// (the host caps it at 10 minutes); 0 means 10 minutes.
	ApproveWait time.Duration
	// WireSocket names the pad daemon's socket each time a permission
	// question goes to the pads and phones ("" when no daemon runs). The
	// composition root passes its daemon's; nil means no pads.
	WireSocket func() string
	// Clock is the drivers' time: the coalescing of chat.say chunks, the
	// listen back-off, the times turns are saved at, the wait of a
	// permission question and its order on the pads; nil means the wall
	// clock.
	Clock  clock.Clock
	Logger *slog.Logger
}

// InstallProgress is one step of installing Claude Code: Percent 0–100,
// or -1 when it cannot be told (the bar then moves without a number).
type InstallProgress struct {
	Percent int
	Text    string
}

// Manager runs one driver per open conversation.
type Manager struct {
	opts Options

	// started is closed once Run has begun (and stays closed after it).
	started   chan struct{}
	startOnce sync.Once

	mu      sync.Mutex
	ctx     context.Context // Run's; nil before Run and after it
	drivers map[string]*driver
	// installs cancels the running install of a driver's first-run screen.
	installs map[*driver]context.CancelFunc
	wg       sync.WaitGroup
}

// setInstall remembers (cancel != nil) or forgets a driver's install.
func (m *Manager) setInstall(d *driver, cancel context.CancelFunc) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if cancel == nil {
		delete(m.installs, d)
		return
	}
	m.installs[d] = cancel
}

// cancelInstall stops a driver's install, if one runs.
func (m *Manager) cancelInstall(d *driver) {
	m.mu.Lock()
	cancel := m.installs[d]
	m.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// New returns a manager; Run makes it serve.
func New(opts Options) (*Manager, error) {
	if opts.Store == nil {
		return nil, errors.New("chatdriver: Options.Store is required")
	}
	if opts.Start == nil {
		return nil, errors.New("chatdriver: Options.Start is required")
	}
	if opts.Coalesce <= 0 {
		opts.Coalesce = DefaultCoalesce
	}
	if opts.ApproveWait <= 0 {
		opts.ApproveWait = approval.MaxWait
	}
	opts.Clock = clock.Or(opts.Clock)
	if opts.WireSocket == nil {
		// No pad daemon: questions go to the window card only.
		opts.WireSocket = func() string { return "" }
	}

	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Manager{opts: opts, started: make(chan struct{}), drivers: map[string]*driver{}, installs: map[*driver]context.CancelFunc{}}, nil
}

// startWait bounds how long a request waits for Run to begin. Lets' host
// takes requests the moment it listens, which can be a moment before the
// chat service's own goroutine has run (CI f5: a first `lets chat` under
// load was told "start Lets again" by a Lets that had just started).
const startWait = 10 * time.Second

// waitStarted waits until Run has begun, ctx ends or startWait passes.
func (m *Manager) waitStarted(ctx context.Context) {
	select {
	case <-m.started:
		return
	default:
	}
	t := m.opts.Clock.NewTimer(startWait)
	defer t.Stop()
	select {
	case <-m.started:
	case <-ctx.Done():
	case <-t.C():
	}
}

// Run serves until ctx ends, then stops every agent (the conversations
// stay) and returns nil.
func (m *Manager) Run(ctx context.Context) error {
	m.mu.Lock()
	m.ctx = ctx
	m.mu.Unlock()
	m.startOnce.Do(func() { close(m.started) })
	<-ctx.Done()
	m.mu.Lock()
	m.ctx = nil
	m.mu.Unlock()
	m.wg.Wait()
	return nil
}

// UseHost makes the manager talk to the host of this process in memory
// (host.Server's LocalHandler), for a host that can only be built after
// the manager (it serves the manager's chats). Call it before Run.
func (m *Manager) UseHost(h http.Handler) {
	m.mu.Lock()
	m.opts.Host = h
	m.mu.Unlock()
}

func (m *Manager) client(pid int) *hostclient.Client {
	m.mu.Lock()
	h := m.opts.Host
	m.mu.Unlock()
	if h != nil {
		return hostclient.NewLocal(h, hostclient.Options{ClaudePID: pid})
	}
	return hostclient.New(m.opts.Paths, hostclient.Options{HTTP: m.opts.HTTP, ClaudePID: pid})
}

// Open shows a conversation in a chat window and returns the window id:
// convID "" starts a new conversation; a conversation already open returns
// its window. Errors: ErrNotRunning, conversations' errors, the host's
// (hostclient) or the agent's.
func (m *Manager) Open(ctx context.Context, convID string) (string, error) {
	w, _, err := m.OpenChat(ctx, convID)
	return w, err
}

// OpenChat is Open that also returns the window's one-time URL when no
// native window took it (a headless Lets: the person opens the link in a
// browser); "" otherwise, and for a conversation that was already open.
func (m *Manager) OpenChat(ctx context.Context, convID string) (window, url string, err error) {
	return m.open(ctx, convID, "")
}

// OpenNew starts a new conversation whose Claude Code works in folder (an
// absolute path; "" is the default, ~/Lets), like OpenChat(ctx, "").
func (m *Manager) OpenNew(ctx context.Context, folder string) (window, url string, err error) {
	if folder != "" && !filepath.IsAbs(folder) {
		return "", "", &FolderError{Folder: folder}
	}
	return m.open(ctx, "", filepath.Clean(folder))
}

// FolderError is a working folder that is not an absolute path.
type FolderError struct{ Folder string }

func (e *FolderError) Error() string {
	return fmt.Sprintf("the working folder %q is not a full path; give one that starts with /", e.Folder)
}

func (m *Manager) open(ctx context.Context, convID, folder string) (window, url string, err error) {
	if folder == "." {
		folder = ""
	}
	m.waitStarted(ctx)
	m.mu.Lock()
	runCtx := m.ctx
	if runCtx == nil {
		m.mu.Unlock()
		return "", "", ErrNotRunning
	}
	if d := m.drivers[convID]; convID != "" && d != nil {
		m.mu.Unlock()
		return d.currentWindow(), "", nil
	}
	m.mu.Unlock()

	var conv *conversations.Conversation
	if convID == "" {
		conv, err = m.opts.Store.Create(conversations.CreateOptions{PermissionMode: m.opts.Agent.PermissionMode, Dir: folder})
	} else {
		conv, err = m.opts.Store.Get(convID)
	}
	if err != nil {
		return "", "", err
	}
	dctx, cancel := context.WithCancel(runCtx)
	d := newDriver(m, conv, cancel)
	if err := d.start(ctx, dctx); err != nil {
		cancel()
		d.cleanup()
		return "", "", err
	}
	m.mu.Lock()
	if m.ctx == nil {
		m.mu.Unlock()
		cancel()
		d.cleanup()
		return "", "", ErrNotRunning
	}
	if other := m.drivers[conv.ID]; other != nil {
		// Opened twice at once: keep the first.
		m.mu.Unlock()
		cancel()
		d.cleanup()
		_, _ = d.client.Close(ctx, d.currentWindow())
		return other.currentWindow(), "", nil
	}
	m.drivers[conv.ID] = d
	m.wg.Add(1)
	m.mu.Unlock()
	go func() {
		defer m.wg.Done()
		d.loop(dctx)
		m.forget(d)
	}()
	window, url = d.takeWindow()
	return window, url, nil
}

// forget drops a finished driver.
func (m *Manager) forget(d *driver) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for id, x := range m.drivers {
		if x == d {
			delete(m.drivers, id)
		}
	}
	delete(m.installs, d)
}

// rekey moves a driver to a new conversation id (after "New chat").
func (m *Manager) rekey(d *driver, newID string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for id, x := range m.drivers {
		if x == d {
			delete(m.drivers, id)
		}
	}
	m.drivers[newID] = d
}

// Subscribe returns a channel that receives a signal whenever the
// conversations List returns changed (coalesced); it is closed when ctx
// ends.
func (m *Manager) Subscribe(ctx context.Context) <-chan struct{} {
	return m.opts.Store.Subscribe(ctx)
}

// List returns the conversations, newest first (unreadable ones are left
// out and logged).
func (m *Manager) List() []conversations.Info {
	list, err := m.opts.Store.List()
	if err != nil {
		m.opts.Logger.Warn("chat: cannot list the conversations", "err", err)
		return []conversations.Info{}
	}
	return list
}

// Window returns the chat window of an open conversation, or "".
func (m *Manager) Window(convID string) string {
	m.mu.Lock()
	d := m.drivers[convID]
	m.mu.Unlock()
	if d == nil {
		return ""
	}
	return d.currentWindow()
}

// Delete stops a conversation when it is open (its window closes, its
// agent stops) and removes its file. Claude Code's own session files stay.
func (m *Manager) Delete(id string) error {
	if !conversations.ValidID(id) {
		return &conversations.BadIDError{ID: id}
	}
	m.mu.Lock()
	d := m.drivers[id]
	m.mu.Unlock()
	if d != nil {
		d.stop(true)
	}
	return m.opts.Store.Delete(id)
}

// String names a manager in logs.
func (m *Manager) String() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return fmt.Sprintf("chat manager (%d open)", len(m.drivers))
}
