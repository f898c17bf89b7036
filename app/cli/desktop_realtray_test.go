package cli

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/lets-app/lets/app/tray/traytest"
	"github.com/lets-app/lets/app/window/guitest"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// newRealTray starts a real tray host for the whole desktop: xfce4-panel's
// status tray (its own StatusNotifierWatcher, reading menus through
// libdbusmenu) with openbox on an Xvfb display and a private session bus,
// as on an Xfce desktop (#21 acceptance: the desktop tests against a real
// tray host, not only the fake watcher). Each run of the one test that
// uses it has its own (go test -count=N runs it N times), ended when the
// run ends.
func newRealTray(t *testing.T) *traytest.Desktop {
	t.Helper()
	d := &traytest.Desktop{Command: testutil.Command, Eventually: testutil.Eventually, WindowManager: true}
	d.Start(t)
	t.Cleanup(d.Stop)
	return d
}

// realTrayItem waits until the panel's own watcher lists an item owned by
// the process pid and returns it as registered there (bus name, path).
func realTrayItem(t *testing.T, realTray *traytest.Desktop, conn *dbus.Conn, pid int, l *desktopLets) registration {
	t.Helper()
	var item registration
	var items []string
	if !testutil.Poll(testutil.EventuallyTimeout, func() bool {
		var err error
		if items, err = traytest.Items(conn); err != nil {
			return false
		}
		for _, it := range items {
			name, path, ok := strings.Cut(it, "/")
			if !ok {
				continue
			}
			var owner uint32
			if err := conn.BusObject().Call("org.freedesktop.DBus.GetConnectionUnixProcessID", 0, name).Store(&owner); err == nil && int(owner) == pid {
				item = registration{sender: name, path: "/" + path}
				return true
			}
		}
		return false
	}) {
		t.Fatalf("xfce4-panel's watcher lists no item of lets (pid %d) within %v: items %q\nlets said:\n%s\npanel said:\n%s", pid, testutil.EventuallyTimeout, items, l.out.String(), realTray.Log())
	}
	return item
}

// realTrayMenu reads the item's menu the way the panel does: the object
// path from the item's Menu property, then com.canonical.dbusmenu
// GetLayout.
func realTrayMenu(t *testing.T, conn *dbus.Conn, item registration) (dbus.ObjectPath, menuNode) {
	t.Helper()
	v, err := conn.Object(item.sender, dbus.ObjectPath(item.path)).GetProperty("org.kde.StatusNotifierItem.Menu")
	if err != nil {
		t.Fatalf("the item's Menu property: %v", err)
	}
	path, ok := v.Value().(dbus.ObjectPath)
	if !ok || !path.IsValid() {
		t.Fatalf("the item's Menu property is %v, not an object path", v)
	}
	call := conn.Object(item.sender, path).Call("com.canonical.dbusmenu.GetLayout", 0, int32(0), int32(-1), []string{})
	if call.Err != nil || len(call.Body) != 2 {
		t.Fatalf("GetLayout on %s: %v %v", path, call.Err, call.Body)
	}
	layout, err := traytest.ParseLayout(call.Body[1])
	if err != nil {
		t.Fatal(err)
	}
	return path, layout
}

// topApp is the top window of the stacking order (bottom to top,
// _NET_CLIENT_LIST_STACKING) other than the panel, which a window manager
// keeps above every app.
func topApp(t *testing.T, s wmSession, panel string) string {
	t.Helper()
	v, err := s.x.Prop(t, "-root", "_NET_CLIENT_LIST_STACKING")
	if err != nil {
		return ""
	}
	f := strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == '#' })
	for i := len(f) - 1; i >= 0; i-- {
		id, err := strconv.ParseUint(strings.TrimPrefix(f[i], "0x"), 16, 64)
		if err != nil || !strings.HasPrefix(f[i], "0x") {
			continue
		}
		if w := fmt.Sprintf("0x%x", id); w != panel {
			return w
		}
	}
	return ""
}

// coverAppWith is coverWith beside a panel: another app's window comes on
// top of the apps, with the focus.
func coverAppWith(t *testing.T, s wmSession, panel string) string {
	t.Helper()
	xm := exec.Command(testutil.Command(t, "xmessage"), "-geometry", "500x300+0+40", "-title", "Another app", "another app")
	xm.Env = append(os.Environ(), "DISPLAY="+s.display)
	if err := xm.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = xm.Process.Kill(); _ = xm.Wait() })
	var id string
	if !testutil.Poll(testutil.EventuallyTimeout, func() bool {
		id = s.x.Find(t, "Another app")
		return id != "" && s.x.Active(t) == id && topApp(t, s, panel) == id
	}) {
		t.Fatalf("the other app's window did not come on top with the focus: windows %+v, active %s", s.x.Windows(t), s.x.Active(t))
	}
	return id
}

