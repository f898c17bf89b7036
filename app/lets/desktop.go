package lets

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/lets-app/lets/app/notify"
	"github.com/lets-app/lets/app/tray"
	"github.com/lets-app/lets/backend/chatdriver"
	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/conversations"
	"github.com/lets-app/lets/backend/host"
	"github.com/lets-app/lets/backend/hostapi"
	"github.com/lets-app/lets/backend/hostclient"
	"github.com/lets-app/lets/backend/service"
	"github.com/lets-app/lets/backend/surface/web"
	"github.com/lets-app/lets/backend/textsafe"
	"github.com/lets-app/lets/backend/wireclient"
)

// IsFirstRun says whether Lets has never run for this person: its data
// folder does not exist yet.
func IsFirstRun(getenv func(string) string) bool {
	home, err := config.ResolveHome(getenv)
	if err != nil {
		return false
	}
	_, err = os.Stat(home)
	return errors.Is(err, fs.ErrNotExist)
}

// DesktopMissing says what the tray needs and this session lacks, or "".
func DesktopMissing(getenv func(string) string) string {
	if runtime.GOOS != "linux" {
		return "The tray only works on Linux in this version of Lets"
	}
	if getenv("DISPLAY") == "" && getenv("WAYLAND_DISPLAY") == "" {
		return "No display here (DISPLAY and WAYLAND_DISPLAY are not set)"
	}
	addr := SessionBusAddress(getenv)
	if addr == "" {
		return "No session bus here (DBUS_SESSION_BUS_ADDRESS is not set)"
	}
	if err := probeBus(addr); err != nil {
		return fmt.Sprintf("The session bus at %s does not answer (%v)", addr, err)
	}
	return ""
}

// SessionBusAddress is where the session bus listens: the variable, or the
// systemd user bus socket.
func SessionBusAddress(getenv func(string) string) string {
	if a := getenv("DBUS_SESSION_BUS_ADDRESS"); a != "" {
		return a
	}
	if dir := getenv("XDG_RUNTIME_DIR"); dir != "" {
		p := filepath.Join(dir, "bus")
		if fi, err := os.Stat(p); err == nil && fi.Mode()&os.ModeSocket != 0 {
			return "unix:path=" + p
		}
	}
	return ""
}

// busProbeTimeout bounds probeBus.
const busProbeTimeout = 2 * time.Second

// probeBus connects to the bus and says hello, within two seconds. The
// connection is bound to the deadline (dbus.WithContext closes it when the
// time is up), so no goroutine outlives the probe.
func probeBus(addr string) error {
	ctx, cancel := context.WithTimeout(context.Background(), busProbeTimeout)
	defer cancel()
	conn, err := dbus.Connect(addr, dbus.WithContext(ctx))
	if err != nil {
		if ctx.Err() != nil {
			return errors.New("no answer within 2 s")
		}
		return err
	}
	return conn.Close()
}

// TrayHostRunning reports whether a StatusNotifierWatcher (the part of a
// desktop panel that shows tray icons) owns its name on the bus at addr.
func TrayHostRunning(addr string) bool {
	conn, err := dbus.Connect(addr)
	if err != nil {
		return false
	}
	defer conn.Close()
	var has bool
	call := conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, "org.kde.StatusNotifierWatcher")
	if call.Err != nil || call.Store(&has) != nil {
		return false
	}
	return has
}

// ClaudeSetup runs `lets setup claude` in this process (the tray's and
// Home's "Set up Claude…"): it returns what the set-up said, whether the
// MCP server is left for the person to register (claude is not on PATH),
// and the error. app/cli provides it: the set-up and its words live there.
type ClaudeSetup func(ctx context.Context, env *Env) (out string, manual bool, err error)

// CodexSetup runs `lets setup codex` (remove: `--uninstall`) in this
// process, for Home's Codex card; it returns what the set-up said. app/cli
// provides it, as it does ClaudeSetup.
type CodexSetup func(ctx context.Context, env *Env, remove bool) (out string, err error)

