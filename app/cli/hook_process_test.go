package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lets-app/lets/app/front"
	"github.com/lets-app/lets/backend/claudehook"
	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/daemon"
	"github.com/lets-app/lets/backend/daemon/daemontest"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/backend/wire"
	"github.com/lets-app/lets/backend/wireclient"
)

// `lets hook <event>` as the real program Claude Code runs: the failure
// cases of issue #13 (host and daemon down, malformed input, the daemon
// going away during an approval) and the wall time of one PreToolUse.

// hookStdin is the recorded Claude Code input of one event.
func hookStdin(tb testing.TB, event string) []byte {
	tb.Helper()
	root, err := testutil.RepoRoot()
	if err != nil {
		tb.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, "backend", "claudehook", "testdata", "stdin", event+".json"))
	if err != nil {
		tb.Fatalf("recorded hook input: %v", err)
	}
	return data
}

// hookRun is one finished `lets hook` process.
type hookRun struct {
	stdout, stderr string
	code           int
	took           time.Duration
}

// runHookProcess runs `lets hook <event>` with stdin and env, bounded.
func runHookProcess(tb testing.TB, bin string, env []string, event string, stdin []byte, limit time.Duration) hookRun {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "hook", event)
	cmd.Env = env
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	r := hookRun{stdout: out.String(), stderr: errb.String(), took: time.Since(start)}
	if ctx.Err() != nil {
		tb.Fatalf("lets hook %s still ran after %v (stderr: %s)", event, limit, errb.String())
	}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		tb.Fatalf("run lets hook %s: %v", event, err)
	}
	return r
}

// downEnv is an environment with no Lets host and no pad daemon.
func downEnv(t testing.TB) []string {
	home := t.TempDir()
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		config.HomeEnv + "=" + filepath.Join(home, "lets-home"),
		"PAD_LATTICE_SOCKET=" + filepath.Join(home, "no-daemon.sock"),
	}
}

// TestHookProcessHostDownQuietAndQuick: with neither the host nor the
// daemon running, every hook event prints nothing and exits 0 (spec
// claude-integration §2); PermissionRequest gives up at once too, and
// Claude shows its own prompt: the 10 s limit of each run is far below
// the default 120 s approval wait. How quick a hook is with Lets down is
// BenchmarkHookProcessPreToolUseLetsDown's business (spec: well under a
// second).
func TestHookProcessHostDownQuietAndQuick(t *testing.T) {
	bin := e2eBuild.build(t)
	env := downEnv(t)
	for _, event := range claudehook.Events() {
		r := runHookProcess(t, bin, env, event, hookStdin(t, event), 10*time.Second)
		if r.code != 0 || r.stdout != "" {
			t.Errorf("%s: exit %d, stdout %q; want 0 and nothing (stderr: %s)", event, r.code, r.stdout, r.stderr)
		}
		// Lets not running is normal: no line on every tool call.
		if r.stderr != "" {
			t.Errorf("%s wrote %q to stderr with Lets down; want nothing", event, r.stderr)
		}
	}
}

// TestHookProcessMalformedStdin: input that is not a hook event prints
// nothing, exits 0, and says why in one log line on stderr.
func TestHookProcessMalformedStdin(t *testing.T) {
	bin := e2eBuild.build(t)
	env := downEnv(t)
	for name, in := range map[string]string{
		"not json":   "hello there",
		"empty":      "",
		"array":      "[1,2,3]",
		"no session": `{"hook_event_name":"PreToolUse","cwd":"/tmp"}`,
		"truncated":  `{"session_id":"abc","cwd":"/tm`,
	} {
		r := runHookProcess(t, bin, env, "PreToolUse", []byte(in), 10*time.Second)
		if r.code != 0 || r.stdout != "" {
			t.Errorf("%s: exit %d, stdout %q; want 0 and nothing", name, r.code, r.stdout)
		}
		lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
		if strings.TrimSpace(r.stderr) == "" || len(lines) != 1 || !strings.Contains(r.stderr, "lets hook") {
			t.Errorf("%s: want one log line naming lets hook on stderr, got %q", name, r.stderr)
		}
	}
	// An unknown event and no event at all are not failures for Claude.
	for _, args := range [][]string{{"hook", "NoSuchEvent"}, {"hook"}} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Env = env
		cmd.Stdin = bytes.NewReader(hookStdin(t, "PreToolUse"))
		out, err := cmd.Output()
		cancel()
		if err != nil || len(out) != 0 {
			t.Errorf("lets %s: err %v, stdout %q; want exit 0 and nothing", strings.Join(args, " "), err, out)
		}
	}
}