// TestLetsInARealTrayHost (#21 acceptance) runs the real desktop Lets (the
// GUI build, as installed) in a real tray host: xfce4-panel under openbox
// on Xvfb with a private session bus.
//   - Lets' item is registered with the panel's own
//     StatusNotifierWatcher (the process that owns it is Lets), and the
//     panel's host reads its menu (GetLayout calls seen on the bus);
//   - the menu, read over com.canonical.dbusmenu, has Home…, Pair a
//     phone…, Set up Claude… and Quit, with no internal names;
//   - no home window is on screen before Home… (a tray host runs, so the
//     home window is not the main window);
//   - a dbusmenu Event "clicked" on Home… shows the home window (titled
//     Lets, WM_CLASS lets/Lets) with the focus (_NET_ACTIVE_WINDOW);
//   - with another app focused on top, Home… again brings the same home
//     window back to the front with the focus, no second one;
//   - the panel warns neither while reading the first menu nor while
//     reading it again after it changed (the home window's line).
//
// It logs the time from the Home… click to the focused window.
func TestLetsInARealTrayHost(t *testing.T) {
	testutil.ProcFS(t)
	testutil.Command(t, "xprop", "xwininfo", "wmctrl", "xmessage")
	guiBuild.Build(t) // before the panel starts: the first build takes minutes
	realTray := newRealTray(t)
	s := wmSession{
		desktopSession: desktopSession{display: realTray.Display(), busAddr: realTray.BusAddress()},
		x:              guitest.X{Display: realTray.Display(), Command: testutil.Command},
	}
	conn := realTray.Conn(t)
	mark := realTray.LogMark()
	start := mark
	// The monitor starts before Lets: the panel may read the menu before
	// the test has found Lets' item on the bus.
	mon := realTray.Monitor(t)
	l := startGUILets(t, s)

	item := realTrayItem(t, realTray, conn, l.cmd.Process.Pid, l)
	mon.Item(item.sender)
	testutil.Eventually(t, "the panel reads Lets' menu", func() bool { return mon.Calls("GetLayout") > 0 })
	mon.Settle(t)
	if id := trayProp(t, conn, item, "Id"); id != "Lets" {
		t.Errorf("the item's Id is %q, want Lets", id)
	}

	if w := realTray.Warnings(mark); len(w) > 0 {
		t.Errorf("the panel warned while reading Lets' first menu:\n%s", strings.Join(w, "\n"))
	}
	mark = realTray.LogMark()
	_, layout := realTrayMenu(t, conn, item)
	labels := strings.Join(layout.Shown(""), "\n")
	for _, want := range []string{"Home…", "Pair a phone…", "Set up Claude…", "Quit"} {
		if _, ok := layout.Find(want); !ok {
			t.Errorf("the menu the panel reads has no %q:\n%s", want, labels)
		}
	}
	if strings.Contains(labels, "(chat)") || strings.Contains(labels, "local") {
		t.Errorf("the menu shows internal names:\n%s", labels)
	}
	if id := s.x.Find(t, "Lets"); id != "" {
		t.Fatalf("a home window (%s) is on screen before Home… was clicked, with a tray host running", id)
	}

	// Home… → the home window, focused.
	clicked := time.Now()
	clickLabel(t, conn, item, "Home…")
	home := homeWindow(t, s, l)
	if !testutil.Poll(testutil.EventuallyTimeout, func() bool { return s.x.Active(t) == home }) {
		t.Fatalf("after Home… the focused window is %q, not the home window %s; windows %+v", s.x.Active(t), home, s.x.Windows(t))
	}
	t.Logf("real tray host: Home… click → home window on screen and focused after %v", time.Since(clicked).Round(time.Millisecond))
	if c, err := s.x.Prop(t, home, "WM_CLASS"); err != nil || !strings.Contains(c, `"Lets"`) {
		t.Errorf("home window WM_CLASS = %s (%v)", c, err)
	}

	// Behind another app, Home… raises the same window.
	panel := s.x.Find(t, "xfce4-panel")
	other := coverAppWith(t, s, panel)
	clicked = time.Now()
	clickLabel(t, conn, item, "Home…")
	if !testutil.Poll(testutil.EventuallyTimeout, func() bool { return s.x.Active(t) == home && topApp(t, s, panel) == home }) {
		t.Fatalf("Home… with another app (%s) on top: focused %s, top %s; the home window is %s", other, s.x.Active(t), topApp(t, s, panel), home)
	}
	t.Logf("real tray host: Home… click → the covered home window focused after %v", time.Since(clicked).Round(time.Millisecond))
	if n := len(anyWindowProcesses(markedProcesses(l.mark))); n != 1 {
		t.Errorf("%d window processes after the second Home…, want the one home window", n)
	}
	select {
	case <-l.exited:
		t.Fatalf("lets ended (%v)", l.err)
	default:
	}
	mon.Settle(t)
	if w := realTray.Warnings(mark); len(w) > 0 {
		// Before app/tray gave the menu's root "children-display":
		// "submenu", the panel's next read of the menu (the change for
		// the home window's line) warned "The child-display variable is
		// set to '(null)' but there's a menu, odd?".
		t.Errorf("the panel warned after Home… (the menu's change for the new window):\n%s", strings.Join(w, "\n"))
	}
	if n := mon.Calls("GetLayout"); n < 2 {
		t.Errorf("the panel read Lets' menu %d times, want it read again after the menu changed", n)
	}
	t.Logf("real tray host: the panel read Lets' menu %d times (GetLayout), %d warnings since Lets started", mon.Calls("GetLayout"), len(realTray.Warnings(start)))
}
