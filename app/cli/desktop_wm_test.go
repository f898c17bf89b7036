package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/app/lets"
	"github.com/lets-app/lets/app/window"
	"github.com/lets-app/lets/app/window/guitest"
	"github.com/lets-app/lets/backend/testenv/bustest"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// The desktop under a real window manager (openbox) on a small screen
// (1024×600) whose top 40 px it keeps free as a panel would: the GUI
// build of Lets, a private session bus, and the X tools a person's
// desktop would answer to.

// wmScreen and wmPanel are the test screen and its panel's height.
const (
	wmScreen = "1024x600x24"
	wmPanel  = 40
)

// wmSession is a desktop session with a window manager.
type wmSession struct {
	desktopSession
	x guitest.X
}

// startWMSession starts its own Xvfb (the package's shared one has no
// window manager, and must keep none), openbox and a session bus.
func startWMSession(t testing.TB) wmSession {
	t.Helper()
	testutil.Command(t, "xprop", "xwininfo", "wmctrl")
	d := &guitest.Display{Command: testutil.Command, Screen: wmScreen}
	t.Cleanup(d.Stop)
	x := guitest.X{Display: d.Name(t), Command: testutil.Command}
	x.StartOpenbox(t, wmPanel)

	addr := bustest.Start(t)
	return wmSession{desktopSession: desktopSession{display: x.Display, busAddr: addr}, x: x}
}

// startGUILets starts plain `lets` (the GUI build) in the session.
func startGUILets(t testing.TB, s wmSession) *desktopLets {
	t.Helper()
	// Installed, windows run as lets-window (lets.WindowProgram): GTK takes
	// the program's file name for WM_CLASS unless told otherwise, so the
	// test runs the GUI build under that name.
	bin := filepath.Join(t.TempDir(), lets.WindowProgram)
	if err := os.Link(guiBuild.Build(t), bin); err != nil {
		t.Fatalf("link the GUI build as %s: %v", lets.WindowProgram, err)
	}
	// A desktop session has its accessibility bus running long before
	// Lets opens a window; the test's new bus has none to wait for.
	t.Setenv("NO_AT_BRIDGE", "1")
	home, sock, xdg := letsDesktopEnv(t, s.desktopSession)
	return startDesktopLetsBin(t, bin, s.desktopSession, home, sock, xdg)
}

// homeWindow waits for the home window (titled Lets) and returns its id.
func homeWindow(t testing.TB, s wmSession, l *desktopLets) string {
	t.Helper()
	var id string
	if !testutil.Poll(testutil.EventuallyTimeout, func() bool { id = s.x.Find(t, "Lets"); return id != "" }) {
		t.Fatalf("no home window (titled Lets) within %v; windows %+v; lets said:\n%s", testutil.EventuallyTimeout, s.x.Windows(t), l.out.String())
	}
	return id
}

// coverWith puts another program's window on top and focused (xmessage,
// as any app the person switched to), and returns its id.
func coverWith(t testing.TB, s wmSession) string {
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
		return id != "" && s.x.Active(t) == id && s.x.Top(t) == id
	}) {
		t.Fatalf("the other app's window did not come on top with the focus: windows %+v, active %s", s.x.Windows(t), s.x.Active(t))
	}
	return id
}

// secondLets runs `lets` again beside l (same data folder and session)
// and waits until it exited 0.
func secondLets(t testing.TB, l *desktopLets) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testutil.EventuallyTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, l.cmd.Path, l.cmd.Args[1:]...)
	cmd.Env = l.cmd.Env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the second lets: %v\n%s", err, out)
	}
}

