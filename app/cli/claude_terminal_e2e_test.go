package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/testenv/claudestub"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/backend/wire"
)

// termAnswerBudget is issue #22's bound: a question answered in Claude's
// own terminal stops being asked everywhere within 1 s.
const termAnswerBudget = time.Second

// claudeDialogGuard is the longest of the times Claude Code 2.1.332's
// permission dialog refuses keys: 150 ms after it is drawn (and again
// after each refused key), 250 ms after the last key typed in its prompt.
// It keeps a key typed ahead from answering a question nobody saw, and a
// refused key leaves no sign on the screen: a key typed at once after the
// dialog appeared is what made the first version of this test miss 3 runs
// of 3. The test's person reads the question for dialogReadTime before
// answering, past the guard even when Claude Code's event loop is late on
// a loaded machine. This is Claude Code's timing, not a tolerance of the
// test: the measurement starts at the keypress.
const (
	claudeDialogGuard = 250 * time.Millisecond
	dialogReadTime    = 2 * claudeDialogGuard
)

// TestClaudeE2ETerminalAnswerClearsThePads (issue #22, "a question
// answered anywhere stops being asked everywhere"): an interactive
// `claude` in a pseudo-terminal, with Lets' hooks as `lets setup claude`
// installs them in its HOME, asks for a Bash tool use that needs
// permission. Claude Code runs `lets hook PermissionRequest` and shows its
// own prompt at the same time. Once the Wire daemon shows the session
// waiting_for_approval and the browser pad offers Approve, the person
// answers Yes in the terminal. Then the session leaves
// waiting_for_approval, the pad no longer offers Approve/Reject, the
// waiting hook exits printing nothing, and the command runs (with the
// 5-minute approval wait, the hook before #22 held all three for five
// minutes). Lets learns of the answer from the tool's PostToolUse, the
// first sign of it Claude Code gives, so the 1 s is counted from the
// keypress and, when Claude Code itself took longer than that to run the
// command (a loaded machine), from the command's run.
func TestClaudeE2ETerminalAnswerClearsThePads(t *testing.T) {
	runTerminalAnswer(t)
}

