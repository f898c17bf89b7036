package lets

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/lets-app/lets/app/window"
	"github.com/lets-app/lets/app/window/geometry"
	"github.com/lets-app/lets/app/window/spawn"
	"github.com/lets-app/lets/backend/host"
	"github.com/lets-app/lets/backend/service"
)

// nativeWindows opens every window the host opens as a `lets window`
// process. It is nil when this binary or this session cannot show native
// windows (a build without the desktop tags, no display): the host then
// shows the window in the desktop browser itself, or keeps it waiting on
// the home page (windowsInBrowser, issue #23); the caller never gets the
// one-time URL.
type nativeWindows struct {
	spawner *spawn.Spawner
	log     *slog.Logger

	mu  sync.Mutex
	srv *host.Server
	// homeClosed, when set, hears that the person closed the home
	// window (not Lets, not a crash).
	homeClosed func()
}

// newNativeWindows returns the window spawner for the host, or nil when
// windows open in the browser.
func newNativeWindows(env *Env, st *Setup) *nativeWindows {
	if !window.HasDisplay(env.Getenv) {
		st.Log.Info("windows open in the browser: there is no display (DISPLAY and WAYLAND_DISPLAY are not set)", "windows", "browser")
		return nil
	}
	exe, err := os.Executable()
	if err != nil {
		st.Log.Warn("windows open in the browser: the Lets program could not find itself to start window processes", "err", err)
		return nil
	}
	prog, ok := windowProgram(exe, window.Supported)
	if !ok {
		st.Log.Info("windows open in the browser: this build has no window support and no "+WindowProgram+" beside it", "windows", "browser")
		return nil
	}
	return newNativeWindowsWith(spawn.ExecStarter(spawn.ExecOptions{Path: prog, Env: os.Environ(), Stderr: env.Stderr}), st)
}

// WindowProgram is the native-window build of Lets, installed beside
// `lets`. `lets` itself is built without the desktop tags so that it
// starts quickly (Claude Code runs `lets hook` on every tool call, and
// linking GTK and WebKit costs a quarter of a second per start); each
// window is a `lets-window window` process.
const WindowProgram = "lets-window"

// windowProgram is the program whose `window` command shows a native
// window: this one when it was built with window support, else
// lets-window beside it (resolving symlinks), if that is an executable
// file.
func windowProgram(exe string, supported bool) (string, bool) {
	if supported {
		return exe, true
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	sib := filepath.Join(filepath.Dir(exe), WindowProgram)
	fi, err := os.Stat(sib)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return "", false
	}
	return sib, true
}

// newNativeWindowsWith builds the spawner around a starter (tests pass a
// fake one).
func newNativeWindowsWith(start spawn.Starter, st *Setup) *nativeWindows {
	n := &nativeWindows{log: st.Log}
	n.spawner = spawn.New(spawn.Options{
		Start:    start,
		Gone:     n.gone,
		Geometry: geometry.NewStore(st.Paths.StateDir(), st.Log),
		Log:      st.Log,
	})
	return n
}

// hostOptions adds the window hooks to the host's options; with n nil
// they stay unset (browser windows).
func (n *nativeWindows) hostOptions(o host.Options) host.Options {
	if n == nil {
		return o
	}
	o.OnOpen = n.open
	o.OnWindowClosed = n.spawner.Close
	o.OnWindowClosing = n.spawner.Closing
	return o
}

// attach gives the windows the host they report to, and returns the
// services with the spawner added after the host, so it stops (ending
// every window) before the host does.
func (n *nativeWindows) attach(srv *host.Server, services []service.Service) []service.Service {
	if n == nil {
		return services
	}
	n.mu.Lock()
	n.srv = srv
	n.mu.Unlock()
	return append(services, n.spawner)
}

func (n *nativeWindows) open(l host.WindowLaunch) error {
	return n.spawner.Open(window.Launch{Window: l.Window, Unique: l.Unique, Title: l.Title, URL: l.URL})
}

// Ways openHome showed the home window.
const (
	homeOpened      = "opened"
	homeRaised      = "raised"
	homeAlreadyOpen = "already open"
)

// openHome shows the home page in a `lets window` process (title "Lets",
// its own remembered place) for a one-time home link of this host; the
// link goes to the process on stdin. When the home window is already open
// it is brought to the front and focused instead (the link is not used).
// It says which it did; an error means no window showed, so the caller
// shows the link in the browser.
func (n *nativeWindows) openHome(link string) (string, error) {
	n.mu.Lock()
	srv := n.srv
	n.mu.Unlock()
	if srv == nil {
		return "", errors.New("open the home window: the host is not running yet")
	}
	l, err := window.HomeLaunch(link, srv.URL())
	if err != nil {
		return "", fmt.Errorf("open the home window: %w", err)
	}
	if slices.Contains(n.spawner.Windows(), window.HomeWindow) {
		err := n.spawner.Present(window.HomeWindow)
		if err == nil {
			return homeRaised, nil
		}
		if !errors.Is(err, spawn.ErrNotRunning) {
			// It is open; a second one (or the browser) would only add
			// to the confusion.
			n.log.Warn("the home window is open but could not be brought to the front", "err", err)
			return homeAlreadyOpen, nil
		}
		// It is closing (the person just closed it): once it is gone,
		// open a new one.
		if ended := n.spawner.Ended(window.HomeWindow); ended != nil {
			timer := time.NewTimer(homeGoneWait)
			select {
			case <-ended:
			case <-timer.C:
			}
			timer.Stop()
		}
	}
	if err := n.spawner.Open(l); err != nil {
		return "", fmt.Errorf("open the home window: %w", err)
	}
	return homeOpened, nil
}

// homeGoneWait bounds how long showing home waits for a home window that
// is closing to be gone before it opens a new one (a window ends within
// a second of its close).
const homeGoneWait = 3 * time.Second

// focus brings a host window's native window to the front. An error
// wrapping spawn.ErrNotRunning means it has no process here.
func (n *nativeWindows) focus(windowID string) error {
	return n.spawner.Present(windowID)
}

// onHomeClosed sets what hears that the person closed the home window.
func (n *nativeWindows) onHomeClosed(f func()) {
	n.mu.Lock()
	n.homeClosed = f
	n.mu.Unlock()
}

// gone tells the host a window's process ended by itself.
func (n *nativeWindows) gone(id, reason string) {
	n.mu.Lock()
	srv, homeClosed := n.srv, n.homeClosed
	n.mu.Unlock()
	if id == window.HomeWindow {
		// The home window is no host window: nothing to report. A crash
		// is no choice of the person's, so only a close is passed on.
		if reason == spawn.ReasonHuman && homeClosed != nil {
			homeClosed()
		}
		return
	}
	if srv != nil {
		srv.WindowGone(id, reason)
	}
}
