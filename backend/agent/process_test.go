package agent

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/clock"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/schemas"
)

// startFake starts the test binary as a fake claude.
func startFake(t testing.TB, o Options, env ...string) (*Process, string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	argsFile := filepath.Join(t.TempDir(), "args")
	o.Claude = self
	o.Dir = t.TempDir()
	o.Env = append([]string{"AGENT_FAKE_CLAUDE=1", "AGENT_FAKE_ARGS=" + argsFile}, env...)
	if o.Grace == 0 {
		o.Grace = 2 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), ioTimeout)
	defer cancel()
	p, err := Start(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p, argsFile
}

// ioTimeout bounds every wait for something that must happen (an event, a
// send, a start). It is a failure detector, not a budget: the one limit
// every wait uses (testutil.EventuallyTimeout), so a loaded machine never
// fails a correct Process.
const ioTimeout = testutil.EventuallyTimeout

// next returns the next event of type T, skipping others (kept in skipped).
func next[T Event](t testing.TB, p *Process, within time.Duration) T {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case ev, ok := <-p.Events():
			if !ok {
				var zero T
				t.Fatalf("events closed before a %T", zero)
			}
			if x, ok := ev.(T); ok {
				return x
			}
			_ = ev
		case <-deadline:
			var zero T
			t.Fatalf("no %T within %v", zero, within)
		}
	}
}

func send(t testing.TB, p *Process, text string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), ioTimeout)
	defer cancel()
	if err := p.Send(ctx, []Block{TextBlock(text)}); err != nil {
		t.Fatalf("send %q: %v", text, err)
	}
}

func alive(pid int) bool { return pid > 0 && syscall.Kill(pid, 0) == nil }

// closeAsync calls p.Close on its own goroutine; its error arrives on the
// channel.
func closeAsync(p *Process) <-chan error {
	closed := make(chan error, 1)
	go func() { closed <- p.Close() }()
	return closed
}

// TestProcessTurnAndClose: one turn, then Close ends claude by closing its
// input: on a fake clock that never moves, Close returns without waiting
// out a Grace or signalling (how long it takes is BenchmarkProcessClose).
func TestProcessTurnAndClose(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC))
	p, argsFile := startFake(t, Options{SessionID: "11111111-2222-4333-8444-555555555555", MCPConfig: "/x/mcp.json", Settings: "/x/s.json", PermissionMode: "acceptEdits", PermissionPromptStdio: true, Clock: clk})
	pid := p.PID()
	if !alive(pid) {
		t.Fatalf("pid %d not alive", pid)
	}
	send(t, p, "hello")
	if in := next[Init](t, p, ioTimeout); in.SessionID != p.SessionID() {
		t.Errorf("init session %q", in.SessionID)
	}
	if d := next[TextDelta](t, p, ioTimeout); d.Text != "echo: hello" {
		t.Errorf("delta %+v", d)
	}
	if r := next[Result](t, p, ioTimeout); r.IsError || r.Text != "echo: hello" {
		t.Errorf("result %+v", r)
	}
	if err := testutil.Wait(t, "Close to return on the input's end alone", closeAsync(p)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Done():
	default:
		t.Fatal("Done not closed after Close")
	}
	for range p.Events() {
	}
	if alive(pid) {
		t.Errorf("claude %d still alive after Close", pid)
	}
	if err := p.Send(context.Background(), []Block{TextBlock("x")}); !errors.Is(err, ErrClosed) {
		t.Errorf("Send after Close: %v", err)
	}
	args, _ := os.ReadFile(argsFile)
	want := "-p --input-format stream-json --output-format stream-json --verbose --include-partial-messages --session-id 11111111-2222-4333-8444-555555555555 --mcp-config /x/mcp.json --settings /x/s.json --permission-mode acceptEdits --permission-prompt-tool stdio\n"
	if string(args) != want {
		t.Errorf("args:\n%s\nwant\n%s", args, want)
	}
}