// padDaemon is an in-process Wire daemon on a socket of the test's.
type padDaemon struct {
	d    *daemon.Daemon
	stop func()
}

func startPadDaemon(tb testing.TB, sock string) *padDaemon {
	tb.Helper()
	d, err := daemon.Listen(daemon.Options{SocketPath: sock, Surface: daemontest.NewSurface()})
	if err != nil {
		tb.Fatalf("start the pad daemon: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- d.Run(ctx) }()
	pd := &padDaemon{d: d}
	pd.stop = sync.OnceFunc(func() {
		cancel()
		testutil.Wait(tb, "the pad daemon stops", errc)
	})
	tb.Cleanup(pd.stop)
	c := wireclient.New(sock)
	testutil.EventuallyNoError(tb, "the pad daemon answers on "+sock, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		return c.Ping(ctx)
	})
	return pd
}

// sessionState polls the daemon until the claude session with id is in
// state want.
func waitSessionState(t testing.TB, sock, id string, want wire.State) {
	t.Helper()
	c := wireclient.New(sock)
	testutil.Eventually(t, fmt.Sprintf("the claude session %s is %s", id, want), func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		st, err := c.Status(ctx)
		if err != nil {
			return false
		}
		for _, s := range st.Sessions {
			if s.Backend == "claude" && s.SessionID == id && s.State == want {
				return true
			}
		}
		return false
	})
}

// TestHookProcessDaemonRestartedMidApproval: a PermissionRequest waiting
// for a press falls back (prints nothing, exits 0, quickly) when the pad
// daemon goes away; after the daemon is back, the next request is
// answered by a press as usual.
func TestHookProcessDaemonRestartedMidApproval(t *testing.T) {
	bin := e2eBuild.build(t)
	home := t.TempDir()
	sockDir, err := os.MkdirTemp("", "lh")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(sockDir) })
	sock := filepath.Join(sockDir, "pad.sock")
	letsHome := filepath.Join(home, "lets-home")
	if err := os.MkdirAll(letsHome, 0o700); err != nil {
		t.Fatal(err)
	}
	// A long approval wait, so only the daemon's going away can end it.
	if err := os.WriteFile(filepath.Join(letsHome, "config.json"), []byte(`{"claude":{"approvalTimeoutS":600}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, config.HomeEnv + "=" + letsHome, "PAD_LATTICE_SOCKET=" + sock}
	d := startPadDaemon(t, sock)

	in := hookStdin(t, "PermissionRequest")
	ev, err := claudehook.ParseEvent(in)
	if err != nil {
		t.Fatal(err)
	}
	type result struct{ r hookRun }
	got := make(chan result, 1)
	go func() { got <- result{runHookProcess(t, bin, env, "PermissionRequest", in, 60*time.Second)} }()
	waitSessionState(t, sock, ev.SessionID, wire.StateWaitingForApproval)
	killed := time.Now()
	d.stop()
	// Only the daemon's going away can end the 600 s approval wait.
	if res := testutil.Wait(t, "the hook gives up on the gone daemon", got); res.r.code != 0 || res.r.stdout != "" {
		t.Fatalf("daemon gone mid-approval: exit %d, stdout %q; want 0 and nothing", res.r.code, res.r.stdout)
	}
	t.Logf("the hook noticed the daemon was gone after %v", time.Since(killed))

	// The daemon is back: the next request is answered by a pad press.
	d = startPadDaemon(t, sock)
	go func() { got <- result{runHookProcess(t, bin, env, "PermissionRequest", in, 60*time.Second)} }()
	waitSessionState(t, sock, ev.SessionID, wire.StateWaitingForApproval)
	// The hook's state report and its subscription travel on two
	// connections (Wire acknowledges no subscribe_actions): press once
	// Approve is lit, as a person would.
	id := wire.Identity{Backend: "claude", SessionID: ev.SessionID}
	testutil.Eventually(t, "Approve is lit for the hook's question", func() bool {
		acts, err := d.d.Answerable(context.Background(), id, "")
		return err == nil && slices.Contains(acts, wire.ActionApprove)
	})
	// The same Wire approve a pad press or a window's card delivers.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := d.d.Answer(ctx, id, "", wire.ActionApprove); err != nil {
		t.Fatalf("approve: %v", err)
	}
	if res := testutil.Wait(t, "the decision after the Approve press", got); res.r.code != 0 || res.r.stdout != claudehook.DecisionAllow {
		t.Fatalf("after the restart: exit %d, stdout %q; want the allow decision", res.r.code, res.r.stdout)
	}
}

// BenchmarkHookProcessPreToolUseLetsDown is the wall time of one `lets
// hook PreToolUse` with neither the host nor the pad daemon running (spec
// claude-integration §2: well under a second); it reports p50 and p95.
func BenchmarkHookProcessPreToolUseLetsDown(b *testing.B) {
	bin := e2eBuild.build(b)
	env := downEnv(b)
	in := hookStdin(b, "PreToolUse")
	runHookProcess(b, bin, env, "PreToolUse", in, 10*time.Second)
	benchHookRuns(b, bin, env, in)
}

// BenchmarkHookProcessPreToolUseWithLets is the same with Lets itself
// running (`lets serve`: the host and its pad daemon), as on a desktop:
// the hook then also reports the session's state to the host, for the
// windows Claude opened.
func BenchmarkHookProcessPreToolUseWithLets(b *testing.B) {
	h := startE2EHost(b, e2eConfig(5*time.Second))
	in := hookStdin(b, "PreToolUse")
	runHookProcess(b, h.bin, h.env, "PreToolUse", in, 10*time.Second)
	benchHookRuns(b, h.bin, h.env, in)
	// The hooks did reach Lets: its pad daemon shows the session running.
	ev, err := claudehook.ParseEvent(in)
	if err != nil {
		b.Fatal(err)
	}
	waitSessionState(b, h.sock, ev.SessionID, wire.StateRunning)
}

// BenchmarkHookProcessPreToolUse is the wall time of one `lets hook
// PreToolUse` process (it runs on every tool call Claude makes) against a
// running pad daemon, from start to exit; it reports p50 and p95.
func BenchmarkHookProcessPreToolUse(b *testing.B) {
	bin := e2eBuild.build(b)
	home := b.TempDir()
	sockDir, err := os.MkdirTemp("", "lb")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = os.RemoveAll(sockDir) })
	sock := filepath.Join(sockDir, "pad.sock")
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, config.HomeEnv + "=" + filepath.Join(home, "lets-home"), "PAD_LATTICE_SOCKET=" + sock}
	startPadDaemon(b, sock)
	in := hookStdin(b, "PreToolUse")
	// One warm-up run loads the binary into the page cache.
	runHookProcess(b, bin, env, "PreToolUse", in, 10*time.Second)
	benchHookRuns(b, bin, env, in)
}

