package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/lets-app/lets/app/front"
	"github.com/lets-app/lets/app/hookcmd"
	"github.com/lets-app/lets/backend/claudehook"
	"github.com/lets-app/lets/backend/codexexec"
	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/logging"
	"github.com/lets-app/lets/backend/textsafe"
	"github.com/lets-app/lets/backend/wire"
	"github.com/lets-app/lets/backend/wireclient"
)

// CodexExecBackend is the Wire backend of `lets codex-exec` tasks, as the
// reference's codex-exec names them (wire-protocol-1 §12): identity
// ("codex-exec", 32 hex digits), a separate connection subscribed to
// stop.
const CodexExecBackend = "codex-exec"

// codexExecStoppedCode is the exit code of a task stopped from the pads
// or by Ctrl+C (128 + SIGINT, what a shell shows for an interrupted
// command).
const codexExecStoppedCode = 130

// codexExecGrace is how long Codex's process group has after SIGTERM
// before it is killed.
const codexExecGrace = 5 * time.Second

// codexExecOutcomeHold is how long a finished task shows its outcome on
// the pads before it leaves them: the pad daemon's default terminal hold
// (wire-protocol-1 §1), after which a session that stayed would read
// "waiting for you" though nobody can answer a finished task.
const codexExecOutcomeHold = 2 * time.Second

// codexExecKeys are the variables `codex exec` takes from Env.Getenv over
// this process's environment: where Codex keeps its settings, and what
// `lets mcp` (started by Codex, which passes XDG_RUNTIME_DIR and LETS_HOME
// through env_vars) needs to find this Lets.
var codexExecKeys = []string{
	"PATH", "HOME", "LANG", "TMPDIR", "CODEX_HOME", "OPENAI_API_KEY",
	config.HomeEnv, "XDG_RUNTIME_DIR", "PAD_LATTICE_SOCKET", front.ProgramEnv,
}

// codexExecEnv is the environment of `codex exec`.
func codexExecEnv(getenv func(string) string) []string {
	out := make([]string, 0, len(os.Environ())+len(codexExecKeys))
	set := map[string]bool{}
	for _, k := range codexExecKeys {
		if v := getenv(k); v != "" {
			out = append(out, k+"="+v)
			set[k] = true
		}
	}
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); !set[k] {
			out = append(out, kv)
		}
	}
	return out
}

