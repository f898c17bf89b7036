package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/lets-app/lets/app/lets"
	"github.com/lets-app/lets/app/tray/traytest"
	"github.com/lets-app/lets/app/window/guitest"
	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/testenv/bustest"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/backend/wire"
	"github.com/lets-app/lets/backend/wireclient"
)

// desktopSession is an X display and a private session bus. The display
// is the package's one Xvfb (sharedDisplay, with -noreset: see
// guitest.Display); the bus is the test's own, started and stopped with
// it, so no tray host or name of one test is left for the next.
type desktopSession struct {
	display string
	busAddr string
}

// sharedDisplay is the Xvfb of this package's desktop tests; TestMain
// (process_test.go) stops it.
var sharedDisplay = guitest.Display{Command: testutil.Command}

func startDesktopSession(t testing.TB) desktopSession {
	t.Helper()
	display := sharedDisplay.Name(t)
	addr := bustest.Start(t)
	return desktopSession{display: display, busAddr: addr}
}

// fakeWatcher owns org.kde.StatusNotifierWatcher and records every
// RegisterStatusNotifierItem, as a desktop panel's watcher would.
type fakeWatcher struct {
	mu    sync.Mutex
	items []registration
}

type registration struct{ sender, path string }

func (w *fakeWatcher) RegisterStatusNotifierItem(sender dbus.Sender, path string) *dbus.Error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.items = append(w.items, registration{string(sender), path})
	return nil
}

func (w *fakeWatcher) RegisterStatusNotifierHost(sender dbus.Sender, service string) *dbus.Error {
	return nil
}

func (w *fakeWatcher) registered() []registration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]registration(nil), w.items...)
}

