package spawn

import (
	"errors"
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
