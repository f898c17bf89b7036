// Package tray is the desktop tray of Lets: an icon that shows the most
// urgent agent state and a menu of agent sessions, open windows, uniques,
// saved sessions and app actions.
//
// The model (this file, icons.go) is pure: a Snapshot of what Lets knows
// goes in, a menu tree and an icon choice come out, and time is passed in.
// The poll and debounce loop (debounce.go) runs on a clock.Clock and calls
// a show function. The systray adapter (systray.go) only draws the tree
// over DBus and turns clicks back into Actions, so the model and the loop
// are tested without a session bus.
package tray

import (
	"fmt"
	"github.com/lets-app/lets/backend/textsafe"
	"sort"
	"strings"
	"time"

	"github.com/lets-app/lets/backend/wire"
)

// Session is one agent session as the Wire daemon's control plane reports it.
type Session struct {
	Backend  string
	ID       string
	Label    string
	State    wire.State
	Accent   string // "" when the session has no slot on the pads
	Selected bool
}

// Window is one open window of the host.
type Window struct {
	ID     string
	Unique string
	Title  string
	// Session is the saved session the window last saved to ("" when it
	// has not saved yet).
	Session string
}

// Unique is one installed (or built-in) unique.
type Unique struct {
	Name  string
	Title string
}

// Saved is one saved session of a unique.
type Saved struct {
	Unique  string
	ID      string
	Summary string
	SavedAt time.Time
}

// Chat is one "Chat with Claude" conversation.
type Chat struct {
	ID      string
	Title   string
	Updated time.Time
}

// Snapshot is everything the menu shows. Two snapshots that are Equal give
// the same menu and icon.
type Snapshot struct {
	Sessions []Session
	Windows  []Window
	Uniques  []Unique
	Saved    []Saved
	// PadOn says the Wire daemon runs; BrowserPad says whether
	// the browser pad runs (pairing and the virtual pad need it).
	PadOn      bool
	BrowserPad bool
	// ClaudeNote is how the last "Set up Claude…" went; empty before the
	// first one.
	ClaudeNote Note
	// StartAtLogin is the state of the XDG autostart entry.
	StartAtLogin bool
	// ChatOn says "Chat with Claude" runs in this Lets; Chats are its
	// conversations (any order: the menu shows the newest ChatRecent).
	ChatOn bool
	Chats  []Chat
}

// Note is a line the menu shows under an action about how it went, with
// the details in its tooltip.
type Note struct {
	Text    string
	Tooltip string
}

// Equal reports whether a and b show the same menu.
func (a Snapshot) Equal(b Snapshot) bool {
	return a.PadOn == b.PadOn && a.BrowserPad == b.BrowserPad && a.ClaudeNote == b.ClaudeNote &&
		a.StartAtLogin == b.StartAtLogin && a.ChatOn == b.ChatOn && chatsEqual(a.Chats, b.Chats) &&
		sliceEqual(a.Sessions, b.Sessions) && sliceEqual(a.Windows, b.Windows) &&
		sliceEqual(a.Uniques, b.Uniques) && savedEqual(a.Saved, b.Saved)
}

func sliceEqual[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func chatsEqual(a, b []Chat) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].ID != b[i].ID || a[i].Title != b[i].Title || !a[i].Updated.Equal(b[i].Updated) {
			return false
		}
	}
	return true
}

func savedEqual(a, b []Saved) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Unique != b[i].Unique || a[i].ID != b[i].ID || a[i].Summary != b[i].Summary || !a[i].SavedAt.Equal(b[i].SavedAt) {
			return false
		}
	}
	return true
}

// ActionKind is what a menu item does when clicked.
type ActionKind int

// The actions of the menu. ActionNone marks labels and submenu parents.
const (
	ActionNone ActionKind = iota
	ActionSelectSession
	ActionFocusWindow
	ActionOpenUnique
	ActionResume
	ActionPairPhone
	ActionVirtualPad
	ActionSetupClaude
	ActionToggleStartAtLogin
	ActionQuit
	ActionShowHome
	ActionNewChat
	ActionContinueChat
)

// Action is a click, with the thing it is about.
type Action struct {
	Kind    ActionKind
	Backend string // ActionSelectSession
	Session string // ActionSelectSession: the agent session; ActionResume, ActionFocusWindow: the saved session
	Window  string // ActionFocusWindow
	Unique  string // ActionFocusWindow, ActionOpenUnique, ActionResume
	Chat    string // ActionContinueChat: the conversation
}

// Item is one menu entry. A separator has Separator set and nothing else.
// A hidden entry is a place kept in the menu for a list that may grow (an
// agent, a window, a conversation): the menu keeps its shape, so a change
// is drawn over the entries already shown and no entry is removed or
// renumbered.
type Item struct {
	Label     string
	Tooltip   string
	Action    Action
	Disabled  bool
	Checkable bool
	Checked   bool
	Separator bool
	Hidden    bool
	Children  []Item
}

