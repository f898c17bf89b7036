package cli

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/lets-app/lets/app/hookcmd"
	"github.com/lets-app/lets/backend/claudehook"
	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/control"
	"github.com/lets-app/lets/backend/daemon"
	"github.com/lets-app/lets/backend/daemon/daemontest"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/backend/wire"
	"github.com/lets-app/lets/backend/wireclient"
)

// The budgets of issue #25's Codex hooks, measured on the real `lets`
// program (the front, as Codex runs it from `lets codex`'s -c hooks)
// against an in-process Wire daemon whose pad is daemontest's surface:
// one hook's wall time, a PermissionRequest until the pad lights Approve,
// a press until the hook has printed Codex's decision.

// benchCodexSession is the session id the benchmarks' hooks report.
const benchCodexSession = "0199a213-81c0-7800-8aa1-bbab2a035a53"

// codexHookInput is a Codex 0.169 hook input for event (the members it
// writes, issue #25).
func codexHookInput(event string) []byte {
	return fmt.Appendf(nil, `{"session_id":%q,"turn_id":"0199a213-9000-7000-8000-000000000001","cwd":"/home/ana/garden","hook_event_name":%q,"model":"gpt-5-codex","permission_mode":"default","prompt":"Tidy the build folder","tool_name":"Bash","tool_input":{"command":"rm -r build"}}`, benchCodexSession, event)
}

// codexBench is the `lets` program, an environment that finds the pad
// daemon, and the daemon with the surface that stands for the pad.
type codexBench struct {
	bin  string
	env  []string
	surf *daemontest.Surface
	d    *daemon.Daemon
}

func newCodexBench(b *testing.B, approval time.Duration) *codexBench {
	b.Helper()
	bin := e2eBuild.build(b)
	home := b.TempDir()
	letsHome := filepath.Join(home, "lets-home")
	if err := os.MkdirAll(letsHome, 0o700); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(letsHome, "config.json"), fmt.Appendf(nil, `{"claude":{"approvalTimeoutS":%d}}`, int(approval.Seconds())), 0o600); err != nil {
		b.Fatal(err)
	}
	sockDir, err := os.MkdirTemp("", "lcb")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = os.RemoveAll(sockDir) })
	sock := filepath.Join(sockDir, "pad.sock")
	surf := daemontest.NewSurface()
	// No debounce: it drops a second press of Approve for the same
	// session within 0.25 s (a person's double press), and the
	// benchmark's questions come faster than that.
	ctl := control.DefaultConfig(surf.Capacity())
	ctl.ActionDebounce = 0
	d, err := daemon.Listen(daemon.Options{SocketPath: sock, Surface: surf, Control: &ctl})
	if err != nil {
		b.Fatalf("start the pad daemon: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- d.Run(ctx) }()
	b.Cleanup(func() {
		cancel()
		testutil.Wait(b, "the pad daemon stops", errc)
	})
	c := wireclient.New(sock)
	testutil.EventuallyNoError(b, "the pad daemon answers on "+sock, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		return c.Ping(ctx)
	})
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, config.HomeEnv + "=" + letsHome, "PAD_LATTICE_SOCKET=" + sock,
		hookcmd.CodexLabelEnv + "=garden"}
	return &codexBench{bin: bin, env: env, surf: surf, d: d}
}

// hook starts `lets hook codex <event>` with Codex's input on stdin;
// wait returns when it has exited, and line delivers the first line it
// printed (with the time it came), if any.
func (cb *codexBench) hook(b *testing.B, event string) (line <-chan timedLine, wait func() error) {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	cmd := exec.CommandContext(ctx, cb.bin, "hook", hookcmd.CodexArg, event)
	cmd.Env = cb.env
	cmd.Stdin = bytes.NewReader(codexHookInput(event))
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	lines := make(chan timedLine, 1)
	read := make(chan struct{})
	go func() {
		defer close(read)
		s := bufio.NewScanner(out)
		if s.Scan() {
			lines <- timedLine{text: s.Text() + "\n", at: time.Now()}
		}
		close(lines)
	}()
	return lines, func() error {
		defer cancel()
		<-read
		return cmd.Wait()
	}
}

// timedLine is one line a hook printed and when it arrived.
type timedLine struct {
	text string
	at   time.Time
}

