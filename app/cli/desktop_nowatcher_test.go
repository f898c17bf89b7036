package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/godbus/dbus/v5"

	"github.com/lets-app/lets/backend/testenv/testutil"
)

// The desktop with no tray host at all, and a real notification daemon
// (dunst) instead of a fake org.freedesktop.Notifications (#21
// acceptance: "with no watcher at all (home window shown, notification
// sent — check the notification through a real notification daemon or
// the bus)").

// startRealDunst runs dunst on the session's display and bus and waits
// until it owns org.freedesktop.Notifications. Its settings and history
// live in the test's folder.
func startRealDunst(t *testing.T, s wmSession) {
	t.Helper()
	dunst := testutil.Command(t, "dunst")
	home := t.TempDir()
	cmd := exec.Command(dunst)
	cmd.Env = []string{
		"DISPLAY=" + s.display,
		"DBUS_SESSION_BUS_ADDRESS=" + s.busAddr,
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, "config"),
		"XDG_RUNTIME_DIR=" + home,
		"PATH=" + os.Getenv("PATH"),
	}
	var stderr testutil.SyncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start dunst: %v", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	conn, err := dbus.Connect(s.busAddr)
	if err != nil {
		t.Fatalf("connect to the test session bus: %v", err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	testutil.Eventually(t, "dunst owns org.freedesktop.Notifications", func() bool {
		select {
		case <-exited:
			t.Fatalf("dunst ended at start: %s", stderr.String())
		default:
		}
		var has bool
		err := conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, "org.freedesktop.Notifications").Store(&has)
		return err == nil && has
	})
}

// busNote is one Notify call seen on the bus and the daemon's answer.
type busNote struct {
	sender, summary, body, app string
	serial                     uint32
	// id is the notification id the daemon answered with; 0 until it did.
	id uint32
	// answeredBy is the unique bus name of whoever answered.
	answeredBy string
}

// notifyWatch is a bus monitor (org.freedesktop.DBus.Monitoring) that
// keeps every Notify call and its answer.
type notifyWatch struct {
	mu    sync.Mutex
	notes []*busNote
}

func watchNotifications(t *testing.T, busAddr string) *notifyWatch {
	t.Helper()
	conn, err := dbus.Connect(busAddr)
	if err != nil {
		t.Fatalf("connect the bus monitor: %v", err)
	}
	done := make(chan struct{})
	t.Cleanup(func() {
		conn.Eavesdrop(nil)
		_ = conn.Close()
		close(done)
	})
	rules := []string{
		"type='method_call',interface='org.freedesktop.Notifications',member='Notify'",
		"type='method_return'",
	}
	if err := conn.BusObject().Call("org.freedesktop.DBus.Monitoring.BecomeMonitor", 0, rules, uint32(0)).Err; err != nil {
		t.Fatalf("become a bus monitor: %v", err)
	}
	ch := make(chan *dbus.Message, 1024)
	conn.Eavesdrop(ch)
	w := &notifyWatch{}
	go func() {
		for {
			var m *dbus.Message
			select {
			case m = <-ch:
			case <-done:
				return
			}
			if m == nil {
				return
			}
			sender, _ := m.Headers[dbus.FieldSender].Value().(string)
			w.mu.Lock()
			switch m.Type {
			case dbus.TypeMethodCall:
				if len(m.Body) == 8 {
					n := &busNote{sender: sender, serial: m.Serial()}
					n.app, _ = m.Body[0].(string)
					n.summary, _ = m.Body[3].(string)
					n.body, _ = m.Body[4].(string)
					w.notes = append(w.notes, n)
				}
			case dbus.TypeMethodReply:
				dest, _ := m.Headers[dbus.FieldDestination].Value().(string)
				serial, _ := m.Headers[dbus.FieldReplySerial].Value().(uint32)
				for _, n := range w.notes {
					if n.sender == dest && n.serial == serial && len(m.Body) == 1 {
						n.id, _ = m.Body[0].(uint32)
						n.answeredBy = sender
					}
				}
			}
			w.mu.Unlock()
		}
	}()
	return w
}