// ResumePerUnique is how many saved sessions the Resume submenu lists for
// each unique, newest first.
const ResumePerUnique = 3

// ChatRecent is how many conversations the menu offers to continue,
// newest first.
const ChatRecent = 5

// AgentPlaces and WindowPlaces are how many agent and window lines the
// menu keeps, shown or hidden. More agents or windows than that are
// counted in a line that opens Home, where all are listed.
const (
	AgentPlaces  = 10
	WindowPlaces = 10
)

// ChatUnique is the built-in chat unique. When Chat with Claude runs, the
// menu's "Chat with Claude" is how a person opens it, so Open does not list
// it a second time.
const ChatUnique = "chat"

// maxLabel keeps menu entries readable in every tray host.
const maxLabel = 60

// Menu builds the menu tree for s. Its top level has the same entries for
// every snapshot of one Lets (only ChatOn changes it, and that is fixed
// while Lets runs); lists live in hidden places and in submenus.
func Menu(s Snapshot) []Item {
	items := []Item{
		{Label: "Home…", Tooltip: "Your uniques, saved sessions, paired phones and Claude set-up", Action: Action{Kind: ActionShowHome}},
		{Separator: true},
	}
	items = append(items, agentItems(s)...)
	items = append(items, Item{Separator: true})

	// Chat with Claude, right after the agents (who may need a person
	// first).
	if s.ChatOn {
		items = append(items, chatItems(s.Chats)...)
		items = append(items, Item{Separator: true})
	}

	items = append(items, windowItems(s.Windows)...)
	items = append(items, openMenu(s), resumeMenu(s), Item{Separator: true})

	browserOff := "The browser pad is off; turn it on with \"web\": {\"enabled\": true} in config.json"
	pair := Item{Label: "Pair a phone…", Tooltip: "Show the pairing page with its QR code", Action: Action{Kind: ActionPairPhone}}
	pad := Item{Label: "Virtual pad", Tooltip: "Show the agents on a pad in your browser", Action: Action{Kind: ActionVirtualPad}}
	if !s.BrowserPad {
		pair.Disabled, pair.Tooltip = true, browserOff
		pad.Disabled, pad.Tooltip = true, browserOff
	}
	note := Item{Label: clip(s.ClaudeNote.Text), Tooltip: s.ClaudeNote.Tooltip, Disabled: true, Hidden: s.ClaudeNote.Text == ""}
	items = append(items, pair, pad, Item{Label: "Set up Claude…", Action: Action{Kind: ActionSetupClaude},
		Tooltip: "Connect Claude Code to Lets: its MCP server, hooks and skill (the same as `lets setup claude`)"},
		note,
		Item{Label: "Start at login", Checkable: true, Checked: s.StartAtLogin,
			Tooltip: "Start Lets when you log in", Action: Action{Kind: ActionToggleStartAtLogin}},
		Item{Separator: true},
		Item{Label: "Quit Lets", Tooltip: "Stop Lets and close its windows", Action: Action{Kind: ActionQuit}},
	)
	return items
}

// agentItems are a heading that says how the agents are, then
// AgentPlaces places for the sessions, most urgent first, so the one that
// needs a person is at the top of the menu.
func agentItems(s Snapshot) []Item {
	head := Item{Label: "Agents", Disabled: true}
	switch {
	case !s.PadOn:
		head.Label = "Agents: the pad daemon is off"
		head.Tooltip = "Turn it on with \"wire\": {\"enabled\": true} in config.json and restart Lets"
	case len(s.Sessions) == 0:
		head.Label = "No agents are working right now"
	}
	var lines []Item
	if s.PadOn {
		sessions := append([]Session(nil), s.Sessions...)
		sort.SliceStable(sessions, func(i, j int) bool { return Urgency(sessions[i].State) > Urgency(sessions[j].State) })
		for _, ss := range sessions {
			lines = append(lines, Item{
				Label:     sessionLabel(ss),
				Tooltip:   "Select this agent on the pads",
				Action:    Action{Kind: ActionSelectSession, Backend: ss.Backend, Session: ss.ID},
				Checkable: true,
				Checked:   ss.Selected,
			})
		}
	}
	more := func(n int) Item {
		return Item{Label: fmt.Sprintf("%d more agents — see them in Home…", n),
			Tooltip: "The menu has room for a few agents; Home lists them all", Action: Action{Kind: ActionShowHome}}
	}
	return append([]Item{head}, places(lines, AgentPlaces, Item{Checkable: true}, more)...)
}

