// Package traytest runs a real tray host for tests: xfce4-panel with only
// its status tray plugin (a StatusNotifierWatcher and host that reads menus
// through libdbusmenu, as on an Xfce desktop) on a private session bus and
// an Xvfb display. One Desktop serves all the tests of a test package (keep
// it in a package variable and call Stop from TestMain).
//
// It is imported only by tests. Like guitest it does not import
// backend/testenv (no product-tree package may): the caller hands in its
// tool checks and its wait.
//
// By default no window manager runs: the panel is started with
// --disable-wm-check, and the tests drive menus through
// com.canonical.dbusmenu, so nothing needs a window placed or focused. A
// Desktop with WindowManager set runs openbox too (started before the
// panel, whose strut it then keeps free), for tests that look at the
// windows a click opens: where they are and which one has the focus.
package traytest

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/lets-app/lets/app/window/guitest"
)

// The StatusNotifierWatcher's bus name, path and interface.
const (
	WatcherName = "org.kde.StatusNotifierWatcher"
	WatcherPath = "/StatusNotifierWatcher"
)

// StartTimeout bounds how long the bus and the panel may take to start.
const StartTimeout = 60 * time.Second

// Desktop is Xvfb, a session bus and xfce4-panel, started on first use.
type Desktop struct {
	// Command finds a tool or skips the test loudly (testutil.Command).
	Command func(tb testing.TB, names ...string) string
	// Eventually waits until cond holds or fails the test
	// (testutil.Eventually).
	Eventually func(tb testing.TB, what string, cond func() bool)
	// WindowManager runs openbox on the display (see the package doc).
	WindowManager bool

	display guitest.Display
	wmStop  func()
	once    sync.Once
	err     error
	dir     string
	busAddr string
	dispEnv string
	bus     *exec.Cmd
	panel   *exec.Cmd
	log     lockedBuffer
}

// Start starts the desktop once and waits until the panel's tray hosts
// items; later calls return at once. It fails the test if the desktop
// cannot start, and skips it loudly (or fails it under LETS_REQUIRE_TOOLS)
// when a program is missing.
func (d *Desktop) Start(tb testing.TB) {
	tb.Helper()
	d.display.Command = d.Command
	display := d.display.Name(tb)
	daemon := d.Command(tb, "dbus-daemon")
	panel := d.Command(tb, "xfce4-panel")
	d.once.Do(func() { d.err = d.start(tb, display, daemon, panel) })
	if d.err != nil {
		tb.Fatal(d.err)
	}
}

func (d *Desktop) start(tb testing.TB, display, daemon, panel string) error {
	var err error
	d.dir, err = os.MkdirTemp("", "lets-traytest-")
	if err != nil {
		return err
	}
	d.dispEnv = display
	// The panel, xfconfd (started by the bus) and the plugin all keep
	// their settings and caches in the folder, never in the real home.
	for _, sub := range []string{"home", "config/xfce4/xfconf/xfce-perchannel-xml", "cache", "data", "runtime"} {
		if err := os.MkdirAll(filepath.Join(d.dir, sub), 0o700); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(d.dir, "config/xfce4/xfconf/xfce-perchannel-xml/xfce4-panel.xml"), []byte(panelConfig), 0o600); err != nil {
		return err
	}
	env := d.baseEnv()
	if d.WindowManager {
		x := guitest.X{Display: display, Command: d.Command}
		if d.wmStop, err = x.RunOpenbox(tb, 0); err != nil {
			return err
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), StartTimeout)
	defer cancel()
	// The bus hands its own environment to the programs it starts
	// (xfconfd), so it gets the private folders too.
	d.bus = exec.Command(daemon, "--session", "--nofork", "--print-address=1")
	d.bus.Env = env
	d.bus.Stderr = &d.log
	out, err := d.bus.StdoutPipe()
	if err != nil {
		return err
	}
	if err := d.bus.Start(); err != nil {
		return fmt.Errorf("start dbus-daemon: %w", err)
	}
	addr := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		addr <- strings.TrimSpace(line)
	}()
	select {
	case d.busAddr = <-addr:
	case <-ctx.Done():
	}
	if d.busAddr == "" {
		return fmt.Errorf("dbus-daemon did not say its address within %v: %s", StartTimeout, d.log.String())
	}

	d.panel = exec.Command(panel, "--disable-wm-check", "--sm-client-disable")
	d.panel.Env = append(env, "DBUS_SESSION_BUS_ADDRESS="+d.busAddr)
	d.panel.Stdout, d.panel.Stderr = &d.log, &d.log
	if err := d.panel.Start(); err != nil {
		return fmt.Errorf("start xfce4-panel: %w", err)
	}
	conn, err := dbus.Connect(d.busAddr)
	if err != nil {
		return fmt.Errorf("connect to the test session bus: %w", err)
	}
	defer conn.Close()
	var hosted bool
	d.Eventually(tb, "xfce4-panel's status tray hosts items (org.kde.StatusNotifierWatcher with a host)", func() bool {
		v, err := conn.Object(WatcherName, WatcherPath).GetProperty(WatcherName + ".IsStatusNotifierHostRegistered")
		hosted, _ = v.Value().(bool)
		return err == nil && hosted
	})
	return nil
}

