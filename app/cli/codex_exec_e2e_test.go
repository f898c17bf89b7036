package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lets-app/lets/app/front"
	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/testenv/codexstub"
	"github.com/lets-app/lets/backend/testenv/letstest"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/backend/wire"
)

// The end-to-end tests of `lets codex-exec` run the real Codex CLI
// (testutil.Codex, pinned by `make codex-tools`) against codexstub's
// scripted Responses API on 127.0.0.1, with a real Wire daemon.

// codexExecRig is what one test shares: the real codex on PATH, a
// CODEX_HOME outside TMPDIR and the variables `lets codex-exec` runs with.
type codexExecRig struct {
	codexHome string
	vars      map[string]string
}

func newCodexExecRig(t *testing.T) *codexExecRig {
	t.Helper()
	codex := testutil.Codex(t)
	bin := t.TempDir()
	if err := os.Symlink(codex, filepath.Join(bin, "codex")); err != nil {
		t.Fatal(err)
	}
	return &codexExecRig{
		codexHome: testutil.CodexHome(t),
		vars: map[string]string{
			"PATH":       bin + string(os.PathListSeparator) + os.Getenv("PATH"),
			"HOME":       t.TempDir(),
			"LANG":       "C.UTF-8",
			"CODEX_HOME": "",
		},
	}
}

// env is a test environment for `lets codex-exec` with the rig's
// variables over letstest's (its data folder, HOME and socket).
func (r *codexExecRig) env(t *testing.T, extra map[string]string) *testEnv {
	t.Helper()
	le := letstest.New(t)
	vars := map[string]string{}
	for k, v := range r.vars {
		vars[k] = v
	}
	vars["CODEX_HOME"] = r.codexHome
	vars[config.HomeEnv] = le.Home
	for k, v := range extra {
		vars[k] = v
	}
	return &testEnv{
		// CodexExecHold -1: these tests read a task's last state after
		// the command returned (the leaving is a unit test's).
		Env: &Env{Stdout: le.Out, Stderr: le.Err, CodexExecHold: -1, Getenv: func(k string) string {
			if v, ok := vars[k]; ok {
				return v
			}
			return le.Getenv(k)
		}},
		out: le.Out, err: le.Err, home: vars[config.HomeEnv],
	}
}

// codexExecArgs are the arguments before the prompt: no git repository
// needed, and no sandbox (the tests' commands are the stub's).
var codexExecArgs = []string{"--", "--skip-git-repo-check", "--sandbox", "danger-full-access"}

// execRun runs `lets codex-exec --label label … prompt` in this process.
func execRun(ctx context.Context, e *testEnv, label, prompt string) int {
	args := append([]string{"codex-exec", "--label", label}, codexExecArgs...)
	return Run(ctx, e.Env, append(args, prompt))
}

