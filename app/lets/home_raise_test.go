package lets

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/lets-app/lets/app/tray"
	"github.com/lets-app/lets/app/window"
	"github.com/lets-app/lets/app/window/spawn"
	"github.com/lets-app/lets/backend/host"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// raisableWindow is a fake window process that counts the requests to
// come to the front.
type raisableWindow struct {
	*scriptedWindow
	presents atomic.Int32
}

func (w *raisableWindow) Present() error {
	w.presents.Add(1)
	return nil
}

// raiseRig is a host with native windows whose processes are raisable
// fakes, and the desktop around it.
type raiseRig struct {
	srv     *host.Server
	wins    *nativeWindows
	desk    *Desktop
	started chan *raisableWindow
	opened  chan string // what went to the browser
}

func newRaiseRig(t *testing.T) *raiseRig {
	t.Helper()
	r := &raiseRig{started: make(chan *raisableWindow, 4), opened: make(chan string, 4)}
	srv, wins, st := startWindowsHost(t, "raise-test-token-0123456789abcdef0123", func(l window.Launch) (spawn.Child, error) {
		c := &raisableWindow{scriptedWindow: newScriptedWindow(l)}
		r.started <- c
		return c, nil
	})
	r.srv, r.wins = srv, wins
	r.desk = rigDesktop(srv, st, r.opened)
	r.desk.useWindows(r.wins)
	return r
}

func (r *raiseRig) noBrowser(t *testing.T) {
	t.Helper()
	select {
	case u := <-r.opened:
		t.Fatalf("went to the browser: %s", u)
	default:
	}
}

// TestShowHomeRaisesTheOpenHomeWindow (#21 raise, don't hide): Home…,
// Set up Claude… and a second `lets` all show home; when the home window
// is open, that brings it to the front (its process is asked to present
// itself) instead of doing nothing, and starts no second window.
func TestShowHomeRaisesTheOpenHomeWindow(t *testing.T) {
	r := newRaiseRig(t)
	if how := r.desk.showHomeWith(false); how != homeOpened {
		t.Fatalf("first show: %q, want %q", how, homeOpened)
	}
	w := testutil.Wait(t, "the home window process to start", r.started)
	for i := int32(1); i <= 2; i++ {
		if how := r.desk.showHomeWith(false); how != homeRaised {
			t.Fatalf("show #%d with the window open: %q, want %q", i+1, how, homeRaised)
		}
		if n := w.presents.Load(); n != i {
			t.Fatalf("the home window was asked %d times to come to the front, want %d", n, i)
		}
	}
	select {
	case c := <-r.started:
		t.Fatalf("a second home window process started: %+v", c.launch)
	default:
	}
	r.noBrowser(t)
}

// TestHomeWindowClosedQuitsOnlyWithoutATray (#21 no tray host): the
// person closing the home window quits Lets when it is the main window (no
// tray host); with a tray, or when it crashed, Lets stays.
func TestHomeWindowClosedQuitsOnlyWithoutATray(t *testing.T) {
	for _, tc := range []struct {
		name          string
		noTray, later bool
		exit          spawn.Exit
		quits         bool
	}{
		{"no tray, closed", true, false, spawn.Exit{Code: 0}, true},
		{"no tray, crashed", true, false, spawn.Exit{Code: 2}, false},
		{"tray host started later, closed", true, true, spawn.Exit{Code: 0}, false},
		{"tray, closed", false, false, spawn.Exit{Code: 0}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRaiseRig(t)
			r.desk.NoTrayHost = tc.noTray
			r.desk.trayHost.Store(tc.later)
			heard := make(chan struct{})
			r.wins.onHomeClosed(func() { r.desk.homeWindowClosed(); close(heard) })
			r.desk.showHome()
			w := testutil.Wait(t, "the home window process to start", r.started)
			w.end(tc.exit)
			if tc.exit.Clean() {
				testutil.Wait(t, "the desktop to hear the home window closed", heard)
			} else {
				testutil.Eventually(t, "the ended home window is forgotten", func() bool { return len(r.wins.spawner.Windows()) == 0 })
			}
			select {
			case <-r.desk.quitRequested():
				if !tc.quits {
					t.Fatal("Lets quits")
				}
			default:
				if tc.quits {
					t.Fatal("Lets keeps running with its main window closed and no tray")
				}
			}
		})
	}
}

// TestTrayFocusesOpenWindows (#21 raise, don't hide): the tray's item of
// an open window, and Open of a unique that has a native window, bring
// that window to the front instead of stacking an identical new one.
func TestTrayFocusesOpenWindows(t *testing.T) {
	r := newRaiseRig(t)
	if err := r.wins.open(host.WindowLaunch{Window: "w7", Unique: "hello", Title: "Hello", URL: r.srv.URL() + "/w/w7/?t=x"}); err != nil {
		t.Fatal(err)
	}
	w := testutil.Wait(t, "the hello window process to start", r.started)
	src := &traySource{parts: trayParts{desk: r.desk, log: r.desk.log, env: r.desk.Env}}
	src.windows = []tray.Window{{ID: "w7", Unique: "hello", Title: "Hello"}}

	src.handle(context.Background(), tray.Action{Kind: tray.ActionFocusWindow, Window: "w7", Unique: "hello"})
	if n := w.presents.Load(); n != 1 {
		t.Fatalf("the window item asked the window %d times to come to the front, want 1", n)
	}
	src.handle(context.Background(), tray.Action{Kind: tray.ActionOpenUnique, Unique: "hello"})
	if n := w.presents.Load(); n != 2 {
		t.Fatalf("Open hello with its window open asked it %d times to come to the front, want 2", n)
	}
	select {
	case c := <-r.started:
		t.Fatalf("a second window process started: %+v", c.launch)
	default:
	}
	r.noBrowser(t)
}
