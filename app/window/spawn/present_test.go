package spawn

import (
	"errors"
	"os"
	"sync/atomic"
	"testing"

	"github.com/lets-app/lets/app/window"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// presentingChild is a fake window process that counts the requests to
// come to the front.
type presentingChild struct {
	*fakeChild
	presents atomic.Int32
}

func (c *presentingChild) Present() error {
	c.presents.Add(1)
	return nil
}

// TestSpawnerPresentRaisesTheRunningWindow (#21 raise, don't hide):
// Present reaches the running process of that window; a window with no
// process, or one Lets is closing, is ErrNotRunning (the caller opens it).
func TestSpawnerPresentRaisesTheRunningWindow(t *testing.T) {
	var kids []*presentingChild
	s := New(Options{Start: func(l window.Launch) (Child, error) {
		c := &presentingChild{fakeChild: newFakeChild(2000+len(kids), l)}
		kids = append(kids, c)
		return c, nil
	}})
	t.Cleanup(s.StopAll)
	if err := s.Present(window.HomeWindow); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("Present with nothing open = %v, want ErrNotRunning", err)
	}
	l := window.Launch{Window: window.HomeWindow, Unique: window.HomeWindow, URL: "http://127.0.0.1:1/#k=x", Home: true}
	if err := s.Open(l); err != nil {
		t.Fatal(err)
	}
	if err := s.Present(window.HomeWindow); err != nil {
		t.Fatalf("Present: %v", err)
	}
	if n := kids[0].presents.Load(); n != 1 {
		t.Fatalf("the window process was asked %d times to come to the front, want 1", n)
	}
	s.Close(window.HomeWindow)
	if err := s.Present(window.HomeWindow); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("Present of a closing window = %v, want ErrNotRunning", err)
	}
	testutil.Eventually(t, "the closed window is forgotten", func() bool { return len(s.Windows()) == 0 })
}

// TestSpawnerPresentNeedsAPresenter: a process that cannot be asked to
// come to the front says so instead of pretending it came.
func TestSpawnerPresentNeedsAPresenter(t *testing.T) {
	f := &fakeStarter{}
	s := New(Options{Start: f.start})
	t.Cleanup(s.StopAll)
	if err := s.Open(window.Launch{Window: "w1", Unique: "hello", URL: "http://127.0.0.1:1/w/w1/"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Present("w1"); err == nil || errors.Is(err, ErrNotRunning) {
		t.Fatalf("Present of a process without Present = %v", err)
	}
}

// closedChild is a window process that has ended but is not reaped yet:
// its stdin is closed.
type closedChild struct{ *fakeChild }

func (c *closedChild) Present() error { return os.ErrClosed }

// TestSpawnerPresentOfAnEndingWindow: a window whose process just ended
// (the person closed it; not reaped yet) is ErrNotRunning, and Ended
// says when it is gone, so the caller can open a new one.
func TestSpawnerPresentOfAnEndingWindow(t *testing.T) {
	var kid *closedChild
	s := New(Options{Start: func(l window.Launch) (Child, error) {
		kid = &closedChild{fakeChild: newFakeChild(3000, l)}
		return kid, nil
	}})
	t.Cleanup(s.StopAll)
	if s.Ended("w1") != nil {
		t.Fatal("Ended of a window that never opened is not nil")
	}
	if err := s.Open(window.Launch{Window: "w1", Unique: "hello", URL: "http://127.0.0.1:1/w/w1/"}); err != nil {
		t.Fatal(err)
	}
	ended := s.Ended("w1")
	if err := s.Present("w1"); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("Present of an ending window = %v, want ErrNotRunning", err)
	}
	kid.end(Exit{Code: 0})
	testutil.Wait(t, "the ended window to be reaped", ended)
	if len(s.Windows()) != 0 {
		t.Fatalf("windows after the end: %v", s.Windows())
	}
}
