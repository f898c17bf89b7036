package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	toml "github.com/pelletier/go-toml/v2"

	"github.com/lets-app/lets/backend/claudehook"
	"github.com/lets-app/lets/backend/testenv/codexstub"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/backend/wire"
)

// Issue #25's end-to-end test of the interactive Codex: the real Codex
// CLI (the pinned 0.169.0) in a pseudo-terminal, started by `lets codex`
// against `lets serve` (host and Wire daemon), with codexstub as its
// model on 127.0.0.1 and Lets' MCP server registered by `lets setup
// codex`. Codex's TUI draws with ratatui, which redraws only the cells
// that change; the test reads what the terminal shows (ptyScreen), as a
// person would.

// codexTUILabel is the session's name on the pads (`lets codex --label`).
const codexTUILabel = "tui-e2e"

// The questions Codex 0.169 asks in its terminal.
const (
	codexHooksReview   = "Hooks need review"
	codexComposer      = "Ask Codex to do anything"
	codexShellQuestion = "Would you like to run the following command?"
	codexMCPQuestion   = "Allow the lets MCP server to run tool"
)

// answer types key into a question Codex shows in its terminal once the
// person has read it: like Claude Code's, Codex's dialogs drop a key that
// comes right as they are drawn (the first version of this test typed
// "2" 1 ms after the hooks review appeared; Codex never saw it).
func (c *ptyScreen) answer(key string) {
	c.t.Helper()
	read := time.NewTimer(dialogReadTime)
	defer read.Stop()
	testutil.Wait(c.t, "the person has read the question", read.C)
	c.keys(key)
}

// escalatedShell is a shell call the model asks to run outside the
// sandbox: with approval_policy "on-request" Codex asks the person, and
// runs its PermissionRequest hooks first (a plain call runs in the
// workspace sandbox without asking).
func escalatedShell(cmd string) codexstub.Step {
	return codexstub.Fixed(codexstub.Turn{Calls: []codexstub.Call{{Name: "exec_command", Args: map[string]any{
		"cmd": cmd, "sandbox_permissions": "require_escalated", "justification": "The test needs this command",
	}}}})
}

// codexTUIRig is one Lets, one stub, one CODEX_HOME (the stub as the
// model provider, the project trusted, Lets' MCP server added by `lets
// setup codex`) and a `codex` on PATH that records each launch's argv,
// then runs the pinned Codex.
type codexTUIRig struct {
	t         *testing.T
	h         *e2eHost
	stub      *codexstub.Server
	codexHome string
	project   string
	argvDir   string
	env       []string
}