// Issue #25, the exec adapter end to end: (a) a run is running on the
// pads while the model thinks, then success, and the agent's text is
// printed; (b) a failed turn turns the task red and Codex's non-zero exit
// code is the command's; (c) Stop pressed on the pad for one task ends
// that Codex while the model is still thinking, and a second task running
// beside it is untouched.
func TestCodexExecE2E(t *testing.T) {
	rig := newCodexExecRig(t)
	d := startExecDaemon(t)
	// The data folder's config points lets codex-exec at the daemon.
	newEnv := func(t *testing.T) *testEnv {
		e := rig.env(t, nil)
		if err := os.WriteFile(filepath.Join(e.home, "config.json"), []byte(`{"wire": {"socket": "`+d.sock+`"}}`), 0o600); err != nil {
			t.Fatal(err)
		}
		return e
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	t.Run("success", func(t *testing.T) {
		think := make(chan struct{})
		stub := codexstub.Start(t, codexstub.Fixed(codexstub.Turn{Text: "All done: 2 files tidied.", Hold: think}))
		stub.WriteConfig(t, rig.codexHome, "")
		e := newEnv(t)
		done := make(chan int, 1)
		go func() { done <- execRun(ctx, e, "tidy", "tidy the folder") }()
		d.waitTask(t, "tidy", wire.StateRunning)
		close(think)
		if code := testutil.Wait(t, "codex-exec ends", done); code != 0 {
			t.Fatalf("exit %d: %s", code, e.err.String())
		}
		d.waitTask(t, "tidy", wire.StateSuccess)
		if got := e.out.String(); got != "All done: 2 files tidied.\n" {
			t.Errorf("printed %q", got)
		}
		if got := stub.MainRequests()[0].UserText(); got != "tidy the folder" {
			t.Errorf("Codex sent the model %q, want the prompt", got)
		}
	})

	t.Run("failed turn", func(t *testing.T) {
		stub := codexstub.Start(t, codexstub.Fixed(codexstub.Turn{StreamFail: "the stub broke"}))
		stub.WriteConfig(t, rig.codexHome, "")
		e := newEnv(t)
		code := execRun(ctx, e, "broken", "fail please")
		// codex exec 0.169 exits 1 after a failed turn; so does the command.
		if code != 1 {
			t.Fatalf("exit %d after a failed turn, want Codex's 1: %s", code, e.err.String())
		}
		d.waitTask(t, "broken", wire.StateError)
		if !strings.Contains(e.err.String(), "Codex stopped with an error:") || !strings.Contains(e.err.String(), "the stub broke") {
			t.Errorf("stderr does not say why: %s", e.err.String())
		}
	})

	t.Run("stop from the pad", func(t *testing.T) {
		holds := map[string]chan struct{}{"first task": make(chan struct{}), "second task": make(chan struct{})}
		step := func(req codexstub.Request) codexstub.Turn {
			return codexstub.Turn{Text: "finished " + req.UserText(), Hold: holds[req.UserText()]}
		}
		stub := codexstub.Start(t, step, step)
		stub.WriteConfig(t, rig.codexHome, "")
		type result struct {
			code int
			e    *testEnv
		}
		results := map[string]chan result{}
		var wg sync.WaitGroup
		defer wg.Wait()
		for _, label := range []string{"first", "second"} {
			e := newEnv(t)
			ch := make(chan result, 1)
			results[label] = ch
			wg.Add(1)
			go func() {
				defer wg.Done()
				ch <- result{execRun(ctx, e, label, label+" task"), e}
			}()
		}
		// Both are with the model (the stub holds both answers).
		if !stub.WaitRequests(2, testutil.EventuallyTimeout) {
			t.Fatalf("the stub got %d requests, want both tasks'", len(stub.MainRequests()))
		}
		d.waitTask(t, "second", wire.StateRunning)
		d.pressStop(t, "first")
		r := testutil.Wait(t, "the stopped codex-exec ends", results["first"])
		if r.code != codexExecStoppedCode || !strings.Contains(r.e.err.String(), "Stopped from the pads.") || r.e.out.String() != "" {
			t.Errorf("stopped task: exit %d, printed %q, stderr %s", r.code, r.e.out.String(), r.e.err.String())
		}
		d.waitTask(t, "first", wire.StateCancelled)
		if s, _ := d.task(t, "second"); s.State != wire.StateRunning {
			t.Errorf("the other task after the Stop: %+v, want still running", s)
		}
		select {
		case r := <-results["second"]:
			t.Fatalf("the other task ended too: exit %d, %s", r.code, r.e.err.String())
		default:
		}
		close(holds["second task"])
		r = testutil.Wait(t, "the other codex-exec ends", results["second"])
		if r.code != 0 || r.e.out.String() != "finished second task\n" {
			t.Errorf("the other task: exit %d, printed %q, stderr %s", r.code, r.e.out.String(), r.e.err.String())
		}
		d.waitTask(t, "second", wire.StateSuccess)
	})
}

// Issue #25, Lets' MCP tools from `codex exec`: after `lets setup codex`
// (the stub's provider settings first, then setup's marked block), the
// model calls Lets' tools through `codex exec` in its default (read-only)
// sandbox, and each next request carries the running Lets' real answer:
// uniques (marked readOnlyHint) and close (destructive, which codex exec
// refuses — "requires approval, but approval policy is never" — unless
// the block marks it approval_mode = "approve").
func TestCodexExecUsesLetsTools(t *testing.T) {
	rig := newCodexExecRig(t)
	h := startE2EHost(t, e2eConfig(5*time.Second))
	stub := codexstub.Start(t,
		codexstub.MCP("lets", "uniques", map[string]any{}),
		codexstub.MCP("lets", "close", map[string]any{"window": "w9"}),
		codexstub.Say("There is a hello unique."),
	)
	stub.WriteConfig(t, rig.codexHome, "")
	e := rig.env(t, map[string]string{
		config.HomeEnv:       h.letsHome,
		"HOME":               h.home,
		"PAD_LATTICE_SOCKET": h.sock,
		front.ProgramEnv:     h.bin,
	})
	if err := runSetupCodex(e.Env, false); err != nil {
		t.Fatalf("lets setup codex: %v", err)
	}
	e.out.Reset()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if code := Run(ctx, e.Env, []string{"codex-exec", "--label", "tools", "--", "--skip-git-repo-check", "which uniques are there?"}); code != 0 {
		t.Fatalf("exit %d: %s", code, e.err.String())
	}
	main := stub.MainRequests()
	if len(main) != 3 {
		t.Fatalf("the stub got %d requests, want 3", len(main))
	}
	if tools := strings.Join(main[0].NamespaceTools("mcp__lets"), ","); !strings.Contains(tools, "uniques") || !strings.Contains(tools, "close") {
		t.Errorf("Codex offered the model Lets' tools %s, want uniques and close among them", tools)
	}
	outs := main[2].Outputs()
	if len(outs) != 2 || !strings.Contains(outs[0], "- hello: Hello") || !strings.Contains(outs[0], "unique(s) installed") {
		t.Fatalf("the tools' outputs sent back to the model = %q, want Lets' list of uniques first", outs)
	}
	if !strings.Contains(outs[1], `window \"w9\" is not open`) || strings.Contains(outs[1], "requires approval") {
		t.Errorf("close's output sent back to the model = %q, want Lets' answer (no such window), not Codex's refusal", outs[1])
	}
	if e.out.String() != "There is a hello unique.\n" {
		t.Errorf("printed %q", e.out.String())
	}
}

// BenchmarkCodexExecTrivialTask is the wall time of a one-turn `lets
// codex-exec` (the real Codex CLI, the stub answering at once, the task
// reported to a real Wire daemon): what the adapter adds is its reports
// and the process group around Codex's own start-up.
func BenchmarkCodexExecTrivialTask(b *testing.B) {
	codex := testutil.Codex(b)
	bin := b.TempDir()
	if err := os.Symlink(codex, filepath.Join(bin, "codex")); err != nil {
		b.Fatal(err)
	}
	d := startExecDaemon(b)
	stub := codexstub.Start(b) // no script: every turn is one short answer
	codexHome := testutil.CodexHome(b)
	stub.WriteConfig(b, codexHome, "")
	letsHome := filepath.Join(b.TempDir(), "lets-home")
	if err := os.MkdirAll(letsHome, 0o700); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(letsHome, "config.json"), []byte(`{"wire": {"socket": "`+d.sock+`"}}`), 0o600); err != nil {
		b.Fatal(err)
	}
	vars := map[string]string{
		"PATH": bin + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME": b.TempDir(), "LANG": "C.UTF-8",
		"CODEX_HOME": codexHome, config.HomeEnv: letsHome,
	}
	var out, errb testutil.SyncBuffer
	env := &Env{Stdout: &out, Stderr: &errb, CodexExecHold: -1, Getenv: func(k string) string { return vars[k] }}
	args := append(append([]string{"codex-exec", "--label", "bench"}, codexExecArgs...), "say hi")
	b.Run("lets codex-exec", func(b *testing.B) {
		for b.Loop() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			code := Run(ctx, env, args)
			cancel()
			if code != 0 {
				b.Fatalf("exit %d: %s", code, errb.String())
			}
		}
		b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/task")
		if s, _ := d.task(b, "bench"); s.State != wire.StateSuccess {
			b.Errorf("the last task on the pads: %+v, want success", s)
		}
	})
	// The same run of codex exec without Lets, for comparison.
	b.Run("codex exec alone", func(b *testing.B) {
		for b.Loop() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			cmd := exec.CommandContext(ctx, codex, append(append([]string{"exec", "--json"}, codexExecArgs[1:]...), "say hi")...)
			cmd.Env = codexExecEnv(env.Getenv)
			err := cmd.Run()
			cancel()
			if err != nil {
				b.Fatalf("codex exec: %v", err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/task")
	})
}
