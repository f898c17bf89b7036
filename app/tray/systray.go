package tray

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"fyne.io/systray"
	"github.com/godbus/dbus/v5"

	"github.com/lets-app/lets/backend/clock"
)

// Source returns what the menu should show now. It is called on the tray's
// goroutine every Poll; it should give a partial snapshot rather than fail
// when one part of Lets does not answer.
type Source func(ctx context.Context) (Snapshot, error)

// Options configure a Tray.
type Options struct {
	// Source is read when Changes signals and every Poll; required.
	Source Source
	// Changes, when set, is called once by Run with its context and
	// returns channels that signal that Source has news (the host's, the
	// pad daemon's and the chats' change feeds; each closed when the
	// context ends): the menu follows them at once and Poll is only a slow
	// resynchronisation.
	Changes func(ctx context.Context) []<-chan struct{}
	// Handle runs a clicked action (not Quit, which ends Run). It runs on
	// its own goroutine, so it may open a browser or start a program.
	Handle func(ctx context.Context, a Action)
	// Poll is how often Source is read; 0 means DefaultPoll, or
	// ResyncPoll when Changes is set.
	Poll time.Duration
	// Debounce is how long a change waits before the menu is rebuilt; 0
	// means DebounceDelay.
	Debounce time.Duration
	Log      *slog.Logger
	// Clock is the tray's time (poll and debounce); nil means the wall
	// clock.
	Clock clock.Clock
}

// DefaultPoll is how often the tray asks Lets for news when nothing tells
// it of changes.
const DefaultPoll = 500 * time.Millisecond

// ResyncPoll is how often a tray that is told of changes reads its source
// anyway, for what has no change feed (the autostart file, a Claude set-up
// note).
const ResyncPoll = 10 * time.Second

// Tray is the tray icon and menu over DBus (StatusNotifierItem and
// com.canonical.dbusmenu through fyne.io/systray). fyne.io/systray keeps
// its state in package variables, so Run may be called once per process.
type Tray struct {
	opts  Options
	icons map[Level][]byte
}

