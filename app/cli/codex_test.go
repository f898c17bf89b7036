package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/app/hookcmd"
	"github.com/lets-app/lets/backend/claudehook"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/backend/wire"
	"github.com/lets-app/lets/backend/wireclient"
)

// codexSessions lists the daemon's Codex sessions.
func codexSessions(t *testing.T, c *wireclient.Client) []wire.StatusSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st, err := c.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []wire.StatusSession
	for _, s := range st.Sessions {
		if s.Backend == claudehook.CodexBackend {
			out = append(out, s)
		}
	}
	return out
}

// Issue #25: `lets codex` starts Codex with Lets' hooks for this session
// only (the same argv every launch), holds a Wire lease while it runs (a
// hook's report binds the session to it, and the session is on the pads,
// leased, under the label), passes Codex's exit code through, and closing
// Codex clears the scene.
func TestCodexLauncherLeasesTheSession(t *testing.T) {
	e, _ := codexEnv(t, true)
	sock := filepath.Join(shortTempDir(t), "w.sock")
	startPadDaemon(t, sock)
	if err := os.WriteFile(filepath.Join(e.home, "config.json"), fmt.Appendf(nil, `{"wire": {"socket": %q}}`, sock), 0o600); err != nil {
		t.Fatal(err)
	}
	wc := wireclient.New(sock)
	var argvs [][]string
	e.Env.RunCodex = func(ctx context.Context, path string, args, env []string, _ io.Reader, _, _ io.Writer) (int, error) {
		argvs = append(argvs, args)
		vars := map[string]string{}
		for _, kv := range env {
			if k, v, ok := strings.Cut(kv, "="); ok {
				vars[k] = v
			}
		}
		lease := vars[hookcmd.CodexLeaseEnv]
		if lease == "" || vars[hookcmd.CodexLabelEnv] != "garden plans" {
			t.Errorf("codex's environment: lease %q, label %q", lease, vars[hookcmd.CodexLabelEnv])
		}
		// What Codex's SessionStart hook reports.
		if _, err := wc.ReportStateReply(ctx, wire.StateCommand{State: wire.StateWaitingForReply, LeaseID: lease,
			Agent: wire.Identity{Backend: claudehook.CodexBackend, SessionID: "0199a213"}}); err != nil {
			t.Errorf("the hook's report: %v", err)
		}
		s := codexSessions(t, wc)
		if len(s) != 1 || !s[0].Leased || s[0].Label != "garden plans" {
			t.Errorf("while Codex runs the pads show %+v, want the leased session labelled garden plans", s)
		}
		return 3, nil
	}
	for range 2 {
		if code := e.run("codex", "--label", "garden plans", "--", "--model", "gpt-5-codex"); code != 3 {
			t.Fatalf("exit %d, want Codex's 3: %s", code, e.err.String())
		}
		testutil.Eventually(t, "the scene clears when Codex ends", func() bool { return len(codexSessions(t, wc)) == 0 })
	}
	if len(argvs) != 2 || !slices.Equal(argvs[0], argvs[1]) {
		t.Fatalf("the argv differs between launches:\n%q\n%q", argvs[0], argvs[1])
	}
	argv := strings.Join(argvs[0], " ")
	for _, ev := range claudehook.Codex.Events() {
		timeout := "600" // Codex caps SessionEnd and Interrupt at 3 s, and warns when asked for more
		if ev == claudehook.EventSessionEnd || ev == claudehook.EventInterrupt {
			timeout = "3"
		}
		if !strings.Contains(argv, "hooks."+ev+"=[{hooks=[{type=\"command\",command=\"") || !strings.Contains(argv, " hook codex "+ev+"\",timeout="+timeout+"}]}]") {
			t.Errorf("no scoped hook for %s in %s", ev, argv)
		}
	}
	if !strings.HasSuffix(argv, " --model gpt-5-codex") {
		t.Errorf("the person's arguments do not come last: %s", argv)
	}
}

// Without Codex it says how to get it; without Lets running Codex still
// runs, and the person is told it is not on the pads.
func TestCodexLauncherWithoutCodexOrLets(t *testing.T) {
	e, _ := codexEnv(t, false)
	if code := e.run("codex"); code != 1 || !strings.Contains(e.err.String(), "npm install -g @openai/codex") {
		t.Errorf("without codex: exit %d, %s", code, e.err.String())
	}
	e, _ = codexEnv(t, true)
	if err := os.WriteFile(filepath.Join(e.home, "config.json"), fmt.Appendf(nil, `{"wire": {"socket": %q}}`, filepath.Join(shortTempDir(t), "none.sock")), 0o600); err != nil {
		t.Fatal(err)
	}
	ran := false
	e.Env.RunCodex = func(context.Context, string, []string, []string, io.Reader, io.Writer, io.Writer) (int, error) {
		ran = true
		return 0, nil
	}
	if code := e.run("codex"); code != 0 || !ran || !strings.Contains(e.err.String(), "not on the pads") {
		t.Errorf("without Lets: exit %d, ran %v, %s", code, ran, e.err.String())
	}
}

// The real codexRun passes the exit code of the program it runs.
func TestCodexRunPassesTheExitCode(t *testing.T) {
	script := filepath.Join(t.TempDir(), "codex")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho \"$@\"\nexit 7\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	code, err := codexRun(context.Background(), script, []string{"-c", "x=1"}, os.Environ(), nil, &out, io.Discard)
	if err != nil || code != 7 || out.String() != "-c x=1\n" {
		t.Errorf("codexRun = %d, %v, printed %q", code, err, out.String())
	}
}

// shortTempDir is a temporary folder short enough for a socket path.
func shortTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "lc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}
