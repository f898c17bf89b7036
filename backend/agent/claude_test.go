package agent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/testenv/claudestub"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// These tests drive the real Claude Code CLI (testutil.Claude) against
// claudestub's scripted Messages API on 127.0.0.1.

// realOptions are Options for the real claude talking only to stub, with
// HOME and the XDG folders in a temp dir and the working folder in it.
func realOptions(tb testing.TB, stub *claudestub.Server, env ...string) Options {
	tb.Helper()
	claude := testutil.Claude(tb)
	home := tb.TempDir()
	dir := filepath.Join(home, "project")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	return Options{
		Claude: claude, Dir: dir,
		Env:       append(append(stub.Env(home), "PATH="+os.Getenv("PATH")), env...),
		ExtraArgs: []string{"--strict-mcp-config"},
		Grace:     3 * time.Second,
	}
}

func startReal(tb testing.TB, o Options) *Process {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), ioTimeout)
	defer cancel()
	p, err := Start(ctx, o)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = p.Close() })
	return p
}

// requestHas reports whether a stub request's messages contain text.
func requestHas(req claudestub.Request, text string) bool {
	for _, m := range req.Messages {
		for _, b := range m.Blocks() {
			if strings.Contains(b.ResultText(), text) || strings.Contains(b.Text, text) {
				return true
			}
		}
	}
	return false
}

func lastMain(t *testing.T, stub *claudestub.Server) claudestub.Request {
	t.Helper()
	reqs := stub.MainRequests()
	if len(reqs) == 0 {
		t.Fatal("the stub got no main request")
	}
	return reqs[len(reqs)-1]
}

const claudeWait = 60 * time.Second

func TestClaudeTwoTurnsOneProcess(t *testing.T) {
	stub := claudestub.Start(t, claudestub.Say("Hello there, friend."), claudestub.Say("Second answer."))
	p := startReal(t, realOptions(t, stub))
	pid := p.PID()
	send(t, p, "First question")
	in := next[Init](t, p, claudeWait)
	if in.SessionID != p.SessionID() {
		t.Errorf("init session %q, want %q (--session-id)", in.SessionID, p.SessionID())
	}
	// The text delta comes before the result.
	var sawDelta bool
	for r := false; !r; {
		select {
		case ev := <-p.Events():
			switch e := ev.(type) {
			case TextDelta:
				sawDelta = sawDelta || e.Text == "Hello there, friend."
			case Result:
				if !sawDelta || e.IsError || e.Text != "Hello there, friend." {
					t.Fatalf("result %+v (delta before it: %v)", e, sawDelta)
				}
				r = true
			}
		case <-time.After(claudeWait):
			t.Fatal("no result")
		}
	}
	send(t, p, "Second question")
	if r := next[Result](t, p, claudeWait); r.Text != "Second answer." {
		t.Errorf("second result %+v", r)
	}
	if p.PID() != pid {
		t.Errorf("pid changed %d → %d", pid, p.PID())
	}
	req := lastMain(t, stub)
	if !requestHas(req, "First question") || !requestHas(req, "Hello there, friend.") || !requestHas(req, "Second question") {
		t.Errorf("the second request does not carry the first turn: %s", req.Body)
	}
}

func TestClaudeImageTurnAcceptEdits(t *testing.T) {
	stub := claudestub.Start(t, claudestub.Say("A red pixel."))
	o := realOptions(t, stub)
	o.PermissionMode = "acceptEdits"
	p := startReal(t, o)
	png := "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
	ctx, cancel := context.WithTimeout(context.Background(), ioTimeout)
	defer cancel()
	if err := p.Send(ctx, []Block{TextBlock("What is this?"), ImageBlock("image/png", png)}); err != nil {
		t.Fatal(err)
	}
	if in := next[Init](t, p, claudeWait); in.PermissionMode != "acceptEdits" {
		t.Errorf("permission mode %q, want acceptEdits", in.PermissionMode)
	}
	if r := next[Result](t, p, claudeWait); r.IsError {
		t.Fatalf("result %+v", r)
	}
	if !strings.Contains(string(lastMain(t, stub).Body), png) {
		t.Error("the image did not reach the model")
	}
}