func newCodexTUIRig(t *testing.T, h *e2eHost, codex string, script ...codexstub.Step) *codexTUIRig {
	t.Helper()
	r := &codexTUIRig{t: t, h: h, stub: codexstub.Start(t, script...), codexHome: testutil.CodexHome(t)}
	base := t.TempDir()
	r.project = filepath.Join(base, "project")
	r.argvDir = filepath.Join(base, "argv")
	bin := filepath.Join(base, "bin")
	for _, d := range []string{r.project, r.argvDir, bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	wrapper := fmt.Sprintf("#!/bin/sh\nprintf '%%s\\0' \"$@\" > %s/argv.$$\nexec %s \"$@\"\n", shellQuote(r.argvDir), shellQuote(codex))
	if err := os.WriteFile(filepath.Join(bin, "codex"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	// The project is trusted already (Codex asks once per folder
	// otherwise, before anything else).
	r.stub.WriteConfig(t, r.codexHome, fmt.Sprintf("[projects.%q]\ntrust_level = \"trusted\"\n", r.project))
	for _, kv := range h.env {
		if k, v, _ := strings.Cut(kv, "="); k == "PATH" {
			kv = "PATH=" + bin + string(os.PathListSeparator) + v
		}
		r.env = append(r.env, kv)
	}
	r.env = append(r.env, codexHomeEnv+"="+r.codexHome)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	setup := exec.CommandContext(ctx, h.bin, "setup", "codex")
	setup.Env, setup.Dir = r.env, base
	if out, err := setup.CombinedOutput(); err != nil {
		t.Fatalf("lets setup codex: %v\n%s", err, out)
	}
	// Lets' block lets Codex run Lets' `close` without asking (codex exec
	// refuses a tool that asks). This person wants to be asked first:
	// Codex's per-tool approval_mode "prompt", so the MCP call reaches
	// the pads as a question.
	cfgFile := filepath.Join(r.codexHome, "config.toml")
	b, err := os.ReadFile(cfgFile)
	if err != nil {
		t.Fatal(err)
	}
	asked := strings.Replace(string(b), `tools.close.approval_mode = "approve"`, `tools.close.approval_mode = "prompt"`, 1)
	if asked == string(b) {
		t.Fatalf("lets setup codex did not mark close approved:\n%s", b)
	}
	if err := os.WriteFile(cfgFile, []byte(asked), 0o600); err != nil {
		t.Fatal(err)
	}
	return r
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// config is CODEX_HOME's config.toml as it is now.
func (r *codexTUIRig) config() string {
	r.t.Helper()
	b, err := os.ReadFile(filepath.Join(r.codexHome, "config.toml"))
	if err != nil {
		r.t.Fatal(err)
	}
	return string(b)
}

// launch starts `lets codex --label tui-e2e -- -c approval_policy=…` in
// the project, on a 50×160 pseudo-terminal of its own.
func (r *codexTUIRig) launch() *ptyScreen {
	r.t.Helper()
	cmd := exec.Command(r.h.bin, "codex", "--label", codexTUILabel, "--", "-c", `approval_policy="on-request"`)
	cmd.Dir = r.project
	cmd.Env = slices.Clip(r.env)
	return newPtyScreen(startPtyTerminal(r.t, cmd, 50, 160), 50, 160)
}

// argvs are the argument lists Codex was started with, one per launch.
func (r *codexTUIRig) argvs() [][]string {
	r.t.Helper()
	files, err := filepath.Glob(filepath.Join(r.argvDir, "argv.*"))
	if err != nil {
		r.t.Fatal(err)
	}
	var out [][]string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			r.t.Fatal(err)
		}
		out = append(out, strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00"))
	}
	return out
}

// codexTurnDone is what Codex 0.169 writes to the terminal when a turn
// has ended (its own status signal for terminal emulators, OSC 7501:
// idle at the start, working, blocked on a question, done): a key typed
// before then goes to the running turn (Ctrl+C interrupts it instead of
// quitting Codex).
const codexTurnDone = "\x1b]7501;state=done"

// ask types a prompt into Codex's composer, sends it, and waits until the
// stub has the request it makes. It returns how many turns Codex had
// ended before the prompt went (see ended).
func (r *codexTUIRig) ask(c *ptyScreen, prompt string) int {
	r.t.Helper()
	sent := len(r.stub.MainRequests())
	c.keys(prompt)
	c.waitScreen("› " + prompt) // drawn: Codex took the keys
	done := strings.Count(c.rawString(), codexTurnDone)
	c.keys("\r")
	if !r.stub.WaitRequests(sent+1, testutil.EventuallyTimeout) {
		r.t.Fatalf("Codex sent no request for the prompt %q; its screen:\n%s", prompt, c.screen())
	}
	return done
}

// ended waits until the turn that ask started has ended: Codex shows the
// model's last words and says the turn is done.
func (c *ptyScreen) ended(done int, last string) {
	c.t.Helper()
	c.waitScreen(last)
	if !testutil.Poll(testutil.EventuallyTimeout, func() bool { return strings.Count(c.rawString(), codexTurnDone) > done }) {
		c.t.Fatalf("Codex never ended the turn; its screen:\n%s", c.screen())
	}
}

// output is what Codex told the model the last tool call gave, in main
// request n (0-based), waiting for that request.
func (r *codexTUIRig) output(c *ptyScreen, n int) string {
	r.t.Helper()
	if !r.stub.WaitRequests(n+1, testutil.EventuallyTimeout) {
		r.t.Fatalf("Codex sent %d requests to the model, want %d; its screen:\n%s", len(r.stub.MainRequests()), n+1, c.screen())
	}
	outs := r.stub.MainRequests()[n].Outputs()
	if len(outs) == 0 {
		r.t.Fatalf("request %d carries no tool output", n)
	}
	return outs[len(outs)-1]
}

// codexSession waits until the Wire daemon shows the Codex session in
// state and returns it.
func (r *codexTUIRig) codexSession(state wire.State) wire.StatusSession {
	r.t.Helper()
	c := r.h.wire()
	var found wire.StatusSession
	testutil.Eventually(r.t, fmt.Sprintf("the Codex session is %s on the pads", state), func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		st, err := c.Status(ctx)
		if err != nil {
			return false
		}
		for _, s := range st.Sessions {
			if s.Backend == claudehook.CodexBackend && s.State == state {
				found = s
				return true
			}
		}
		return false
	})
	return found
}

// offers reports whether the browser pad lights any of actions.
func (p *e2ePad) offers(actions ...string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, a := range actions {
		if slices.Contains(p.view.Available, a) {
			return true
		}
	}
	return false
}

// press selects slot on the browser pad, waits until action is lit and
// presses it.
func (p *e2ePad) press(slot int, action string) {
	p.t.Helper()
	p.selectAndWait(slot, action)
	p.send(map[string]any{"type": "action", "action": action})
}

// codexWatch records the distinct consecutive states the Wire daemon
// shows for Codex sessions, polling its status like a pad would.
type codexWatch struct {
	mu     sync.Mutex
	states []wire.State
	stop   chan struct{}
	done   chan struct{}
}

func watchCodexStates(t *testing.T, h *e2eHost) *codexWatch {
	w := &codexWatch{stop: make(chan struct{}), done: make(chan struct{})}
	c := h.wire()
	go func() {
		defer close(w.done)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			st, err := c.Status(ctx)
			cancel()
			if err == nil {
				w.mu.Lock()
				for _, s := range st.Sessions {
					if n := len(w.states); s.Backend == claudehook.CodexBackend && (n == 0 || w.states[n-1] != s.State) {
						w.states = append(w.states, s.State)
					}
				}
				w.mu.Unlock()
			}
			select {
			case <-w.stop:
				return
			case <-tick.C:
			}
		}
	}()
	t.Cleanup(func() {
		close(w.stop)
		<-w.done
	})
	return w
}

// mark is where the states seen so far end.
func (w *codexWatch) mark() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.states)
}

