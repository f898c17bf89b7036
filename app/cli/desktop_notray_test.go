package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/godbus/dbus/v5"

	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// traylessNotes is an org.freedesktop.Notifications server on a test
// bus: it keeps every notification it is asked to show.
type traylessNotes struct {
	mu    sync.Mutex
	shown []traylessNote
}

type traylessNote struct {
	App, Icon, Summary, Body string
}

func (f *traylessNotes) Notify(app string, replaces uint32, icon, summary, body string, actions []string, hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.shown = append(f.shown, traylessNote{App: app, Icon: icon, Summary: summary, Body: body})
	return uint32(len(f.shown)), nil
}

func (f *traylessNotes) GetCapabilities() ([]string, *dbus.Error) {
	return []string{"body"}, nil
}

func (f *traylessNotes) notes() []traylessNote {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]traylessNote(nil), f.shown...)
}

// startTraylessNotes owns org.freedesktop.Notifications on the bus.
func startTraylessNotes(t testing.TB, busAddr string) *traylessNotes {
	t.Helper()
	conn, err := dbus.Connect(busAddr)
	if err != nil {
		t.Fatalf("connect to the test session bus: %v", err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	f := &traylessNotes{}
	if err := conn.Export(f, "/org/freedesktop/Notifications", "org.freedesktop.Notifications"); err != nil {
		t.Fatal(err)
	}
	reply, err := conn.RequestName("org.freedesktop.Notifications", dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own org.freedesktop.Notifications: %v %v", reply, err)
	}
	return f
}

// browserURLs is what lets handed to the (fake) desktop browser.
func (l *desktopLets) browserURLs() []string {
	data, _ := os.ReadFile(l.opened)
	return strings.Fields(string(data))
}

// TestLetsWithoutATrayHostShowsHomeAndNotifies (#21 never silent): on a
// desktop with no tray host (GNOME without AppIndicator), plain `lets`
// shows its home page at once (this test binary has no native windows,
// so in the browser) and a desktop notification says where Lets is; it
// keeps running. Before, it showed nothing and only printed a line.
func TestLetsWithoutATrayHostShowsHomeAndNotifies(t *testing.T) {
	testutil.ProcFS(t)
	ds := startDesktopSession(t)
	notes := startTraylessNotes(t, ds.busAddr)
	home, sock, xdg := letsDesktopEnv(t, ds)
	l := startDesktopLets(t, ds, home, sock, xdg)
	testutil.Eventually(t, "lets starts", func() bool { return strings.Contains(l.out.String(), "Press Ctrl+C") })
	info, err := config.ReadHostInfo(config.Paths{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	homePage := fmt.Sprintf("http://127.0.0.1:%d/#k=", info.Port)
	testutil.Eventually(t, "lets shows its home page", func() bool {
		u := l.browserURLs()
		return len(u) == 1 && strings.HasPrefix(u[0], homePage)
	})
	if u := l.browserURLs()[0]; strings.Contains(u, "welcome=1") {
		t.Errorf("Lets had run before in this folder, yet home opened with the welcome: %s", u)
	}
	testutil.Eventually(t, "a notification says where Lets is", func() bool { return len(notes.notes()) > 0 })
	n := notes.notes()[0]
	if n.App != "Lets" || !strings.Contains(n.Body, "no tray icons") || !strings.Contains(n.Body, "browser") {
		t.Errorf("notification %+v does not say where Lets is", n)
	}
	select {
	case <-l.exited:
		t.Fatalf("lets ended (%v) with its home page open", l.err)
	default:
	}
}

// TestFirstRunOpensHomeWithWelcome (#21 first run shows something): the
// first `lets` (no data folder yet) opens Home with the welcome, also
// with a tray host. (TestLetsWithoutATrayHostShowsHomeAndNotifies checks
// that a later start has no welcome.)
func TestFirstRunOpensHomeWithWelcome(t *testing.T) {
	testutil.ProcFS(t)
	ds := startDesktopSession(t)
	_, watcher := startWatcher(t, ds.busAddr)
	_, sock, xdg := letsDesktopEnv(t, ds)
	home := filepath.Join(t.TempDir(), "fresh", ".lets") // does not exist yet
	l := startDesktopLets(t, ds, home, sock, xdg)        // the default settings: the first start writes them
	testutil.Eventually(t, "the first lets starts its tray", func() bool { return len(watcher.registered()) > 0 })
	testutil.Eventually(t, "the first lets opens Home with the welcome", func() bool {
		u := l.browserURLs()
		return len(u) == 1 && strings.Contains(u[0], "/#k=") && strings.HasSuffix(u[0], "&welcome=1")
	})
	if _, err := os.Stat(home); err != nil {
		t.Fatalf("no data folder after the first run: %v", err)
	}
}