func TestProcessCrashRestartsWithResume(t *testing.T) {
	p, argsFile := startFake(t, Options{RestartLimit: 1})
	send(t, p, "hi")
	next[Result](t, p, ioTimeout)
	pid := p.PID()
	send(t, p, "crash")
	r := next[Result](t, p, ioTimeout)
	if !r.IsError || r.Error != ErrCodeCrashed {
		t.Errorf("in-flight turn: %+v", r)
	}
	re := next[Restarted](t, p, ioTimeout)
	if re.Attempt != 1 || re.PID == pid || !alive(re.PID) || !strings.Contains(re.Reason, "exit status 3") {
		t.Errorf("restarted %+v (old pid %d)", re, pid)
	}
	send(t, p, "again")
	if r := next[Result](t, p, ioTimeout); r.Text != "echo: again" || r.SessionID != p.SessionID() {
		t.Errorf("after restart: %+v", r)
	}
	args, _ := os.ReadFile(argsFile)
	lines := strings.Split(strings.TrimSpace(string(args)), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "--session-id "+p.SessionID()) || !strings.Contains(lines[1], "--resume "+p.SessionID()) {
		t.Errorf("args of the two starts:\n%s", args)
	}
	// The limit is one restart per window: the next crash ends it.
	send(t, p, "crash")
	next[Result](t, p, ioTimeout)
	se := next[StreamError](t, p, ioTimeout)
	var ee *ExitError
	if !errors.As(se.Err, &ee) || ee.Restarts != 1 {
		t.Errorf("stream error %v", se.Err)
	}
	testutil.Wait(t, "Done to close after giving up", p.Done())
	if !errors.As(p.Err(), &ee) {
		t.Errorf("Err() = %v", p.Err())
	}
}

func TestRestartAllowed(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	ts := []time.Time{now.Add(-2 * time.Minute), now.Add(-30 * time.Second), now.Add(-time.Second)}
	for _, tc := range []struct {
		limit int
		want  bool
	}{{0, false}, {1, false}, {2, false}, {3, true}} {
		if got := RestartAllowed(ts, now, tc.limit, time.Minute); got != tc.want {
			t.Errorf("limit %d: %v", tc.limit, got)
		}
	}
	if !RestartAllowed(nil, now, 1, time.Minute) {
		t.Error("first restart refused")
	}
}

func TestProcessInterrupt(t *testing.T) {
	p, _ := startFake(t, Options{})
	send(t, p, "slow")
	next[TextDelta](t, p, ioTimeout)
	ctx, cancel := context.WithTimeout(context.Background(), ioTimeout)
	defer cancel()
	if err := p.Interrupt(ctx); err != nil {
		t.Fatal(err)
	}
	cr := next[ControlResponse](t, p, ioTimeout)
	if !strings.HasPrefix(cr.RequestID, "lets-interrupt-") || cr.Subtype != "success" {
		t.Errorf("control response %+v", cr)
	}
	if r := next[Result](t, p, ioTimeout); r.Error != ErrCodeInterrupted {
		t.Errorf("result %+v", r)
	}
	send(t, p, "still there")
	if r := next[Result](t, p, ioTimeout); r.Text != "echo: still there" {
		t.Errorf("after interrupt %+v", r)
	}
}

func TestProcessHugeLine(t *testing.T) {
	p, _ := startFake(t, Options{MaxLineBytes: 1 << 20})
	send(t, p, "huge")
	se := next[StreamError](t, p, ioTimeout)
	var tl *LineTooLongError
	if !errors.As(se.Err, &tl) || tl.Limit != 1<<20 || tl.Size < 2<<20 {
		t.Errorf("stream error %v", se.Err)
	}
	if r := next[Result](t, p, ioTimeout); r.Text != "after huge" {
		t.Errorf("result %+v", r)
	}
}