// waitSeen waits until the states seen after mark contain want in order.
func (w *codexWatch) waitSeen(t *testing.T, mark int, what string, want ...wire.State) {
	t.Helper()
	testutil.Eventually(t, fmt.Sprintf("%s (Codex states %v in that order on the pads)", what, want), func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		return inOrder(w.states[min(mark, len(w.states)):], want)
	})
}

// noHooksWritten checks that Codex's config.toml holds no hook of Lets
// after a `lets codex` session: every line from before is still there,
// and of "hooks" only Codex's record of the person's trust (hooks.state,
// a trusted_hash per hook) was added. It returns that record.
func noHooksWritten(t *testing.T, before, after string) map[string]any {
	t.Helper()
	for _, line := range strings.Split(before, "\n") {
		if !strings.Contains(after, line) {
			t.Errorf("the session took %q out of Codex's config.toml", line)
		}
	}
	if strings.Contains(after, "hook codex") {
		t.Errorf("Lets' hooks were written into Codex's config.toml:\n%s", after)
	}
	var cfg map[string]any
	if err := toml.Unmarshal([]byte(after), &cfg); err != nil {
		t.Fatalf("Codex's config.toml after the session: %v", err)
	}
	hooks, _ := cfg["hooks"].(map[string]any)
	for k := range hooks {
		if k != "state" {
			t.Errorf("config.toml has hooks.%s after the session; want only Codex's trust record (hooks.state)", k)
		}
	}
	state, _ := hooks["state"].(map[string]any)
	for k, v := range state {
		m, _ := v.(map[string]any)
		if _, ok := m["trusted_hash"]; !ok || len(m) != 1 {
			t.Errorf("hooks.state.%q = %v; want only a trusted_hash", k, v)
		}
	}
	return state
}

