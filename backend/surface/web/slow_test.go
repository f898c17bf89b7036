package web

import (
	"bytes"
	"testing"

	"github.com/lets-app/lets/backend/visual"
)

// TestBurstOfFramesCoalescesInsteadOfDroppingTheBrowser: a browser that
// falls behind during a burst of state changes loses stale frames, not its
// connection; other messages still count towards the limit.
func TestBurstOfFramesCoalescesInsteadOfDroppingTheBrowser(t *testing.T) {
	frame := visual.AppendSurfaceMessage(nil, visual.View{}, Capacity)
	if !supersedes(frame) {
		t.Fatalf("a surface message must be latest-wins: %.60s", frame)
	}
	c := &client{wake: make(chan struct{}, 1)}
	other := []byte(`{"protocol":1,"type":"pairing","pin":"123456"}`)
	if !c.enqueue(other) {
		t.Fatal("first message refused")
	}
	for i := range 10 * maxQueued {
		if !c.enqueue(frame) {
			t.Fatalf("frame %d closed the browser", i)
		}
	}
	if c.closing {
		t.Fatal("a burst of frames called the browser too slow")
	}
	if len(c.queue) > maxQueued || !bytes.Equal(c.queue[0], other) {
		t.Fatalf("queue has %d messages, first %.40s", len(c.queue), c.queue[0])
	}
	for range maxQueued {
		c.enqueue(other)
	}
	if !c.closing || c.closeCode != closeTryLater {
		t.Fatal("a browser that reads nothing at all must still be closed (1013)")
	}
}
