package tray

import (
	"bytes"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/lets-app/lets/backend/wire"
)

// labels flattens a menu into "label" lines, children indented by two
// spaces, separators as "---".
func labels(items []Item, indent string) []string {
	var out []string
	for _, it := range items {
		if it.Hidden {
			continue
		}
		if it.Separator {
			out = append(out, indent+"---")
			continue
		}
		out = append(out, indent+it.Label)
		out = append(out, labels(it.Children, indent+"  ")...)
	}
	return out
}

func find(t *testing.T, items []Item, prefix string) Item {
	t.Helper()
	for _, it := range items {
		if !it.Hidden && strings.HasPrefix(it.Label, prefix) {
			return it
		}
		for _, c := range it.Children {
			if !c.Hidden && strings.HasPrefix(c.Label, prefix) {
				return c
			}
		}
	}
	t.Fatalf("no menu item starts with %q in:\n%s", prefix, strings.Join(labels(items, ""), "\n"))
	return Item{}
}

// Point: the menu lists agent sessions (label, backend, glyph, accent),
// open windows, Open/Resume submenus and the app actions, in that order.
func TestMenuShowsSessionsWindowsUniquesAndActions(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	s := Snapshot{
		PadOn: true, BrowserPad: true, StartAtLogin: true,
		Sessions: []Session{
			{Backend: "codex", ID: "c1", Label: "tidy docs", State: wire.StateRunning, Accent: "magenta"},
			{Backend: "claude", ID: "a1", Label: "fix tests", State: wire.StateWaitingForApproval, Accent: "cyan", Selected: true},
			{Backend: "codex-exec", ID: "e1", Label: "nightly", State: wire.StateRunning, Accent: "green"},
		},
		Windows: []Window{{ID: "w1", Unique: "graph", Title: "Graph", Session: "g-new"}},
		Uniques: []Unique{{Name: "chat", Title: "Chat"}, {Name: "graph", Title: "Graph"}},
		Saved: []Saved{
			{Unique: "graph", ID: "g-old", Summary: "old", SavedAt: t0},
			{Unique: "graph", ID: "g-new", Summary: "new", SavedAt: t0.Add(2 * time.Hour)},
			{Unique: "chat", ID: "c-mid", Summary: "mid", SavedAt: t0.Add(time.Hour)},
		},
	}
	got := strings.Join(labels(Menu(s), ""), "\n")
	want := strings.Join([]string{
		"Home…",
		"---",
		"Agents",
		"Needs your approval: fix tests — Claude Code (cyan)",
		"Working: tidy docs — Codex (magenta)",
		"Working: nightly — Codex (green)",
		"---",
		"Windows",
		"Graph — open again",
		"Open",
		"  Chat",
		"  Graph",
		"Resume",
		"  Graph — new",
		"  Graph — old",
		"  Chat — mid",
		"---",
		"Pair a phone…",
		"Virtual pad",
		"Set up Claude…",
		"Start at login",
		"---",
		"Quit Lets",
	}, "\n")
	if got != want {
		t.Fatalf("menu:\n%s\nwant:\n%s", got, want)
	}
	items := Menu(s)
	sel := find(t, items, "Needs your approval")
	if sel.Action != (Action{Kind: ActionSelectSession, Backend: "claude", Session: "a1"}) || !sel.Checked {
		t.Errorf("session item = %+v, want a checked select of claude/a1", sel)
	}
	if w := find(t, items, "Graph — open again"); w.Action != (Action{Kind: ActionFocusWindow, Window: "w1", Unique: "graph", Session: "g-new"}) {
		t.Errorf("window item = %+v", w)
	}
	if r := find(t, items, "Graph — new"); r.Action != (Action{Kind: ActionResume, Unique: "graph", Session: "g-new"}) {
		t.Errorf("resume item = %+v", r)
	}
	if st := find(t, items, "Start at login"); !st.Checkable || !st.Checked {
		t.Errorf("start at login = %+v, want a checked toggle", st)
	}
}

// Point: Resume lists only the newest ResumePerUnique saves per unique.
func TestResumeKeepsTheNewestPerUnique(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	var saved []Saved
	for i := range 5 {
		saved = append(saved, Saved{Unique: "graph", ID: string(rune('a' + i)), SavedAt: t0.Add(time.Duration(i) * time.Minute)})
	}
	r := resumeMenu(Snapshot{Saved: saved})
	if len(r.Children) != ResumePerUnique {
		t.Fatalf("resume has %d entries, want %d", len(r.Children), ResumePerUnique)
	}
	for i, want := range []string{"e", "d", "c"} {
		if got := r.Children[i].Action.Session; got != want {
			t.Errorf("entry %d resumes %q, want %q (newest first)", i, got, want)
		}
	}
}

