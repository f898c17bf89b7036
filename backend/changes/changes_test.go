package changes

import (
	"context"
	"testing"
	"time"
)

// recv takes one signal or fails after a bound (the signal is sent before
// recv is called in every test, so the bound is never what passes).
func recv(t *testing.T, ch <-chan struct{}, what string) bool {
	t.Helper()
	select {
	case _, ok := <-ch:
		return ok
	case <-time.After(5 * time.Second):
		t.Fatalf("%s: no signal", what)
		return false
	}
}

func pending(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func TestFeedSignalsEveryListenerOnceForABurst(t *testing.T) {
	var f Feed
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a, b := f.Subscribe(ctx), f.Subscribe(ctx)
	f.Notify()
	f.Notify()
	f.Notify()
	if !recv(t, a, "a") || !recv(t, b, "b") {
		t.Fatal("a channel closed early")
	}
	if pending(a) || pending(b) {
		t.Error("a burst of three changes gave more than one signal")
	}
	f.Notify()
	recv(t, a, "a after reading")
}

func TestFeedClosesOnContextEndAndNilFeedIsQuiet(t *testing.T) {
	var f Feed
	ctx, cancel := context.WithCancel(context.Background())
	ch := f.Subscribe(ctx)
	cancel()
	if recv(t, ch, "closing") {
		t.Fatal("got a signal instead of the close")
	}
	f.Notify() // no listener left: must not panic or block
	var none *Feed
	none.Notify()
}
