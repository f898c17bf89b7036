package cli

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/lets-app/lets/app/hookcmd"
	"github.com/lets-app/lets/backend/claudehook"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/backend/wire"
	"github.com/lets-app/lets/backend/wireclient"
)

// Issue #25, "the tray lists Codex sessions with their label beside
// Claude's", end to end: a desktop Lets with its tray on the session
// bus; `lets codex --label "garden plans"` holds a lease, and the real
// `lets hook codex SessionStart` (with the environment `lets codex` gives
// Codex) binds the Codex session to it. The pad daemon's status — what
// the tray reads — has the session as Codex's, leased, under the label,
// and the tray menu lists "Waiting for you: garden plans — Codex" beside
// a Claude Code session's "Needs your approval: fix tests — Claude Code".
// When Codex ends, its line goes.
func TestCodexSessionInTheTrayBesideClaude(t *testing.T) {
	testutil.ProcFS(t)
	ds := startDesktopSession(t)
	conn, watcher := startWatcher(t, ds.busAddr)
	home, sock, xdg := letsDesktopEnv(t, ds)
	l := startDesktopLets(t, ds, home, sock, xdg)
	if !testutil.Poll(testutil.EventuallyTimeout, func() bool { return len(watcher.registered()) > 0 }) {
		t.Fatalf("the tray did not register; lets said:\n%s", l.out.String())
	}
	item := watcher.registered()[0]
	wc := wireclient.New(sock)
	testutil.Eventually(t, "the pad daemon answers", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), testutil.EventuallyTimeout)
		defer cancel()
		return wc.Ping(ctx) == nil
	})

	e, _ := codexEnv(t, true)
	codexGetenv := e.Env.Getenv
	e.Env.Getenv = func(k string) string {
		switch k {
		case "LETS_HOME":
			return home
		case wire.EnvSocket:
			return sock
		}
		return codexGetenv(k)
	}
	menu := func() string {
		layout, err := getLayout(conn, item)
		if err != nil {
			return ""
		}
		return strings.Join(layout.Shown(""), "\n")
	}
	// Each line ends in its pad colour, " (cyan)".
	const codexLine, claudeLine = "\nWaiting for you: garden plans — Codex (", "\nNeeds your approval: fix tests — Claude Code ("
	ran := false
	e.Env.RunCodex = func(ctx context.Context, _ string, _, env []string, _ io.Reader, _, _ io.Writer) (int, error) {
		ran = true
		// The hook runs with what `lets codex` gave Codex.
		given := map[string]string{}
		for _, kv := range env {
			if k, v, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(k, "LETS_CODEX_") {
				given[k] = v
			}
		}
		if given[hookcmd.CodexLeaseEnv] == "" {
			t.Errorf("codex's environment has no lease: %v", given)
		}
		hookEnv := func(k string) string {
			if v, ok := given[k]; ok {
				return v
			}
			return e.Env.Getenv(k)
		}
		var hookOut, hookErr strings.Builder
		in := `{"session_id":"0199a213-garden","turn_id":"","cwd":"/tmp/garden","hook_event_name":"SessionStart","model":"gpt-5-codex","permission_mode":"default","source":"startup"}`
		if code := Run(ctx, &Env{Stdin: strings.NewReader(in), Stdout: &hookOut, Stderr: &hookErr, Getenv: hookEnv}, []string{"hook", "codex", "SessionStart"}); code != 0 || hookOut.Len() != 0 {
			t.Errorf("lets hook codex SessionStart: exit %d, printed %q, said %q", code, hookOut.String(), hookErr.String())
		}
		// A Claude Code session beside it.
		if err := wc.ReportState(ctx, wire.StateCommand{State: wire.StateWaitingForApproval,
			Agent: wire.Identity{Backend: "claude", SessionID: "s-ask"}, Metadata: wire.MetadataOf("label", "fix tests")}); err != nil {
			t.Errorf("the Claude session: %v", err)
		}
		var got []wire.StatusSession
		testutil.Eventually(t, "the daemon has the Codex session", func() bool {
			got = codexSessions(t, wc)
			return len(got) == 1
		})
		if s := got[0]; s.Backend != claudehook.CodexBackend || s.SessionID != "0199a213-garden" || s.Label != "garden plans" || !s.Leased || s.State != wire.StateWaitingForReply {
			t.Errorf("the daemon's status (what the tray reads) has %+v, want Codex's leased session 0199a213-garden labelled garden plans, waiting for a reply", s)
		}
		var shown string
		if !testutil.Poll(testutil.EventuallyTimeout, func() bool {
			shown = menu()
			return strings.Contains(shown, codexLine) && strings.Contains(shown, claudeLine)
		}) {
			t.Errorf("the tray menu does not list %q beside %q:\n%s", codexLine[1:], claudeLine[1:], shown)
		}
		return 0, nil
	}
	if code := e.run("codex", "--label", "garden plans"); code != 0 || !ran {
		t.Fatalf("lets codex: exit %d, ran %v: %s", code, ran, e.err.String())
	}
	var shown string
	if !testutil.Poll(testutil.EventuallyTimeout, func() bool {
		shown = menu()
		return !strings.Contains(shown, "garden plans") && strings.Contains(shown, claudeLine)
	}) {
		t.Errorf("after Codex ended the tray still lists it (or lost Claude's):\n%s", shown)
	}
}