// windowItems are a "Windows" heading and WindowPlaces places for the open
// windows, all hidden when no window is open.
func windowItems(windows []Window) []Item {
	var lines []Item
	for _, w := range windows {
		title := w.Title
		if title == "" {
			title = w.Unique
		}
		// Lets cannot raise another process's window, so the item
		// says what it does: it opens the window again, resuming
		// the window's last save.
		lines = append(lines, Item{
			Label:   clip(title) + " — open again",
			Tooltip: "Lets cannot bring a window to the front yet; this opens it again from its last save",
			Action:  Action{Kind: ActionFocusWindow, Window: w.ID, Unique: w.Unique, Session: w.Session},
		})
	}
	more := func(n int) Item {
		return Item{Label: fmt.Sprintf("%d more windows — see them in Home…", n),
			Tooltip: "The menu has room for a few windows; Home lists them all", Action: Action{Kind: ActionShowHome}}
	}
	head := Item{Label: "Windows", Disabled: true, Hidden: len(windows) == 0}
	return append([]Item{head}, places(lines, WindowPlaces, Item{}, more)...)
}

// places fits lines into n places, hidden copies of empty where no line
// is, and one more place after them (not checkable, so a toggle list does
// not draw a box beside it) that says how many lines did not fit.
func places(lines []Item, n int, empty Item, more func(int) Item) []Item {
	out := make([]Item, 0, n+1)
	for i := range n {
		if i < len(lines) {
			out = append(out, lines[i])
			continue
		}
		e := empty
		e.Hidden = true
		out = append(out, e)
	}
	if len(lines) > n {
		return append(out, more(len(lines)-n))
	}
	return append(out, Item{Hidden: true})
}

// chatItems are "Chat with Claude" and ChatRecent places for the newest
// conversations to continue.
func chatItems(chats []Chat) []Item {
	items := []Item{{Label: "Chat with Claude", Tooltip: "Start a new conversation with Claude in a window", Action: Action{Kind: ActionNewChat}}}
	recent := append([]Chat(nil), chats...)
	sort.SliceStable(recent, func(i, j int) bool { return recent[i].Updated.After(recent[j].Updated) })
	var lines []Item
	for i, c := range recent {
		if i == ChatRecent {
			break
		}
		title := c.Title
		if strings.TrimSpace(title) == "" {
			title = "Untitled conversation"
		}
		lines = append(lines, Item{
			Label:   clip("Continue: " + title),
			Tooltip: "Last used " + c.Updated.Local().Format("2 Jan 15:04"),
			Action:  Action{Kind: ActionContinueChat, Chat: c.ID},
		})
	}
	return append(items, places(lines, ChatRecent, Item{}, func(int) Item { return Item{Hidden: true} })...)
}

// SameShape reports whether b can be drawn over the entries drawn for a,
// in place: the top level has the same entries in the same places
// (separators, toggles, submenus), and each submenu's entries match as far
// as both go (a submenu may grow at its end, or hide entries at its end).
// Words, checks, enabled and hidden states and actions may differ.
func SameShape(a, b []Item) bool {
	return len(a) == len(b) && sameKinds(a, b)
}

func sameKinds(a, b []Item) bool {
	for i := range min(len(a), len(b)) {
		x, y := a[i], b[i]
		if x.Separator != y.Separator || x.Checkable != y.Checkable ||
			(len(x.Children) == 0) != (len(y.Children) == 0) ||
			!sameKinds(x.Children, y.Children) {
			return false
		}
	}
	return true
}

// openMenu lists the uniques to open, by their titles.
func openMenu(s Snapshot) Item {
	open := Item{Label: "Open"}
	for _, u := range s.Uniques {
		if s.ChatOn && u.Name == ChatUnique {
			continue
		}
		open.Children = append(open.Children, Item{
			Label:   clip(uniqueTitle(u)),
			Tooltip: "Open " + uniqueTitle(u) + " in a new window",
			Action:  Action{Kind: ActionOpenUnique, Unique: u.Name},
		})
	}
	if len(open.Children) == 0 {
		open.Children = []Item{{Label: "No uniques installed yet", Disabled: true}}
	}
	return open
}

