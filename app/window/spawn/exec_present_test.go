package spawn

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/lets-app/lets/backend/testenv/testutil"
)

// TestExecStarterPresentWritesAControlLine (#21 raise, don't hide): a real
// window process keeps its stdin from Lets after the launch, and Present
// reaches it there as one control line per request.
func TestExecStarterPresentWritesAControlLine(t *testing.T) {
	s, _, waitReady := execSpawnerReady(t, "wait", nil)
	l := launch("w1", "hello")
	l.Title = "present"
	if err := s.Open(l); err != nil {
		t.Fatal(err)
	}
	waitReady("w1")
	dir := readyDir(t, s, "w1")
	for i := 1; i <= 2; i++ {
		if err := s.Present("w1"); err != nil {
			t.Fatalf("Present #%d: %v", i, err)
		}
		testutil.Eventually(t, fmt.Sprintf("the window process read control line #%d", i), func() bool {
			_, err := os.Stat(fmt.Sprintf("%s/w1.presented-%d", dir, i))
			return err == nil
		})
	}
}

// readyDir is the helper's ready folder (from the child's environment).
func readyDir(t *testing.T, s *Spawner, window string) string {
	t.Helper()
	s.mu.Lock()
	c := s.children[window].child.(*execChild)
	s.mu.Unlock()
	for _, kv := range c.cmd.Env {
		if v, ok := strings.CutPrefix(kv, "LETS_SPAWN_TEST_READY="); ok {
			return v
		}
	}
	t.Fatal("no ready folder in the helper's environment")
	return ""
}