// TestCodexTUIE2E runs two `lets codex` sessions of the real interactive
// Codex in a pseudo-terminal, sharing one Lets, one browser pad, one
// stub and one CODEX_HOME.
//
// The first launch: Codex asks to review Lets' hooks (they are new), the
// person trusts them all once; a shell call that wants to leave the
// sandbox puts the session in waiting_for_approval on the pads, Approve
// on the browser pad runs it (its output reaches the model), the turn
// ends in success; a second one is rejected from the pad (the model gets
// Lets' denial and the command never ran); a call of Lets' own MCP tool
// `close` (the person set it to ask) is approved from the pad and
// reaches Lets' MCP server. Codex opens hello through Lets' MCP server
// and asks to run a command: the window shows the approval card in
// Codex's name, and Allow there runs it. Closing Codex clears its scene; Codex's
// config.toml then holds the person's trust, never Lets' hooks.
//
// The second launch (the same argv, so Codex does not ask again): with a
// short approval wait and nobody pressing, the hook gives up printing
// nothing and Codex asks in its terminal; the answer given there runs the
// command and the question leaves the pads. With Lets stopped, the hook
// returns at once and Codex asks in its terminal.
func TestCodexTUIE2E(t *testing.T) {
	codex := testutil.Codex(t) // before anything starts: skip (or fail under LETS_REQUIRE_TOOLS=1) without it
	// Long: in the first launch only a press ends a question.
	h := startE2EHost(t, e2eConfig(5*time.Minute))
	// The model holds its shell call until the window Codex opened is on
	// the person's screen (so the card has somewhere to show).
	cardGate := make(chan struct{})
	r := newCodexTUIRig(t, h, codex,
		// First launch.
		escalatedShell("echo approved-ran > approved.txt; cat approved.txt"), codexstub.Say("Done one."),
		escalatedShell("echo rejected-ran > rejected.txt"), codexstub.Say("Done two."),
		codexstub.MCP("lets", "close", map[string]any{"window": "w9"}), codexstub.Say("Done three."),
		codexstub.MCP("lets", "open", map[string]any{"unique": "hello"}),
		codexstub.Fixed(codexstub.Turn{Hold: cardGate, Calls: escalatedShell("echo card-ran > card.txt; cat card.txt")(codexstub.Request{}).Calls}),
		codexstub.Say("Done card."),
		// Second launch.
		escalatedShell("echo terminal-ran > terminal.txt; cat terminal.txt"), codexstub.Say("Done four."),
		escalatedShell("echo alone-ran > alone.txt; cat alone.txt"), codexstub.Say("Done five."),
	)
	before := r.config()
	if strings.Contains(before, "hooks") {
		t.Fatalf("the test's config.toml has hooks before Lets starts Codex:\n%s", before)
	}
	watch := watchCodexStates(t, h)
	pad := dialE2EPad(t, h)
	wc := h.wire()

	// ---- The first launch: the hooks are reviewed and trusted once.
	c := r.launch()
	c.waitScreen(codexHooksReview, "Trust all and continue")
	c.answer("2")
	c.waitScreen("› 2. Trust all and continue")
	c.keys("\r")
	c.waitScreen(codexComposer)
	if title := "\x1b]0;" + codexTUILabel + " · Codex\x07"; !strings.Contains(c.rawString(), title) {
		t.Errorf("lets codex did not set the terminal's title to %q", title)
	}

	// Approve on the browser pad: the command runs.
	m := watch.mark()
	turn := r.ask(c, "Please run the first command.")
	s := r.codexSession(wire.StateWaitingForApproval)
	if s.Label != codexTUILabel || !s.Leased || s.Slot < 0 {
		t.Fatalf("the waiting Codex session on the pads: %+v; want it leased, labelled %q, in a slot", s, codexTUILabel)
	}
	watch.waitSeen(t, m, "the prompt runs, then the shell call asks", wire.StateRunning, wire.StateWaitingForApproval)
	m = watch.mark()
	pad.press(s.Slot, "approve")
	if out := r.output(c, 1); !strings.Contains(out, "approved-ran") {
		t.Errorf("approved on the pad, the model got %q; want the command's output", out)
	}
	if _, err := os.Stat(filepath.Join(r.project, "approved.txt")); err != nil {
		t.Errorf("approved on the pad, yet the command did not run: %v", err)
	}
	c.ended(turn, "Done one.")
	watch.waitSeen(t, m, "the approved call runs and the turn ends", wire.StateSuccess)

	// Reject on the browser pad: Codex gets Lets' denial.
	turn = r.ask(c, "Please run the second command.")
	s = r.codexSession(wire.StateWaitingForApproval)
	pad.press(s.Slot, "reject")
	out := r.output(c, 3)
	if strings.Contains(out, "rejected-ran") || !strings.Contains(out, "Rejected from Lets") {
		t.Errorf("rejected on the pad, the model got %q; want Lets' denial and no output", out)
	}
	if _, err := os.Stat(filepath.Join(r.project, "rejected.txt")); err == nil {
		t.Error("rejected on the pad, yet the command ran")
	}
	c.ended(turn, "Done two.")
	t.Logf("what Codex told the model of the rejected call: %q", out)

	// Approve on the browser pad for Lets' own MCP tool: the call
	// reaches Lets' MCP server (no window w9 is open, and it says so).
	turn = r.ask(c, "Please close the window.")
	s = r.codexSession(wire.StateWaitingForApproval)
	pad.press(s.Slot, "approve")
	if out := r.output(c, 5); !strings.Contains(out, "unknown_window") {
		t.Errorf("the MCP call approved on the pad, the model got %q; want Lets' MCP server's answer", out)
	}
	c.ended(turn, "Done three.")

	// The window card: Codex opens hello through Lets' MCP server (bound
	// to this Codex process), then asks to run a command; the window
	// shows the card in Codex's name, and Allow there runs the command.
	turn = r.ask(c, "Please open hello, then run a command.")
	opened := r.output(c, 7)
	win := windowIn.FindStringSubmatch(opened)
	if win == nil {
		t.Fatalf("the open result Codex gave the model names no window: %q", opened)
	}
	shell := dialE2EShell(t, h, h.personShows(t, win[1]), win[1])
	close(cardGate)
	card := shell.next("shell.ask", 30*time.Second)
	if card.Data["kind"] != "approval" || card.Data["agent"] != "Codex" || card.Data["tool"] != "Bash" ||
		!strings.Contains(fmt.Sprint(card.Data["summary"]), "card-ran") || card.Data["label"] != codexTUILabel {
		t.Fatalf("the approval card in the window Codex opened: %v; want Codex's, for its command, labelled %q", card.Data, codexTUILabel)
	}
	r.codexSession(wire.StateWaitingForApproval)
	shell.send("shell.answer", map[string]any{"id": card.Data["id"], "choice": "allow"})
	if out := r.output(c, 8); !strings.Contains(out, "card-ran") {
		t.Errorf("allowed on the window's card, the model got %q; want the command's output", out)
	}
	if _, err := os.Stat(filepath.Join(r.project, "card.txt")); err != nil {
		t.Errorf("allowed on the window's card, yet the command did not run: %v", err)
	}
	c.ended(turn, "Done card.")

	watch.mu.Lock()
	t.Logf("the Codex session's states on the pads in the first launch: %v", watch.states)
	watch.mu.Unlock()

	// Closing Codex (Ctrl+C at an empty prompt) clears its scene.
	c.keys("\x03")
	testutil.Wait(t, "Codex and lets codex exit", c.done)
	testutil.Eventually(t, "the Codex session leaves the pads when Codex ends", func() bool { return len(codexSessions(t, wc)) == 0 })
	trust := noHooksWritten(t, before, r.config())
	if len(trust) != len(claudehook.Codex.Events()) {
		t.Errorf("Codex recorded trust for %d hooks, want %d (one per event Lets handles): %v", len(trust), len(claudehook.Codex.Events()), trust)
	}

	// ---- The second launch: nothing to review, and answers in the terminal.
	if err := os.WriteFile(filepath.Join(h.letsHome, "config.json"), []byte(e2eConfig(5*time.Second)), 0o600); err != nil {
		t.Fatal(err)
	}
	c = r.launch()
	c.waitScreen(codexComposer)
	if strings.Contains(c.text(), codexHooksReview) {
		t.Errorf("the second launch asked to review the hooks again; the argv must be the same at every launch")
	}

	// Nobody presses: after the 5 s approval wait the hook ends printing
	// nothing, and Codex asks in its own terminal.
	turn = r.ask(c, "Please run the third command.")
	s = r.codexSession(wire.StateWaitingForApproval)
	asked := time.Now()
	pad.selectAndWait(s.Slot, "approve") // on the pad, waiting for a press
	c.waitScreen(codexShellQuestion, "terminal-ran")
	t.Logf("the unanswered question moved to Codex's terminal %v after the pads showed it (approval wait 5 s)", time.Since(asked).Round(time.Millisecond))
	// The hook that gave up no longer listens: the pads cannot answer
	// (Approve and Reject are dark), and the session still waits for the
	// person, who answers in the terminal.
	testutil.Eventually(t, "the pad stops offering Approve and Reject once Codex asks in its terminal", func() bool { return !pad.offers("approve", "reject") })
	c.answer("y")
	if out := r.output(c, 10); !strings.Contains(out, "terminal-ran") {
		t.Errorf("approved in the terminal, the model got %q; want the command's output", out)
	}
	testutil.Eventually(t, "the question answered in the terminal leaves the pads", func() bool {
		for _, x := range codexSessions(t, wc) {
			if x.State == wire.StateWaitingForApproval {
				return false
			}
		}
		return !pad.offers("approve", "reject")
	})
	c.ended(turn, "Done four.")

	// Lets stops: the hook finds no daemon and returns at once (with a
	// 5-minute approval wait, the question could reach the terminal in
	// time only that way); Codex asks in its terminal.
	if err := os.WriteFile(filepath.Join(h.letsHome, "config.json"), []byte(e2eConfig(5*time.Minute)), 0o600); err != nil {
		t.Fatal(err)
	}
	h.stop(t)
	start := time.Now()
	turn = r.ask(c, "Please run the last command.")
	c.waitScreen(codexShellQuestion, "alone-ran")
	t.Logf("with Lets stopped, Codex asked in its terminal %v after the prompt", time.Since(start).Round(time.Millisecond))
	c.answer("y")
	if out := r.output(c, 12); !strings.Contains(out, "alone-ran") {
		t.Errorf("approved in the terminal with Lets stopped, the model got %q; want the command's output", out)
	}
	c.ended(turn, "Done five.")
	c.keys("\x03")
	testutil.Wait(t, "Codex and lets codex exit", c.done)
	if again := noHooksWritten(t, before, r.config()); !reflect.DeepEqual(again, trust) {
		t.Errorf("Codex's trust record changed at the second launch:\n%v\nthen\n%v", trust, again)
	}

	// The same argv at both launches (so Codex asked to review once).
	argvs := r.argvs()
	if len(argvs) != 2 || !slices.Equal(argvs[0], argvs[1]) {
		t.Fatalf("Codex's argv at the two launches:\n%q", argvs)
	}
	if n := strings.Count(strings.Join(argvs[0], "\n"), " hook codex "); n != len(claudehook.Codex.Events()) {
		t.Errorf("the argv carries %d Lets hooks, want %d: %q", n, len(claudehook.Codex.Events()), argvs[0])
	}
}