// TestProcessBackPressureMergesDeltas: a consumer that takes nothing while
// claude floods 5000 deltas gets them all, merged: the reader has read the
// Result before the consumer takes the first event, so everything between
// is held in the Events buffer (4), the forwarder's one merged delta and
// the reader's queue (64); far fewer than 5000 events.
func TestProcessBackPressureMergesDeltas(t *testing.T) {
	const n = 5000
	p, _ := startFake(t, Options{EventBuffer: 4})
	send(t, p, "flood 5000")
	testutil.Eventually(t, "the reader has read the flood's result", func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.started && !p.running && p.queued == 0
	})
	var text strings.Builder
	deltas := 0
	for done := false; !done; {
		switch e := testutil.Wait(t, "the next event of the flood", p.Events()).(type) {
		case TextDelta:
			deltas++
			text.WriteString(e.Text)
		case Result:
			done = true
		}
	}
	var want strings.Builder
	for i := 0; i < n; i++ {
		want.WriteString("w" + itoa(i) + " ")
	}
	if text.String() != want.String() {
		t.Errorf("merged text differs: got %d bytes, want %d", text.Len(), want.Len())
	}
	if deltas > 4+1+64 {
		t.Errorf("%d delta events for %d deltas: they were not merged while the consumer waited", deltas, n)
	}
	t.Logf("%d deltas arrived as %d events", n, deltas)
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func TestProcessAnswerPermission(t *testing.T) {
	for _, allow := range []bool{true, false} {
		p, _ := startFake(t, Options{PermissionPromptStdio: true})
		send(t, p, "ask")
		cr := next[ControlRequest](t, p, ioTimeout)
		if cr.RequestID != "perm-1" || cr.ToolName != "Bash" || cr.Subtype != "can_use_tool" {
			t.Fatalf("control request %+v", cr)
		}
		if err := p.AnswerPermission(cr.RequestID, allow, nil, "Not now."); err != nil {
			t.Fatal(err)
		}
		if err := p.AnswerPermission(cr.RequestID, allow, nil, ""); !errors.Is(err, ErrUnknownRequest) {
			t.Errorf("second answer: %v", err)
		}
		tr := next[ToolResult](t, p, ioTimeout)
		var got struct {
			Response map[string]any `json:"response"`
		}
		if err := json.Unmarshal([]byte(tr.Results[0].Text), &got); err != nil {
			t.Fatalf("fake echoed %q: %v", tr.Results[0].Text, err)
		}
		if allow {
			in, _ := json.Marshal(got.Response["updatedInput"])
			if got.Response["behavior"] != "allow" || string(in) != `{"command":"ls"}` {
				t.Errorf("allow answer %v", got.Response)
			}
		} else if got.Response["behavior"] != "deny" || got.Response["message"] != "Not now." {
			t.Errorf("deny answer %v", got.Response)
		}
		next[Result](t, p, ioTimeout)
	}
	p, _ := startFake(t, Options{})
	if err := p.AnswerPermission("nope", true, nil, ""); !errors.Is(err, ErrUnknownRequest) {
		t.Errorf("unknown request: %v", err)
	}
}

// TestProcessCloseEscalates: a claude that ignores the end of its input
// and SIGTERM gets SIGTERM one Grace after its input closed and SIGKILL
// one Grace later, on the Process's clock; Close waits for each step.
func TestProcessCloseEscalates(t *testing.T) {
	const grace = 300 * time.Millisecond
	clk := clock.NewFake(time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC))
	p, _ := startFake(t, Options{Grace: grace, Clock: clk}, "AGENT_FAKE_IGNORE_EOF=1", "AGENT_FAKE_IGNORE_TERM=1")
	send(t, p, "hi")
	next[Result](t, p, ioTimeout)
	pid := p.PID()
	closed := closeAsync(p)
	ctx, cancel := context.WithTimeout(context.Background(), ioTimeout)
	defer cancel()
	for _, step := range []string{"its input closed", "SIGTERM"} {
		if err := clk.BlockUntil(ctx, 1); err != nil {
			t.Fatalf("after %s, Close did not wait a Grace: %v", step, err)
		}
		select {
		case err := <-closed:
			t.Fatalf("Close returned (%v) after %s, while claude ignores it", err, step)
		default:
		}
		if !alive(pid) {
			t.Fatalf("claude %d ended after %s, which it ignores", pid, step)
		}
		clk.Advance(grace)
	}
	if err := testutil.Wait(t, "Close to return after SIGKILL", closed); err != nil {
		t.Fatal(err)
	}
	if alive(pid) {
		t.Errorf("claude %d alive after Close", pid)
	}
}

