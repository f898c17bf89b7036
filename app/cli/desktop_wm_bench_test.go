package cli

import (
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/lets-app/lets/backend/testenv/testutil"
)

// BenchmarkSecondLaunchFocusesHome (#21): with the home window behind
// another app, the time from starting `lets` again until the home window
// is the focused, topmost window (openbox under Xvfb, no tray host, the
// GUI build). It includes the second process's start and hand-off.
func BenchmarkSecondLaunchFocusesHome(b *testing.B) {
	testutil.ProcFS(b)
	s := startWMSession(b)
	l := startGUILets(b, s)
	home := homeWindow(b, s, l)
	other := coverWith(b, s)
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		s.x.Activate(b, other)
		if !testutil.Poll(testutil.EventuallyTimeout, func() bool { return s.x.Active(b) == other }) {
			b.Fatal("the other app did not come to the front")
		}
		b.StartTimer()
		secondLets(b, l)
		if !testutil.Poll(testutil.EventuallyTimeout, func() bool { return s.x.Active(b) == home && s.x.Top(b) == home }) {
			b.Fatalf("the home window did not come to the front; focused %s, top %s", s.x.Active(b), s.x.Top(b))
		}
	}
}

// BenchmarkClickToWindowOnScreen (#21): the time from a click on the
// tray's "Home…" to the home window mapped on screen (a new `lets window`
// process with its WebKit view; openbox under Xvfb, the GUI build). Each
// round closes the window again, untimed.
func BenchmarkClickToWindowOnScreen(b *testing.B) {
	testutil.ProcFS(b)
	s := startWMSession(b)
	conn, watcher := startWatcher(b, s.busAddr)
	l := startGUILets(b, s)
	if !testutil.Poll(testutil.EventuallyTimeout, func() bool { return len(watcher.registered()) > 0 }) {
		b.Fatalf("the tray did not register; lets said:\n%s", l.out.String())
	}
	item := watcher.registered()[0]
	b.ResetTimer()
	for range b.N {
		clickHome(b, conn, item)
		id := homeWindow(b, s, l)
		b.StopTimer()
		s.x.Close(b, id)
		if !testutil.Poll(testutil.EventuallyTimeout, func() bool { return s.x.Find(b, "Lets") == "" && len(anyWindowProcesses(markedProcesses(l.mark))) == 0 }) {
			b.Fatal("the home window did not close")
		}
		b.StartTimer()
	}
}

// clickHome clicks the tray's "Home…" (com.canonical.dbusmenu Event).
func clickHome(tb testing.TB, conn *dbus.Conn, item registration) {
	tb.Helper()
	var home menuNode
	if !testutil.Poll(testutil.EventuallyTimeout, func() bool {
		layout, err := getLayout(conn, item)
		if err != nil {
			return false
		}
		var ok bool
		home, ok = layout.Find("Home…")
		return ok
	}) {
		tb.Fatal("the tray menu has no Home…")
	}
	call := conn.Object(item.sender, dbus.ObjectPath(item.path+"/menu")).Call("com.canonical.dbusmenu.Event", 0, home.ID, "clicked", dbus.MakeVariant(""), uint32(time.Now().Unix()))
	if call.Err != nil {
		tb.Fatalf("click Home…: %v", call.Err)
	}
}
