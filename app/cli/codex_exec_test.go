package cli

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/codexexec"
	"github.com/lets-app/lets/backend/control"
	"github.com/lets-app/lets/backend/daemon"
	"github.com/lets-app/lets/backend/daemon/daemontest"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/backend/wire"
	"github.com/lets-app/lets/backend/wireclient"
)

// execDaemon is a real Wire daemon in this process with a fake pad: the
// terminal hold is an hour, so a task's last state stays on the pads for
// the test to read.
type execDaemon struct {
	sock    string
	surface *daemontest.Surface
	c       *wireclient.Client
}

func startExecDaemon(tb testing.TB) *execDaemon {
	tb.Helper()
	dir, err := os.MkdirTemp("", "lx")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = os.RemoveAll(dir) })
	sock := filepath.Join(dir, "w.sock")
	cfg := control.DefaultConfig(4)
	cfg.TerminalHold = 3600
	surf := daemontest.NewSurface()
	d, err := daemon.Listen(daemon.Options{SocketPath: sock, Surface: surf, Control: &cfg})
	if err != nil {
		tb.Fatalf("start the pad daemon: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- d.Run(ctx) }()
	tb.Cleanup(func() {
		cancel()
		testutil.Wait(tb, "the pad daemon stops", errc)
	})
	c := wireclient.New(sock)
	testutil.EventuallyNoError(tb, "the pad daemon answers", func() error {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		return c.Ping(ctx)
	})
	return &execDaemon{sock: sock, surface: surf, c: c}
}

// task is the codex-exec session labelled label, if any.
func (d *execDaemon) task(tb testing.TB, label string) (wire.StatusSession, bool) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st, err := d.c.Status(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	for _, s := range st.Sessions {
		if s.Backend == CodexExecBackend && s.Label == label {
			return s, true
		}
	}
	return wire.StatusSession{}, false
}

// waitTask waits until the task labelled label is in state.
func (d *execDaemon) waitTask(tb testing.TB, label string, state wire.State) wire.StatusSession {
	tb.Helper()
	var got wire.StatusSession
	testutil.Eventually(tb, fmt.Sprintf("the task %q is %s on the pads", label, state), func() bool {
		s, ok := d.task(tb, label)
		got = s
		return ok && s.State == state
	})
	return got
}

// waitGone waits until no task labelled label is on the pads.
func (d *execDaemon) waitGone(tb testing.TB, label string) {
	tb.Helper()
	testutil.Eventually(tb, fmt.Sprintf("the task %q leaves the pads", label), func() bool {
		_, ok := d.task(tb, label)
		return !ok
	})
}

// pressStop selects the task's slot on the pad and presses Stop, as a
// person does.
func (d *execDaemon) pressStop(tb testing.TB, label string) {
	tb.Helper()
	s := d.waitTask(tb, label, wire.StateRunning)
	if s.Slot == wire.NoSlot {
		tb.Fatalf("the task %q has no slot on the pad", label)
	}
	d.surface.Select(s.Slot)
	if _, err := d.surface.WaitView(testutil.EventuallyTimeout, func(v control.View) bool {
		selected := false
		for _, in := range v.Indicators {
			selected = selected || (in.Identity == s.Identity() && in.Selected)
		}
		return selected && slices.Contains(v.Available, wire.ActionStop)
	}); err != nil {
		tb.Fatalf("the pad does not offer Stop for %q: %v", label, err)
	}
	d.surface.Press(wire.ActionStop)
}

// execEnv is a test environment whose PATH starts with a fake codex
// (script, a shell script) and whose config points at the daemon (sock;
// "" for a socket nobody listens on).
func execEnv(t *testing.T, script, sock string) *testEnv {
	t.Helper()
	e := newTestEnv(t)
	bin := t.TempDir()
	if script != "" {
		if err := os.WriteFile(filepath.Join(bin, "codex"), []byte("#!/bin/sh\n"+script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if sock == "" {
		sock = filepath.Join(shortTempDir(t), "none.sock")
	}
	if err := os.WriteFile(filepath.Join(e.home, "config.json"), fmt.Appendf(nil, `{"wire": {"socket": %q}}`, sock), 0o600); err != nil {
		t.Fatal(err)
	}
	// These tests read a task's last state after the command returned;
	// TestCodexExecTaskLeavesThePadsAfterItsOutcome checks the leaving.
	e.Env.CodexExecHold = -1
	path := bin + string(os.PathListSeparator) + os.Getenv("PATH")
	base := e.Env.Getenv
	e.Env.Getenv = func(k string) string {
		if k == "PATH" {
			return path
		}
		return base(k)
	}
	return e
}

// printLines is a script body printing each line to stdout.
func printLines(lines ...string) string {
	var b strings.Builder
	for _, l := range lines {
		fmt.Fprintf(&b, "printf '%%s\\n' '%s'\n", strings.ReplaceAll(l, "'", `'\''`))
	}
	return b.String()
}

// Issue #25: a run's events set the task's state on the pads (running,
// then success); the agent's words are printed, safe for the terminal; a
// config warning (an error item) is said on stderr and never turns the
// task red; a line that is not an event is skipped with a log; Codex gets
// `exec --json` and the person's arguments, and a closed stdin.
func TestCodexExecSuccessOnThePads(t *testing.T) {
	d := startExecDaemon(t)
	argsFile := filepath.Join(t.TempDir(), "args")
	script := `printf '%s\n' "$*" > ` + argsFile + "\ncat >> " + argsFile + "\n" + printLines(
		`{"type":"thread.started","thread_id":"0199a213"}`,
		`{"type":"item.completed","item":{"id":"item_0","type":"error","message":"unknown config key: foo"}}`,
		`{"type":"turn.started"}`,
		`this is not JSON`,
		`{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"Done.\nTwo files. \u001b]0;owned\u0007"}}`,
		`{"type":"turn.completed","usage":{"input_tokens":1}}`,
	)
	e := execEnv(t, script, d.sock)
	if code := e.run("codex-exec", "--label", "garden", "--", "--model", "m1", "tidy up"); code != 0 {
		t.Fatalf("exit %d: %s", code, e.err.String())
	}
	if got, want := e.out.String(), "Done.\nTwo files. \uFFFD]0;owned\uFFFD\n"; got != want {
		t.Errorf("printed %q, want %q", got, want)
	}
	if s, _ := d.task(t, "garden"); s.State != wire.StateSuccess {
		t.Errorf("the task on the pads: %+v, want success", s)
	}
	for _, want := range []string{"Codex warns: unknown config key: foo", "skipped a line Codex printed"} {
		if !strings.Contains(e.err.String(), want) {
			t.Errorf("stderr %q does not say %q", e.err.String(), want)
		}
	}
	if strings.Contains(e.err.String(), "not running") {
		t.Errorf("Lets is running, yet: %s", e.err.String())
	}
	if b, _ := os.ReadFile(argsFile); string(b) != "exec --json --model m1 tidy up\n" {
		t.Errorf("codex got %q (and nothing on stdin)", b)
	}
}

// A finished task shows its outcome on the pads, then leaves them (a task
// that stayed would read "waiting for you" though nobody can answer it);
// Ctrl+C after Codex finished cuts the moment short and keeps Codex's
// exit code.
func TestCodexExecTaskLeavesThePadsAfterItsOutcome(t *testing.T) {
	d := startExecDaemon(t)
	e := execEnv(t, printLines(`{"type":"turn.started"}`, `{"type":"item.completed","item":{"id":"i","type":"agent_message","text":"ok"}}`, `{"type":"turn.completed"}`), d.sock)
	e.Env.CodexExecHold = time.Hour // ended by the test's cancel below
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	done := make(chan int, 1)
	go func() { done <- Run(ctx, e.Env, []string{"codex-exec", "--label", "brief", "x"}) }()
	d.waitTask(t, "brief", wire.StateSuccess)
	select {
	case code := <-done:
		t.Fatalf("the command returned (exit %d) while its outcome was still on the pads", code)
	default:
	}
	cancel()
	if code := testutil.Wait(t, "the command returns", done); code != 0 {
		t.Errorf("exit %d after the outcome's moment was cut short, want Codex's 0: %s", code, e.err.String())
	}
	d.waitGone(t, "brief")

	// The usual hold (the daemon's 2 s) ends by itself.
	e = execEnv(t, printLines(`{"type":"turn.started"}`, `{"type":"turn.completed"}`), d.sock)
	e.Env.CodexExecHold = 0
	if code := e.run("codex-exec", "--label", "usual", "x"); code != 0 {
		t.Fatalf("exit %d: %s", code, e.err.String())
	}
	// session_end has no answer: the daemon takes it a moment later.
	d.waitGone(t, "usual")
}

// A failed turn turns the task red with Codex's words; Codex's exit code
// is the command's; a crash without a failed turn says its code and is an
// error too.
func TestCodexExecFailures(t *testing.T) {
	d := startExecDaemon(t)
	e := execEnv(t, printLines(`{"type":"turn.started"}`, `{"type":"turn.failed","error":{"message":"stream disconnected"}}`)+"exit 1\n", d.sock)
	if code := e.run("codex-exec", "--label", "red", "x"); code != 1 {
		t.Fatalf("exit %d, want Codex's 1: %s", code, e.err.String())
	}
	if s, _ := d.task(t, "red"); s.State != wire.StateError {
		t.Errorf("after turn.failed the pads show %+v", s)
	}
	if !strings.Contains(e.err.String(), "Codex stopped with an error: stream disconnected") || strings.Contains(e.err.String(), "exited with code") {
		t.Errorf("stderr: %s", e.err.String())
	}
	e = execEnv(t, printLines(`{"type":"turn.started"}`)+"exit 3\n", d.sock)
	if code := e.run("codex-exec", "--label", "crash", "x"); code != 3 {
		t.Fatalf("exit %d, want Codex's 3: %s", code, e.err.String())
	}
	if s, _ := d.task(t, "crash"); s.State != wire.StateError || !strings.Contains(e.err.String(), "Codex exited with code 3.") {
		t.Errorf("after a crash the pads show %+v; stderr %s", s, e.err.String())
	}
}

// Stop pressed on the pad for one task ends that Codex (its whole process
// group: the child a script leaves running too) and marks it cancelled;
// another task running beside it goes on untouched.
func TestCodexExecStopFromThePad(t *testing.T) {
	d := startExecDaemon(t)
	script := printLines(`{"type":"turn.started"}`) + "sleep 600 &\nwait\n"
	type result struct {
		code int
		e    *testEnv
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	results := map[string]chan result{}
	var wg sync.WaitGroup
	for _, label := range []string{"first", "second"} {
		e := execEnv(t, script, d.sock)
		ch := make(chan result, 1)
		results[label] = ch
		wg.Add(1)
		go func() {
			defer wg.Done()
			ch <- result{Run(ctx, e.Env, []string{"codex-exec", "--label", label, "wait"}), e}
		}()
	}
	defer wg.Wait()
	d.waitTask(t, "second", wire.StateRunning)
	d.pressStop(t, "first")
	r := testutil.Wait(t, "the stopped task ends", results["first"])
	if r.code != codexExecStoppedCode || !strings.Contains(r.e.err.String(), "Stopped from the pads.") {
		t.Errorf("stopped task: exit %d, stderr %s", r.code, r.e.err.String())
	}
	d.waitTask(t, "first", wire.StateCancelled)
	select {
	case r := <-results["second"]:
		t.Fatalf("the other task ended too: exit %d, %s", r.code, r.e.err.String())
	default:
	}
	if s, _ := d.task(t, "second"); s.State != wire.StateRunning {
		t.Errorf("the other task: %+v, want still running", s)
	}
	d.pressStop(t, "second")
	testutil.Wait(t, "the second task ends", results["second"])
}

// Without Lets running, Codex still runs and the person is told once;
// without Codex, the command says how to install it; without a prompt it
// says what to give.
func TestCodexExecWithoutLetsOrCodex(t *testing.T) {
	e := execEnv(t, printLines(`{"type":"turn.started"}`, `{"type":"item.completed","item":{"id":"i","type":"agent_message","text":"hi"}}`, `{"type":"turn.completed"}`), "")
	if code := e.run("codex-exec", "hello"); code != 0 || e.out.String() != "hi\n" {
		t.Fatalf("without Lets: exit %d, printed %q, stderr %s", code, e.out.String(), e.err.String())
	}
	if n := strings.Count(e.err.String(), "Lets is not running"); n != 1 {
		t.Errorf("told %d times that Lets is not running: %s", n, e.err.String())
	}
	e = execEnv(t, "", "")
	if code := e.run("codex-exec", "hello"); code != 1 || !strings.Contains(e.err.String(), "npm install -g @openai/codex") {
		t.Errorf("without codex: exit %d, %s", code, e.err.String())
	}
	e = execEnv(t, "exit 0\n", "")
	if code := e.run("codex-exec", "--label", "x"); code != 2 || !strings.Contains(e.err.String(), "say what Codex should do") {
		t.Errorf("without a prompt: exit %d, %s", code, e.err.String())
	}
}

// A line longer than Codex's limit is skipped whole and the next line
// still counts; reading never stops on bad lines.
func TestReadCodexEventsSkipsBadLines(t *testing.T) {
	long := `{"type":"x","pad":"` + strings.Repeat("a", 5<<20) + `"}`
	in := strings.NewReader("\n" + long + "\n{\"type\":\"turn.started\"}\n[1]\n{\"type\":\"turn.completed\"}")
	var logs strings.Builder
	var got []string
	readCodexEvents(in, slog.New(slog.NewTextHandler(&logs, nil)), func(ev codexexec.Event) { got = append(got, ev.Type) })
	if strings.Join(got, ",") != "turn.started,turn.completed" {
		t.Errorf("events %v", got)
	}
	if n := strings.Count(logs.String(), "skipped a line"); n != 2 {
		t.Errorf("%d skipped lines logged, want 2:\n%s", n, logs.String())
	}
}