// Desktop is what plain `lets` adds to `lets serve`. The exported fields
// are its configuration, set before the Process that holds it provisions.
type Desktop struct {
	Env      *Env
	Headless bool
	// FirstRun: Lets made its data folder in this start; Home opens with
	// a welcome.
	FirstRun bool
	// NoTrayHost: no tray host ran when Lets started, so the home window
	// is the app's main window.
	NoTrayHost bool
	// Notify shows a desktop notification (nil: none is shown).
	Notify func(ctx context.Context, m notify.Message) error
	// HandOff asks the Lets that already runs for this data folder to
	// show itself (single instance); nil error: this start ends there.
	HandOff func(ctx context.Context, paths config.Paths) error
	// SetupClaude backs "Set up Claude…" in the tray and on Home.
	SetupClaude ClaudeSetup
	// SetupCodex backs Home's "Set up Codex" and "Remove".
	SetupCodex CodexSetup
	// trayHost is set once a tray host runs after all (it shows the icon).
	trayHost atomic.Bool
	// quit is closed when Lets should quit (the main window closed).
	quit     chan struct{}
	quitOnce sync.Once

	mu      sync.Mutex
	hostURL string
	// homeLink makes a one-time link to the home page (host.HomeLink).
	homeLink func() (string, error)
	// nativeHome opens the home page in a native window, or brings the
	// open one to the front, and says which (homeOpened, homeRaised); nil
	// when windows open in the browser (no GUI support or no display).
	nativeHome func(link string) (string, error)
	// wins are the native windows; nil without.
	wins *nativeWindows
	log  *slog.Logger
	// chat runs "Chat with Claude" (the tray's chat items); nil without.
	chat *chatdriver.Manager
}

// useChat gives the tray the chat manager.
func (d *Desktop) useChat(m *chatdriver.Manager) {
	if d == nil {
		return
	}
	d.mu.Lock()
	d.chat = m
	d.mu.Unlock()
}

// useWindows makes the home window a native window when wins can open
// them (wins is nil otherwise, and home opens in the browser).
func (d *Desktop) useWindows(wins *nativeWindows) {
	if d == nil || wins == nil {
		return
	}
	d.mu.Lock()
	d.nativeHome = wins.openHome
	d.wins = wins
	d.mu.Unlock()
	wins.onHomeClosed(d.homeWindowClosed)
}

// errNoClaudeSetup: this Lets was started without a way to set up Claude.
var errNoClaudeSetup = errors.New("this Lets cannot set up Claude itself; run `lets setup claude` in a terminal")

// errNoWindowToRaise means windows open in the browser here, so none can
// be brought to the front.
var errNoWindowToRaise = errors.New("this Lets shows windows in the browser, so it cannot bring one to the front")

// focusWindow brings a host window's native window to the front.
func (d *Desktop) focusWindow(id string) error {
	d.mu.Lock()
	wins := d.wins
	d.mu.Unlock()
	if wins == nil {
		return errNoWindowToRaise
	}
	return wins.focus(id)
}

// homeWindowClosed: the person closed the home window. Without a tray it
// was the app's main window, so Lets quits; with one, Lets stays there.
func (d *Desktop) homeWindowClosed() {
	d.mu.Lock()
	log := d.log
	d.mu.Unlock()
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if !d.NoTrayHost || d.trayHost.Load() {
		log.Info("the home window was closed; Lets stays in the tray")
		return
	}
	log.Info("the home window was closed and no tray shows Lets, so Lets quits")
	d.requestQuit()
}

// requestQuit makes the desktop service end, which stops Lets.
func (d *Desktop) requestQuit() {
	d.quitOnce.Do(func() {
		d.mu.Lock()
		if d.quit == nil {
			d.quit = make(chan struct{})
		}
		close(d.quit)
		d.mu.Unlock()
	})
}

// quitRequested is closed once Lets should quit.
func (d *Desktop) quitRequested() <-chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.quit == nil {
		d.quit = make(chan struct{})
	}
	return d.quit
}

// command is how the lock names this process.
func (d *Desktop) command() string { return "lets" }

// Ways showHome showed Home (besides homeOpened and homeRaised).
const (
	HomeInBrowser = "browser"
	homeNotShown  = ""
)

// welcomeParam is added to the home link's fragment on the first run: the
// page then greets the person (frontend/src/home.ts).
const welcomeParam = "&welcome=1"

// showHome shows the home window: the host's home page, through a
// one-time home link (the page trades it for its own token), in the
// desktop browser. The tray's "Home…" item, "Set up Claude…" and a second
// `lets` all come here. With native windows it opens in a `lets window`
// process instead, or, when that is open, brings it to the front.
func (d *Desktop) showHome() { d.showHomeWith(false) }