// view waits until the pad shows what ok wants (a rendered view).
func (cb *codexBench) view(b *testing.B, what string, ok func(control.View) bool) {
	b.Helper()
	if _, err := cb.surf.WaitView(testutil.EventuallyTimeout, ok); err != nil {
		b.Fatalf("the pad never showed %s: %v", what, err)
	}
}

// codexIndicator is the Codex session's indicator in v, if it is shown.
func codexIndicator(v control.View) (control.Indicator, bool) {
	for _, in := range v.Indicators {
		if in.Identity.Backend == claudehook.CodexBackend && in.Identity.SessionID == benchCodexSession {
			return in, true
		}
	}
	return control.Indicator{}, false
}

// percentiles reports the p50 and p95 of times under name.
func percentiles(b *testing.B, times []time.Duration, name string) {
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	pct := func(p float64) time.Duration { return times[min(len(times)-1, int(p*float64(len(times))))] }
	b.ReportMetric(float64(pct(0.50).Microseconds())/1000, name+"-p50-ms")
	b.ReportMetric(float64(pct(0.95).Microseconds())/1000, name+"-p95-ms")
}

// BenchmarkCodexHookProcess is the wall time of one `lets hook codex
// UserPromptSubmit` process (Codex runs one per prompt, and PreToolUse
// and PostToolUse the same way per tool call) against a running pad
// daemon, from start to exit.
func BenchmarkCodexHookProcess(b *testing.B) {
	cb := newCodexBench(b, time.Minute)
	run := func() time.Duration {
		start := time.Now()
		line, wait := cb.hook(b, claudehook.EventUserPromptSubmit)
		if err := wait(); err != nil {
			b.Fatalf("lets hook codex UserPromptSubmit: %v", err)
		}
		took := time.Since(start)
		if l, ok := <-line; ok {
			b.Fatalf("lets hook codex UserPromptSubmit printed %q; want nothing", l.text)
		}
		return took
	}
	run() // loads the program into the page cache
	cb.view(b, "the Codex session running", func(v control.View) bool {
		in, ok := codexIndicator(v)
		return ok && in.State == wire.StateRunning
	})
	times := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		times = append(times, run())
	}
	b.StopTimer()
	percentiles(b, times, "wall")
}

// BenchmarkCodexApproval is a PermissionRequest answered on the pad:
// from the start of `lets hook codex PermissionRequest` until the pad
// lights Approve for the session (lit), and from the press until the hook
// has printed Codex's allow decision (decision).
func BenchmarkCodexApproval(b *testing.B) {
	cb := newCodexBench(b, time.Minute)
	// The session is on the pad and selected, as a person has it.
	_, wait := cb.hook(b, claudehook.EventUserPromptSubmit)
	if err := wait(); err != nil {
		b.Fatal(err)
	}
	var slot int
	cb.view(b, "the Codex session", func(v control.View) bool {
		in, ok := codexIndicator(v)
		slot = in.Slot
		return ok
	})
	cb.surf.Select(slot)
	cb.view(b, "the Codex session selected", func(v control.View) bool {
		in, ok := codexIndicator(v)
		return ok && in.Selected
	})
	lit := func(v control.View) bool {
		in, ok := codexIndicator(v)
		return ok && in.State == wire.StateWaitingForApproval && slices.Contains(v.Available, wire.ActionApprove)
	}
	var lits, decisions []time.Duration
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		line, wait := cb.hook(b, claudehook.EventPermissionRequest)
		cb.view(b, "Approve lit for the question", lit)
		lits = append(lits, time.Since(start))
		pressed := time.Now()
		cb.surf.Press(wire.ActionApprove)
		l, ok := <-line
		if !ok || l.text != claudehook.CodexDecisionAllow {
			b.Fatalf("after Approve the hook printed %q; want %q", l.text, claudehook.CodexDecisionAllow)
		}
		decisions = append(decisions, l.at.Sub(pressed))
		if err := wait(); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		cb.view(b, "the session running after the answer", func(v control.View) bool {
			in, ok := codexIndicator(v)
			return ok && in.State == wire.StateRunning && !slices.Contains(v.Available, wire.ActionApprove)
		})
		b.StartTimer()
	}
	b.StopTimer()
	percentiles(b, lits, "lit")
	percentiles(b, decisions, "decision")
}