func TestClaudePermissionAllowAndDeny(t *testing.T) {
	stub := claudestub.Start(t,
		claudestub.Call("Bash", map[string]any{"command": "touch allowed.txt", "description": "Create a file"}),
		claudestub.Call("Bash", map[string]any{"command": "touch denied.txt", "description": "Create another file"}),
		claudestub.Say("Done."))
	o := realOptions(t, stub)
	o.PermissionPromptStdio = true
	p := startReal(t, o)
	send(t, p, "Make two files")
	cr := next[ControlRequest](t, p, claudeWait)
	if cr.Subtype != "can_use_tool" || cr.ToolName != "Bash" || !strings.Contains(string(cr.Input), "touch allowed.txt") {
		t.Fatalf("first request %+v", cr)
	}
	if err := p.AnswerPermission(cr.RequestID, true, nil, ""); err != nil {
		t.Fatal(err)
	}
	cr2 := next[ControlRequest](t, p, claudeWait)
	if !strings.Contains(string(cr2.Input), "touch denied.txt") {
		t.Fatalf("second request %+v", cr2)
	}
	// Allow ran the command, and its result went to the model.
	if _, err := os.Stat(filepath.Join(o.Dir, "allowed.txt")); err != nil {
		t.Errorf("allowed command did not run: %v", err)
	}
	if trs := lastMain(t, stub).ToolResults(); len(trs) != 1 || trs[0].IsError {
		t.Errorf("tool result after allow: %+v", trs)
	}
	if err := p.AnswerPermission(cr2.RequestID, false, nil, "The person said no in Lets."); err != nil {
		t.Fatal(err)
	}
	r := next[Result](t, p, claudeWait)
	if r.IsError || len(r.PermissionDenials) != 1 {
		t.Errorf("result %+v", r)
	}
	if _, err := os.Stat(filepath.Join(o.Dir, "denied.txt")); err == nil {
		t.Error("denied command ran")
	}
	trs := lastMain(t, stub).ToolResults()
	if len(trs) != 1 || !trs[0].IsError || !strings.Contains(trs[0].ResultText(), "The person said no in Lets.") {
		t.Errorf("the model did not get the denial: %+v", trs)
	}
}

func TestClaudeInterruptKeepsProcess(t *testing.T) {
	release := make(chan struct{})
	var once sync.Once
	entered := make(chan struct{}, 1)
	stub := claudestub.Start(t, func(claudestub.Request) claudestub.Turn {
		entered <- struct{}{}
		select { // a long turn: the model takes its time
		case <-release:
		case <-time.After(30 * time.Second):
		}
		return claudestub.Turn{Text: "too late"}
	}, claudestub.Say("After the interrupt."))
	t.Cleanup(func() { once.Do(func() { close(release) }) })
	p := startReal(t, realOptions(t, stub))
	pid := p.PID()
	send(t, p, "Tell a long story")
	select {
	case <-entered:
	case <-time.After(claudeWait):
		t.Fatal("the turn did not reach the stub")
	}
	ctx, cancel := context.WithTimeout(context.Background(), ioTimeout)
	defer cancel()
	start := time.Now()
	if err := p.Interrupt(ctx); err != nil {
		t.Fatal(err)
	}
	r := next[Result](t, p, ioTimeout)
	if r.Error != ErrCodeInterrupted || !r.IsError {
		t.Errorf("interrupted result %+v", r)
	}
	t.Logf("interrupt → result in %v", time.Since(start))
	once.Do(func() { close(release) })
	if p.PID() != pid || !alive(pid) {
		t.Fatalf("claude did not stay alive (pid %d → %d)", pid, p.PID())
	}
	send(t, p, "Still there?")
	if r := next[Result](t, p, claudeWait); r.Text != "After the interrupt." {
		t.Errorf("after interrupt %+v", r)
	}
}

func TestClaudeResumeAfterClose(t *testing.T) {
	stub := claudestub.Start(t, claudestub.Say("I will remember the blue kite."), claudestub.Say("You told me about a blue kite."))
	o := realOptions(t, stub)
	p := startReal(t, o)
	send(t, p, "Remember my blue kite")
	next[Result](t, p, claudeWait)
	start := time.Now()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("Close took %v", time.Since(start))
	o.SessionID, o.Resume = p.SessionID(), true
	p2 := startReal(t, o)
	send(t, p2, "What did I tell you?")
	if r := next[Result](t, p2, claudeWait); r.Text != "You told me about a blue kite." || r.SessionID != o.SessionID {
		t.Errorf("resumed result %+v", r)
	}
	req := lastMain(t, stub)
	if !requestHas(req, "Remember my blue kite") || !requestHas(req, "I will remember the blue kite.") {
		t.Errorf("the resumed request does not carry the earlier turn: %s", req.Body)
	}
}