// TestHomeWindowIsTheMainWindowWithoutATray (#21 no tray host, raise,
// fit and look like Lets), under openbox on a 1024×600 screen with a
// 40 px panel and no tray host:
//   - plain `lets` shows the home window at once and a notification says
//     that Lets lives in it;
//   - the window carries WM_CLASS lets/Lets (the desktop entry's
//     StartupWMClass) and the Lets icon (_NET_WM_ICON 128×128), and its
//     frame lies inside the work area, title bar below the panel (the old
//     1024×768 default did not fit);
//   - with another app on top, a second `lets` brings the home window to
//     the front with the focus (before, nothing visible happened);
//   - a unique's window (hello) fits the work area and is Lets' too;
//   - closing the home window quits Lets, as closing a main window does.
func TestHomeWindowIsTheMainWindowWithoutATray(t *testing.T) {
	testutil.ProcFS(t)
	s := startWMSession(t)
	notes := startTraylessNotes(t, s.busAddr)
	l := startGUILets(t, s)
	home := homeWindow(t, s, l)

	if c, err := s.x.Prop(t, home, "WM_CLASS"); err != nil || c != `"`+window.WMName+`", "`+window.WMClass+`"` {
		t.Errorf("home window WM_CLASS = %s (%v), want %q, %q", c, err, window.WMName, window.WMClass)
	}
	if icon, err := s.x.Prop(t, home, "_NET_WM_ICON"); err != nil || !strings.Contains(icon, "Icon (128 x 128)") {
		t.Errorf("home window has no 128×128 Lets icon: %.80q (%v)", icon, err)
	}
	area, err := s.x.WorkArea(t)
	if err != nil {
		t.Fatal(err)
	}
	var frame [4]int
	// inside(id) polls whether window id's frame is inside the work area.
	inside := func(id string) func() bool {
		return func() bool {
			frame, err = s.x.Frame(t, id)
			return err == nil && frame[0] >= area[0] && frame[1] >= area[1] &&
				frame[0]+frame[2] <= area[0]+area[2] && frame[1]+frame[3] <= area[1]+area[3]
		}
	}
	if !testutil.Poll(testutil.EventuallyTimeout, inside(home)) {
		t.Errorf("the home window's frame %v (x, y, w, h; %v) is not inside the work area %v", frame, err, area)
	}

	testutil.Eventually(t, "a notification says Lets lives in its window", func() bool { return len(notes.notes()) > 0 })
	if n := notes.notes()[0]; !strings.Contains(n.Body, "Closing the window quits Lets") {
		t.Errorf("notification %+v", n)
	}

	other := coverWith(t, s)
	secondLets(t, l)
	if !testutil.Poll(testutil.EventuallyTimeout, func() bool { return s.x.Active(t) == home && s.x.Top(t) == home }) {
		t.Fatalf("after a second lets the focused window is %s and the top one %s; the home window is %s (the other app %s)", s.x.Active(t), s.x.Top(t), home, other)
	}
	if n := len(anyWindowProcesses(markedProcesses(l.mark))); n != 1 {
		t.Errorf("%d window processes after the second lets, want the one home window", n)
	}

	// A unique's window (1024×768 by default) fits too, and is Lets'.
	open := exec.Command(l.cmd.Path, "open", "hello")
	open.Env = l.cmd.Env
	if out, err := open.CombinedOutput(); err != nil {
		t.Fatalf("lets open hello: %v\n%s", err, out)
	}
	var hello string
	if !testutil.Poll(testutil.EventuallyTimeout, func() bool { hello = s.x.Find(t, helloTitle); return hello != "" }) {
		t.Fatalf("no hello window; windows %+v", s.x.Windows(t))
	}
	if c, err := s.x.Prop(t, hello, "WM_CLASS"); err != nil || c != `"`+window.WMName+`", "`+window.WMClass+`"` {
		t.Errorf("hello window WM_CLASS = %s (%v)", c, err)
	}
	if !testutil.Poll(testutil.EventuallyTimeout, inside(hello)) {
		t.Errorf("the hello window's frame %v (%v) is not inside the work area %v", frame, err, area)
	}
	s.x.Close(t, home)
	select {
	case <-l.exited:
		if l.err != nil {
			t.Fatalf("lets exited with %v after its main window closed", l.err)
		}
	case <-time.After(testutil.EventuallyTimeout):
		t.Fatalf("lets still runs %v after its main window (no tray) closed", testutil.EventuallyTimeout)
	}
}

// TestHomeWindowClosedAfterATrayHostStartedKeepsLets (#21): when a tray
// host starts after Lets did, Lets' icon goes there, and closing the home
// window leaves Lets running in the tray.
func TestHomeWindowClosedAfterATrayHostStartedKeepsLets(t *testing.T) {
	testutil.ProcFS(t)
	s := startWMSession(t)
	l := startGUILets(t, s)
	home := homeWindow(t, s, l)
	_, watcher := startWatcher(t, s.busAddr)
	testutil.Eventually(t, "the tray registers with the tray host that started", func() bool { return len(watcher.registered()) > 0 })
	testutil.Eventually(t, "lets notices the tray host", func() bool { return strings.Contains(l.out.String(), "a tray host started") })
	s.x.Close(t, home)
	testutil.Eventually(t, "lets says it stays in the tray", func() bool {
		return strings.Contains(l.out.String(), "the home window was closed; Lets stays in the tray")
	})
	select {
	case <-l.exited:
		t.Fatalf("lets ended (%v) when the home window closed with a tray host running", l.err)
	default:
	}
}

// anyWindowProcesses are the `<program> window` processes among pids,
// whatever the program's name.
func anyWindowProcesses(pids []int) []int {
	var out []int
	for _, pid := range pids {
		b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		if len(args) >= 2 && args[1] == "window" {
			out = append(out, pid)
		}
	}
	return out
}
