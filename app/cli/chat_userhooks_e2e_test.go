package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/testenv/claudestub"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/backend/wire"
)

// chatAllowTarget is issue #22's target from Allow in the chat window to
// the command having run: a speed, measured and reported (logged here, in
// the session note), not asserted, so a loaded CI runner cannot fail a
// correct Lets. What the old code got wrong (a second card, the user-level
// hook holding the session) is asserted above.
const chatAllowTarget = 200 * time.Millisecond

// TestBrowserChatE2EUserHooksOneCard (issue #22, "chat after lets setup
// claude"): the person ran `lets setup claude`, so Claude Code's
// user-level settings hold Lets' hooks, PermissionRequest among them.
// The chat's Claude loads them, yet one question is one card: the chat
// window gets one shell.ask, Lets' user-level PermissionRequest hook steps
// out at once printing nothing (it neither asks nor holds the Wire
// session), and Allow runs the command within 200 ms of the press.
func TestBrowserChatE2EUserHooksOneCard(t *testing.T) {
	claude := testutil.Claude(t) // before anything starts: skip (or fail) at once without it
	results := make(chan claudestub.Request, 1)
	stub := claudestub.Start(t,
		claudestub.Call("Bash", map[string]any{"command": "touch allowed-once", "description": "Make a file"}),
		requestStep(results, claudestub.Turn{Text: "I made the file for you."}),
	)
	c := startChatE2E(t, chatE2EOptions{approval: chatApproval, claudeDir: filepath.Dir(claude), stub: stub})
	// The person's own set-up, in the HOME the chat's Claude runs with.
	c.letsCmd(t, time.Minute, "setup", "claude")
	hookOut := watchPermissionHook(t, filepath.Join(c.home, ".claude", "settings.json")) // CLAUDE_CONFIG_DIR of claudestub.Env

	_, url := c.openChat(t, "")
	page := openChatPage(t, url, "light")
	dir := c.conversations(t)[0].Dir
	page.say("Please make a file called allowed-once.")
	page.until(cardVisible, 90*time.Second)
	s := c.waitState(t, wire.StateWaitingForApproval)

	// The user-level hook ran for this question and stepped out: it
	// exited printing nothing while the card is up.
	testutil.Eventually(t, "Lets' user-level PermissionRequest hook ran and ended without asking", func() bool {
		return hookEnded(hookOut)
	})
	if printed, _ := os.ReadFile(hookOut); len(printed) != 0 {
		t.Fatalf("the user-level PermissionRequest hook printed %q for the chat's Claude; want nothing", printed)
	}
	if st := c.waitState(t, wire.StateWaitingForApproval); st.SessionID != s.SessionID {
		t.Fatalf("the waiting session changed from %s to %s", s.SessionID, st.SessionID)
	}
	var cards int
	page.eval(`document.querySelectorAll('[data-choice="allow"]').length`, &cards)
	if cards != 1 {
		t.Fatalf("%d approval cards on screen, want one: %q", cards, page.cardText())
	}

	// Allow, once the card is armed; the page notes when the click came
	// (the press that activates Allow), the file's modification time says
	// when the command ran.
	page.until(`document.querySelector('dialog[open][data-armed="true"]') !== null`, 30*time.Second)
	var ok bool
	page.eval(`(() => { document.addEventListener("click", () => { window.__e2ePressed ??= performance.timeOrigin + performance.now(); }, true); return true; })()`, &ok)
	page.click(`[data-choice="allow"]`)
	r := lastResult(testutil.Wait(t, "the Bash result to reach the model after Allow", results))
	fi, err := os.Stat(filepath.Join(dir, "allowed-once"))
	if err != nil || r.err != nil || r.isError {
		t.Fatalf("allowed in the window, yet: tool_result %+v, file: %v", r, err)
	}
	var pressedMS float64
	page.eval(`window.__e2ePressed ?? 0`, &pressedMS)
	if pressedMS == 0 {
		t.Fatal("the page saw no click on Allow")
	}
	took := time.Duration((nowMS(fi.ModTime()) - pressedMS) * float64(time.Millisecond))
	t.Logf("Allow clicked (in the page) → the command ran (its file's mtime): %v", took.Round(100*time.Microsecond))
	for _, f := range page.received(`"shell.answer"`) {
		var e struct {
			TS float64 `json:"ts"`
		}
		if strings.HasPrefix(f.data, "SENT ") && json.Unmarshal([]byte(strings.TrimPrefix(f.data, "SENT ")), &e) == nil && e.TS > 0 {
			t.Logf("of that: click → shell.answer sent by the page %.1f ms; shell.answer → the command ran (Lets to Claude Code, Claude Code's Bash) %.1f ms",
				e.TS-pressedMS, nowMS(fi.ModTime())-e.TS)
		}
	}
	if took > chatAllowTarget {
		t.Logf("slower than the %v target: the command ran %v after Allow", chatAllowTarget, took)
	}
	page.until(`!`+cardVisible, 10*time.Second)
	page.until(`document.getElementById("lets-chat-log").innerText.includes("I made the file for you.")`, 60*time.Second)

	// One question, one card: the window's shell got one shell.ask.
	asks := 0
	for _, f := range page.received(`"shell.ask"`) {
		if strings.HasPrefix(f.data, "SENT ") {
			continue
		}
		asks += countAsks(f.data)
	}
	if asks != 1 {
		page.logPrompts()
		t.Fatalf("the chat window received %d shell.ask for one question, want 1", asks)
	}
}

// countAsks counts the shell.ask envelopes in one LIP frame (one envelope
// or a batch).
func countAsks(frame string) int {
	var envs []e2eEnvelope
	if strings.HasPrefix(frame, "[") {
		if json.Unmarshal([]byte(frame), &envs) != nil {
			return 0
		}
	} else {
		var e e2eEnvelope
		if json.Unmarshal([]byte(frame), &e) != nil {
			return 0
		}
		envs = []e2eEnvelope{e}
	}
	n := 0
	for _, e := range envs {
		if e.Type == "shell.ask" {
			n++
		}
	}
	return n
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