func TestClaudeKilledRestartsWithResume(t *testing.T) {
	stub := claudestub.Start(t, claudestub.Say("Noted: green."), claudestub.Say("Green, as you said."))
	o := realOptions(t, stub)
	o.RestartLimit = 2
	p := startReal(t, o)
	send(t, p, "My colour is green")
	next[Result](t, p, claudeWait)
	pid := p.PID()
	if err := killGroup(pid); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	re := next[Restarted](t, p, claudeWait)
	t.Logf("killed → restarted in %v", time.Since(start))
	if re.PID == pid || re.Attempt != 1 {
		t.Errorf("restarted %+v", re)
	}
	send(t, p, "What is my colour?")
	if r := next[Result](t, p, claudeWait); r.Text != "Green, as you said." {
		t.Errorf("after restart %+v", r)
	}
	if req := lastMain(t, stub); !requestHas(req, "My colour is green") {
		t.Errorf("the request after the restart does not carry the earlier turn: %s", req.Body)
	}
}

func TestClaudeAuthenticationFailed(t *testing.T) {
	fail := claudestub.Fixed(claudestub.Turn{Fail: &claudestub.APIError{Status: 401, Type: "authentication_error", Message: "invalid x-api-key"}})
	steps := make([]claudestub.Step, 12)
	for i := range steps {
		steps[i] = fail
	}
	stub := claudestub.Start(t, steps...)
	p := startReal(t, realOptions(t, stub, "CLAUDE_CODE_MAX_RETRIES=0"))
	send(t, p, "Hi")
	r := next[Result](t, p, claudeWait)
	if !r.IsError || r.Error != ErrCodeAuthenticationFailed {
		t.Errorf("result %+v", r)
	}
}

func TestClaudeAuthStatusReal(t *testing.T) {
	claude := testutil.Claude(t)
	home := t.TempDir()
	env := []string{"HOME=" + home, "CLAUDE_CONFIG_DIR=" + home + "/.claude", "PATH=" + os.Getenv("PATH"), "DISABLE_AUTOUPDATER=1"}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	st, err := AuthStatus(ctx, claude, env)
	if err != nil || st != LoggedOut {
		t.Errorf("fresh home: %v, %v; want logged-out", st, err)
	}
	st, err = AuthStatus(ctx, claude, append(env, "ANTHROPIC_API_KEY=dummy"))
	if err != nil || st != LoggedIn {
		t.Errorf("with an API key: %v, %v; want logged-in", st, err)
	}
}

func killGroup(pid int) error {
	return killPG(pid)
}

// BenchmarkFirstDelta measures the time from the stub handing out a turn
// (the SSE text delta follows within microseconds) to the TextDelta on
// Events(), over the real claude; it also reports the idle RSS of the
// claude process.
func BenchmarkFirstDelta(b *testing.B) {
	var mu sync.Mutex
	var sent time.Time
	step := func(claudestub.Request) claudestub.Turn {
		mu.Lock()
		sent = time.Now()
		mu.Unlock()
		return claudestub.Turn{Text: "Hello"}
	}
	steps := make([]claudestub.Step, b.N+1)
	for i := range steps {
		steps[i] = step
	}
	stub := claudestub.Start(b, steps...)
	p := startReal(b, realOptions(b, stub))
	var total, worst time.Duration
	var lats []time.Duration
	var first time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), ioTimeout)
		if err := p.Send(ctx, []Block{TextBlock("Hi " + strconv.Itoa(i))}); err != nil {
			b.Fatal(err)
		}
		cancel()
		d := next[TextDelta](b, p, claudeWait)
		got := time.Now()
		mu.Lock()
		lat := got.Sub(sent)
		mu.Unlock()
		if d.Text != "Hello" {
			b.Fatalf("delta %+v", d)
		}
		total += lat
		lats = append(lats, lat)
		if i == 0 {
			first = lat
		}
		if lat > worst {
			worst = lat
		}
		next[Result](b, p, claudeWait)
	}
	b.StopTimer()
	b.ReportMetric(float64(total.Microseconds())/float64(b.N)/1000, "ms/first-delta")
	b.ReportMetric(float64(worst.Microseconds())/1000, "ms/worst-first-delta")
	b.ReportMetric(float64(first.Microseconds())/1000, "ms/first-turn-first-delta")
	sort.Slice(lats, func(i, j int) bool { return lats[i] < lats[j] })
	b.ReportMetric(float64(lats[len(lats)/2].Microseconds())/1000, "ms/median-first-delta")
	time.Sleep(time.Second) // idle
	if rss, err := VmRSS(p.PID()); err == nil {
		b.ReportMetric(float64(rss)/1024, "MiB/claude-idle-rss")
	} else {
		b.Logf("RSS: %v", err)
	}
	if err := p.Close(); err != nil && !errors.Is(err, ErrClosed) {
		b.Fatal(err)
	}
}