// showHomeWith is showHome, with the first-run welcome when welcome is
// set. It says how Home showed (homeOpened, homeRaised, HomeInBrowser or
// homeNotShown).
func (d *Desktop) showHomeWith(welcome bool) string {
	d.mu.Lock()
	u, homeLink, nativeHome, log := d.hostURL, d.homeLink, d.nativeHome, d.log
	d.mu.Unlock()
	if u == "" {
		return homeNotShown
	}
	link, err := homeLink()
	if err != nil {
		log.Warn("could not make a link to the home page; run `lets` again to get a fresh one", "err", err)
		return homeNotShown
	}
	if welcome {
		link += welcomeParam
	}
	if nativeHome != nil {
		how, err := nativeHome(link)
		switch {
		case err == nil && how == homeRaised:
			log.Info("the home window is already open; brought it to the front")
			return how
		case err == nil && how == homeAlreadyOpen:
			return how
		case err == nil:
			log.Info("showing the home window", "url", u+"/", "window", "native", "welcome", welcome)
			return how
		}
		// No process took the link, so the browser can still use it.
		log.Warn("the home window could not open; showing home in the browser instead", "err", err)
	}
	log.Info("showing the home window", "url", u+"/", "welcome", welcome)
	if err := d.Env.OpenInBrowser(link); err != nil {
		log.Warn("could not open the home page in the browser; run `lets` again, or open Home from the tray", "err", err)
		return homeNotShown
	}
	return HomeInBrowser
}

// noTrayNote is the notification that says where Lets is on a desktop
// without a tray, for how Home showed.
func noTrayNote(how string) notify.Message {
	m := notify.Message{Summary: "Lets is running", Urgency: notify.Normal}
	switch how {
	case homeOpened, homeRaised, homeAlreadyOpen:
		m.Summary = "Lets is open in its window"
		m.Body = "This desktop shows no tray icons, so Lets lives in its window. Closing the window quits Lets; start Lets from your apps menu to come back."
	case HomeInBrowser:
		m.Body = "This desktop shows no tray icons, so Lets opened its home page in your browser. Lets keeps running; start it again from your apps menu to get back to Home."
	default:
		m.Body = "This desktop shows no tray icons. Start Lets again from your apps menu to open its home window."
	}
	return m
}

// desktopService is the tray plus the rest of what plain `lets` does once
// everything runs: Home on the first run, and on a desktop without a tray
// the home window as the main window. It ends (and so stops Lets) when the
// tray's Quit is clicked or the main window closes.
type desktopService struct {
	d    *Desktop
	tray service.Service
	bus  string
}

// Name is the service name.
func (s *desktopService) Name() string { return "tray" }

// Run runs the tray until ctx ends or Lets should quit.
func (s *desktopService) Run(ctx context.Context) error {
	d := s.d
	ctx, cancel := context.WithCancel(ctx)
	// Every goroutine started here ends with ctx: cancel, then wait.
	var parts sync.WaitGroup
	defer parts.Wait()
	defer cancel()
	trayDone := make(chan error, 1)
	go func() { trayDone <- s.tray.Run(ctx) }()
	quit := d.quitRequested()
	switch {
	case d.NoTrayHost:
		parts.Add(1)
		go func() {
			defer parts.Done()
			watchTrayHost(ctx, s.bus, func() {
				if !d.trayHost.Swap(true) {
					d.log.Info("a tray host started; the Lets icon is in the tray now, and closing the home window no longer quits Lets")
				}
			}, d.log)
		}()
		how := d.showHomeWith(d.FirstRun)
		if d.Notify != nil {
			parts.Add(1)
			go func() {
				defer parts.Done()
				nctx, ncancel := context.WithTimeout(ctx, 5*time.Second)
				defer ncancel()
				if err := d.Notify(nctx, noTrayNote(how)); err != nil {
					d.log.Info("no notification about where Lets is", "err", err)
				}
			}()
		}
	case d.FirstRun:
		d.showHomeWith(true)
	}
	select {
	case err := <-trayDone:
		return err
	case <-quit:
		cancel()
		<-trayDone
		return nil
	}
}