func (w *notifyWatch) answered() []busNote {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []busNote
	for _, n := range w.notes {
		if n.id != 0 {
			out = append(out, *n)
		}
	}
	return out
}

// dunstCount is how many notifications dunst holds (waiting, shown and in
// its history), as dunstctl count says.
func dunstCount(t *testing.T, busAddr string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testutil.EventuallyTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, testutil.Command(t, "dunstctl"), "count")
	cmd.Env = append(os.Environ(), "DBUS_SESSION_BUS_ADDRESS="+busAddr)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("dunstctl count: %v\n%s", err, out)
	}
	total := 0
	for _, m := range regexp.MustCompile(`:\s*(\d+)`).FindAllStringSubmatch(string(out), -1) {
		n, _ := strconv.Atoi(m[1])
		total += n
	}
	return total
}

// TestNoWatcherHomeWindowAndARealNotification (#21 never silent, with a
// real notification daemon): under openbox on a 1024×600 screen, a
// session bus with no StatusNotifierWatcher at all and dunst owning
// org.freedesktop.Notifications, plain `lets` (the GUI build):
//   - shows its home window (titled Lets) with the focus;
//   - sends a notification that dunst accepts: the Notify call from Lets'
//     own bus connection, app "Lets", words that say there is no tray and
//     that closing the window quits Lets, answered by dunst with an id;
//     dunst then holds it (dunstctl count);
//   - keeps running while the home window is open.
func TestNoWatcherHomeWindowAndARealNotification(t *testing.T) {
	testutil.ProcFS(t)
	testutil.Command(t, "dunstctl")
	guiBuild.Build(t)
	s := startWMSession(t)
	startRealDunst(t, s)
	watch := watchNotifications(t, s.busAddr)
	conn, err := dbus.Connect(s.busAddr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	var dunstName string
	if err := conn.BusObject().Call("org.freedesktop.DBus.GetNameOwner", 0, "org.freedesktop.Notifications").Store(&dunstName); err != nil {
		t.Fatal(err)
	}
	before := dunstCount(t, s.busAddr)

	l := startGUILets(t, s)
	home := homeWindow(t, s, l)
	if !testutil.Poll(testutil.EventuallyTimeout, func() bool { return s.x.Active(t) == home }) {
		t.Errorf("the home window %s is not focused (focused: %q)", home, s.x.Active(t))
	}

	var note busNote
	if !testutil.Poll(testutil.EventuallyTimeout, func() bool {
		for _, n := range watch.answered() {
			var pid uint32
			if conn.BusObject().Call("org.freedesktop.DBus.GetConnectionUnixProcessID", 0, n.sender).Store(&pid) == nil && int(pid) == l.cmd.Process.Pid {
				note = n
				return true
			}
		}
		return false
	}) {
		t.Fatalf("no notification from lets (pid %d) answered by dunst within %v; lets said:\n%s", l.cmd.Process.Pid, testutil.EventuallyTimeout, l.out.String())
	}
	if note.answeredBy != dunstName {
		t.Errorf("the notification was answered by %s, not dunst (%s)", note.answeredBy, dunstName)
	}
	if note.app != "Lets" {
		t.Errorf("the notification's app is %q, want Lets", note.app)
	}
	words := note.summary + "\n" + note.body
	for _, want := range []string{"no tray icons", "Closing the window quits Lets"} {
		if !strings.Contains(words, want) {
			t.Errorf("the notification does not say %q:\n%s", want, words)
		}
	}
	testutil.Eventually(t, "dunst holds Lets' notification", func() bool { return dunstCount(t, s.busAddr) > before })
	t.Logf("dunst got %q / %q with id %d", note.summary, note.body, note.id)

	select {
	case <-l.exited:
		t.Fatalf("lets ended (%v) with its home window open", l.err)
	default:
	}
}