func killPG(pid int) error { return syscall.Kill(-pid, syscall.SIGKILL) }

// TestClaudeEndSession checks that the CLI accepts the end_session control
// request EncodeEndSession writes: claude ends without its stdin closing.
func TestClaudeEndSession(t *testing.T) {
	stub := claudestub.Start(t, claudestub.Say("Bye."))
	r := startRecorder(t, stub)
	line, err := EncodeUserTurn([]Block{TextBlock("Hi")})
	if err != nil {
		t.Fatal(err)
	}
	r.send(strings.TrimSuffix(string(line), "\n"))
	r.until(`"type":"result"`)
	end, err := EncodeEndSession("lets-end-1")
	if err != nil {
		t.Fatal(err)
	}
	r.send(strings.TrimSuffix(string(end), "\n"))
	r.drain() // fails the test if claude does not exit within 30 s
	t.Logf("after end_session: %s", r.all[len(r.all)-1])
}

// TestClaudeStreamsWordByWordAndStops: a reply the model streams slowly,
// word by word, arrives as TextDelta events as the words come (not at the
// end), and Interrupt stops it midway; claude stays for the next turn.
func TestClaudeStreamsWordByWordAndStops(t *testing.T) {
	long := strings.Repeat("and then the kite flew higher ", 20)
	gate := claudestub.NewGate()
	stub := claudestub.Start(t,
		claudestub.Fixed(claudestub.Turn{Text: long, Gate: gate}),
		claudestub.Say("Stopped, as you asked."))
	p := startReal(t, realOptions(t, stub))
	pid := p.PID()
	send(t, p, "Tell me a long story")
	// One TextDelta per word, in order, as the model produces them: the
	// stub sends word i+1 only once the test has released it, and the test
	// releases it only after word i reached it, so no word can wait for
	// the end of the reply (which never comes: it is interrupted below).
	var got []string
	for len(got) < 4 {
		gate.Release()
		d := next[TextDelta](t, p, claudeWait)
		got = append(got, d.Text)
	}
	if strings.Join(got, "|") != "and |then |the |kite " {
		t.Errorf("first words %q", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), ioTimeout)
	defer cancel()
	if err := p.Interrupt(ctx); err != nil {
		t.Fatal(err)
	}
	r := next[Result](t, p, ioTimeout)
	if r.Error != ErrCodeInterrupted {
		t.Errorf("result %+v", r)
	}
	if p.PID() != pid || !alive(pid) {
		t.Fatalf("claude did not stay (pid %d → %d)", pid, p.PID())
	}
	send(t, p, "Thanks")
	if r := next[Result](t, p, claudeWait); r.Text != "Stopped, as you asked." {
		t.Errorf("next turn %+v", r)
	}
}

// TestClaudeTurnsSentWhileBusy: turns sent while claude answers wait and
// are all answered; 2.1.332 answers the waiting ones together (one Result
// for two Sends), which is why a Result means "idle", not "answer to Send n".
func TestClaudeTurnsSentWhileBusy(t *testing.T) {
	stub := claudestub.Start(t,
		claudestub.Fixed(claudestub.Turn{Text: "one two three four five six", WordDelay: 150 * time.Millisecond}),
		claudestub.Say("Both noted."), claudestub.Say("Extra."))
	p := startReal(t, realOptions(t, stub))
	send(t, p, "first")
	next[TextDelta](t, p, claudeWait)
	send(t, p, "second")
	send(t, p, "third")
	results := 0
	for !(results >= 2 && requestHas(lastMain(t, stub), "third")) {
		r := next[Result](t, p, claudeWait)
		if r.IsError {
			t.Fatalf("result %+v", r)
		}
		results++
		if results > 3 {
			t.Fatalf("%d results and the last request has no 'third'", results)
		}
	}
	req := lastMain(t, stub)
	if !requestHas(req, "second") || !requestHas(req, "third") {
		t.Errorf("a turn sent while busy was lost: %s", req.Body)
	}
	t.Logf("3 turns sent, %d results, %d main requests", results, len(stub.MainRequests()))
}
