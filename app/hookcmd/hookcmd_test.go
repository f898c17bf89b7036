package hookcmd_test

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/app/hookcmd"
	"github.com/lets-app/lets/backend/claudehook"
	"github.com/lets-app/lets/backend/logging"
)

func TestLogLevelIsErrorUnlessAsked(t *testing.T) {
	for v, want := range map[string]slog.Level{"": slog.LevelError, "debug": slog.LevelDebug, "nonsense": slog.LevelError} {
		got := hookcmd.LogLevel(func(k string) string {
			if k == logging.LevelEnv {
				return v
			}
			return ""
		})
		if got != want {
			t.Errorf("%s=%q: level %v, want %v", logging.LevelEnv, v, got, want)
		}
	}
}

// With Lets down, every way of running a hook prints nothing, says
// nothing on stderr (it would show in Claude's transcript) and is quick.
func TestHookWithLetsDownIsSilent(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"HOME": home, "LETS_HOME": filepath.Join(home, "lets"), "PAD_LATTICE_SOCKET": filepath.Join(home, "none.sock")}
	for _, event := range []string{"SessionStart", "PreToolUse", "PermissionRequest", "Stop"} {
		var out, errOut bytes.Buffer
		start := time.Now()
		in := `{"session_id":"s1","cwd":"/tmp/project","hook_event_name":"` + event + `","tool_name":"Bash","tool_input":{"command":"ls"}}`
		hookcmd.Run(context.Background(), hookcmd.IO{Stdin: strings.NewReader(in), Stdout: &out, Stderr: &errOut, Getenv: func(k string) string { return env[k] }}, []string{event})
		if out.Len() != 0 || errOut.Len() != 0 {
			t.Errorf("%s: stdout %q, stderr %q; want both empty", event, out.String(), errOut.String())
		}
		if took := time.Since(start); took > time.Second {
			t.Errorf("%s took %v with Lets down, want < 1 s", event, took)
		}
	}
}

// The chat's Claude is recognised by the variable Lets sets for it.
func TestOptionsRecogniseTheChatsClaude(t *testing.T) {
	home := t.TempDir()
	for v, want := range map[string]bool{"": false, "1": true} {
		env := map[string]string{"HOME": home, "LETS_HOME": filepath.Join(home, "lets"), claudehook.ChatEnv: v}
		o := hookcmd.Options(func(k string) string { return env[k] }, slog.New(slog.DiscardHandler))
		if o.Chat != want {
			t.Errorf("%s=%q: Chat %v, want %v", claudehook.ChatEnv, v, o.Chat, want)
		}
	}
}

// `lets hook codex <event>` (issue #25) is as quiet with Lets down: Codex
// then asks in its own terminal.
func TestCodexHookWithLetsDownIsSilent(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"HOME": home, "LETS_HOME": filepath.Join(home, "lets"), "PAD_LATTICE_SOCKET": filepath.Join(home, "none.sock")}
	for _, event := range []string{"SessionStart", "PermissionRequest", "Interrupt", "Stop", "SessionEnd"} {
		var out, errOut bytes.Buffer
		in := `{"session_id":"0199a213","turn_id":"1","cwd":"/tmp/project","hook_event_name":"` + event + `","model":"gpt-5-codex","tool_name":"Bash","tool_input":{"command":"ls"}}`
		hookcmd.Run(context.Background(), hookcmd.IO{Stdin: strings.NewReader(in), Stdout: &out, Stderr: &errOut, Getenv: func(k string) string { return env[k] }}, []string{hookcmd.CodexArg, event})
		if out.Len() != 0 || errOut.Len() != 0 {
			t.Errorf("codex %s: stdout %q, stderr %q; want both empty", event, out.String(), errOut.String())
		}
	}
	// A Claude-only event names Codex's own in the log.
	var errOut bytes.Buffer
	hookcmd.Run(context.Background(), hookcmd.IO{Stdin: strings.NewReader("{}"), Stdout: &bytes.Buffer{}, Stderr: &errOut, Getenv: func(k string) string { return env[k] }}, []string{hookcmd.CodexArg})
	if !strings.Contains(errOut.String(), "Interrupt") {
		t.Errorf("a codex hook without an event logs %q; want Codex's events listed", errOut.String())
	}
}

// Codex shows nothing in its terminal while its PermissionRequest hook
// waits, so a Codex hook waits at most hookcmd.CodexApprovalWait (the reference's
// 60 s) for a press; a shorter configured wait stays. It is Codex's,
// bound to the launcher's lease and label; the host and the Codex pid
// stay, for the card in the windows Codex opened (issue #25).
func TestForCodexBoundsTheApprovalWait(t *testing.T) {
	env := map[string]string{hookcmd.CodexLabelEnv: "garden", hookcmd.CodexLeaseEnv: "lease-1"}
	getenv := func(k string) string { return env[k] }
	for _, tc := range []struct{ configured, want time.Duration }{
		{0, hookcmd.CodexApprovalWait},
		{120 * time.Second, hookcmd.CodexApprovalWait},
		{5 * time.Second, 5 * time.Second},
	} {
		got := hookcmd.ForCodex(claudehook.Options{ApprovalTimeout: tc.configured, ClaudePID: 42, Chat: true, Host: claudehook.HostHTTP{}}, getenv)
		if got.ApprovalTimeout != tc.want {
			t.Errorf("configured %v: waits %v, want %v", tc.configured, got.ApprovalTimeout, tc.want)
		}
		if got.Agent.Backend != claudehook.CodexBackend || got.Label != "garden" || got.LeaseID != "lease-1" || got.Host == nil || got.ClaudePID != 42 || got.Chat {
			t.Errorf("not a Codex hook's options: %+v", got)
		}
	}
}