// benchHookRuns times b.N `lets hook PreToolUse` processes and reports
// their p50 and p95.
func benchHookRuns(b *testing.B, bin string, env []string, in []byte) {
	times := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := runHookProcess(b, bin, env, "PreToolUse", in, 10*time.Second)
		if r.code != 0 || r.stdout != "" {
			b.Fatalf("exit %d, stdout %q", r.code, r.stdout)
		}
		times = append(times, r.took)
	}
	b.StopTimer()
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	pct := func(p float64) time.Duration { return times[min(len(times)-1, int(p*float64(len(times))))] }
	b.ReportMetric(float64(pct(0.50).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(pct(0.95).Microseconds())/1000, "p95-ms")
}

// TestFrontHandsEverythingElseToLetsCore runs the installed pair (the
// `lets` front and lets-core beside it): `lets version` is answered by
// lets-core, and what lets-core writes for Claude Code names the front, so
// every later hook starts the small program (app/front).
func TestFrontHandsEverythingElseToLetsCore(t *testing.T) {
	bin := e2eBuild.build(t)
	env := downEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "lets ") {
		t.Fatalf("lets version through the front: %v, %q", err, out)
	}

	dir := filepath.Join(t.TempDir(), "plugin")
	cmd := exec.CommandContext(ctx, bin, "setup", "claude", "--plugin-dir", dir)
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("lets setup claude --plugin-dir: %v\n%s", err, out)
	}
	hooks, err := os.ReadFile(filepath.Join(dir, "hooks", "hooks.json"))
	if err != nil {
		t.Fatal(err)
	}
	realBin, _ := filepath.EvalSymlinks(bin)
	if want := realBin + " hook PreToolUse"; !strings.Contains(string(hooks), want) {
		t.Errorf("the plugin's hooks do not run the front (%q):\n%s", want, hooks)
	}
	if strings.Contains(string(hooks), front.CoreName) {
		t.Errorf("the plugin's hooks run lets-core, which starts slowly:\n%s", hooks)
	}
}