// Point: what cannot work says so and is disabled: no pad daemon, no
// browser pad, no `lets setup claude`, nothing installed, nothing saved.
func TestMenuSaysWhatIsOff(t *testing.T) {
	items := Menu(Snapshot{})
	for _, prefix := range []string{"Agents: the pad daemon is off", "Pair a phone…", "Virtual pad", "No uniques installed yet", "Nothing saved yet"} {
		if it := find(t, items, prefix); !it.Disabled {
			t.Errorf("%q is enabled, want disabled", it.Label)
		}
	}
	if it := find(t, Menu(Snapshot{PadOn: true}), "No agents are working right now"); !it.Disabled {
		t.Errorf("the empty-agents line is clickable")
	}
	if c := find(t, items, "Set up Claude…"); c.Disabled || c.Action.Kind != ActionSetupClaude {
		t.Errorf("Set up Claude… must always be there and enabled: %+v", c)
	}
	if q := find(t, items, "Quit Lets"); q.Disabled || q.Action.Kind != ActionQuit {
		t.Errorf("Quit = %+v", q)
	}
}

// Point: the icon reflects the most urgent state: approval > waiting >
// running > idle; finished states count as idle.
func TestMostUrgentOrder(t *testing.T) {
	s := func(st ...wire.State) []Session {
		var out []Session
		for _, x := range st {
			out = append(out, Session{State: x})
		}
		return out
	}
	cases := []struct {
		in   []Session
		want Level
	}{
		{nil, LevelIdle},
		{s(wire.StateSuccess, wire.StateError, wire.StateCancelled), LevelIdle},
		{s(wire.StateSuccess, wire.StateRunning), LevelRunning},
		{s(wire.StateRunning, wire.StateUserTyping), LevelWaiting},
		{s(wire.StateRunning, wire.StateWaitingForReply), LevelWaiting},
		{s(wire.StateWaitingForReply, wire.StateWaitingForApproval, wire.StateRunning), LevelApproval},
	}
	for _, c := range cases {
		if got := MostUrgent(c.in); got != c.want {
			t.Errorf("MostUrgent(%v) = %v, want %v", c.in, got, c.want)
		}
	}
	if got := Tooltip(s(wire.StateWaitingForApproval, wire.StateWaitingForApproval)); got != "Lets — 2 agents need your approval" {
		t.Errorf("tooltip = %q", got)
	}
}

// Point: each level has its own icon, a valid PNG of IconSize.
func TestIconsDifferPerLevel(t *testing.T) {
	seen := map[string]Level{}
	for _, l := range []Level{LevelIdle, LevelRunning, LevelWaiting, LevelApproval} {
		b, err := Icon(l)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("icon %v is not a PNG: %v", l, err)
		}
		if img.Bounds().Dx() != IconSize || img.Bounds().Dy() != IconSize {
			t.Errorf("icon %v is %v", l, img.Bounds())
		}
		if prev, dup := seen[string(b)]; dup {
			t.Errorf("icons %v and %v are the same", prev, l)
		}
		seen[string(b)] = l
	}
}

// Point: snapshots compare by content, so an unchanged poll does not
// rebuild the menu.
func TestSnapshotEqual(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	a := Snapshot{PadOn: true, Sessions: []Session{{Backend: "claude", ID: "1", State: wire.StateRunning}}, Saved: []Saved{{Unique: "g", ID: "x", SavedAt: t0}}}
	b := Snapshot{PadOn: true, Sessions: []Session{{Backend: "claude", ID: "1", State: wire.StateRunning}}, Saved: []Saved{{Unique: "g", ID: "x", SavedAt: t0.In(time.FixedZone("x", 3600))}}}
	if !a.Equal(b) {
		t.Fatal("equal snapshots compare different")
	}
	b.Sessions[0].State = wire.StateWaitingForApproval
	if a.Equal(b) {
		t.Fatal("a state change is not seen")
	}
}

