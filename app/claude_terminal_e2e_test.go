package app

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/lets-app/lets/backend/testenv/claudestub"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/backend/wire"
)

// termAnswerBudget is issue #22's bound: a question answered in Claude's
// own terminal stops being asked everywhere within 1 s.
const termAnswerBudget = time.Second

// TestClaudeE2ETerminalAnswerClearsThePads (issue #22, "a question
// answered anywhere stops being asked everywhere"): an interactive
// `claude` in a pseudo-terminal, with Lets' hooks as `lets setup claude`
// installs them in its HOME, asks for a Bash tool use that needs
// permission. Claude Code runs `lets hook PermissionRequest` and shows its
// own prompt at the same time. Once the Wire daemon shows the session
// waiting_for_approval and the browser pad offers Approve, the person
// answers Yes in the terminal. Within 1 s of that keypress the session
// leaves waiting_for_approval, the pad no longer offers Approve/Reject,
// and the waiting hook exits printing nothing (with the 5-minute approval
// wait, the hook before #22 held all three until then). Lets learns of
// the answer from the tool's PostToolUse, so when Claude Code itself was
// slower than that to run the command (a loaded machine), the second is
// counted from the command's run.
func TestClaudeE2ETerminalAnswerClearsThePads(t *testing.T) {
	took := runTerminalAnswer(t)
	t.Logf("terminal Yes → session out of waiting_for_approval, pad without Approve/Reject and hook exited: %v", took)
}

// terminalClaude is an interactive claude on a pseudo-terminal.
type terminalClaude struct {
	t      testing.TB
	tty    *os.File
	screen *syncBuffer // everything claude wrote
	done   chan struct{}
}

// ansiSeq matches terminal escape sequences (CSI, OSC, and two-byte ones).
var ansiSeq = regexp.MustCompile(`\x1b(\[[0-9;?<>=]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-Za-z]|[@-Z\\-_])`)

// text is what claude wrote, without escape sequences and with runs of
// white space made one space (the screen is drawn piece by piece).
func (c *terminalClaude) text() string {
	return strings.Join(strings.Fields(ansiSeq.ReplaceAllString(c.screen.String(), " ")), " ")
}

// waitText waits until the screen shows s.
func (c *terminalClaude) waitText(s string) {
	c.t.Helper()
	if !testutil.Poll(testutil.EventuallyTimeout, func() bool { return strings.Contains(c.text(), s) }) {
		c.t.Fatalf("claude's terminal never showed %q; it shows:\n%s", s, c.text())
	}
}

// keys types into claude's terminal.
func (c *terminalClaude) keys(s string) {
	c.t.Helper()
	if _, err := c.tty.WriteString(s); err != nil {
		c.t.Fatalf("type %q into claude's terminal: %v", s, err)
	}
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

// watchPermissionHook makes the PermissionRequest hook that `lets setup
// claude` installed in settings run through a small recorder: lets still
// gets the hook's input and Claude Code still gets lets' output and exit
// status, and when lets exits the recorder leaves what it printed in the
// returned file and then its exit status, one line, in that file with
// ".rc" added (hookEnded tells when it is there).
func watchPermissionHook(t testing.TB, settingsFile string) (outFile string) {
	t.Helper()
	dir := filepath.Dir(settingsFile)
	outFile = filepath.Join(dir, "permission-hook.out")
	rec := filepath.Join(dir, "permission-hook-recorder")
	// Shell built-ins only after lets exits, so the recorder adds no
	// process start to the hook's end; the status file comes last.
	script := "#!/bin/sh\n" +
		"out=$(\"$@\")\n" +
		"rc=$?\n" +
		"printf '%s' \"$out\"\n" +
		"printf '%s' \"$out\" > '" + outFile + "'\n" +
		"echo $rc > '" + outFile + ".rc'\n" +
		"exit $rc\n"
	if err := os.WriteFile(rec, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(settingsFile)
	if err != nil {
		t.Fatalf("lets setup claude wrote no settings: %v", err)
	}
	var s map[string]any
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	hooks, _ := s["hooks"].(map[string]any)
	groups, _ := hooks["PermissionRequest"].([]any)
	n := 0
	for _, g := range groups {
		hs, _ := g.(map[string]any)["hooks"].([]any)
		for _, h := range hs {
			m := h.(map[string]any)
			cmd, _ := m["command"].(string)
			switch {
			case !strings.Contains(cmd, " hook PermissionRequest"):
			case strings.Contains(cmd, "; exec "): // the guarded command
				m["command"] = strings.Replace(cmd, "; exec ", "; exec '"+rec+"' ", 1)
				n++
			default: // the plain `lets hook PermissionRequest` of older set-ups
				m["command"] = "'" + rec + "' " + cmd
				n++
			}
		}
	}
	if n != 1 {
		t.Fatalf("want one Lets PermissionRequest hook in %s, found %d:\n%s", settingsFile, n, data)
	}
	out, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settingsFile, out, 0o600); err != nil {
		t.Fatal(err)
	}
	return outFile
}

// hookEnded reports whether the recorded hook has exited (its status
// line is written).
func hookEnded(outFile string) bool {
	rc, err := os.ReadFile(outFile + ".rc")
	return err == nil && strings.HasSuffix(string(rc), "\n")
}

// startTerminalClaude starts the interactive claude in project on a
// pseudo-terminal of its own (a session of its own, so the whole group
// ends with the test).
func startTerminalClaude(t testing.TB, claude, project string, env []string) *terminalClaude {
	t.Helper()
	// The default permission mode, where Claude Code asks the person (its
	// auto mode would let a classifier decide).
	cmd := exec.Command(claude, "--permission-mode", "default")
	cmd.Dir = project
	cmd.Env = append(env, "TERM=xterm-256color")
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 50, Cols: 160})
	if err != nil {
		t.Fatalf("start claude on a pseudo-terminal: %v", err)
	}
	c := &terminalClaude{t: t, tty: tty, screen: &syncBuffer{}, done: make(chan struct{})}
	read := make(chan struct{})
	go func() {
		defer close(read)
		buf := make([]byte, 32<<10)
		for {
			n, err := tty.Read(buf)
			if n > 0 {
				_, _ = c.screen.Write(buf[:n])
			}
			if err != nil {
				return
			}
		}
	}()
	go func() {
		_ = cmd.Wait()
		close(c.done)
	}()
	pid := cmd.Process.Pid
	t.Cleanup(func() {
		_ = syscall.Kill(-pid, syscall.SIGTERM)
		select {
		case <-c.done:
		case <-time.After(5 * time.Second):
			_ = syscall.Kill(-pid, syscall.SIGKILL)
			<-c.done
		}
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		_ = tty.Close()
		<-read
		if t.Failed() {
			t.Logf("claude's terminal:\n%s", c.text())
		}
	})
	return c
}

