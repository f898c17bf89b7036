package host

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestOnOpenFailureWaitsForThePerson: when the app cannot show a window
// (OnOpen fails), the caller does not get the one-time URL (issue #23):
// the window waits for the person, whose home page gets the URL.
func TestOnOpenFailureWaitsForThePerson(t *testing.T) {
	th := startLIPHost(t, func(o *Options) {
		o.OnOpen = func(WindowLaunch) error { return errors.New("no display") }
	})
	win := th.openOnly(t, "board", "")
	if win.URL != "" || win.Shown != ShownWaiting || win.Home != th.URL()+"/" {
		t.Fatalf("answer %+v: a window nothing showed waits for the person on the home page", win.OpenAnswer)
	}
	_, tok := claimHome(t, th, homeKey(t, th))
	code, body := th.call(t, "POST", "/home/api/windows/"+win.Window+"/show", nil, tok)
	if u, _ := body["url"].(string); code != 200 || !strings.Contains(u, "/w/"+win.Window+"/?t=") {
		t.Fatalf("show: %d %v", code, body)
	}
}

// TestOnWindowClosedAfterSessionClose: POST /lip/close queues
// session.close and tells the app the window is closing; once the shell has
// gone, the app is told the window is gone so it can end the native window
// process.
func TestOnWindowClosedAfterSessionClose(t *testing.T) {
	launched := make(chan WindowLaunch, 1)
	closed := make(chan string, 4)
	closing := make(chan string, 4)
	th := startLIPHost(t, func(o *Options) {
		o.OnOpen = func(l WindowLaunch) error { launched <- l; return nil }
		o.OnWindowClosed = func(id string) { closed <- id }
		o.OnWindowClosing = func(id string) { closing <- id }
	})
	win := th.openOnly(t, "board", "")
	win.Token = loadShellToken(t, (<-launched).URL)
	sc := th.dialShell(t, win, nil)
	sc.sendEnv("lip.ready", map[string]any{}, "shell")
	if code, body := th.call(t, "POST", "/lip/close", map[string]string{"window": win.Window}, testHostToken); code != 200 {
		t.Fatalf("close: %d %v", code, body)
	}
	cmd, ok := sc.nextOfType("session.close", ioTimeout)
	if !ok {
		t.Fatal("the shell got no session.close")
	}
	// The app hears at once that the window is closing, so it can end a
	// window process whose shell does not go by itself.
	select {
	case id := <-closing:
		if id != win.Window {
			t.Fatalf("closing %q, want %q", id, win.Window)
		}
	case <-time.After(ioTimeout):
		t.Fatal("OnWindowClosing was not called for POST /lip/close")
	}
	select {
	case id := <-closed:
		t.Fatalf("window %s reported closed while its shell still runs", id)
	default:
	}
	sc.ack(cmd)
	_ = sc.ws.Close() // the shell closes its socket after session.close
	select {
	case id := <-closed:
		if id != win.Window {
			t.Fatalf("closed %q, want %q", id, win.Window)
		}
	case <-time.After(ioTimeout):
		t.Fatal("OnWindowClosed was not called after the shell went away")
	}
	ev := th.waitEvent(t, "g", "session.closed", ioTimeout)
	if dataOf(t, ev)["reason"] != "claude" {
		t.Fatalf("session.closed %+v", ev)
	}
}

// TestOnWindowClosedForUnconnectedWindow: a window whose native process
// never connected is closed at once, and the app is told at once.
func TestOnWindowClosedForUnconnectedWindow(t *testing.T) {
	closed := make(chan string, 1)
	th := startLIPHost(t, func(o *Options) {
		o.OnOpen = func(WindowLaunch) error { return nil }
		o.OnWindowClosed = func(id string) { closed <- id }
	})
	win := th.openOnly(t, "board", "")
	if code, body := th.call(t, "POST", "/lip/close", map[string]string{"window": win.Window}, testHostToken); code != 200 {
		t.Fatalf("close: %d %v", code, body)
	}
	select {
	case id := <-closed:
		if id != win.Window {
			t.Fatalf("closed %q", id)
		}
	case <-time.After(ioTimeout):
		t.Fatal("OnWindowClosed was not called")
	}
}