// Point: "Start at login" writes ~/.config/autostart/lets.desktop, honours
// XDG_CONFIG_HOME, and turning it off removes the file.
func TestAutostartHonoursXDGConfigHome(t *testing.T) {
	home, xdg := t.TempDir(), t.TempDir()
	env := map[string]string{"HOME": home}
	a, err := NewAutostart(func(k string) string { return env[k] }, "/opt/My Apps/lets")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(home, ".config", "autostart", "lets.desktop"); a.Path != want {
		t.Fatalf("path = %s, want %s", a.Path, want)
	}
	env["XDG_CONFIG_HOME"] = xdg
	a, err = NewAutostart(func(k string) string { return env[k] }, "/opt/My Apps/lets")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(xdg, "autostart", "lets.desktop"); a.Path != want {
		t.Fatalf("path = %s, want %s", a.Path, want)
	}
	if a.Enabled() {
		t.Fatal("enabled before it was written")
	}
	if err := a.Set(true); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(a.Path)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"[Desktop Entry]", "Type=Application", "Name=Lets", `Exec="/opt/My Apps/lets"`} {
		if !strings.Contains(string(data), line+"\n") {
			t.Errorf("entry lacks %q:\n%s", line, data)
		}
	}
	if !a.Enabled() {
		t.Fatal("not enabled after Set(true)")
	}
	if err := a.Set(false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(a.Path); !os.IsNotExist(err) {
		t.Fatalf("entry still there after Set(false): %v", err)
	}
	if err := a.Set(false); err != nil {
		t.Fatalf("turning it off twice: %v", err)
	}
}

// Point (#21): every change Lets sees keeps the menu's shape, so the tray
// draws it over the entries already shown (same ids, no remove-all and
// add-again that makes a tray host warn): states, selection, toggles, a
// new session, window, conversation or unique, a note, more agents than
// places. Only ChatOn (fixed while Lets runs) changes it.
func TestEveryChangeKeepsTheMenusShape(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	base := Snapshot{PadOn: true, BrowserPad: true, ChatOn: true,
		Sessions: []Session{{Backend: "claude", ID: "1", Label: "a", State: wire.StateRunning}},
		Uniques:  []Unique{{Name: "graph"}}}
	var many []Session
	for i := range AgentPlaces + 3 {
		many = append(many, Session{Backend: "codex", ID: fmt.Sprint(i), State: wire.StateRunning})
	}
	var windows []Window
	for i := range WindowPlaces + 2 {
		windows = append(windows, Window{ID: fmt.Sprint("w", i), Unique: "graph"})
	}
	changes := map[string]func(s *Snapshot){
		"state and selection": func(s *Snapshot) {
			s.Sessions = []Session{{Backend: "claude", ID: "1", Label: "a", State: wire.StateWaitingForApproval, Selected: true}}
		},
		"start at login": func(s *Snapshot) { s.StartAtLogin = true },
		"no browser pad": func(s *Snapshot) { s.BrowserPad = false },
		"no pad daemon":  func(s *Snapshot) { s.PadOn = false },
		"no sessions":    func(s *Snapshot) { s.Sessions = nil },
		"a new session": func(s *Snapshot) {
			s.Sessions = append(s.Sessions, Session{Backend: "codex", ID: "2", State: wire.StateRunning})
		},
		"many sessions":   func(s *Snapshot) { s.Sessions = many },
		"a window":        func(s *Snapshot) { s.Windows = []Window{{ID: "w1", Unique: "graph"}} },
		"many windows":    func(s *Snapshot) { s.Windows = windows },
		"conversations":   func(s *Snapshot) { s.Chats = []Chat{{ID: "c", Title: "x", Updated: t0}} },
		"no uniques":      func(s *Snapshot) { s.Uniques = nil },
		"more uniques":    func(s *Snapshot) { s.Uniques = append(s.Uniques, Unique{Name: "hello"}, Unique{Name: "chat"}) },
		"a saved session": func(s *Snapshot) { s.Saved = []Saved{{Unique: "graph", ID: "g", SavedAt: t0}} },
		"a claude note":   func(s *Snapshot) { s.ClaudeNote = Note{Text: "Claude is connected to Lets"} },
	}
	for name, change := range changes {
		s := base
		change(&s)
		if !SameShape(Menu(base), Menu(s)) || !SameShape(Menu(s), Menu(base)) {
			t.Errorf("%s changed the menu's shape:\n%s", name, strings.Join(labels(Menu(s), ""), "\n"))
		}
	}
	noChat := base
	noChat.ChatOn = false
	if SameShape(Menu(base), Menu(noChat)) {
		t.Error("turning Chat with Claude off kept the shape")
	}
	// More agents and windows than places: the last line counts the rest
	// and opens Home.
	s := base
	s.Sessions, s.Windows = many, windows
	items := Menu(s)
	if m := find(t, items, "3 more agents — see them in Home…"); m.Action.Kind != ActionShowHome || m.Checkable {
		t.Errorf("the agents' overflow line = %+v", m)
	}
	if m := find(t, items, "2 more windows — see them in Home…"); m.Action.Kind != ActionShowHome {
		t.Errorf("the windows' overflow line = %+v", m)
	}
}

