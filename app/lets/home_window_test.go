package lets

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/app/window"
	"github.com/lets-app/lets/app/window/spawn"
	"github.com/lets-app/lets/backend/host"
	"github.com/lets-app/lets/backend/logging"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// homeRig is a host with native windows whose processes are fakes.
type homeRig struct {
	srv     *host.Server
	wins    *nativeWindows
	started chan *scriptedWindow
	desk    *Desktop
	opened  chan string // what went to the browser
}

func newHomeRig(t *testing.T, native bool, startErr error) *homeRig {
	t.Helper()
	r := &homeRig{started: make(chan *scriptedWindow, 4), opened: make(chan string, 4)}
	srv, wins, st := startWindowsHost(t, "home-window-test-token-0123456789abcdef", func(l window.Launch) (spawn.Child, error) {
		if startErr != nil {
			return nil, startErr
		}
		c := newScriptedWindow(l)
		r.started <- c
		return c, nil
	})
	r.srv, r.wins = srv, wins
	r.desk = rigDesktop(srv, st, r.opened)
	if native {
		r.desk.useWindows(r.wins)
	}
	return r
}

func (r *homeRig) nextWindow(t *testing.T) *scriptedWindow {
	t.Helper()
	return testutil.Wait(t, "a window process to be started", r.started)
}

func (r *homeRig) noBrowser(t *testing.T) {
	t.Helper()
	select {
	case u := <-r.opened:
		t.Fatalf("home also went to the browser: %s", u)
	default:
	}
}

// TestShowHomeOpensNativeWindow (#12 home window): with native windows,
// showing home starts a `lets window` process for the home window (title
// Lets, geometry key _home) with the host's one-time home link in its
// launch (stdin), not the browser; showing home again while it is open
// starts no second one; once it closed, the next show opens a new one.
func TestShowHomeOpensNativeWindow(t *testing.T) {
	r := newHomeRig(t, true, nil)
	r.desk.showHome()
	c := r.nextWindow(t)
	l := c.launch
	if !l.Home || l.Window != window.HomeWindow || l.Unique != window.HomeWindow || l.Title != "Lets" {
		t.Fatalf("home launch = %+v", l)
	}
	if !strings.HasPrefix(l.URL, r.srv.URL()+"/#k=") {
		t.Fatalf("home window URL %q is not the host's home link", l.URL)
	}
	r.noBrowser(t)

	r.desk.showHome() // already open: left be (showHome decides before it returns)
	select {
	case c2 := <-r.started:
		t.Fatalf("a second home window process started: %+v", c2.launch)
	default:
	}
	r.noBrowser(t)

	c.end(spawn.Exit{Code: 0}) // the person closes it
	testutil.Eventually(t, "the closed home window is forgotten", func() bool { return len(r.wins.spawner.Windows()) == 0 })
	r.desk.showHome()
	if c3 := r.nextWindow(t); !c3.launch.Home {
		t.Fatalf("reopened home launch = %+v", c3.launch)
	}
	r.noBrowser(t)
}

// TestShowHomeBrowserWithoutNativeWindows (#12 home window): without GUI
// support (no native windows wired) home opens in the browser, as before;
// and when the window process cannot start, the same unused link goes to
// the browser instead.
func TestShowHomeBrowserWithoutNativeWindows(t *testing.T) {
	for _, tc := range []struct {
		name     string
		native   bool
		startErr error
	}{
		{"no GUI support", false, nil},
		{"window process fails to start", true, errors.New("exec: no such file")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newHomeRig(t, tc.native, tc.startErr)
			r.desk.showHome()
			select {
			case u := <-r.opened:
				if !strings.HasPrefix(u, r.srv.URL()+"/#k=") {
					t.Fatalf("browser got %q, want the host's home link", u)
				}
			case <-time.After(testutil.EventuallyTimeout):
				t.Fatal("home did not open in the browser")
			}
			select {
			case c := <-r.started:
				t.Fatalf("a window process started: %+v", c.launch)
			default:
			}
		})
	}
}

// TestNewNativeWindowsNilWithoutGUI: this test binary has no GUI build
// tags, so no native windows are made and useWindows keeps the browser.
func TestNewNativeWindowsNilWithoutGUI(t *testing.T) {
	if window.Supported {
		t.Skip("this test binary was built with window support")
	}
	st := &Setup{Log: logging.New(io.Discard, nil, 0)}
	env := &Env{Getenv: func(k string) string {
		if k == "DISPLAY" {
			return ":99"
		}
		return ""
	}}
	wins := newNativeWindows(env, st)
	if wins != nil {
		t.Fatal("native windows without GUI support")
	}
	d := &Desktop{}
	d.useWindows(wins)
	if d.nativeHome != nil {
		t.Fatal("home would open natively without GUI support")
	}
}