// BenchmarkProcessClose: Close of a claude that ends when its input
// closes (the fake), after one turn.
func BenchmarkProcessClose(b *testing.B) {
	var total time.Duration
	for range b.N {
		p, _ := startFake(b, Options{})
		send(b, p, "hi")
		next[Result](b, p, ioTimeout)
		start := time.Now()
		if err := p.Close(); err != nil {
			b.Fatal(err)
		}
		total += time.Since(start)
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N)/1000, "ms/close")
}

func TestProcessSendWaitsDuringRestartAndRefusesBadBlocks(t *testing.T) {
	p, _ := startFake(t, Options{RestartLimit: 3})
	if err := p.Send(context.Background(), nil); !errors.Is(err, ErrEmptyTurn) {
		t.Errorf("empty turn: %v", err)
	}
	send(t, p, "crash")
	send(t, p, "queued") // may land in the dying process or the new one
	next[Restarted](t, p, ioTimeout)
	send(t, p, "after")
	for {
		r := next[Result](t, p, ioTimeout)
		if r.Text == "echo: after" {
			break
		}
	}
}

func TestStartErrors(t *testing.T) {
	ctx := context.Background()
	if _, err := Start(ctx, Options{}); !errors.Is(err, ErrNoClaude) {
		t.Errorf("no claude: %v", err)
	}
	if _, err := Start(ctx, Options{Claude: filepath.Join(t.TempDir(), "claude")}); !errors.Is(err, ErrNotInstalled) {
		t.Errorf("missing claude: %v", err)
	}
	if _, err := Start(ctx, Options{Claude: "/bin/true", Resume: true}); err == nil {
		t.Error("Resume without a session id: no error")
	}
}

// validateInput checks a line Lets writes to claude against
// schemas/claude-stream-input.schema.json.
func validateInput(t *testing.T, line []byte) {
	t.Helper()
	s, err := schemas.Compile("claude-stream-input.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := schemas.ValidateJSON(s, line); err != nil {
		t.Errorf("%s: %v", line, err)
	}
}

func TestInputSchemaRejects(t *testing.T) {
	s, err := schemas.Compile("claude-stream-input.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{
		`{"type":"user","message":{"role":"user","content":"plain string ends the process"}}`,
		`{"type":"user","message":{"role":"user","content":[]}}`,
		`{"type":"control_response","response":{"subtype":"success","request_id":"r","response":{"behavior":"allow"}}}`,
		`{"type":"control_request","request_id":"r","request":{"subtype":"set_model"}}`,
	} {
		if schemas.ValidateJSON(s, []byte(bad)) == nil {
			t.Errorf("schema accepted %s", bad)
		}
	}
}

// BenchmarkIdleProcessOverhead reports Lets' side of idle conversations:
// the Go heap and stacks one Process holds (reader buffer, event channel,
// three goroutines), measured over several processes of the fake claude.
func BenchmarkIdleProcessOverhead(b *testing.B) {
	const n = 10
	for i := 0; i < b.N; i++ {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		ps := make([]*Process, n)
		for j := range ps {
			ps[j], _ = startFake(b, Options{})
			send(b, ps[j], "hi")
			next[Result](b, ps[j], ioTimeout)
		}
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		per := (int64(after.HeapInuse+after.StackInuse) - int64(before.HeapInuse+before.StackInuse)) / n
		b.ReportMetric(float64(per)/1024, "KiB/idle-process")
		for _, p := range ps {
			_ = p.Close()
		}
	}
}

// TestProcessLeavesNoGoroutines: after Close every goroutine of the
// Process (reader, forwarder, supervisor, exec's copiers) has ended.
func TestProcessLeavesNoGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	for i := 0; i < 3; i++ {
		p, _ := startFake(t, Options{RestartLimit: 1})
		send(t, p, "hi")
		next[Result](t, p, ioTimeout)
		send(t, p, "crash")
		next[Restarted](t, p, ioTimeout)
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
	}
	// Close returns once the supervisor closed Done; the goroutines that
	// closed the last channels return a moment later.
	if !testutil.Poll(testutil.EventuallyTimeout, func() bool { return runtime.NumGoroutine() <= before }) {
		buf := make([]byte, 1<<16)
		t.Fatalf("%d goroutines before, %d after:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
	}
}