// runTerminalAnswer runs the scenario once and returns the time from the
// keypress to the last of: the session out of waiting_for_approval, the
// pad without Approve/Reject, the hook exited.
func runTerminalAnswer(t *testing.T) time.Duration {
	claude := testutil.Claude(t) // before anything starts: skip (or fail) at once without it
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
	c.waitText(prompt)
	c.keys("\r")

	// The question is asked everywhere: Claude's own prompt, the Wire
	// daemon, the pad.
	c.waitText("Do you want to proceed?")
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

	// Yes, in the terminal: the key of its first choice, "1. Yes".
	pressed := time.Now()
	c.keys("1")
	var settled, padClear, hookGone time.Duration
	padOffers := func() bool {
		pad.mu.Lock()
		defer pad.mu.Unlock()
		return slices.Contains(pad.view.Available, "approve") || slices.Contains(pad.view.Available, "reject")
	}
	ok := testutil.Poll(testutil.EventuallyTimeout, func() bool {
		now := time.Since(pressed)
		if settled == 0 {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			st, err := cl.Status(ctx)
			cancel()
			if err == nil {
				waiting := false
				for _, x := range st.Sessions {
					waiting = waiting || (x.SessionID == s.SessionID && x.State == wire.StateWaitingForApproval)
				}
				if !waiting {
					settled = now
				}
			}
		}
		if padClear == 0 && !padOffers() {
			padClear = now
		}
		if hookGone == 0 {
			if hookEnded(hookOut) {
				hookGone = now
			}
		}
		return settled > 0 && padClear > 0 && hookGone > 0
	})
	if !ok {
		t.Fatalf("after Yes in the terminal: session out of waiting_for_approval after %v, pad cleared after %v, hook exited after %v (0: not within %v)",
			settled, padClear, hookGone, testutil.EventuallyTimeout)
	}
	t.Logf("after Yes in the terminal: Wire session out of waiting_for_approval %v, pad without Approve/Reject %v, lets hook PermissionRequest exited %v",
		settled, padClear, hookGone)
	printed, err := os.ReadFile(hookOut)
	if err != nil {
		t.Fatal(err)
	}
	rc, _ := os.ReadFile(hookOut + ".rc")
	if len(printed) != 0 || strings.TrimSpace(string(rc)) != "0" {
		t.Errorf("the withdrawn hook printed %q and exited %s; want nothing and 0 (Claude Code's own answer stands)", printed, strings.TrimSpace(string(rc)))
	}
	// The person's Yes ran the command (its file's modification time says
	// when): the first sign of the answer Lets can see is that tool's
	// PostToolUse; Claude Code itself takes its time to run the tool after
	// the key (0.5 s here when the machine is quiet, seconds under load).
	var fi os.FileInfo
	testutil.EventuallyNoError(t, "the command the person allowed in the terminal runs", func() (err error) {
		fi, err = os.Stat(filepath.Join(project, "terminal-approved.txt"))
		return err
	})
	ran := fi.ModTime().Sub(pressed)
	t.Logf("terminal Yes → Claude Code ran the command: %v; the command ran → the last of the three: %v",
		ran.Round(100*time.Microsecond), (max(settled, padClear, hookGone) - ran).Round(100*time.Microsecond))
	for what, d := range map[string]time.Duration{"the session left waiting_for_approval": settled, "the pad stopped offering Approve/Reject": padClear, "the hook exited": hookGone} {
		if d > termAnswerBudget && d-ran > termAnswerBudget {
			t.Errorf("%s %v after the terminal answer, %v after Claude Code ran the command; want ≤ %v", what, d, d-ran, termAnswerBudget)
		}
	}
	return max(settled, padClear, hookGone)
}