// Point (#21): the agent lines are words a person reads (no emoji or
// symbols a desktop font may lack, no backend ids such as "local"); the
// menu names uniques by title, without "(chat)", and with Chat with
// Claude on lists the chat unique once, as "Chat with Claude".
func TestMenuWordsAreForPeople(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	var sessions []Session
	for i, st := range []wire.State{wire.StateWaitingForApproval, wire.StateWaitingForReply, wire.StateUserTyping, wire.StateRunning, wire.StateSuccess, wire.StateError, wire.StateCancelled} {
		sessions = append(sessions, Session{Backend: []string{"claude", "codex", "local", ""}[i%4], ID: fmt.Sprint(i), Label: "job " + fmt.Sprint(i), State: st})
	}
	s := Snapshot{PadOn: true, BrowserPad: true, ChatOn: true, Sessions: sessions,
		Uniques: []Unique{{Name: "chat", Title: "Chat — talk to Claude"}, {Name: "graph", Title: "Graph"}, {Name: "hello"}},
		Saved:   []Saved{{Unique: "graph", ID: "g", Summary: "plans", SavedAt: t0}},
		Chats:   []Chat{{ID: "c1", Title: "Trip", Updated: t0}}}
	items := Menu(s)
	all := labels(items, "")
	got := strings.Join(all, "\n")
	for _, line := range all {
		for _, r := range strings.TrimSpace(line) {
			if !drawable(r) {
				t.Errorf("%q has %q (U+%04X), which a desktop font may not have", line, r, r)
			}
		}
	}
	for _, word := range []string{"local", "(chat)", "(graph)", "claude —", "codex"} {
		if strings.Contains(got, word) {
			t.Errorf("the menu says %q:\n%s", word, got)
		}
	}
	for _, want := range []string{
		"Needs your approval: job 0 — Claude Code",
		"Waiting for you: job 1 — Codex",
		"You are typing: job 2",
		"Working: job 3",
		"Done: job 4 — Claude Code",
		"Ran into an error: job 5 — Codex",
		"Stopped: job 6",
		"  Graph — plans",
	} {
		if !strings.Contains(got, want+"\n") {
			t.Errorf("the menu lacks %q:\n%s", want, got)
		}
	}
	if strings.Count(got, "Chat") != 1 || !strings.Contains(got, "\nChat with Claude\n") {
		t.Errorf("chat is listed more than once, or not as Chat with Claude:\n%s", got)
	}
	if off := strings.Join(labels(Menu(Snapshot{Uniques: s.Uniques}), ""), "\n"); !strings.Contains(off, "  Chat — talk to Claude\n") {
		t.Errorf("without Chat with Claude, Open must list the chat unique:\n%s", off)
	}
}

// drawable says whether every desktop font draws r: letters, digits,
// ASCII punctuation and the few typographic marks of Latin-1 and General
// Punctuation that DejaVu, Noto and Cantarell all have.
func drawable(r rune) bool {
	switch {
	case r < 0x80:
		return r >= 0x20
	case unicode.IsLetter(r) || unicode.IsDigit(r):
		return true
	}
	return strings.ContainsRune("…—–·‘’“”", r)
}

// Point: after "Set up Claude…" the menu says how it went, in a line under
// the item, with the details in its tooltip; a new note is a new menu.
func TestMenuShowsHowClaudeSetUpWent(t *testing.T) {
	before := Menu(Snapshot{})
	note := Note{Text: "Claude is connected to Lets", Tooltip: "Start a new Claude Code session to use Lets"}
	s := Snapshot{ClaudeNote: note}
	after := Menu(s)
	got := strings.Join(labels(after, ""), "\n")
	if !strings.Contains(got, "Set up Claude…\nClaude is connected to Lets\nStart at login") {
		t.Fatalf("the note should follow the item:\n%s", got)
	}
	it := find(t, after, "Claude is connected")
	if !it.Disabled || it.Tooltip != note.Tooltip || it.Action.Kind != ActionNone {
		t.Fatalf("note item = %+v", it)
	}
	if !SameShape(before, after) {
		t.Fatal("the note changed the menu's shape (it has a hidden place)")
	}
	if (Snapshot{}).Equal(s) || !s.Equal(Snapshot{ClaudeNote: note}) {
		t.Fatal("Equal must compare the note")
	}
	long := Menu(Snapshot{ClaudeNote: Note{Text: strings.Repeat("x", 200)}})
	if it := find(t, long, "xxx"); len([]rune(it.Label)) > maxLabel {
		t.Fatalf("the note is not clipped: %d runes", len([]rune(it.Label)))
	}
}