// runCodexExec is `lets codex-exec [--label L] [--] [codex exec
// arguments] "prompt"`: `codex exec --json` as a task on the pads. Its
// events set the task's state (codexexec.Task), the agent's words go to
// stdout, Stop pressed on a pad for this task ends this Codex only, and
// Codex's exit code is the command's.
func runCodexExec(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("codex-exec")
	label := fs.String("label", "", "the name of this task on the pads and phones (default: the folder's name)")
	if err := parseFlags(env, "codex-exec", fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return &UsageError{Msg: `say what Codex should do, e.g. lets codex-exec "fix the failing test"`, flags: fs}
	}
	codex := codexOnPath(env.Getenv)
	if codex == "" {
		return errors.New("Codex is not installed here (no `codex` on your PATH); install it with `npm install -g @openai/codex`, then run `lets codex-exec` again")
	}
	log := logging.New(env.Stderr, nil, slog.LevelWarn)
	cwd, _ := os.Getwd()
	name := textsafe.Line(*label, 64)
	if name == "" {
		name = textsafe.Line(claudehook.Label(cwd), 64)
	}

	var wc *wireclient.Client
	if w, ok := hookcmd.Options(env.Getenv, log).Wire.(claudehook.WireClient); ok {
		wc = w.C
	}
	task := newExecTask(wc, log, cwd, name)
	if !task.start(ctx) {
		fmt.Fprintln(env.Stderr, "Lets is not running, so this Codex task is not on the pads; Codex runs as usual.")
	}
	defer task.close()
	// A finished task shows its outcome for a moment, then leaves the
	// pads; Ctrl+C cuts the moment short.
	hold := env.CodexExecHold
	if hold == 0 {
		hold = codexExecOutcomeHold
	}
	defer task.leave(ctx, hold)

	cmd := exec.Command(codex, append([]string{"exec", "--json"}, fs.Args()...)...)
	cmd.Env = codexExecEnv(env.Getenv)
	cmd.Stdin = nil // /dev/null: Codex must not wait for a prompt on stdin
	cmd.Stderr = env.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("run codex: %w", err)
	}
	if err := cmd.Start(); err != nil {
		task.finish(wire.StateError)
		return fmt.Errorf("start codex (%s): %w", codex, err)
	}
	pgid := cmd.Process.Pid

	// Stop from the pads or Ctrl+C ends Codex's whole process group (the
	// node launcher, Codex and the commands it runs), nothing else.
	exited := make(chan struct{})
	stopped := make(chan string, 1)
	go func() {
		var why string
		select {
		case <-exited:
			return
		case <-task.stopPressed():
			why = "Stopped from the pads."
		case <-ctx.Done():
			why = "Stopped."
		}
		stopped <- why
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
		t := time.NewTimer(codexExecGrace)
		defer t.Stop()
		select {
		case <-exited:
		case <-t.C:
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
		}
	}()

	var state codexexec.Task
	readCodexEvents(out, log, func(ev codexexec.Event) {
		u := state.Apply(ev)
		if u.State != "" {
			task.report(u.State)
		}
		if u.Say != "" {
			fmt.Fprintln(env.Stdout, u.Say)
		}
		if u.Warn != "" {
			fmt.Fprintf(env.Stderr, "Codex warns: %s\n", u.Warn)
		}
		if u.Failed != "" {
			fmt.Fprintf(env.Stderr, "Codex stopped with an error: %s\n", u.Failed)
		}
	})
	werr := cmd.Wait()
	close(exited)
	// Whatever the process group left behind goes with it.
	_ = syscall.Kill(-pgid, syscall.SIGKILL)

	select {
	case why := <-stopped:
		task.finish(wire.StateCancelled)
		fmt.Fprintln(env.Stderr, why)
		return exitError{code: codexExecStoppedCode}
	default:
	}
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(werr, &ee):
		code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			code = 128 + int(ws.Signal())
		}
	case werr != nil:
		task.finish(wire.StateError)
		return fmt.Errorf("run codex: %w", werr)
	}
	switch {
	case code != 0:
		// A failed turn already said why; a crash before any turn did not.
		if state.State() != wire.StateError {
			fmt.Fprintf(env.Stderr, "Codex exited with code %d.\n", code)
		}
		task.finish(wire.StateError)
		return exitError{code: code}
	case state.State() == wire.StateError:
		task.finish(wire.StateError)
	default:
		task.finish(wire.StateSuccess)
	}
	return nil
}

// readCodexEvents reads Codex's JSON lines until EOF and hands each event
// to fn. A line that is not an event is skipped with a warning: it never
// ends the task. A line longer than codexexec.MaxLineBytes is skipped
// whole without being held in memory.
func readCodexEvents(r io.Reader, log *slog.Logger, fn func(codexexec.Event)) {
	br := bufio.NewReaderSize(r, 64<<10)
	var line []byte
	tooLong := false
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			line = append(line, chunk...)
			if len(line) > codexexec.MaxLineBytes+1 {
				tooLong, line = true, line[:0]
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if tooLong {
			log.Warn("lets codex-exec: skipped a line Codex printed", "err", &codexexec.LineError{Problem: codexexec.ProblemTooLong})
		} else if len(strings.TrimSpace(string(line))) > 0 {
			ev, perr := codexexec.ParseLine(line)
			if perr != nil {
				log.Warn("lets codex-exec: skipped a line Codex printed", "err", perr)
			} else {
				fn(ev)
			}
		}
		line, tooLong = line[:0], false
		if err != nil {
			if !errors.Is(err, io.EOF) {
				log.Warn("lets codex-exec: reading Codex's output stopped", "err", err)
			}
			// Codex may still be writing: drain so it never blocks on a
			// full pipe.
			_, _ = io.Copy(io.Discard, r)
			return
		}
	}
}