// resumeMenu lists the newest ResumePerUnique saved sessions per unique,
// uniques ordered by their newest save.
func resumeMenu(s Snapshot) Item {
	byUnique := map[string][]Saved{}
	var order []string
	saved := append([]Saved(nil), s.Saved...)
	sort.SliceStable(saved, func(i, j int) bool { return saved[i].SavedAt.After(saved[j].SavedAt) })
	for _, sv := range saved {
		if _, ok := byUnique[sv.Unique]; !ok {
			order = append(order, sv.Unique)
		}
		if len(byUnique[sv.Unique]) < ResumePerUnique {
			byUnique[sv.Unique] = append(byUnique[sv.Unique], sv)
		}
	}
	titles := map[string]string{}
	for _, u := range s.Uniques {
		titles[u.Name] = uniqueTitle(u)
	}
	resume := Item{Label: "Resume"}
	for _, name := range order {
		for _, sv := range byUnique[name] {
			label := name
			if t, ok := titles[name]; ok {
				label = t
			}
			if sv.Summary != "" {
				label += " — " + sv.Summary
			}
			resume.Children = append(resume.Children, Item{
				Label:   clip(label),
				Tooltip: "Saved " + sv.SavedAt.Local().Format("2 Jan 15:04"),
				Action:  Action{Kind: ActionResume, Unique: sv.Unique, Session: sv.ID},
			})
		}
	}
	if len(resume.Children) == 0 {
		resume.Children = []Item{{Label: "Nothing saved yet", Disabled: true}}
	}
	return resume
}

// uniqueTitle is how the menu names a unique: its title, or its name when
// it has none.
func uniqueTitle(u Unique) string {
	if strings.TrimSpace(u.Title) != "" {
		return u.Title
	}
	return u.Name
}

// sessionLabel is "<state>: <label> — <agent> (<accent>)", in words only:
// a tray host draws menu text in the desktop's font, which may lack emoji
// and symbols (xfce4-panel showed ⏳ and 💬 as boxes with hex codes).
func sessionLabel(s Session) string {
	text := StateTitle(s.State)
	if label := strings.TrimSpace(s.Label); label != "" {
		text += ": " + clip(label)
	}
	if name := BackendName(s.Backend); name != "" {
		text += " — " + name
	}
	if s.Accent != "" {
		text += " (" + s.Accent + ")"
	}
	return text
}

// BackendName is how a person knows the agent program behind a backend
// id; "" for the default id, which names no program.
func BackendName(backend string) string {
	switch backend {
	case "claude":
		return "Claude Code"
	case "codex", "codex-exec": // lets codex and lets codex-exec
		return "Codex"
	case "", wire.DefaultBackend:
		return ""
	}
	return clip(backend)
}

func clip(s string) string { return textsafe.Line(s, maxLabel) }

// StateTitle is StateWords at the start of a menu line.
func StateTitle(st wire.State) string {
	w := StateWords(st)
	if w == "" {
		return w
	}
	return strings.ToUpper(w[:1]) + w[1:]
}

// StateWords says a state the way a person would.
func StateWords(st wire.State) string {
	switch st {
	case wire.StateWaitingForApproval:
		return "needs your approval"
	case wire.StateWaitingForReply:
		return "waiting for you"
	case wire.StateUserTyping:
		return "you are typing"
	case wire.StateRunning:
		return "working"
	case wire.StateSuccess:
		return "done"
	case wire.StateError:
		return "ran into an error"
	case wire.StateCancelled:
		return "stopped"
	}
	return string(st)
}

// Level is how urgently the agents need a person; the icon shows it.
type Level int

// Levels from calm to urgent: approval needed > waiting > running > idle.
const (
	LevelIdle Level = iota
	LevelRunning
	LevelWaiting
	LevelApproval
)

func (l Level) String() string {
	switch l {
	case LevelRunning:
		return "running"
	case LevelWaiting:
		return "waiting"
	case LevelApproval:
		return "approval"
	}
	return "idle"
}

// Urgency is the level one state asks for. Finished states (success, error,
// cancelled) are idle: nothing is asked of anyone.
func Urgency(st wire.State) Level {
	switch st {
	case wire.StateWaitingForApproval:
		return LevelApproval
	case wire.StateWaitingForReply, wire.StateUserTyping:
		return LevelWaiting
	case wire.StateRunning:
		return LevelRunning
	}
	return LevelIdle
}

// MostUrgent is the level of the session that needs a person most.
func MostUrgent(sessions []Session) Level {
	top := LevelIdle
	for _, s := range sessions {
		top = max(top, Urgency(s.State))
	}
	return top
}

// Tooltip says what the icon shows, in words.
func Tooltip(sessions []Session) string {
	count := map[Level]int{}
	for _, s := range sessions {
		count[Urgency(s.State)]++
	}
	switch {
	case count[LevelApproval] == 1:
		return "Lets — an agent needs your approval"
	case count[LevelApproval] > 1:
		return fmt.Sprintf("Lets — %d agents need your approval", count[LevelApproval])
	case count[LevelWaiting] == 1:
		return "Lets — an agent is waiting for you"
	case count[LevelWaiting] > 1:
		return fmt.Sprintf("Lets — %d agents are waiting for you", count[LevelWaiting])
	case count[LevelRunning] == 1:
		return "Lets — an agent is working"
	case count[LevelRunning] > 1:
		return fmt.Sprintf("Lets — %d agents are working", count[LevelRunning])
	}
	return "Lets — all quiet"
}