// watchTrayHost calls started once a tray host (StatusNotifierWatcher)
// runs on the bus at addr, now or later, until ctx ends.
func watchTrayHost(ctx context.Context, addr string, started func(), log *slog.Logger) {
	conn, err := dbus.Connect(addr)
	if err != nil {
		log.Debug("cannot watch for a tray host starting", "err", err)
		return
	}
	defer conn.Close()
	const watcher = "org.kde.StatusNotifierWatcher"
	if err := conn.AddMatchSignalContext(ctx,
		dbus.WithMatchObjectPath("/org/freedesktop/DBus"),
		dbus.WithMatchInterface("org.freedesktop.DBus"),
		dbus.WithMatchSender("org.freedesktop.DBus"),
		dbus.WithMatchMember("NameOwnerChanged"),
		dbus.WithMatchArg(0, watcher)); err != nil {
		log.Debug("cannot watch for a tray host starting", "err", err)
		return
	}
	signals := make(chan *dbus.Signal, 8)
	conn.Signal(signals)
	defer conn.RemoveSignal(signals)
	var running bool
	if err := conn.BusObject().CallWithContext(ctx, "org.freedesktop.DBus.NameHasOwner", 0, watcher).Store(&running); err == nil && running {
		started()
		return
	}
	for {
		select {
		case <-ctx.Done():
			return
		case sig, ok := <-signals:
			if !ok || sig == nil {
				return
			}
			if len(sig.Body) >= 3 {
				if owner, _ := sig.Body[2].(string); owner != "" {
					started()
					return
				}
			}
		}
	}
}

// trayParts is what the tray reads and drives.
type trayParts struct {
	// host is the host of this process, in memory (hostclient.NewLocal).
	host       *hostclient.Client
	wire       *wireclient.Client // nil when the pad daemon is off
	web        *web.Server        // nil when the browser pad is off
	auto       tray.Autostart
	log        *slog.Logger
	env        *Env
	desk       *Desktop
	selectSlot func(slot int) bool
	// setupClaude backs "Set up Claude…" (Desktop.SetupClaude).
	setupClaude ClaudeSetup
	chat        *chatdriver.Manager // nil: no chat items
	// changes subscribes the tray to the change feeds of the host, the
	// pad daemon and the chats, so it follows them instead of polling.
	changes func(ctx context.Context) []<-chan struct{}
}

// newTray builds the tray service once the host and the pads run.
func (d *Desktop) newTray(p trayParts) (*tray.Tray, error) {
	src := &traySource{parts: p}
	return tray.New(tray.Options{
		Source:  src.snapshot,
		Handle:  src.handle,
		Log:     p.log,
		Changes: p.changes,
	})
}

// traySource reads the snapshot the tray shows: agent sessions from the
// daemon's status every poll, windows from the host every poll, uniques and
// saved sessions every slowEvery (they change rarely and cost disk reads).
type traySource struct {
	parts trayParts

	slowAt  time.Time
	uniques []tray.Unique
	saved   []tray.Saved
	chats   []tray.Chat
	// chatsStale: a chat opened from the tray; list them at the next poll.
	chatsStale bool
	slots      map[string]int // backend+"\x00"+session → slot, for selection
	// claudeNote says how the last "Set up Claude…" went.
	claudeNote tray.Note
	// windows are the host's windows at the last poll.
	windows []tray.Window
	mu      sync.Mutex
}

// focus brings a window to the front, if it is a native one.
func (s *traySource) focus(id string) error {
	if s.parts.desk == nil {
		return errNoWindowToRaise
	}
	return s.parts.desk.focusWindow(id)
}

// focusUnique brings a native window of unique to the front, if one is
// open (as of the last poll); false means none came.
func (s *traySource) focusUnique(unique string) bool {
	s.mu.Lock()
	wins := slices.Clone(s.windows)
	s.mu.Unlock()
	for _, w := range wins {
		if w.Unique == unique && s.focus(w.ID) == nil {
			s.parts.log.Debug("the unique has a window open; brought it to the front", "unique", unique, "window", w.ID)
			return true
		}
	}
	return false
}

const slowEvery = 10 * time.Second