// Point (issue #15): with Chat with Claude running, the menu offers a new
// conversation and the ChatRecent newest ones to continue, right after the
// agents; without it, no chat items at all.
func TestMenuOffersChatWithClaudeAndTheNewestConversations(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	var chats []Chat
	for i := range 7 {
		chats = append(chats, Chat{ID: "conv_" + string(rune('a'+i)), Title: "talk " + string(rune('a'+i)), Updated: t0.Add(time.Duration(i) * time.Minute)})
	}
	chats[3].Title = "   "
	chats[6].Title = strings.Repeat("long words ", 20)
	s := Snapshot{PadOn: true, ChatOn: true, Chats: chats}
	items := Menu(s)
	got := strings.Join(labels(items, ""), "\n")
	want := strings.Join([]string{
		"Home…",
		"---",
		"No agents are working right now",
		"---",
		"Chat with Claude",
		"Continue: long words long words long words long words long…",
		"Continue: talk f",
		"Continue: talk e",
		"Continue: Untitled conversation",
		"Continue: talk c",
		"---",
		"Open",
	}, "\n")
	if !strings.HasPrefix(got, want+"\n") {
		t.Fatalf("menu:\n%s\nwant it to start with:\n%s", got, want)
	}
	if n := find(t, items, "Chat with Claude"); n.Action != (Action{Kind: ActionNewChat}) || n.Disabled {
		t.Errorf("new chat item = %+v", n)
	}
	if c := find(t, items, "Continue: talk f"); c.Action != (Action{Kind: ActionContinueChat, Chat: "conv_f"}) || !strings.HasPrefix(c.Tooltip, "Last used ") {
		t.Errorf("continue item = %+v", c)
	}
	if a := (Action{Kind: ActionContinueChat, Chat: "conv_f"}).String(); a != "continue-chat conv_f" {
		t.Errorf("action log name = %q", a)
	}

	// The input is not reordered.
	if chats[0].ID != "conv_a" {
		t.Error("Menu sorted the snapshot's own slice")
	}
	// No chat manager: nothing about chat.
	off := strings.Join(labels(Menu(Snapshot{PadOn: true, Chats: chats}), ""), "\n")
	if strings.Contains(off, "Chat") || strings.Contains(off, "Continue") {
		t.Errorf("chat items without ChatOn:\n%s", off)
	}
	// Only ChatOn and no conversations yet: just the new chat.
	only := labels(Menu(Snapshot{PadOn: true, ChatOn: true}), "")
	if strings.Join(only[:6], "|") != "Home…|---|No agents are working right now|---|Chat with Claude|---" {
		t.Errorf("menu with no conversations starts %q", only[:6])
	}
	// A changed title or a new conversation is a different snapshot.
	a := Snapshot{ChatOn: true, Chats: []Chat{{ID: "x", Title: "a", Updated: t0}}}
	b := Snapshot{ChatOn: true, Chats: []Chat{{ID: "x", Title: "b", Updated: t0}}}
	if a.Equal(b) || !a.Equal(a) || a.Equal(Snapshot{Chats: a.Chats}) {
		t.Error("Equal does not compare the chats")
	}
}

// #23: agent-supplied strings (label, backend id, window title) cannot put
// terminal escapes, bells, new lines or bidi overrides into the menu.
func TestMenuCleansAgentSuppliedText(t *testing.T) {
	hostile := "evil\x1b[2J\a\nQuit Lets\u202Eevorppa"
	s := Snapshot{
		PadOn: true,
		Sessions: []Session{
			{Backend: "x\u202Ey\nz", ID: "c1", Label: hostile, State: wire.StateRunning},
		},
		Windows: []Window{{ID: "w1", Unique: "graph", Title: hostile}},
	}
	for _, l := range labels(Menu(s), "") {
		if strings.ContainsAny(l, "\x1b\a\n\u202E") {
			t.Errorf("menu line %q holds a control character", l)
		}
		if strings.HasPrefix(l, "Quit Lets") && l != "Quit Lets" {
			t.Errorf("a label posed as a menu line: %q", l)
		}
	}
	find(t, Menu(s), "Working: evil\uFFFD[2J\uFFFD Quit Letsevorppa — xy z")
	find(t, Menu(s), "evil\uFFFD[2J\uFFFD Quit Letsevorppa — open again")
}