// baseEnv is this process's environment without the desktop session's
// variables, with the private folders and the display.
func (d *Desktop) baseEnv() []string {
	drop := []string{"DBUS_SESSION_BUS_ADDRESS=", "DISPLAY=", "WAYLAND_DISPLAY=", "HOME=", "SESSION_MANAGER=", "XDG_"}
	var env []string
	for _, kv := range os.Environ() {
		keep := true
		for _, p := range drop {
			if strings.HasPrefix(kv, p) {
				keep = false
			}
		}
		if keep {
			env = append(env, kv)
		}
	}
	return append(env,
		"HOME="+filepath.Join(d.dir, "home"),
		"XDG_CONFIG_HOME="+filepath.Join(d.dir, "config"),
		"XDG_CACHE_HOME="+filepath.Join(d.dir, "cache"),
		"XDG_DATA_HOME="+filepath.Join(d.dir, "data"),
		"XDG_RUNTIME_DIR="+filepath.Join(d.dir, "runtime"),
		"DISPLAY="+d.dispEnv,
		// No accessibility bus: it is not what the tests look at and its
		// start-up would add warnings of its own.
		"NO_AT_BRIDGE=1",
	)
}

// Display is the X display the panel runs on (":N"); "" before Start.
func (d *Desktop) Display() string { return d.dispEnv }

// BusAddress is the session bus the panel runs on.
func (d *Desktop) BusAddress() string { return d.busAddr }

// Env is the environment for a program that should show its tray icon in
// the panel: this process's environment with the display and the bus.
func (d *Desktop) Env() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "DBUS_SESSION_BUS_ADDRESS=") || strings.HasPrefix(kv, "DISPLAY=") || strings.HasPrefix(kv, "WAYLAND_DISPLAY=") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "DISPLAY="+d.dispEnv, "DBUS_SESSION_BUS_ADDRESS="+d.busAddr)
}

// Conn is a private connection to the panel's bus, closed when the test
// ends.
func (d *Desktop) Conn(tb testing.TB) *dbus.Conn {
	tb.Helper()
	conn, err := dbus.Connect(d.busAddr)
	if err != nil {
		tb.Fatalf("connect to the tray host's bus: %v", err)
	}
	tb.Cleanup(func() { _ = conn.Close() })
	return conn
}

// Items are the items the panel's watcher has registered, as it names
// them ("<bus name><object path>").
func Items(conn *dbus.Conn) ([]string, error) {
	v, err := conn.Object(WatcherName, WatcherPath).GetProperty(WatcherName + ".RegisteredStatusNotifierItems")
	if err != nil {
		return nil, fmt.Errorf("read the watcher's items: %w", err)
	}
	items, _ := v.Value().([]string)
	return items, nil
}

// Log is everything the panel, its plugin and the bus wrote so far.
func (d *Desktop) Log() string { return d.log.String() }

// LogMark is where the log ends now; Warnings(mark) reads what came after.
func (d *Desktop) LogMark() int { return d.log.Len() }

// Warnings are the lines after mark in which GLib, GTK or a plugin warns
// or reports an error (GLib's "-WARNING **", "-CRITICAL **" and "-ERROR **"
// lines, and libdbusmenu's).
func (d *Desktop) Warnings(mark int) []string {
	var out []string
	for _, line := range strings.Split(d.log.From(mark), "\n") {
		if strings.Contains(line, "-WARNING **") || strings.Contains(line, "-CRITICAL **") || strings.Contains(line, "-ERROR **") {
			out = append(out, line)
		}
	}
	return out
}

// Stop ends the panel, the bus and Xvfb and removes the private folders.
func (d *Desktop) Stop() {
	for _, c := range []*exec.Cmd{d.panel, d.bus} {
		if c != nil && c.Process != nil {
			_ = c.Process.Kill()
			_ = c.Wait()
		}
	}
	if d.wmStop != nil {
		d.wmStop()
	}
	d.display.Stop()
	if d.dir != "" {
		_ = os.RemoveAll(d.dir)
	}
}

// panelConfig is one panel along the top edge with the status tray plugin
// only (no clock, launcher or session actions, whose own start-up warnings
// would drown what the tests look for).
const panelConfig = `<?xml version="1.0" encoding="UTF-8"?>
<channel name="xfce4-panel" version="1.0">
  <property name="configver" type="int" value="2"/>
  <property name="panels" type="array">
    <value type="int" value="1"/>
    <property name="panel-1" type="empty">
      <property name="position" type="string" value="p=6;x=0;y=0"/>
      <property name="length" type="uint" value="100"/>
      <property name="position-locked" type="bool" value="true"/>
      <property name="size" type="uint" value="32"/>
      <property name="plugin-ids" type="array">
        <value type="int" value="1"/>
      </property>
    </property>
  </property>
  <property name="plugins" type="empty">
    <property name="plugin-1" type="string" value="systray"/>
  </property>
</channel>
`

type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (l *lockedBuffer) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Len()
}

func (l *lockedBuffer) From(mark int) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.b.String()
	if mark > len(s) {
		return ""
	}
	return s[mark:]
}
