package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/godbus/dbus/v5"

	"github.com/lets-app/lets/app/notify"
	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/testenv/bustest"
	"github.com/lets-app/lets/backend/testenv/letstest"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// startfailBus starts a private session bus (bustest: it starts no
// installed services, so whether a notification service is on it is the
// test's choice) and returns its address.
func startfailBus(t *testing.T) string { return bustest.Start(t) }

// shownNote is one notification the fake notification service got.
type shownNote struct {
	Summary, Body string
	Urgency       byte
}

// noteService owns org.freedesktop.Notifications on a test bus and keeps
// every Notify (a desktop's notification area).
type noteService struct {
	mu    sync.Mutex
	notes []shownNote
	got   chan struct{}
}

func (s *noteService) GetCapabilities() ([]string, *dbus.Error) { return []string{"body"}, nil }

func (s *noteService) Notify(app string, replaces uint32, icon, summary, body string, actions []string, hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	u, _ := hints["urgency"].Value().(byte)
	s.mu.Lock()
	s.notes = append(s.notes, shownNote{summary, body, u})
	n := uint32(len(s.notes))
	s.mu.Unlock()
	select {
	case s.got <- struct{}{}:
	default:
	}
	return n, nil
}

func (s *noteService) shown() []shownNote {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]shownNote(nil), s.notes...)
}

func startNoteService(t *testing.T, addr string) *noteService {
	t.Helper()
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	s := &noteService{got: make(chan struct{}, 1)}
	if err := conn.Export(s, notify.ObjectPath, notify.Interface); err != nil {
		t.Fatal(err)
	}
	if reply, err := conn.RequestName(notify.ServiceName, dbus.NameFlagDoNotQueue); err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own %s: %v %v", notify.ServiceName, reply, err)
	}
	return s
}