func startWatcher(t testing.TB, busAddr string) (*dbus.Conn, *fakeWatcher) {
	t.Helper()
	conn, err := dbus.Connect(busAddr)
	if err != nil {
		t.Fatalf("connect to the test session bus: %v", err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	w := &fakeWatcher{}
	if err := conn.Export(w, "/StatusNotifierWatcher", "org.kde.StatusNotifierWatcher"); err != nil {
		t.Fatal(err)
	}
	reply, err := conn.RequestName("org.kde.StatusNotifierWatcher", dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own org.kde.StatusNotifierWatcher: %v %v", reply, err)
	}
	return conn, w
}

// menuNode is one entry of a com.canonical.dbusmenu layout.
type menuNode = traytest.MenuNode

func getLayout(conn *dbus.Conn, item registration) (menuNode, error) {
	return traytest.GetLayout(conn, item.sender, dbus.ObjectPath(item.path+"/menu"))
}

// desktopLets starts the real `lets` (this test binary as the CLI) in the
// desktop session, with its own data folder, socket and config folder.
type desktopLets struct {
	cmd  *exec.Cmd
	home string
	sock string
	xdg  string
	out  *testutil.SyncBuffer
	mark string
	// opened is the file the fake xdg-open appends each URL to.
	opened string
	// exited is closed when the process has ended; err is its Wait error.
	exited chan struct{}
	err    error
}

func letsDesktopEnv(t testing.TB, ds desktopSession) (home, sock, xdg string) {
	t.Helper()
	home = filepath.Join(t.TempDir(), "home")
	sockDir, err := os.MkdirTemp("", "lt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(sockDir) })
	sock = filepath.Join(sockDir, "pad.sock")
	xdg = t.TempDir()
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	// No Launchpad here; the browser pad on a free port.
	cfg := `{"version": 1, "handoff": "close", "host_port": 0, "wire": {"enabled": true, "midi": false}, "web": {"enabled": true, "port": 0, "lan": false}}`
	if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return home, sock, xdg
}

func startDesktopLets(t testing.TB, ds desktopSession, home, sock, xdg string, args ...string) *desktopLets {
	t.Helper()
	return startDesktopLetsBin(t, os.Args[0], ds, home, sock, xdg, args...)
}

// startDesktopLetsBin is startDesktopLets with another Lets binary (the
// GUI build, for real windows).
func startDesktopLetsBin(t testing.TB, binary string, ds desktopSession, home, sock, xdg string, args ...string) *desktopLets {
	t.Helper()
	l := &desktopLets{home: home, sock: sock, xdg: xdg, out: &testutil.SyncBuffer{}, exited: make(chan struct{})}
	l.mark = fmt.Sprintf("lets-desktop-test-%d-%d", os.Getpid(), time.Now().UnixNano())
	// The desktop browser is a fake xdg-open that writes down the URL, so
	// the test neither starts a real browser nor waits for one.
	bin := t.TempDir()
	l.opened = filepath.Join(bin, "opened")
	script := fakeBrowserScript(l.opened)
	if err := os.WriteFile(filepath.Join(bin, "xdg-open"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	l.cmd = exec.Command(binary, args...)
	l.cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "LETS_RUN_AS_CLI=1", "LETS_HOME="+home, "PAD_LATTICE_SOCKET="+sock,
		"DISPLAY="+ds.display, "WAYLAND_DISPLAY=", "DBUS_SESSION_BUS_ADDRESS="+ds.busAddr,
		"XDG_CONFIG_HOME="+xdg, "LETS_TEST_MARK="+l.mark, "LETS_LOG=debug")
	l.cmd.Stdout, l.cmd.Stderr = l.out, l.out
	if err := l.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { l.err = l.cmd.Wait(); close(l.exited) }()
	t.Cleanup(func() {
		select {
		case <-l.exited:
		default:
			_ = l.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-l.exited:
			case <-time.After(5 * time.Second):
				_ = l.cmd.Process.Kill()
				select {
				case <-l.exited:
				case <-time.After(5 * time.Second):
					t.Errorf("lets (pid %d) did not end after SIGKILL", l.cmd.Process.Pid)
				}
			}
		}
		if t.Failed() {
			t.Logf("lets output:\n%s", l.out.String())
		}
	})
	return l
}

// markedProcesses lists the pids whose environment carries mark: the
// process and every child it started.
func markedProcesses(mark string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil {
			continue
		}
		if strings.Contains(string(data), "LETS_TEST_MARK="+mark+"\x00") {
			pids = append(pids, pid)
		}
	}
	return pids
}

// TestDesktopTrayOverDBus is the tray's acceptance test: `lets` under Xvfb
// with a session bus registers its tray with a (fake) StatusNotifierWatcher;
// com.canonical.dbusmenu GetLayout shows the menu; two sessions reported by
// a Wire client appear with their states after the debounce; the icon
// follows the most urgent one; "Event clicked" on Quit ends the process
// and every child.
func TestDesktopTrayOverDBus(t *testing.T) {
	testutil.ProcFS(t)
	ds := startDesktopSession(t)
	conn, watcher := startWatcher(t, ds.busAddr)
	home, sock, xdg := letsDesktopEnv(t, ds)
	l := startDesktopLets(t, ds, home, sock, xdg)

	// 1. The tray registers.
	if !testutil.Poll(testutil.EventuallyTimeout, func() bool { return len(watcher.registered()) > 0 }) {
		t.Fatalf("no RegisterStatusNotifierItem within %v; lets said:\n%s", testutil.EventuallyTimeout, l.out.String())
	}
	item := watcher.registered()[0]
	if item.path != "/StatusNotifierItem" {
		t.Fatalf("registered %+v, want the /StatusNotifierItem path", item)
	}

	// 2. GetLayout shows the menu.
	var layout menuNode
	if !testutil.Poll(testutil.EventuallyTimeout, func() bool {
		var err error
		layout, err = getLayout(conn, item)
		_, ok := layout.Find("Quit Lets")
		return err == nil && ok
	}) {
		t.Fatalf("the menu never showed Quit; layout:\n%s", strings.Join(layout.Shown(""), "\n"))
	}
	for _, want := range []string{"Home…", "No agents are working right now", "Open", "Resume", "Pair a phone…", "Virtual pad", "Set up Claude…", "Start at login"} {
		if _, ok := layout.Find(want); !ok {
			t.Errorf("the menu lacks %q:\n%s", want, strings.Join(layout.Shown(""), "\n"))
		}
	}
	var open menuNode
	if !testutil.Poll(testutil.EventuallyTimeout, func() bool {
		layout, _ = getLayout(conn, item)
		open, _ = layout.Find("Open")
		return len(open.Children) > 0 && open.Children[0].Enabled
	}) {
		t.Errorf("Open does not list the built-in uniques:\n%s", strings.Join(layout.Shown(""), "\n"))
	}
	if status := trayProp(t, conn, item, "Status"); status != "Active" {
		t.Errorf("tray Status = %q", status)
	}
	idleIcon := iconPixels(t, conn, item)

	// 3. A Wire client reports two sessions; both show with their states.
	ctx, cancel := context.WithTimeout(context.Background(), 3*testutil.EventuallyTimeout)
	defer cancel()
	wc := wireclient.New(sock)
	for _, s := range []wire.StateCommand{
		{State: wire.StateRunning, Agent: wire.Identity{Backend: "codex", SessionID: "s-run"}, Metadata: wire.MetadataOf("label", "tidy docs")},
		{State: wire.StateWaitingForApproval, Agent: wire.Identity{Backend: "claude", SessionID: "s-ask"}, Metadata: wire.MetadataOf("label", "fix tests")},
	} {
		if err := wc.ReportState(ctx, s); err != nil {
			t.Fatalf("report %v: %v", s.State, err)
		}
	}
	reported := time.Now()
	var ask, run menuNode
	if !testutil.Poll(testutil.EventuallyTimeout, func() bool {
		layout, _ = getLayout(conn, item)
		var ok1, ok2 bool
		ask, ok1 = layout.Find("Needs your approval: fix tests — Claude Code")
		run, ok2 = layout.Find("Working: tidy docs — Codex")
		return ok1 && ok2
	}) {
		t.Fatalf("the menu does not show both sessions:\n%s", strings.Join(layout.Shown(""), "\n"))
	}
	t.Logf("both sessions in the menu %v after they were reported (debounce %v)", time.Since(reported).Round(time.Millisecond), 200*time.Millisecond)
	if !ask.Enabled || !run.Enabled {
		t.Errorf("session items are disabled: %+v %+v", ask, run)
	}
	if first := layout.Children[3]; !strings.HasPrefix(first.Label, "Needs your approval") {
		t.Errorf("the session that needs approval is not first: %q", first.Label)
	}
	if !testutil.Poll(testutil.EventuallyTimeout, func() bool { return string(iconPixels(t, conn, item)) != string(idleIcon) }) {
		t.Error("the icon did not change when an agent asked for approval")
	}
	if tip := trayTooltip(t, conn, item); tip != "Lets — an agent needs your approval" {
		t.Errorf("tooltip = %q", tip)
	}

	// A state change updates the entry in place: same id, new words.
	// (How many redraws a burst of changes costs is
	// BenchmarkTrayBurstRedraws; the debounce that coalesces them is
	// TestDebounceRebuildsOnceAfterTheLastChange in app/tray.)
	reportBurst(t, ctx, wc, 10)
	var now menuNode
	if !testutil.Poll(testutil.EventuallyTimeout, func() bool {
		layout, _ = getLayout(conn, item)
		var ok bool
		now, ok = layout.Find("Waiting for you: tidy docs — Codex")
		return ok
	}) {
		t.Errorf("the menu never showed the last state of the burst:\n%s", strings.Join(layout.Shown(""), "\n"))
	} else if now.ID != run.ID {
		t.Errorf("after the state change the entry is %+v, want id %d updated in place:\n%s", now, run.ID, strings.Join(layout.Shown(""), "\n"))
	}

	// 4. Clicking a session selects it on the pads.
	clickLabel(t, conn, item, ask.Label)
	if !testutil.Poll(testutil.EventuallyTimeout, func() bool {
		st, err := wc.Status(ctx)
		return err == nil && st.Selected != nil && st.Selected.SessionID == "s-ask"
	}) {
		t.Error("clicking the session in the tray did not select it on the pads")
	}

	// 5. Start at login writes the XDG autostart entry.
	clickLabel(t, conn, item, "Start at login")
	entry := filepath.Join(xdg, "autostart", "lets.desktop")
	if !testutil.Poll(testutil.EventuallyTimeout, func() bool { _, err := os.Stat(entry); return err == nil }) {
		t.Errorf("no %s after clicking Start at login", entry)
	}

	// 6. Home… shows the home page through a one-time home link.
	clickLabel(t, conn, item, "Home…")
	if !testutil.Poll(testutil.EventuallyTimeout, func() bool { data, _ := os.ReadFile(l.opened); return strings.Contains(string(data), "/#k=") }) {
		t.Error("Home… in the tray did not open the home page with a home link")
	}

	// Virtual pad and Pair a phone… open the browser pad's page through its
	// one-time admin link.
	for _, label := range []string{"Virtual pad", "Pair a phone…"} {
		before, _ := os.ReadFile(l.opened)
		clickLabel(t, conn, item, label)
		if !testutil.Poll(testutil.EventuallyTimeout, func() bool {
			data, _ := os.ReadFile(l.opened)
			return strings.Count(string(data), "/admin/open/") > strings.Count(string(before), "/admin/open/")
		}) {
			t.Errorf("%s did not open the pad page through a one-time admin link", label)
		}
	}

	// 7. Open → the first unique asks the host for a window (this test
	// binary has no native windows, so the host hands the URL to the
	// browser); the window then shows in the menu, live.
	if len(open.Children) > 0 {
		clickLabel(t, conn, item, open.Children[0].Label)
		if !testutil.Poll(testutil.EventuallyTimeout, func() bool {
			layout, _ = getLayout(conn, item)
			if _, ok := layout.Find("Windows"); !ok {
				return false
			}
			for _, c := range layout.Children {
				if strings.HasSuffix(c.Label, " — open again") && c.Enabled {
					return true
				}
			}
			return false
		}) {
			t.Errorf("the opened window is not in the menu:\n%s", strings.Join(layout.Shown(""), "\n"))
		}
		if !testutil.Poll(testutil.EventuallyTimeout, func() bool { data, _ := os.ReadFile(l.opened); return strings.Contains(string(data), "/w/w1/?t=") }) {
			t.Error("the window's one-time URL did not go to the browser")
		}
	}

	// 8. Quit ends the process and every child.
	if pids := markedProcesses(l.mark); len(pids) == 0 {
		t.Fatal("cannot see the lets process in /proc")
	}
	quitFromTray(t, conn, item, l)
	if _, err := config.ReadHostInfo(config.Paths{Home: home}); err == nil {
		t.Error("host.json left behind after Quit")
	}
}

// reportBurst reports n state changes of the session s-run back to back,
// alternating working and waiting for a reply (n even ends waiting). Each
// waits for the daemon's acknowledgement: a fire-and-forget report is a
// connection of its own, and the daemon serves connections side by side,
// so two sent a moment apart may be applied in either order.
func reportBurst(tb testing.TB, ctx context.Context, wc *wireclient.Client, n int) {
	tb.Helper()
	for i := range n {
		st := wire.StateRunning
		if i%2 == 1 {
			st = wire.StateWaitingForReply
		}
		if _, err := wc.ReportStateReply(ctx, wire.StateCommand{State: st, Agent: wire.Identity{Backend: "codex", SessionID: "s-run"}, Metadata: wire.MetadataOf("label", "tidy docs")}); err != nil {
			tb.Fatal(err)
		}
	}
}

// clickLabel clicks the item whose label starts with prefix in the current
// layout (the menu is rebuilt on every change, which renumbers it).
func clickLabel(t *testing.T, conn *dbus.Conn, item registration, prefix string) {
	t.Helper()
	layout, err := getLayout(conn, item)
	if err != nil {
		t.Fatal(err)
	}
	n, ok := layout.Find(prefix)
	if !ok {
		t.Fatalf("no %q in the menu:\n%s", prefix, strings.Join(layout.Shown(""), "\n"))
	}
	clickMenu(t, conn, item, n.ID)
}

func clickMenu(t *testing.T, conn *dbus.Conn, item registration, id int32) {
	t.Helper()
	obj := conn.Object(item.sender, dbus.ObjectPath(item.path+"/menu"))
	call := obj.Call("com.canonical.dbusmenu.Event", 0, id, "clicked", dbus.MakeVariant(""), uint32(time.Now().Unix()))
	if call.Err != nil {
		t.Fatalf("Event clicked on %d: %v", id, call.Err)
	}
}

func trayProp(t *testing.T, conn *dbus.Conn, item registration, name string) string {
	t.Helper()
	v, err := conn.Object(item.sender, dbus.ObjectPath(item.path)).GetProperty("org.kde.StatusNotifierItem." + name)
	if err != nil {
		t.Fatalf("read %s: %v", name, err)
	}
	s, _ := v.Value().(string)
	return s
}

func trayTooltip(t *testing.T, conn *dbus.Conn, item registration) string {
	t.Helper()
	v, err := conn.Object(item.sender, dbus.ObjectPath(item.path)).GetProperty("org.kde.StatusNotifierItem.ToolTip")
	if err != nil {
		t.Fatalf("read ToolTip: %v", err)
	}
	// (sa(iiay)ss): icon name, icon pixmaps, title, text.
	fields, _ := v.Value().([]any)
	if len(fields) < 3 {
		return fmt.Sprint(v.Value())
	}
	s, _ := fields[2].(string)
	if s == "" && len(fields) > 3 {
		s, _ = fields[3].(string)
	}
	return s
}

func iconPixels(t *testing.T, conn *dbus.Conn, item registration) []byte {
	t.Helper()
	v, err := conn.Object(item.sender, dbus.ObjectPath(item.path)).GetProperty("org.kde.StatusNotifierItem.IconPixmap")
	if err != nil {
		t.Fatalf("read IconPixmap: %v", err)
	}
	data, _ := json.Marshal(v.Value())
	return data
}

// TestSecondLetsAsksTheFirstToShowHome: a second `lets` on the same data
// folder asks the running one (over the host API, with the token from
// host.json) to show its home window, and exits 0.
func TestSecondLetsAsksTheFirstToShowHome(t *testing.T) {
	testutil.ProcFS(t)
	ds := startDesktopSession(t)
	_, watcher := startWatcher(t, ds.busAddr)
	home, sock, xdg := letsDesktopEnv(t, ds)
	first := startDesktopLets(t, ds, home, sock, xdg)
	if !testutil.Poll(testutil.EventuallyTimeout, func() bool { return len(watcher.registered()) > 0 }) {
		t.Fatalf("the first lets did not start its tray; it said:\n%s", first.out.String())
	}
	second := startDesktopLets(t, ds, home, sock, xdg)
	select {
	case <-second.exited:
		if second.err != nil {
			t.Fatalf("the second lets exited with %v; it said:\n%s", second.err, second.out.String())
		}
	case <-time.After(testutil.EventuallyTimeout):
		t.Fatalf("the second lets did not exit within %v", testutil.EventuallyTimeout)
	}
	if !strings.Contains(second.out.String(), "Lets is already running; it is showing its home window now.") {
		t.Errorf("the second lets said:\n%s", second.out.String())
	}
	info, err := config.ReadHostInfo(config.Paths{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	homePage := fmt.Sprintf("http://127.0.0.1:%d/#k=", info.Port)
	if !testutil.Poll(testutil.EventuallyTimeout, func() bool {
		data, _ := os.ReadFile(first.opened)
		return strings.Contains(string(data), homePage)
	}) {
		data, _ := os.ReadFile(first.opened)
		t.Errorf("the first lets did not show its home page %s (opened: %q); it said:\n%s", homePage, data, first.out.String())
	}
	select {
	case <-first.exited:
		t.Fatalf("the first lets ended (%v) when the second started", first.err)
	default:
	}
}

// TestPlainLetsWithoutADisplayRunsHeadless: no display (or no session bus)
// → one line saying so, then the same host as `lets serve`.
func TestPlainLetsWithoutADisplayRunsHeadless(t *testing.T) {
	for name, env := range map[string]map[string]string{
		"no display": {"DISPLAY": "", "WAYLAND_DISPLAY": "", "DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent"},
		"no bus":     {"DISPLAY": ":99", "DBUS_SESSION_BUS_ADDRESS": "", "XDG_RUNTIME_DIR": ""},
		"dead bus":   {"DISPLAY": ":99", "DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/bus"},
	} {
		t.Run(name, func(t *testing.T) {
			e := newTestEnv(t)
			base := e.Getenv
			e.Getenv = func(k string) string {
				if v, ok := env[k]; ok {
					return v
				}
				return base(k)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan int, 1)
			go func() { done <- Run(ctx, e.Env, nil) }()
			if !testutil.Poll(testutil.EventuallyTimeout, func() bool { return strings.Contains(e.out.String(), "Press Ctrl+C") }) {
				cancel()
				t.Fatalf("plain lets did not start headless: %s%s", e.out.String(), e.err.String())
			}
			cancel()
			select {
			case code := <-done:
				if code != 0 {
					t.Errorf("exit %d", code)
				}
			case <-time.After(testutil.EventuallyTimeout):
				t.Fatalf("did not stop within %v", testutil.EventuallyTimeout)
			}
			lines := strings.Split(e.out.String(), "\n")
			if !strings.Contains(lines[0], "so Lets runs headless, like `lets serve` (no tray).") {
				t.Errorf("first line %q does not say it runs headless", lines[0])
			}
			if !strings.HasPrefix(lines[1], "Lets ") || !strings.Contains(lines[1], "is running.") {
				t.Errorf("second line %q is not the serve banner", lines[1])
			}
		})
	}
}

// TestSecondLetsBesideAHeadlessLets: when the running Lets is `lets serve`
// (no home window), a second `lets` asks it to show its home page; the
// running Lets shows a fresh one-time home link itself (its browser with a
// display, else its own terminal) and the second `lets` never sees the
// link (issue #23: a home link signs in as the person). It exits 0.
func TestSecondLetsBesideAHeadlessLets(t *testing.T) {
	for _, withDisplay := range []bool{false, true} {
		e := newTestEnv(t)
		browser := &browserRecord{}
		if withDisplay {
			onADesktop(browser)(e)
		}
		startServe(t, e, "--port", "0")
		var opened []string
		out := &syncBuffer{}
		second := &Env{Stdout: out, Stderr: out, Getenv: e.Getenv, OpenURL: func(u string) error { opened = append(opened, u); return nil }}
		d := &lets.Desktop{Env: second, Headless: !withDisplay}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		err := serve(ctx, second, nil, d)
		cancel()
		if err != nil {
			t.Fatalf("display %v: %v (%s)", withDisplay, err, out.String())
		}
		info, err := config.ReadHostInfo(config.Paths{Home: e.home})
		if err != nil {
			t.Fatal(err)
		}
		link := fmt.Sprintf("http://127.0.0.1:%d/#k=", info.Port)
		if len(opened) != 0 || strings.Contains(out.String(), "#k=") {
			t.Errorf("display %v: the second lets got the home link: opened %q, said %q", withDisplay, opened, out.String())
		}
		if withDisplay {
			if got := browser.list(); len(got) != 1 || !strings.HasPrefix(got[0], link) {
				t.Errorf("with a display the running Lets' browser got %q, want a home link %s…", got, link)
			}
			if !strings.Contains(out.String(), "home page is opening in your browser") {
				t.Errorf("said %q", out.String())
			}
			continue
		}
		if !strings.Contains(out.String(), "it printed a fresh link to its home page in the terminal where it runs") {
			t.Errorf("without a display the second lets said %q", out.String())
		}
		if !strings.Contains(e.out.String(), link) || !strings.Contains(e.out.String(), "works once") {
			t.Errorf("without a display the running Lets printed %q, want a home link %s…", e.out.String(), link)
		}
	}
}

// TestLetsWithoutATrayHostSaysSo: on a desktop whose panel shows no tray
// icons (no StatusNotifierWatcher, e.g. GNOME without AppIndicator), plain
// `lets` still runs with its tray exported, and says how to reach Home.
func TestLetsWithoutATrayHostSaysSo(t *testing.T) {
	testutil.ProcFS(t)
	ds := startDesktopSession(t)
	home, sock, xdg := letsDesktopEnv(t, ds)
	l := startDesktopLets(t, ds, home, sock, xdg)
	if !testutil.Poll(testutil.EventuallyTimeout, func() bool { return strings.Contains(l.out.String(), "Press Ctrl+C") }) {
		t.Fatalf("lets did not start:\n%s", l.out.String())
	}
	out := l.out.String()
	if !strings.Contains(out, "No tray host runs on this desktop yet") || strings.Contains(out, "runs headless") {
		t.Errorf("lets said:\n%s", out)
	}
	// The tray registers as soon as a tray host starts.
	_, watcher := startWatcher(t, ds.busAddr)
	if !testutil.Poll(testutil.EventuallyTimeout, func() bool { return len(watcher.registered()) > 0 }) {
		t.Errorf("the tray did not register with a tray host that started later")
	}
}

// quitFromTray clicks the tray's Quit and checks that lets exits cleanly
// and that every process it started is gone. Lets may end before the bus
// delivers its reply to the click: that is the bus saying NoReply, and
// fine here.
func quitFromTray(t *testing.T, conn *dbus.Conn, item registration, l *desktopLets) {
	t.Helper()
	layout, _ := getLayout(conn, item)
	quit, ok := layout.Find("Quit Lets")
	if !ok {
		t.Fatalf("no Quit in the menu:\n%s", strings.Join(layout.Shown(""), "\n"))
	}
	call := conn.Object(item.sender, dbus.ObjectPath(item.path+"/menu")).Call("com.canonical.dbusmenu.Event", 0, quit.ID, "clicked", dbus.MakeVariant(""), uint32(time.Now().Unix()))
	if de, isDBus := call.Err.(dbus.Error); call.Err != nil && (!isDBus || de.Name != "org.freedesktop.DBus.Error.NoReply") {
		t.Fatalf("Event clicked on Quit: %v", call.Err)
	}
	select {
	case <-l.exited:
		if l.err != nil {
			t.Fatalf("lets exited with %v after Quit", l.err)
		}
	case <-time.After(testutil.EventuallyTimeout):
		t.Fatalf("lets still runs %v after Quit", testutil.EventuallyTimeout)
	}
	if !testutil.Poll(testutil.EventuallyTimeout, func() bool { return len(markedProcesses(l.mark)) == 0 }) {
		for _, pid := range markedProcesses(l.mark) {
			cmdline, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
			t.Errorf("a process of lets still runs after Quit: pid %d: %s", pid, strings.ReplaceAll(string(cmdline), "\x00", " "))
		}
	}
}