func (s *traySource) snapshot(ctx context.Context) (tray.Snapshot, error) {
	p := s.parts
	s.mu.Lock()
	note := s.claudeNote
	s.mu.Unlock()
	snap := tray.Snapshot{
		PadOn:        p.wire != nil,
		BrowserPad:   p.web != nil,
		ClaudeNote:   note,
		StartAtLogin: p.auto.Enabled(),
		ChatOn:       p.chat != nil,
	}
	var errs []error
	slots := map[string]int{}
	if p.wire != nil {
		sctx, cancel := context.WithTimeout(ctx, time.Second)
		st, err := p.wire.Status(sctx)
		cancel()
		if err != nil {
			errs = append(errs, fmt.Errorf("ask the pad daemon for its sessions: %w", err))
		}
		for _, ss := range st.Sessions {
			snap.Sessions = append(snap.Sessions, tray.Session{
				Backend: ss.Backend, ID: ss.SessionID, Label: ss.Label, State: ss.State,
				Accent: ss.Accent, Selected: ss.Selected,
			})
			slots[ss.Backend+"\x00"+ss.SessionID] = ss.Slot
		}
	}
	s.mu.Lock()
	s.slots = slots
	s.mu.Unlock()

	ws, err := p.host.Windows(ctx)
	if err != nil {
		errs = append(errs, err)
	}
	for _, w := range ws.Windows {
		snap.Windows = append(snap.Windows, tray.Window{ID: w.Window, Unique: w.Unique, Title: w.Title, Session: w.Session})
	}

	if now := time.Now(); s.slowAt.IsZero() || now.Sub(s.slowAt) >= slowEvery {
		before := len(errs)
		if us, err := p.host.Uniques(ctx); err != nil {
			errs = append(errs, err)
		} else {
			s.uniques = s.uniques[:0:0]
			for _, u := range us.Uniques {
				s.uniques = append(s.uniques, tray.Unique{Name: u.Name, Title: u.Title})
			}
		}
		if ss, err := p.host.Sessions(ctx, ""); err != nil {
			errs = append(errs, err)
		} else {
			s.saved = s.saved[:0:0]
			for _, r := range ss.Sessions {
				s.saved = append(s.saved, tray.Saved{Unique: r.Unique, ID: r.ID, Summary: textsafe.OneLine(r.Summary, 40), SavedAt: time.UnixMilli(r.TS)})
			}
		}
		s.mu.Lock()
		s.chatsStale = true
		s.mu.Unlock()
		// A failed read is tried again at the next poll, not in 10 s.
		if len(errs) == before {
			s.slowAt = now
		}
	}
	s.mu.Lock()
	stale := s.chatsStale
	s.chatsStale = false
	s.mu.Unlock()
	if stale && p.chat != nil {
		s.chats = trayChats(p.chat.List())
	}
	snap.Uniques, snap.Saved, snap.Chats = s.uniques, s.saved, s.chats
	s.mu.Lock()
	s.windows = snap.Windows
	s.mu.Unlock()
	return snap, errors.Join(errs...)
}

// handle runs one tray click.
func (s *traySource) handle(ctx context.Context, a tray.Action) {
	p := s.parts
	log := p.log.With("action", a.String())
	var err error
	switch a.Kind {
	case tray.ActionSelectSession:
		s.mu.Lock()
		slot, ok := s.slots[a.Backend+"\x00"+a.Session]
		s.mu.Unlock()
		switch {
		case !ok:
			err = errors.New("that agent session has ended")
		case slot < 0:
			err = errors.New("that agent has no place on the pads right now (more agents than pads); end another one first")
		case p.selectSlot == nil || !p.selectSlot(slot):
			err = errors.New("the pads cannot take a selection right now")
		}
	case tray.ActionFocusWindow:
		// A native window comes to the front. A window Lets cannot raise
		// (in the browser) opens again: a new window that resumes the
		// window's own last save (or the unique's latest one).
		if ferr := s.focus(a.Window); ferr == nil {
			break
		} else {
			log.Debug("the window cannot be brought to the front; opening it again", "err", ferr)
		}
		resume := a.Session
		if resume == "" {
			resume = "last"
		}
		err = s.open(ctx, a.Unique, resume)
	case tray.ActionOpenUnique:
		// A unique that has a native window open comes to the front
		// instead of a second, identical window on top (Home's "Open" or
		// Claude still open more).
		if s.focusUnique(a.Unique) {
			break
		}
		err = s.open(ctx, a.Unique, "")
	case tray.ActionResume:
		err = s.open(ctx, a.Unique, a.Session)
	case tray.ActionPairPhone:
		err = s.pairPhone()
	case tray.ActionVirtualPad:
		err = s.openVirtualPad()
	case tray.ActionShowHome:
		p.desk.showHome()
	case tray.ActionSetupClaude:
		err = s.setupClaude(ctx)
	case tray.ActionToggleStartAtLogin:
		err = p.auto.Set(!p.auto.Enabled())
	case tray.ActionNewChat, tray.ActionContinueChat:
		err = s.openChat(ctx, a.Chat)
	}
	if err != nil {
		log.Warn("the tray could not do that", "err", err)
		return
	}
	log.Info("tray action done")
}

