package notify

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/lets-app/lets/app/window/guitest"
	"github.com/lets-app/lets/backend/testenv/bustest"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// One Xvfb for the package's tests (dunst needs an X display to draw).
var display = guitest.Display{Command: testutil.Command}

func TestMain(m *testing.M) {
	code := m.Run()
	display.Stop()
	os.Exit(code)
}

// sessionBus starts a private session bus (bustest: no installed service
// starts by itself, and the test may monitor it) and returns its address.
func sessionBus(t *testing.T) string { return bustest.Start(t) }

// startDunst runs the dunst notification daemon on the bus at addr and
// waits until it owns org.freedesktop.Notifications.
func startDunst(t *testing.T, addr string) {
	t.Helper()
	dunst := testutil.Command(t, "dunst")
	home := t.TempDir()
	cmd := exec.Command(dunst)
	cmd.Env = []string{
		"DISPLAY=" + display.Name(t),
		"DBUS_SESSION_BUS_ADDRESS=" + addr,
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
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	conn := dial(t, addr)
	testutil.Eventually(t, "dunst to own "+ServiceName, func() bool {
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("dunst exited (%v): %s", err, stderr.String())
		default:
		}
		var has bool
		err := conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, ServiceName).Store(&has)
		return err == nil && has
	})
}

