package tray

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/lets-app/lets/app/tray/traytest"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/backend/wire"
)

// desk is the one real tray host (xfce4-panel on Xvfb and a private
// session bus) of this test package; TestMain stops it.
var desk = &traytest.Desktop{Command: testutil.Command, Eventually: testutil.Eventually}

// childEnv makes this test binary run only a tray (see runTrayChild):
// fyne.io/systray may run once per process, and a process of its own is
// what a tray host sees in real use.
const childEnv = "LETS_TRAY_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		os.Exit(runTrayChild(os.Stdin, os.Stdout))
	}
	code := m.Run()
	desk.Stop()
	os.Exit(code)
}

// runTrayChild shows a tray whose snapshot is the last JSON line read from
// in, and writes "bus <unique name>" once it is on the bus and "clicked
// <action JSON>" for every click.
func runTrayChild(in io.Reader, out io.Writer) int {
	var mu sync.Mutex
	var outMu sync.Mutex
	say := func(format string, args ...any) {
		outMu.Lock()
		defer outMu.Unlock()
		fmt.Fprintf(out, format+"\n", args...)
	}
	var current Snapshot
	lines := bufio.NewScanner(in)
	lines.Buffer(make([]byte, 1<<20), 1<<20)
	if !lines.Scan() {
		return 2
	}
	if err := json.Unmarshal(lines.Bytes(), &current); err != nil {
		fmt.Fprintln(os.Stderr, "first snapshot:", err)
		return 2
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for lines.Scan() {
			var s Snapshot
			if err := json.Unmarshal(lines.Bytes(), &s); err != nil {
				fmt.Fprintln(os.Stderr, "snapshot:", err)
				continue
			}
			mu.Lock()
			current = s
			mu.Unlock()
		}
		cancel() // stdin closed: the test is done with us
	}()
	tr, err := New(Options{
		Source: func(context.Context) (Snapshot, error) {
			mu.Lock()
			defer mu.Unlock()
			return current, nil
		},
		Handle: func(_ context.Context, a Action) {
			data, _ := json.Marshal(a)
			say("clicked %s", data)
		},
		Poll:     20 * time.Millisecond,
		Debounce: 20 * time.Millisecond,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	conn, err := dbus.SessionBus()
	if err != nil {
		fmt.Fprintln(os.Stderr, "session bus:", err)
		return 2
	}
	say("bus %s", conn.Names()[0])
	if err := tr.Run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	say("quit")
	return 0
}

// trayChild is this test binary running only a tray in the real host.
type trayChild struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	bus    string // its unique bus name
	lines  chan string
	stderr *testutil.SyncBuffer
	exited chan struct{}
}

func startTrayChild(t testing.TB, first Snapshot) *trayChild {
	t.Helper()
	desk.Start(t)
	c := &trayChild{lines: make(chan string, 64), stderr: &testutil.SyncBuffer{}, exited: make(chan struct{})}
	c.cmd = exec.Command(os.Args[0], "-test.run=^$")
	c.cmd.Env = append(desk.Env(), childEnv+"=1")
	c.cmd.Stderr = c.stderr
	var err error
	if c.stdin, err = c.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := c.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
	}()
	go func() { _ = c.cmd.Wait(); close(c.exited) }()
	t.Cleanup(func() {
		c.stop(t)
		if t.Failed() {
			t.Logf("the tray process said:\n%s", c.stderr.String())
		}
	})
	c.show(t, first)
	line := testutil.Wait(t, "the tray process on the bus", c.lines)
	if !strings.HasPrefix(line, "bus ") {
		t.Fatalf("the tray process said %q first; stderr:\n%s", line, c.stderr.String())
	}
	c.bus = strings.TrimPrefix(line, "bus ")
	return c
}