// trayChats are the newest conversations the tray offers to continue.
func trayChats(list []conversations.Info) []tray.Chat {
	out := make([]tray.Chat, 0, min(len(list), tray.ChatRecent))
	for _, c := range list {
		if len(out) == tray.ChatRecent {
			break
		}
		out = append(out, tray.Chat{ID: c.ID, Title: c.Title, Updated: c.Updated})
	}
	return out
}

// openChat opens a conversation ("" a new one) in its chat window; the
// next poll lists a new one.
func (s *traySource) openChat(ctx context.Context, id string) error {
	if s.parts.chat == nil {
		return errors.New("Chat with Claude does not run in this Lets")
	}
	octx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if _, err := s.parts.chat.Open(octx, id); err != nil {
		return fmt.Errorf("open the chat: %w", err)
	}
	s.mu.Lock()
	s.chatsStale = true
	s.mu.Unlock()
	return nil
}

// open asks the host for a window; the host shows it itself (a native
// window or the browser), or keeps it waiting on the home page.
func (s *traySource) open(ctx context.Context, unique, resume string) error {
	req := hostapi.OpenRequest{Unique: unique, Resume: resume}
	_, err := s.parts.host.Open(ctx, req)
	var ae *hostclient.APIError
	if resume == "last" && errors.As(err, &ae) && ae.Code == string(hostapi.CodeUnknownSession) {
		req.Resume = ""
		_, err = s.parts.host.Open(ctx, req)
	}
	if err != nil {
		return fmt.Errorf("open %s: %w", unique, err)
	}
	return nil
}

// setupClaude runs `lets setup claude` in this process, logs what it
// said, puts a line about how it went under the menu item and, when it
// worked, shows Home, which tells whether Claude Code is ready.
func (s *traySource) setupClaude(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	if s.parts.setupClaude == nil {
		return errNoClaudeSetup
	}
	out, manual, err := s.parts.setupClaude(cctx, s.parts.env)
	s.parts.log.Info("lets setup claude", "output", out)
	note := ClaudeTrayNote(out, manual, err)
	s.mu.Lock()
	s.claudeNote = note
	s.mu.Unlock()
	if err != nil {
		return errors.New(note.Tooltip)
	}
	if s.parts.desk != nil {
		s.parts.desk.showHome()
	}
	return nil
}

// start builds the tray (and the desktop's other duties, desktopService)
// once the host runs and host.json is written.
func (d *Desktop) start(env *Env, st *Setup, srv *host.Server, pads *PadParts) (service.Service, error) {
	d.mu.Lock()
	d.hostURL, d.homeLink, d.log = srv.URL(), srv.HomeLink, st.Log
	chat := d.chat
	d.mu.Unlock()
	exe, err := Executable(env.Getenv)
	if err != nil {
		exe = "lets"
	}
	auto, err := tray.NewAutostart(env.Getenv, exe)
	if err != nil {
		return nil, err
	}
	p := trayParts{
		host: hostclient.NewLocal(srv.LocalHandler(), hostclient.Options{}),
		auto: auto,
		log:  st.Log.With("part", "tray"),
		env:  env,
		desk: d,
		chat: chat,

		setupClaude: d.SetupClaude,
	}
	if pads != nil {
		p.wire = wireclient.New(pads.daemon.SocketPath())
		p.web = pads.web
		p.selectSlot = pads.selectSlot
	}
	p.changes = func(ctx context.Context) []<-chan struct{} {
		feeds := []<-chan struct{}{srv.Subscribe(ctx)}
		if pads != nil {
			feeds = append(feeds, pads.daemon.Subscribe(ctx))
		}
		if chat != nil {
			feeds = append(feeds, chat.Subscribe(ctx))
		}
		return feeds
	}
	t, err := d.newTray(p)
	if err != nil {
		return nil, err
	}
	if d.NoTrayHost {
		fmt.Fprintln(env.Stdout, "No tray host runs on this desktop yet (on GNOME, turn on the AppIndicator extension), so Lets shows its home window as its main window; closing it quits Lets. The Lets icon appears when a tray host starts.")
	}
	return &desktopService{d: d, tray: t, bus: SessionBusAddress(env.Getenv)}, nil
}