func dial(t *testing.T, addr string) *dbus.Conn {
	t.Helper()
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatalf("connect to the test bus: %v", err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

// notifyCall is one Notify call as the bus carried it.
type seenNotify struct {
	appName, icon, summary, body string
	replaces                     uint32
	hints                        map[string]dbus.Variant
	timeout                      int32
}

// monitor eavesdrops every Notify call on the bus (the way dbus-monitor
// does, through org.freedesktop.DBus.Monitoring.BecomeMonitor).
func monitor(t *testing.T, addr string) <-chan seenNotify {
	t.Helper()
	conn := dial(t, addr)
	rule := "type='method_call',interface='" + Interface + "',member='Notify'"
	if err := conn.BusObject().Call("org.freedesktop.DBus.Monitoring.BecomeMonitor", 0, []string{rule}, uint32(0)).Err; err != nil {
		t.Fatalf("BecomeMonitor: %v", err)
	}
	raw := make(chan *dbus.Message, 16)
	conn.Eavesdrop(raw)
	seen := make(chan seenNotify, 16)
	go func() {
		for m := range raw {
			if m.Type != dbus.TypeMethodCall || len(m.Body) != 8 {
				continue
			}
			var s seenNotify
			var ok [8]bool
			s.appName, ok[0] = m.Body[0].(string)
			s.replaces, ok[1] = m.Body[1].(uint32)
			s.icon, ok[2] = m.Body[2].(string)
			s.summary, ok[3] = m.Body[3].(string)
			s.body, ok[4] = m.Body[4].(string)
			_, ok[5] = m.Body[5].([]string)
			s.hints, ok[6] = m.Body[6].(map[string]dbus.Variant)
			s.timeout, ok[7] = m.Body[7].(int32)
			if ok == [8]bool{true, true, true, true, true, true, true, true} {
				seen <- s
			}
		}
	}()
	return seen
}

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// TestSendReachesARealDaemon: a notification reaches dunst on a private
// session bus with exactly the summary, body, urgency and timeout given,
// the server's id comes back, and Replaces updates the same one.
func TestSendReachesARealDaemon(t *testing.T) {
	addr := sessionBus(t)
	startDunst(t, addr)
	seen := monitor(t, addr)

	n := New(addr, "Lets", "/usr/share/icons/lets.png")
	t.Cleanup(func() { _ = n.Close() })
	msg := Message{
		Summary: "Lets could not start",
		Body:    "Your settings file has a mistake on line 3.\nFix it, then start Lets again.",
		Urgency: Critical,
		Timeout: 7 * time.Second,
	}
	id, err := n.Send(ctxFor(t, testutil.EventuallyTimeout), msg)
	if err != nil {
		t.Fatalf("Send: %v", err)
	}
	if id == 0 {
		t.Fatal("the daemon gave id 0")
	}
	got := testutil.Wait(t, "the Notify call on the bus", seen)
	if got.summary != msg.Summary || got.body != msg.Body {
		t.Fatalf("bus carried summary %q body %q, want %q %q", got.summary, got.body, msg.Summary, msg.Body)
	}
	if got.appName != "Lets" || got.icon != "/usr/share/icons/lets.png" || got.replaces != 0 || got.timeout != 7000 {
		t.Fatalf("bus carried app %q icon %q replaces %d timeout %d", got.appName, got.icon, got.replaces, got.timeout)
	}
	if u, ok := got.hints["urgency"].Value().(byte); !ok || u != 2 {
		t.Fatalf("urgency hint %v, want byte 2", got.hints["urgency"])
	}
	if e, _ := got.hints["desktop-entry"].Value().(string); e != "lets" {
		t.Fatalf("desktop-entry hint %q, want lets", e)
	}

	// An update of the same notification, with markup characters: dunst
	// reads the body as markup, so they travel escaped, and the server
	// default timeout is -1 on the wire.
	again, err := n.Send(ctxFor(t, testutil.EventuallyTimeout), Message{Summary: "Lets", Body: "a < b & c", Replaces: id})
	if err != nil {
		t.Fatalf("second Send: %v", err)
	}
	if again != id {
		t.Fatalf("replacing gave id %d, want %d", again, id)
	}
	got = testutil.Wait(t, "the second Notify call", seen)
	if got.replaces != id || got.body != "a &lt; b &amp; c" || got.timeout != -1 {
		t.Fatalf("second call: replaces %d body %q timeout %d", got.replaces, got.body, got.timeout)
	}
	if u, _ := got.hints["urgency"].Value().(byte); u != 1 {
		t.Fatalf("zero urgency sent as %v, want normal (1)", u)
	}
}

// TestNoDaemon: no bus address, a bus that cannot be reached, and a bus
// where nobody owns the notification service all give ErrNoDaemon.
func TestNoDaemon(t *testing.T) {
	ctx := ctxFor(t, testutil.EventuallyTimeout)
	msg := Message{Summary: "hello"}
	if _, err := New("", "Lets", "").Send(ctx, msg); !errors.Is(err, ErrNoDaemon) {
		t.Fatalf("no bus: %v, want ErrNoDaemon", err)
	}
	gone := "unix:path=" + filepath.Join(t.TempDir(), "no-bus")
	if _, err := New(gone, "Lets", "").Send(ctx, msg); !errors.Is(err, ErrNoDaemon) {
		t.Fatalf("unreachable bus: %v, want ErrNoDaemon", err)
	}
	addr := sessionBus(t)
	n := New(addr, "Lets", "")
	t.Cleanup(func() { _ = n.Close() })
	if _, err := n.Send(ctx, msg); !errors.Is(err, ErrNoDaemon) {
		t.Fatalf("bus without a notification service: %v, want ErrNoDaemon", err)
	}
	var nilNotifier *Notifier
	if _, err := nilNotifier.Send(ctx, msg); !errors.Is(err, ErrNoDaemon) {
		t.Fatalf("nil Notifier: %v, want ErrNoDaemon", err)
	}
}

// silentServer owns the notification service and never answers Notify:
// a hung desktop shell.
type silentServer struct{ calls, end chan struct{} }

func (s silentServer) GetCapabilities() ([]string, *dbus.Error) { return []string{"body"}, nil }

// Notify blocks godbus's handler for this call until the test ends; the
// caller sees no reply before the test ends.
func (s silentServer) Notify(app string, replaces uint32, icon, summary, body string, actions []string, hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	s.calls <- struct{}{}
	<-s.end
	return 0, dbus.MakeFailedError(errors.New("the test ended"))
}

// TestSendIsBoundedByContext: a service that never answers holds Send
// only until the context ends.
func TestSendIsBoundedByContext(t *testing.T) {
	addr := sessionBus(t)
	srv := dial(t, addr)
	s := silentServer{calls: make(chan struct{}, 1), end: make(chan struct{})}
	t.Cleanup(func() { close(s.end) })
	if err := srv.Export(s, ObjectPath, Interface); err != nil {
		t.Fatal(err)
	}
	if reply, err := srv.RequestName(ServiceName, dbus.NameFlagDoNotQueue); err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own %s: %v %v", ServiceName, reply, err)
	}
	n := New(addr, "Lets", "")
	t.Cleanup(func() { _ = n.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	done := make(chan error, 1)
	go func() {
		_, err := n.Send(ctx, Message{Summary: "hello"})
		done <- err
	}()
	testutil.Wait(t, "the Notify call to reach the silent service", s.calls)
	select {
	case err := <-done:
		t.Fatalf("Send returned before its context ended: %v", err)
	default:
	}
	cancel()
	err := testutil.Wait(t, "Send to return once its context ended", done)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Send: %v, want context.Canceled", err)
	}
}
