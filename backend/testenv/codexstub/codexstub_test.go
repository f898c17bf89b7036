package codexstub_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/testenv/codexstub"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// runExec runs the real `codex exec --json` against the stub and returns
// its JSON lines.
func runExec(t *testing.T, stub *codexstub.Server, prompt string) ([]map[string]any, error) {
	t.Helper()
	codex := testutil.Codex(t)
	home := testutil.CodexHome(t)
	stub.WriteConfig(t, home, "")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, codex, "exec", "--json", "--skip-git-repo-check", "--sandbox", "danger-full-access", prompt)
	cmd.Dir = t.TempDir()
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "LANG=C.UTF-8", "CODEX_HOME=" + home}
	out, err := cmd.Output()
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil {
			lines = append(lines, m)
		}
	}
	return lines, err
}

func TestRealCodexExecRunsAScriptedShellCall(t *testing.T) {
	stub := codexstub.Start(t, codexstub.Shell("echo stub-said-$((40+2))"), codexstub.Say("all done"))
	lines, err := runExec(t, stub, "run it")
	if err != nil {
		t.Fatalf("codex exec: %v (lines %v)", err, lines)
	}
	if !stub.WaitUsed(2, time.Second) {
		t.Fatalf("the stub answered %d steps, want 2", stub.Used())
	}
	main := stub.MainRequests()
	if got := main[0].UserText(); got != "run it" {
		t.Errorf("first request's user text %q, want the prompt", got)
	}
	outs := main[1].Outputs()
	if len(outs) != 1 || !strings.Contains(outs[0], "stub-said-42") {
		t.Errorf("the shell call's output in the second request = %q, want it to hold stub-said-42", outs)
	}
	var said string
	for _, l := range lines {
		if it, ok := l["item"].(map[string]any); ok && it["type"] == "agent_message" {
			said, _ = it["text"].(string)
		}
	}
	if said != "all done" {
		t.Errorf("agent message %q, want %q (lines %v)", said, "all done", lines)
	}
}

func TestRealCodexExecSeesAStreamFailure(t *testing.T) {
	stub := codexstub.Start(t, codexstub.Fixed(codexstub.Turn{StreamFail: "the stub broke"}))
	lines, err := runExec(t, stub, "fail please")
	if err == nil {
		t.Fatalf("codex exec succeeded on a failed response; lines %v", lines)
	}
	failed := false
	for _, l := range lines {
		if l["type"] == "turn.failed" {
			failed = true
		}
	}
	if !failed {
		t.Errorf("no turn.failed among %v", lines)
	}
}