// show hands the tray a new snapshot; it shows it after its poll and
// debounce.
func (c *trayChild) show(t testing.TB, s Snapshot) {
	t.Helper()
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.stdin.Write(append(data, '\n')); err != nil {
		t.Fatalf("hand the tray a snapshot: %v", err)
	}
}

// stop closes the child's stdin (its tray ends) and waits for it, and for
// the panel to let its item go. It may be called twice.
func (c *trayChild) stop(t testing.TB) {
	_ = c.stdin.Close()
	select {
	case <-c.exited:
		conn := desk.Conn(t)
		testutil.Eventually(t, "xfce4-panel lets the ended tray's item go", func() bool {
			items, err := traytest.Items(conn)
			return err == nil && !slices.Contains(items, c.bus+"/StatusNotifierItem")
		})
		return
	case <-time.After(testutil.EventuallyTimeout):
	}
	_ = c.cmd.Process.Signal(syscall.SIGKILL)
	<-c.exited
	t.Errorf("the tray process did not end within %v of its input closing", testutil.EventuallyTimeout)
}

// clicked waits for the child's next "clicked" line.
func (c *trayChild) clicked(t testing.TB) Action {
	t.Helper()
	line := testutil.Wait(t, "the tray to report a click", c.lines)
	var a Action
	if !strings.HasPrefix(line, "clicked ") || json.Unmarshal([]byte(strings.TrimPrefix(line, "clicked ")), &a) != nil {
		t.Fatalf("the tray said %q, want a click", line)
	}
	return a
}

// registered waits until the panel's watcher lists the child's item.
func (c *trayChild) registered(t testing.TB, conn *dbus.Conn) {
	t.Helper()
	want := c.bus + "/StatusNotifierItem"
	var items []string
	testutil.Eventually(t, "xfce4-panel's watcher lists the tray's item "+want, func() bool {
		items, _ = traytest.Items(conn)
		for _, it := range items {
			if it == want {
				return true
			}
		}
		return false
	})
}

func (c *trayChild) rss(t testing.TB) int {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", c.cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, err := strconv.Atoi(f[1])
			if err != nil {
				t.Fatal(err)
			}
			return kb
		}
	}
	t.Fatal("no VmRSS in /proc/<pid>/status")
	return 0
}

// node is one entry of the item's com.canonical.dbusmenu layout.
type node = traytest.MenuNode