// desktopStartEnv is an in-process desktop `lets` with its own data
// folder, the test bus and no display (it runs headless, but it is still
// the desktop app).
func desktopStartEnv(t *testing.T, busAddr, cfg string) *testEnv {
	t.Helper()
	e := newTestEnv(t)
	if cfg != "" {
		if err := os.WriteFile(filepath.Join(e.home, "config.json"), []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// The usual pad port is one this test holds, not 8765: the usual
	// settings ask for it, and it moves like 8765 would.
	e.Env.UsualPadPort = holdUsualPadPort(t)
	vars := map[string]string{"DBUS_SESSION_BUS_ADDRESS": busAddr}
	base := e.Env.Getenv
	e.Env.Getenv = func(k string) string {
		if v, ok := vars[k]; ok {
			return v
		}
		return base(k)
	}
	return e
}

func readLog(t *testing.T, home string) string {
	t.Helper()
	b, err := os.ReadFile(config.Paths{Home: home}.LogFile())
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return string(b)
}

// Issue #21: whatever stops the desktop `lets` from starting is written to
// lets.log and shown as a desktop notification that says what to do, and
// stderr still has it. Before, it went to stderr only.
func TestDesktopStartFailureIsLoggedAndShown(t *testing.T) {
	addr := startfailBus(t)
	svc := startNoteService(t, addr)

	t.Run("chosen pad port taken", func(t *testing.T) {
		port := letstest.BusyPort(t)
		e := desktopStartEnv(t, addr, `{"web": {"port": `+strconv.Itoa(port)+`}}`)
		before := len(svc.shown())
		if code := e.run(); code != 1 {
			t.Fatalf("exit %d, want 1\n%s", code, e.err.String())
		}
		if !strings.Contains(e.err.String(), "port "+strconv.Itoa(port)) {
			t.Errorf("stderr does not name the port:\n%s", e.err.String())
		}
		log := readLog(t, e.home)
		if !strings.Contains(log, "Lets could not start") || !strings.Contains(log, "port "+strconv.Itoa(port)) {
			t.Errorf("lets.log does not have the failure:\n%s", log)
		}
		n := lastNote(t, svc, before)
		if n.Summary != "Lets could not start" || n.Urgency != 2 {
			t.Errorf("notification %+v, want a critical \"Lets could not start\"", n)
		}
		for _, want := range []string{"port " + strconv.Itoa(port), filepath.Join(e.home, "config.json"), "start Lets again", "lets.log"} {
			if !strings.Contains(n.Body, want) {
				t.Errorf("notification body %q should say %q", n.Body, want)
			}
		}
	})

	t.Run("settings from a newer Lets", func(t *testing.T) {
		e := desktopStartEnv(t, addr, `{"version": 99, "web": {"port": 0}}`)
		before := len(svc.shown())
		if code := e.run(); code != 1 {
			t.Fatalf("exit %d, want 1\n%s", code, e.err.String())
		}
		if log := readLog(t, e.home); !strings.Contains(log, "Lets could not start") || !strings.Contains(log, "newer") {
			t.Errorf("lets.log does not have the failure:\n%s", log)
		}
		n := lastNote(t, svc, before)
		if n.Summary != "Lets could not start" || !strings.Contains(n.Body, "newer version of Lets") || !strings.Contains(n.Body, "Update Lets") {
			t.Errorf("notification %+v", n)
		}
	})

	t.Run("data folder cannot be made", func(t *testing.T) {
		e := desktopStartEnv(t, addr, "")
		// A file where the data folder's parent should be: even root
		// cannot make a folder inside it.
		blocker := filepath.Join(t.TempDir(), "not-a-folder")
		if err := os.WriteFile(blocker, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		home := filepath.Join(blocker, "lets-home")
		base := e.Env.Getenv
		e.Env.Getenv = func(k string) string {
			if k == config.HomeEnv {
				return home
			}
			return base(k)
		}
		before := len(svc.shown())
		if code := e.run(); code != 1 {
			t.Fatalf("exit %d, want 1\n%s", code, e.err.String())
		}
		if !strings.Contains(e.err.String(), home) {
			t.Errorf("stderr does not name the folder:\n%s", e.err.String())
		}
		n := lastNote(t, svc, before)
		if n.Summary != "Lets could not start" || !strings.Contains(n.Body, "cannot save into its data folder ("+home+")") || !strings.Contains(n.Body, "not a directory") {
			t.Errorf("notification %+v", n)
		}
	})

	t.Run("headless lets serve keeps to stderr", func(t *testing.T) {
		port := letstest.BusyPort(t)
		e := desktopStartEnv(t, addr, `{"web": {"port": `+strconv.Itoa(port)+`}}`)
		before := len(svc.shown())
		if code := e.run("serve"); code != 1 {
			t.Fatalf("exit %d, want 1", code)
		}
		if !strings.Contains(e.err.String(), "port "+strconv.Itoa(port)) {
			t.Errorf("stderr:\n%s", e.err.String())
		}
		if got := svc.shown(); len(got) != before {
			t.Errorf("lets serve showed a notification: %+v", got[before:])
		}
	})
}

// lastNote waits for a notification after the first before ones and
// returns the newest.
func lastNote(t *testing.T, svc *noteService, before int) shownNote {
	t.Helper()
	testutil.Eventually(t, "a desktop notification", func() bool { return len(svc.shown()) > before })
	got := svc.shown()
	return got[len(got)-1]
}

// runDesktopUntilStarted runs the in-process desktop `lets` until stop.
func runDesktopUntilStarted(t *testing.T, e *testEnv) (stop func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() { done <- Run(ctx, e.Env, nil) }()
	var once sync.Once
	code := 0
	stop = func() int {
		once.Do(func() {
			cancel()
			code = testutil.Wait(t, "lets stops", done)
		})
		return code
	}
	t.Cleanup(func() { stop() })
	testutil.Eventually(t, "lets starts", func() bool {
		select {
		case code := <-done:
			done <- code
			t.Fatalf("lets exited early with %d: %s%s", code, e.out.String(), e.err.String())
		default:
		}
		return strings.Contains(e.out.String(), "Press Ctrl+C")
	})
	return stop
}

// Issue #21: a broken config.json does not stop Lets, but the person is
// told (which line, and that the usual settings are used).
func TestDesktopBrokenSettingsAreShown(t *testing.T) {
	addr := startfailBus(t)
	svc := startNoteService(t, addr)
	e := desktopStartEnv(t, addr, "{\n  \"web\": {\"port\": 0},\n  \"handoff\" \"close\"\n}\n")
	stop := runDesktopUntilStarted(t, e)
	// The usual settings include the pad's usual port, which the test
	// holds, so Lets also says it took another port: the note is looked
	// for among all shown, not taken as the last one.
	var n shownNote
	testutil.Eventually(t, "the note about the usual settings", func() bool {
		for _, s := range svc.shown() {
			if s.Summary == "Lets is using its usual settings" {
				n = s
				return true
			}
		}
		return false
	})
	if !strings.Contains(n.Body, "mistake on line 3") || !strings.Contains(n.Body, filepath.Join(e.home, "config.json")) {
		t.Errorf("notification %+v", n)
	}
	if code := stop(); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

// holdUsualPadPort takes a free loopback port for the test and holds it
// until the test ends; the test makes it the pad's usual port
// (Env.UsualPadPort), so the usual port is always taken and no other test
// or run on the machine shares it (8765 is shared by everyone).
func holdUsualPadPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("hold a port for the pad's usual one: %v", err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	return ln.Addr().(*net.TCPAddr).Port
}

// padPortOf is the browser pad's port from the start summary.
func padPortOf(t *testing.T, out string) int {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(line, "Browser pad:  http://127.0.0.1:"); ok {
			n, err := strconv.Atoi(rest[:strings.IndexByte(rest, '/')])
			if err == nil {
				return n
			}
		}
	}
	t.Fatalf("no browser pad address in:\n%s", out)
	return 0
}

// Issue #21: the browser pad's usual port being taken is not a start
// failure: Lets takes another port, remembers it (0600, in the state
// folder), says so once, and takes the same port at the next start. Before,
// Lets exited 1.
func TestDefaultPadPortTakenPicksAnotherAndRemembersIt(t *testing.T) {
	addr := startfailBus(t)
	svc := startNoteService(t, addr)
	e := desktopStartEnv(t, addr, `{"web": {"port": 8765}}`) // the usual port, held by the test

	stop := runDesktopUntilStarted(t, e)
	port := padPortOf(t, e.out.String())
	if port == e.Env.UsualPadPort || port == config.DefaultWebPort || port == 0 {
		t.Fatalf("browser pad on port %d", port)
	}
	n := lastNote(t, svc, 0)
	if want := fmt.Sprintf("The phone pad's usual port was busy, so Lets uses port %d.", port); !strings.HasPrefix(n.Body, want) {
		t.Errorf("notification body %q, want it to start %q", n.Body, want)
	}
	file := filepath.Join(e.home, "state", "pad-port")
	b, err := os.ReadFile(file)
	if err != nil || strings.TrimSpace(string(b)) != strconv.Itoa(port) {
		t.Fatalf("pad-port file: %q %v, want %d", b, err, port)
	}
	if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o600 {
		t.Errorf("pad-port mode %o, want 600", fi.Mode().Perm())
	}
	if log := readLog(t, e.home); !strings.Contains(log, "usual port is busy") || !strings.Contains(log, "port="+strconv.Itoa(port)) {
		t.Errorf("lets.log does not say so:\n%s", log)
	}
	if code := stop(); code != 0 {
		t.Fatalf("exit %d", code)
	}

	// The next start takes the same port and does not say it again.
	shown := len(svc.shown())
	e.out.Reset()
	stop = runDesktopUntilStarted(t, e)
	if again := padPortOf(t, e.out.String()); again != port {
		t.Errorf("second start on port %d, want the remembered %d", again, port)
	}
	if code := stop(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if got := svc.shown(); len(got) != shown {
		t.Errorf("the second start told again: %+v", got[shown:])
	}

	// lets serve moves too (it has no desktop to tell; its log says it).
	e.out.Reset()
	stopServe := startServe(t, e)
	if again := padPortOf(t, e.out.String()); again != port {
		t.Errorf("lets serve on port %d, want the remembered %d", again, port)
	}
	stopServe()
}

// The words of a start failure (what went wrong, what to do).
func TestStartFailureMessages(t *testing.T) {
	paths := config.Paths{Home: "/home/ana/.local/share/lets"}
	m := startFailureMessage(fmt.Errorf("listen: %w", &net.OpError{Op: "listen", Net: "tcp4", Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 7000}, Err: os.NewSyscallError("bind", syscall.EADDRINUSE)}), paths)
	if !strings.Contains(m.Body, "port 7000") || !strings.Contains(m.Body, `"host_port"`) {
		t.Errorf("host port: %q", m.Body)
	}
	m = startFailureMessage(errors.New("something odd"), paths)
	if !strings.Contains(m.Body, "something odd") || !strings.Contains(m.Body, paths.LogFile()) {
		t.Errorf("other: %q", m.Body)
	}
	m = startFailureMessage(fmt.Errorf("create data folder: %w", &os.PathError{Op: "mkdir", Path: paths.Home, Err: syscall.EACCES}), paths)
	if !strings.Contains(m.Body, "permission denied") || !strings.Contains(m.Body, paths.Home) {
		t.Errorf("permission: %q", m.Body)
	}
}
