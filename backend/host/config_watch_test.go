package host

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/config"
)

// Issue #10: the host takes "handoff" from config.json as loaded once by
// the watcher (no read of the file per export), and follows a change as
// soon as the watcher has seen it.
func TestHandoffComesFromTheLoadedConfigAndFollowsChanges(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(p, []byte(`{"handoff": "stay"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	w := config.Watch(p, config.WatchOptions{})
	c := &lipCore{settings: w}
	if got := c.handoffMode(); got != "stay" {
		t.Fatalf("handoff %q, want stay", got)
	}
	if err := os.WriteFile(p, []byte(`{"handoff": "close"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Second)
	if err := os.Chtimes(p, later, later); err != nil {
		t.Fatal(err)
	}
	if got := c.handoffMode(); got != "stay" {
		t.Fatalf("the host read the file itself: handoff %q before the watcher looked", got)
	}
	w.Poll()
	if got := c.handoffMode(); got != "close" {
		t.Fatalf("handoff %q after the change, want close", got)
	}
	if got := (&lipCore{}).handoffMode(); got != config.Defaults().Handoff {
		t.Fatalf("without a config the default applies, got %q", got)
	}
	if got := (&lipCore{settings: w, handoff: "stay"}).handoffMode(); got != "stay" {
		t.Fatalf("the explicit override must win, got %q", got)
	}
}