// New checks opts and draws the icons.
func New(opts Options) (*Tray, error) {
	if opts.Source == nil {
		return nil, errors.New("tray: Options.Source is required")
	}
	if opts.Handle == nil {
		opts.Handle = func(context.Context, Action) {}
	}
	if opts.Poll <= 0 {
		opts.Poll = DefaultPoll
		if opts.Changes != nil {
			opts.Poll = ResyncPoll
		}
	}
	if opts.Debounce <= 0 {
		opts.Debounce = DebounceDelay
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	opts.Clock = clock.Or(opts.Clock)
	t := &Tray{opts: opts, icons: map[Level][]byte{}}
	for _, l := range []Level{LevelIdle, LevelRunning, LevelWaiting, LevelApproval} {
		png, err := Icon(l)
		if err != nil {
			return nil, err
		}
		t.icons[l] = png
	}
	return t, nil
}

// Name is the service name.
func (t *Tray) Name() string { return "tray" }

// Run shows the tray until ctx ends or the person clicks Quit (then it
// returns nil, which stops the rest of Lets).
func (t *Tray) Run(ctx context.Context) error {
	clicks := make(chan Action, 16)
	var shownLevel Level = -1
	var menuDone chan struct{}
	var shown []Item
	var drawn []*drawnItem
	show := func(s Snapshot) {
		level := MostUrgent(s.Sessions)
		if level != shownLevel {
			systray.SetIcon(t.icons[level])
			shownLevel = level
		}
		systray.SetTooltip(Tooltip(s.Sessions))
		items := Menu(s)
		if drawn != nil && SameShape(shown, items) {
			// Same entries, new words: update them in place, so the ids
			// stay, an open menu does not jump under the pointer, and
			// the tray host is not made to drop and rebuild its menu
			// (libdbusmenu warns when it is).
			for i := range items {
				drawn[i].update(items[i], clicks, menuDone)
			}
			shown = items
			t.opts.Log.Debug("tray menu updated", "sessions", len(s.Sessions), "windows", len(s.Windows), "level", level.String())
			return
		}
		// A new shape is drawn anew (systray.ResetMenu). The model keeps
		// one shape for the whole run, so this happens only for the
		// first menu, before the item is on the bus; a later one would
		// make a tray host warn once, as the new root goes without the
		// property declareRootSubmenu gives the first.
		if menuDone != nil {
			close(menuDone)
		}
		menuDone = make(chan struct{})
		shown, drawn = items, t.draw(items, clicks, menuDone)
		t.opts.Log.Debug("tray menu rebuilt", "sessions", len(s.Sessions), "windows", len(s.Windows), "level", level.String())
	}
	defer func() {
		if menuDone != nil {
			close(menuDone)
		}
	}()

	first, err := t.opts.Source(ctx)
	if err != nil {
		t.opts.Log.Warn("the tray could not read the state of Lets; it will keep trying", "err", err)
	}
	// The first menu is drawn before the item goes on the bus, so the
	// tray host's first read gets the whole menu, not a menu being
	// built (which libdbusmenu warns about).
	show(first)
	// Before the item goes on the bus: the root of the menu says its
	// entries are a menu, so the tray host does not warn when it reads
	// the menu again (see declareRootSubmenu).
	declareRootSubmenu()

	ready := make(chan struct{})
	start, end := systray.RunWithExternalLoop(func() { close(ready) }, nil)
	// The title set before start becomes the item's Id, which tray hosts
	// remember an item by (xfce4-panel lists it among its known items,
	// to hide or show it). Set later, the Id is "systray_<pid>": a new
	// item on every run.
	systray.SetTitle(ItemID)
	start()
	defer end()
	// start exported the item on the shared session bus connection.
	if conn, err := dbus.SessionBus(); err == nil {
		regCtx, stopReg := context.WithCancel(ctx)
		defer stopReg()
		go stayRegistered(regCtx, conn, t.opts.Log)
	}
	select {
	case <-ready:
	case <-ctx.Done():
		return nil
	}

	f := t.follower(show)
	if t.opts.Changes != nil {
		f.changes = t.opts.Changes(ctx)
	}
	return f.run(ctx, first, clicks)
}

// follower is the tray's poll and debounce loop around show.
func (t *Tray) follower(show func(Snapshot)) *follower {
	return &follower{
		clock: t.opts.Clock, poll: t.opts.Poll, debounce: t.opts.Debounce,
		source: t.opts.Source, show: show, handle: t.opts.Handle, log: t.opts.Log,
	}
}

// ItemID is the tray item's Id, the same on every run.
const ItemID = "Lets"

// drawnItem is one entry as drawn: the systray item and the Item it shows
// now (read by the click waiter, written by update).
type drawnItem struct {
	mi       *systray.MenuItem // nil for a separator
	current  atomic.Pointer[Item]
	children []*drawnItem
}

// update shows it on an entry of the same shape, changing only what
// changed. A submenu grows at its end (systray adds a submenu's entries
// after the ones it has) and hides the entries it no longer needs.
func (d *drawnItem) update(it Item, clicks chan<- Action, done <-chan struct{}) {
	old := d.current.Load()
	d.current.Store(&it)
	if d.mi != nil {
		if old.Label != it.Label {
			d.mi.SetTitle(it.Label)
		}
		if old.Tooltip != it.Tooltip {
			d.mi.SetTooltip(it.Tooltip)
		}
		if old.Disabled != it.Disabled {
			if it.Disabled {
				d.mi.Disable()
			} else {
				d.mi.Enable()
			}
		}
		if old.Checked != it.Checked {
			if it.Checked {
				d.mi.Check()
			} else {
				d.mi.Uncheck()
			}
		}
		if old.Hidden != it.Hidden {
			if it.Hidden {
				d.mi.Hide()
			} else {
				d.mi.Show()
			}
		}
	}
	for i, child := range it.Children {
		if i < len(d.children) {
			d.children[i].update(child, clicks, done)
			continue
		}
		d.children = append(d.children, add(d.mi, child, clicks, done))
	}
	for _, extra := range d.children[min(len(it.Children), len(d.children)):] {
		hidden := *extra.current.Load()
		hidden.Hidden = true
		extra.update(hidden, clicks, done)
	}
}

// draw replaces the menu with items; clicks on them go to clicks until done
// is closed (the next draw). It runs once per Lets: later menus are drawn
// over it by update.
func (t *Tray) draw(items []Item, clicks chan<- Action, done <-chan struct{}) []*drawnItem {
	systray.ResetMenu()
	out := make([]*drawnItem, len(items))
	for i, it := range items {
		out[i] = add(nil, it, clicks, done)
	}
	return out
}

func add(parent *systray.MenuItem, it Item, clicks chan<- Action, done <-chan struct{}) *drawnItem {
	d := &drawnItem{}
	d.current.Store(&it)
	if it.Separator {
		if parent == nil {
			systray.AddSeparator()
		} else {
			parent.AddSeparator()
		}
		return d
	}
	var mi *systray.MenuItem
	switch {
	case parent == nil && it.Checkable:
		mi = systray.AddMenuItemCheckbox(it.Label, it.Tooltip, it.Checked)
	case parent == nil:
		mi = systray.AddMenuItem(it.Label, it.Tooltip)
	case it.Checkable:
		mi = parent.AddSubMenuItemCheckbox(it.Label, it.Tooltip, it.Checked)
	default:
		mi = parent.AddSubMenuItem(it.Label, it.Tooltip)
	}
	d.mi = mi
	if it.Disabled {
		mi.Disable()
	}
	if it.Hidden {
		mi.Hide()
	}
	for _, child := range it.Children {
		d.children = append(d.children, add(mi, child, clicks, done))
	}
	// systray drops a click when nobody waits on ClickedCh, so every
	// entry has a waiter (a hidden place may get an action later);
	// ResetMenu closes the channel. The waiter reads the entry's current
	// Item, which update may change.
	go func(ch <-chan struct{}) {
		for {
			select {
			case _, ok := <-ch:
				if !ok {
					return
				}
				cur := d.current.Load()
				if cur.Disabled || cur.Hidden || cur.Action.Kind == ActionNone {
					continue
				}
				select {
				case clicks <- cur.Action:
				case <-done:
					return
				}
			case <-done:
				return
			}
		}
	}(mi.ClickedCh)
	return d
}

// String names an action for logs.
func (a Action) String() string {
	names := map[ActionKind]string{
		ActionNone: "none", ActionSelectSession: "select-session", ActionFocusWindow: "focus-window",
		ActionOpenUnique: "open", ActionResume: "resume", ActionPairPhone: "pair-phone",
		ActionVirtualPad: "virtual-pad", ActionSetupClaude: "setup-claude",
		ActionToggleStartAtLogin: "start-at-login", ActionQuit: "quit", ActionShowHome: "home",
		ActionNewChat: "new-chat", ActionContinueChat: "continue-chat",
	}
	return fmt.Sprintf("%s %s%s%s%s%s", names[a.Kind], a.Backend, a.Session, a.Window, a.Unique, a.Chat)
}