// trustProject writes into Claude Code's global config under its config
// folder what a person who has used it before has there: onboarding done,
// the API key of the environment accepted, the project folder trusted —
// so the interactive claude goes straight to its prompt.
func trustProject(t testing.TB, configDir, project, apiKey string) {
	t.Helper()
	file := filepath.Join(configDir, ".claude.json")
	cfg := map[string]any{}
	if data, err := os.ReadFile(file); err == nil {
		if err := json.Unmarshal(data, &cfg); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
	}
	cfg["hasCompletedOnboarding"] = true
	cfg["theme"] = "dark"
	key := apiKey
	if len(key) > 20 {
		key = key[len(key)-20:]
	}
	cfg["customApiKeyResponses"] = map[string]any{"approved": []string{key}, "rejected": []string{}}
	projects, _ := cfg["projects"].(map[string]any)
	if projects == nil {
		projects = map[string]any{}
	}
	p, _ := projects[project].(map[string]any)
	if p == nil {
		p = map[string]any{}
	}
	p["hasTrustDialogAccepted"] = true
	p["hasCompletedProjectOnboarding"] = true
	projects[project] = p
	cfg["projects"] = projects
	data, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(configDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// startTerminalClaude starts the interactive claude in project on a
// pseudo-terminal of its own, 50×160.
func startTerminalClaude(t testing.TB, claude, project string, env []string) *ptyTerminal {
	t.Helper()
	// The default permission mode, where Claude Code asks the person (its
	// auto mode would let a classifier decide).
	cmd := exec.Command(claude, "--permission-mode", "default")
	cmd.Dir = project
	cmd.Env = env
	return startPtyTerminal(t, cmd, 50, 160)
}

// terminalAnswer is what one run measured, each from the keypress.
type terminalAnswer struct {
	ran      time.Duration // Claude Code ran the command (its file's time)
	settled  time.Duration // the Wire session left waiting_for_approval
	padClear time.Duration // the browser pad stopped offering Approve/Reject
	hookGone time.Duration // the waiting lets hook PermissionRequest exited
}

// cleared is when the last of the three signs of the question was gone.
func (a terminalAnswer) cleared() time.Duration { return max(a.settled, a.padClear, a.hookGone) }

// runTerminalAnswer runs the scenario once, checks it and logs what it
// measured.
func runTerminalAnswer(t *testing.T) terminalAnswer {
	claude := testutil.Claude(t) // before anything starts: skip (or fail under LETS_REQUIRE_TOOLS=1) without it
	// Long: the hook must end because the question was answered, never
	// because its wait ran out.
	const approval = 5 * time.Minute
	h := startE2EHost(t, e2eConfig(approval))
	stub := claudestub.Start(t,
		claudestub.Call("Bash", map[string]any{"command": "touch terminal-approved.txt", "description": "Create a file"}),
		claudestub.Say("Done."),
	)
	chome := t.TempDir()
	project := filepath.Join(chome, "terminal-project")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	env := claudeEnv(stub, chome, h, claude)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	setup := exec.CommandContext(ctx, h.bin, "setup", "claude")
	setup.Env, setup.Dir = env, chome
	if out, err := setup.CombinedOutput(); err != nil {
		t.Fatalf("lets setup claude: %v\n%s", err, out)
	}
	configDir := filepath.Join(chome, ".claude") // CLAUDE_CONFIG_DIR of claudestub.Env
	hookOut := watchPermissionHook(t, filepath.Join(configDir, "settings.json"))
	trustProject(t, configDir, project, "dummy")

	c := startTerminalClaude(t, claude, project, env)
	c.waitText("❯")
	const prompt = "Please make a file."
	c.keys(prompt)
	c.waitText(prompt) // drawn in the prompt: Claude Code takes keys
	asked := c.size()
	c.keys("\r")

	// The question is asked everywhere: Claude's own dialog (whole: its
	// last line is drawn), the Wire daemon, the pad.
	var shown time.Time
	testutil.Eventually(t, "claude's terminal shows the whole permission dialog", func() bool {
		s := c.since(asked)
		i := strings.Index(s, "Do you want to proceed?")
		if i < 0 || !strings.Contains(s[i:], "Esc to cancel") {
			return false
		}
		shown = time.Now()
		return true
	})
	var s wire.StatusSession
	cl := h.wire()
	testutil.Eventually(t, "the Wire daemon shows the claude session waiting_for_approval", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		st, err := cl.Status(ctx)
		for _, x := range st.Sessions {
			if err == nil && x.Backend == "claude" && x.State == wire.StateWaitingForApproval {
				s = x
				return true
			}
		}
		return false
	})
	pad := dialE2EPad(t, h)
	pad.selectAndWait(s.Slot, "approve")
	if hookEnded(hookOut) {
		t.Fatal("the PermissionRequest hook ended before anyone answered")
	}

	// The person has read the question (see claudeDialogGuard) and
	// answers Yes in the terminal: the key of its first choice, "1. Yes".
	if wait := dialogReadTime - time.Since(shown); wait > 0 {
		read := time.NewTimer(wait)
		defer read.Stop()
		testutil.Wait(t, "the person has read the question", read.C)
	}
	pressed := time.Now()
	c.keys("1")
	var a terminalAnswer
	padOffers := func() bool {
		pad.mu.Lock()
		defer pad.mu.Unlock()
		return slices.Contains(pad.view.Available, "approve") || slices.Contains(pad.view.Available, "reject")
	}
	approved := filepath.Join(project, "terminal-approved.txt")
	ok := testutil.Poll(testutil.EventuallyTimeout, func() bool {
		now := time.Since(pressed)
		if a.settled == 0 {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			st, err := cl.Status(ctx)
			cancel()
			if err == nil {
				waiting := false
				for _, x := range st.Sessions {
					waiting = waiting || (x.SessionID == s.SessionID && x.State == wire.StateWaitingForApproval)
				}
				if !waiting {
					a.settled = now
				}
			}
		}
		if a.padClear == 0 && !padOffers() {
			a.padClear = now
		}
		if a.hookGone == 0 && hookEnded(hookOut) {
			a.hookGone = now
		}
		if a.ran == 0 {
			if fi, err := os.Stat(approved); err == nil {
				a.ran = fi.ModTime().Sub(pressed)
			}
		}
		return a.settled > 0 && a.padClear > 0 && a.hookGone > 0 && a.ran != 0
	})
	if !ok {
		took := "Claude Code did not run the command: it did not take the key (see the terminal below)"
		if a.ran != 0 {
			took = fmt.Sprintf("Claude Code ran the command after %v", a.ran)
		}
		t.Fatalf("after Yes in the terminal (0: not within %v): session out of waiting_for_approval after %v, pad cleared after %v, hook exited after %v; %s",
			testutil.EventuallyTimeout, a.settled, a.padClear, a.hookGone, took)
	}
	printed, err := os.ReadFile(hookOut)
	if err != nil {
		t.Fatal(err)
	}
	rc, _ := os.ReadFile(hookOut + ".rc")
	if len(printed) != 0 || strings.TrimSpace(string(rc)) != "0" {
		t.Errorf("the withdrawn hook printed %q and exited %s; want nothing and 0 (the answer given in the terminal stands)", printed, strings.TrimSpace(string(rc)))
	}
	r := func(d time.Duration) time.Duration { return d.Round(100 * time.Microsecond) }
	t.Logf("terminal Yes → Claude Code ran the command %v; Wire session out of waiting_for_approval %v, pad without Approve/Reject %v, lets hook PermissionRequest exited %v; all cleared %v after the press, %v after the command ran",
		r(a.ran), r(a.settled), r(a.padClear), r(a.hookGone), r(a.cleared()), r(a.cleared()-a.ran))
	// The 1 s of issue #22 is a time budget, and issue #20 makes budgets
	// measurements, not pass/fail: the chain after the command ran is
	// Claude Code starting its PostToolUse hook, a new `lets hook`
	// process, one Wire line; on a quiet machine 41–70 ms, but with four
	// test runs on two cores (CI k3, load 30) starting a process took
	// 1.7 s. What this test proves is that the question clears at all
	// while the hook would have waited five minutes; the times are
	// reported here and in the session notes.
	for what, d := range map[string]time.Duration{
		"the session left waiting_for_approval":   a.settled,
		"the pad stopped offering Approve/Reject": a.padClear,
		"the hook exited":                         a.hookGone,
	} {
		if d > termAnswerBudget && d-a.ran > termAnswerBudget {
			t.Logf("over budget: %s %v after the terminal answer, %v after Claude Code ran the command; the budget is %v", what, r(d), r(d-a.ran), termAnswerBudget)
		}
	}
	return a
}
