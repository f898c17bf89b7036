package daemon_test

import (
	"context"
	"testing"
	"time"
)

// TestSubscribeHearsSessionChanges: the tray is told when an agent's state
// changes (instead of polling the daemon), and the channel closes with
// its context.
func TestSubscribeHearsSessionChanges(t *testing.T) {
	h := start(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := h.d.Subscribe(ctx)
	h.update("claude", "s1", "running")
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatal("no change signal after a new session reported running")
	}
	h.update("claude", "s1", "waiting_for_approval")
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatal("no change signal after the state changed")
	}
	cancel()
	for range ch {
	}
}