// execTask is the task's life on the pads: its identity, its state
// reports and the subscription to Stop. With no Wire client, or when Lets
// is not running, every method does nothing.
type execTask struct {
	c    *wireclient.Client
	log  *slog.Logger
	id   wire.Identity
	meta wire.Metadata

	mu      sync.Mutex
	on      bool       // the daemon answered the first report
	last    wire.State // the last state reported
	warned  bool       // a report failed and was logged
	sub     *wireclient.Subscription
	cancel  context.CancelFunc
	stop    chan struct{}
	stopOne sync.Once
}

func newExecTask(c *wireclient.Client, log *slog.Logger, cwd, label string) *execTask {
	meta := wire.MetadataOf("cwd", cwd)
	if label != "" {
		meta.Set("label", label)
	}
	return &execTask{
		c: c, log: log, meta: meta, stop: make(chan struct{}),
		id: wire.Identity{Backend: CodexExecBackend, SessionID: wireclient.NewID()},
	}
}

// start puts the task on the pads as running and subscribes to Stop for
// it. It reports false when Lets is not running.
func (t *execTask) start(ctx context.Context) bool {
	if t.c == nil || t.c.Path == "" {
		return false
	}
	rctx, cancel := context.WithTimeout(ctx, wire.ClientRequestTimeout)
	defer cancel()
	if _, err := t.c.ReportStateReply(rctx, wire.StateCommand{State: wire.StateRunning, Agent: t.id, Metadata: t.meta}); err != nil {
		t.log.Debug("lets codex-exec: the pad daemon did not answer", "err", err)
		return false
	}
	t.on, t.last = true, wire.StateRunning
	sctx, scancel := context.WithCancel(context.WithoutCancel(ctx))
	sub, err := t.c.Subscribe(sctx, wire.SubscribeActionsCommand{Agent: t.id, Actions: []wire.Action{wire.ActionStop}})
	if err != nil {
		scancel()
		t.log.Warn("lets codex-exec: Stop on the pads will not reach this task", "err", err)
		return true
	}
	t.sub, t.cancel = sub, scancel
	go func() {
		for ev := range sub.Actions() {
			if ev.Action == wire.ActionStop && ev.Agent == t.id {
				t.stopOne.Do(func() { close(t.stop) })
			}
		}
	}()
	return true
}

// stopPressed is closed when Stop was pressed for this task.
func (t *execTask) stopPressed() <-chan struct{} { return t.stop }

// report sends the task's new state and waits for the daemon to take it,
// so reports arrive in order.
func (t *execTask) report(st wire.State) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.on || st == t.last {
		return
	}
	t.last = st
	ctx, cancel := context.WithTimeout(context.Background(), wire.ClientRequestTimeout)
	defer cancel()
	if _, err := t.c.ReportStateReply(ctx, wire.StateCommand{State: st, Agent: t.id}); err != nil && !t.warned {
		t.warned = true
		t.log.Warn("lets codex-exec: the pads did not get this task's state", "state", st, "err", err)
	}
}

// finish reports the task's last state; it stays on the pads as the
// reference's codex-exec leaves it (the daemon shows the outcome, then the
// session waits, and expires with the session TTL).
func (t *execTask) finish(st wire.State) { t.report(st) }

// leave takes a finished task off the pads after it showed its outcome
// for hold (or until ctx ends); a negative hold leaves it there.
func (t *execTask) leave(ctx context.Context, hold time.Duration) {
	t.mu.Lock()
	on := t.on
	t.mu.Unlock()
	if !on || hold < 0 {
		return
	}
	timer := time.NewTimer(hold)
	select {
	case <-timer.C:
	case <-ctx.Done():
		timer.Stop()
	}
	ectx, cancel := context.WithTimeout(context.Background(), wire.ClientRequestTimeout)
	defer cancel()
	if err := t.c.EndSession(ectx, t.id); err != nil {
		t.log.Warn("lets codex-exec: the task could not leave the pads; it goes when its session expires", "err", err)
	}
}

// close ends the Stop subscription.
func (t *execTask) close() {
	if t.sub != nil {
		_ = t.sub.Close()
		t.cancel()
	}
}