func (c *trayChild) layout(t testing.TB, conn *dbus.Conn) node {
	t.Helper()
	n, err := traytest.GetLayout(conn, c.bus, "/StatusNotifierItem/menu")
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// ids maps every visible label of n to its id.
func ids(n node, into map[string]int32) map[string]int32 {
	if into == nil {
		into = map[string]int32{}
	}
	for _, c := range n.Children {
		if c.Visible && c.Type != "separator" {
			into[c.Label] = c.ID
		}
		ids(c, into)
	}
	return into
}

func waitLayout(t testing.TB, c *trayChild, conn *dbus.Conn, what string, cond func(node) bool) node {
	t.Helper()
	var n node
	testutil.Eventually(t, what, func() bool {
		n = c.layout(t, conn)
		return cond(n)
	})
	return n
}

func has(labels ...string) func(node) bool {
	return func(n node) bool {
		for _, l := range labels {
			if _, ok := n.Find(l); !ok {
				return false
			}
		}
		return true
	}
}

// hasWords says every word shows in some visible entry's label.
func hasWords(words ...string) func(node) bool {
	return func(n node) bool {
		all := strings.Join(n.Shown(""), "\n")
		for _, w := range words {
			if !strings.Contains(all, w) {
				return false
			}
		}
		return true
	}
}

var realHostBase = Snapshot{
	PadOn: true, BrowserPad: true, ChatOn: true,
	Uniques: []Unique{{Name: "chat", Title: "Chat — talk to Claude"}, {Name: "graph", Title: "Graph"}, {Name: "hello", Title: "hello"}},
}

// startInHost starts a tray child, waits until xfce4-panel has registered
// it and read its menu, and returns the child, a bus connection and a
// monitor of the panel's calls to it.
func startInHost(t *testing.T, first Snapshot) (*trayChild, *dbus.Conn, *traytest.Monitor) {
	t.Helper()
	// The monitor starts first: the panel may read the menu before the
	// tray process has said its bus name (CI r7 missed that read).
	desk.Start(t)
	mon := desk.Monitor(t)
	c := startTrayChild(t, first)
	mon.Item(c.bus)
	conn := desk.Conn(t)
	c.registered(t, conn)
	// The panel reads first, as in real use: fyne.io/systray answers the
	// first GetLayout of a run with the top level only (its workaround
	// for blank submenus in libdbusmenu-gtk3), and a test that read
	// first would leave the panel the whole menu at once.
	testutil.Eventually(t, "xfce4-panel reads the menu (GetLayout)", func() bool { return mon.Calls("GetLayout") > 0 })
	mon.Settle(t)
	waitLayout(t, c, conn, "the menu shows Quit", has("Quit Lets"))
	mon.Settle(t)
	return c, conn, mon
}

// Point (#21, real tray host): the Lets icon registers with xfce4-panel's
// own watcher under the Id "Lets" (a tray host remembers items by it; it
// was "systray_<pid>", new on every run); the panel reads the menu through
// libdbusmenu, and the menu has what the model says.
func TestRealTrayHostShowsTheIconAndReadsItsMenu(t *testing.T) {
	c, conn, _ := startInHost(t, realHostBase)
	for prop, want := range map[string]string{"Id": "Lets", "Title": "Lets", "Status": "Active"} {
		v, err := conn.Object(c.bus, "/StatusNotifierItem").GetProperty("org.kde.StatusNotifierItem." + prop)
		if err != nil {
			t.Fatal(err)
		}
		if v.Value() != want {
			t.Errorf("the item's %s is %v, want %q", prop, v.Value(), want)
		}
	}
	got := strings.Join(c.layout(t, conn).Shown(""), "\n")
	want := strings.Join([]string{
		"Home…", "---", "No agents are working right now", "---", "Chat with Claude", "---",
		"Open", "  Graph", "  hello", "Resume", "  Nothing saved yet", "---",
		"Pair a phone…", "Virtual pad", "Set up Claude…", "Start at login", "---", "Quit Lets",
	}, "\n")
	if got != want {
		t.Errorf("the menu in the panel:\n%s\nwant:\n%s", got, want)
	}
}

// Point (#21, real tray host): the tray host reads Lets' menu twice at the
// start (fyne.io/systray answers its first read with the top level only and
// announces the whole menu 150 ms later) without a warning, because every
// node with entries, the menu's root included, says "children-display":
// "submenu" — in the layout and in GetGroupProperties, which libdbusmenu
// reads again on every new layout and whose answer replaces the
// properties it holds (it dropped the root's children-display, which it
// had set itself, and warned "The child-display variable is set to
// '(null)' but there's a menu, odd?").
func TestRealTrayHostReadsTheMenuAgainWithoutWarnings(t *testing.T) {
	desk.Start(t)
	mark := desk.LogMark()
	c, conn, mon := startInHost(t, realHostBase)
	testutil.Eventually(t, "xfce4-panel reads the whole menu after systray's first answer (a second GetLayout)", func() bool {
		return mon.Calls("GetLayout") >= 2
	})
	mon.Settle(t)
	if w := desk.Warnings(mark); len(w) > 0 {
		t.Errorf("xfce4-panel warned while reading Lets' first menu:\n%s", strings.Join(w, "\n"))
	}

	var walk func(n node, path string)
	walk = func(n node, path string) {
		if len(n.Children) > 0 && n.ChildrenDisplay != "submenu" {
			t.Errorf("the menu node %q (id %d) has %d entries but children-display %q, want submenu", path, n.ID, len(n.Children), n.ChildrenDisplay)
		}
		for _, child := range n.Children {
			walk(child, path+"/"+child.Label)
		}
	}
	walk(c.layout(t, conn), "")

	var props []struct {
		ID    int32
		Props map[string]dbus.Variant
	}
	call := conn.Object(c.bus, "/StatusNotifierItem/menu").Call("com.canonical.dbusmenu.GetGroupProperties", 0, []int32{0}, []string{})
	if call.Err != nil {
		t.Fatalf("GetGroupProperties of the root: %v", call.Err)
	}
	if err := call.Store(&props); err != nil || len(props) != 1 {
		t.Fatalf("GetGroupProperties of the root answered %v (%v)", call.Body, err)
	}
	if v, ok := props[0].Props["children-display"]; !ok || v.Value() != "submenu" {
		t.Errorf("the menu's root has properties %v, want children-display submenu", props[0].Props)
	}
}

// Point (#21, real tray host): a click on a menu entry, sent as the host
// sends it (com.canonical.dbusmenu Event "clicked"), runs its action; a
// click on a hidden place does nothing.
func TestRealTrayHostClickRunsTheAction(t *testing.T) {
	s := realHostBase
	s.Sessions = []Session{{Backend: "codex", ID: "s1", Label: "tidy docs", State: wire.StateRunning}}
	c, conn, _ := startInHost(t, s)
	n := waitLayout(t, c, conn, "the agent shows", has("Working: tidy docs — Codex"))
	agent, _ := n.Find("Working: tidy docs")
	c.click(t, conn, agent.ID)
	if a := c.clicked(t); a != (Action{Kind: ActionSelectSession, Backend: "codex", Session: "s1"}) {
		t.Errorf("clicking the agent ran %+v", a)
	}
	hidden := firstHidden(n)
	if hidden == 0 {
		t.Fatal("the menu has no hidden place")
	}
	c.click(t, conn, hidden)
	home, _ := n.Find("Home…")
	c.click(t, conn, home.ID)
	if a := c.clicked(t); a.Kind != ActionShowHome {
		t.Errorf("after a click on a hidden place and on Home…, the tray ran %+v first, want Home", a)
	}
}

func firstHidden(n node) int32 {
	for _, c := range n.Children {
		if !c.Visible {
			return c.ID
		}
	}
	return 0
}

func (c *trayChild) click(t testing.TB, conn *dbus.Conn, id int32) {
	t.Helper()
	call := conn.Object(c.bus, "/StatusNotifierItem/menu").Call("com.canonical.dbusmenu.Event", 0, id, "clicked", dbus.MakeVariant(""), uint32(time.Now().Unix()))
	if call.Err != nil {
		t.Fatalf("Event clicked on %d: %v", id, call.Err)
	}
}

// Point (#21, real tray host): the menu changing (an agent, a window, a
// conversation, a note, a unique appear and go again) keeps every entry's
// id and draws over the entries in place, and xfce4-panel logs no warning
// from the item's start to the end. Before, every change removed the
// whole menu and added it again under new ids; and even drawn in place,
// the panel's second read of the menu (fyne.io/systray's own, 150 ms
// after the first, or the first change) warned "The child-display
// variable is set to '(null)' but there's a menu, odd?" because the menu's
// root did not say "children-display": "submenu".
func TestRealTrayHostRebuildKeepsIdsWithoutWarnings(t *testing.T) {
	desk.Start(t)
	mark := desk.LogMark()
	c, conn, mon := startInHost(t, realHostBase)
	before := c.layout(t, conn)

	next := realHostBase
	next.Sessions = []Session{{Backend: "claude", ID: "a1", Label: "fix tests", State: wire.StateWaitingForApproval}}
	next.Windows = []Window{{ID: "w1", Unique: "graph", Title: "Graph"}}
	next.Chats = []Chat{{ID: "c1", Title: "Trip plans", Updated: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)}}
	next.ClaudeNote = Note{Text: "Claude is connected to Lets"}
	next.Uniques = append(append([]Unique(nil), next.Uniques...), Unique{Name: "notes", Title: "Notes"})
	c.show(t, next)
	grown := waitLayout(t, c, conn, "the menu shows the agent, window, conversation, note and unique",
		hasWords("fix tests", "Graph — open again", "Continue: Trip plans", "Claude is connected to Lets", "Notes"))
	mon.Settle(t)
	c.show(t, realHostBase)
	// The entries change one after another (the conversation's place is
	// hidden before the note's), so the menu is read until all of them
	// are back.
	start := strings.Join(before.Shown(""), "\n")
	back := waitLayout(t, c, conn, "the menu is back to the start:\n"+start, func(n node) bool {
		return strings.Join(n.Shown(""), "\n") == start
	})
	mon.Settle(t)

	all := func(n node) map[int32]bool {
		ids := map[int32]bool{}
		var walk func(node)
		walk = func(n node) {
			for _, c := range n.Children {
				ids[c.ID] = true
				walk(c)
			}
		}
		walk(n)
		return ids
	}
	first, middle := all(before), all(grown)
	for id := range first {
		if !middle[id] {
			t.Errorf("entry %d was removed when the menu grew", id)
		}
	}
	for label, id := range ids(before, nil) {
		if gid, ok := ids(grown, nil)[label]; ok && gid != id {
			t.Errorf("%q was id %d, is %d after the menu grew", label, id, gid)
		}
		if bid := ids(back, nil)[label]; bid != id {
			t.Errorf("%q was id %d, is %d after it shrank again", label, id, bid)
		}
	}
	if got, want := strings.Join(back.Shown(""), "\n"), strings.Join(before.Shown(""), "\n"); got != want {
		t.Errorf("after the changes went, the menu is:\n%s\nwant:\n%s", got, want)
	}
	if w := desk.Warnings(mark); len(w) > 0 {
		t.Errorf("xfce4-panel warned while the menu changed:\n%s", strings.Join(w, "\n"))
	}
}

