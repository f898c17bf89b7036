package cli

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/lets-app/lets/app/window"
)

// TestWindowCommandWithoutGUI: `lets window` in a build without the
// desktop tags says so plainly and fails.
func TestWindowCommandWithoutGUI(t *testing.T) {
	if window.Supported {
		t.Skip("this test binary was built with the desktop tags")
	}
	e := newTestEnv(t)
	e.Env.Stdin = strings.NewReader(`{"window":"w1","url":"http://127.0.0.1:1/w/w1/?t=x"}` + "\n")
	code := Run(context.Background(), e.Env, []string{"window"})
	if code != 1 || !strings.Contains(e.err.String(), "no window support") || !strings.Contains(e.err.String(), "make build") {
		t.Fatalf("exit %d, stderr %q", code, e.err.String())
	}
}

// TestWindowCommandExitStatusWhenGTKCannotStart: `lets window` whose GTK
// could not open the display says so and exits with window.ExitNoGTK, the
// one status the app starts a window again for; any other failure stays
// status 1 (a crash for the app).
func TestWindowCommandExitStatusWhenGTKCannotStart(t *testing.T) {
	cmd, ok := lookup("window")
	if !ok {
		t.Fatal("no window command")
	}
	e := newTestEnv(t)
	err := windowExit(e.Env, fmt.Errorf("%w (DISPLAY=\":7\")", window.ErrNoGTK))
	if code := report(e.Env, cmd, err); code != window.ExitNoGTK {
		t.Fatalf("exit %d, want %d", code, window.ExitNoGTK)
	}
	if !strings.Contains(e.err.String(), "GTK could not start") {
		t.Fatalf("stderr %q does not say GTK could not start", e.err.String())
	}
	if code := report(e.Env, cmd, windowExit(e.Env, window.ErrBadLaunch)); code != 1 {
		t.Fatalf("a bad launch: exit %d, want 1", code)
	}
}
