package claudestub

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/testenv/testutil"
)

// RecordEnv names the folder TestRecordHookStdin writes into. The test is a
// recording tool, not a check: it runs only when this is set.
const RecordEnv = "LETS_RECORD_HOOK_STDIN"

// hookEvents are the Claude Code hook events Lets installs hooks for.
var hookEvents = [...]string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure",
	"PermissionRequest", "Notification", "Stop", "StopFailure", "SessionEnd"}

// TestRecordHookStdin records what the real Claude Code writes to each
// hook's stdin (see backend/claudehook/testdata/stdin/README.md): two
// `claude -p` runs against the stub with a hook per event that saves its
// stdin to $LETS_RECORD_HOOK_STDIN/<run>/<Event>-<ns>.json. The files need
// sanitising (temp paths, ids) before they are committed.
func TestRecordHookStdin(t *testing.T) {
	out := os.Getenv(RecordEnv)
	if out == "" {
		t.Skipf("a recording tool: set %s=<folder> to run it", RecordEnv)
	}
	claude := testutil.Claude(t)
	runs := map[string]func(proj string) []Step{
		// echo is read-only (no approval), Read of a missing file fails,
		// `exit 3` needs approval: the hook prints nothing, so -p denies it.
		"1": func(proj string) []Step {
			return []Step{
				Call("Bash", map[string]any{"command": "echo hello-from-bash", "description": "Say hello"}),
				Call("Read", map[string]any{"file_path": filepath.Join(proj, "does-not-exist.txt")}),
				Call("Bash", map[string]any{"command": "exit 3", "description": "Fail"}),
				Say("All done."),
			}
		},
		// The PermissionRequest hook allows; the command runs and fails;
		// then every request fails (Claude retries a 400 a few times), so
		// StopFailure fires.
		"2": func(string) []Step {
			return append([]Step{Call("Bash", map[string]any{"command": "touch made-by-bash && exit 3", "description": "Touch and fail"})},
				repeat(Fixed(Turn{Fail: &APIError{Status: 400, Type: "invalid_request_error", Message: "stub says no"}}), 8)...)
		},
	}
	for run, script := range runs {
		dir := filepath.Join(out, run)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		home := t.TempDir()
		proj := filepath.Join(home, "project")
		if err := os.MkdirAll(proj, 0o755); err != nil {
			t.Fatal(err)
		}
		s := Start(t, script(proj)...)
		hooks := map[string]any{}
		for _, e := range hookEvents {
			cmd := "cat > '" + dir + "'/" + e + "-$(date +%s%N).json"
			if e == "PermissionRequest" && run == "2" {
				cmd += `; echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}'`
			}
			hooks[e] = []any{map[string]any{"matcher": "*", "hooks": []any{map[string]any{"type": "command", "command": cmd}}}}
		}
		settings, err := json.Marshal(map[string]any{"hooks": hooks})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		cmd := exec.CommandContext(ctx, claude, "-p", "--settings", string(settings), "--output-format", "stream-json", "--verbose", "Please say hello using bash.")
		cmd.Dir = proj
		cmd.Env = append(s.Env(home), "PATH="+os.Getenv("PATH"))
		o, err := cmd.CombinedOutput()
		cancel()
		t.Logf("run %s: err=%v\n%s", run, err, o)
	}
}

func repeat(s Step, n int) []Step {
	out := make([]Step, n)
	for i := range out {
		out[i] = s
	}
	return out
}