// Point (#21): the menu's ids are the same on every run, so a tray host
// (or a person's habit) meets the same entries.
func TestRealTrayHostIdsAreStableAcrossRuns(t *testing.T) {
	var runs [2]map[string]int32
	for i := range runs {
		c, conn, _ := startInHost(t, realHostBase)
		runs[i] = ids(c.layout(t, conn), nil)
		c.stop(t)
	}
	if len(runs[0]) == 0 {
		t.Fatal("no entries")
	}
	for label, id := range runs[0] {
		if runs[1][label] != id {
			t.Errorf("%q is id %d in one run and %d in the next", label, id, runs[1][label])
		}
	}
}

// TestRealTrayHostIdleRSS measures the resident memory of a process that
// runs only the tray, shown in xfce4-panel, once it is idle (the panel has
// read the menu and stopped asking).
func TestRealTrayHostIdleRSS(t *testing.T) {
	c, _, _ := startInHost(t, realHostBase)
	t.Logf("tray idle RSS: %d kB (this test binary running only the tray)", c.rss(t))
}

// BenchmarkTrayIdleRSS reports the idle resident memory of a tray-only
// process in the real tray host (kB-RSS); the time per op is meaningless.
func BenchmarkTrayIdleRSS(b *testing.B) {
	desk.Start(b)
	mon := desk.Monitor(b)
	c := startTrayChild(b, realHostBase)
	mon.Item(c.bus)
	conn := desk.Conn(b)
	c.registered(b, conn)
	testutil.Eventually(b, "xfce4-panel reads the menu (GetLayout)", func() bool { return mon.Calls("GetLayout") > 0 })
	mon.Settle(b)
	var kb int
	for b.Loop() {
		kb = c.rss(b)
	}
	b.ReportMetric(float64(kb), "kB-RSS")
}
