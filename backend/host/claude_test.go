package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/lets-app/lets/backend/approval"
	"github.com/lets-app/lets/backend/hostapi"
	"github.com/lets-app/lets/backend/lip"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/backend/wire"
)

// actionCall is one ClaudeActions.Answer the host made.
type actionCall struct {
	id        wire.Identity
	requestID string
	action    wire.Action
}

// fakeActions stands in for the Wire daemon.
type fakeActions struct {
	calls chan actionCall
	err   error
}

func newFakeActions() *fakeActions { return &fakeActions{calls: make(chan actionCall, 16)} }

func (f *fakeActions) Answer(ctx context.Context, id wire.Identity, requestID string, a wire.Action) error {
	f.calls <- actionCall{id: id, requestID: requestID, action: a}
	return f.err
}

func (f *fakeActions) next(t *testing.T) actionCall {
	t.Helper()
	select {
	case c := <-f.calls:
		return c
	case <-time.After(ioTimeout):
		t.Fatal("ClaudeActions.Answer was never called")
	}
	return actionCall{}
}

func withActions(a ClaudeActions) hostOpt { return func(o *Options) { o.ClaudeActions = a } }

// openBoundOnly opens a unique as `lets mcp` under claude pid would (the
// header carries pid verbatim); its one-time URL is not loaded yet.
func (th *testHost) openBoundOnly(t *testing.T, unique, pid string) testWindow {
	t.Helper()
	code, raw := th.postWithPID(t, "/lip/open", `{"unique":"`+unique+`"}`, pid, testHostToken)
	if code != 200 {
		t.Fatalf("open %s: %d %s", unique, code, raw)
	}
	var res hostapi.OpenAnswer
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	if res.URL != "" {
		t.Fatalf("open %s: the answer to the host token carries the window's one-time URL (issue #23)", unique)
	}
	res.URL = th.launches.get(res.Window) // the test is the native window
	return testWindow{OpenAnswer: res}
}

// postWithPID posts body to path with tok and hostapi.HeaderClaudePID pid (""
// sends no header) and returns the status and the raw answer.
func (th *testHost) postWithPID(t *testing.T, path, body, pid, tok string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest("POST", th.URL()+path, strings.NewReader(body))
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	if pid != "" {
		req.Header.Set(hostapi.HeaderClaudePID, pid)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, raw
}

// openBound is openBoundOnly plus one load of the shell page.
func (th *testHost) openBound(t *testing.T, unique, pid string) testWindow {
	t.Helper()
	win := th.openBoundOnly(t, unique, pid)
	win.Token = loadShellToken(t, win.URL)
	return win
}

// inbox is a shell client that keeps the rest of a batch frame for the
// next read (the host sends a mood and a card in one frame).
type inbox struct {
	*shellClient
	buf []lip.Envelope
}

// nextOfType returns the next envelope of typ, skipping the ones before it.
func (in *inbox) nextOfType(typ string, within time.Duration) (lip.Envelope, bool) {
	deadline := time.Now().Add(within)
	for {
		for i, e := range in.buf {
			if e.Type == typ {
				in.buf = in.buf[i+1:]
				return e, true
			}
		}
		in.buf = in.buf[:0]
		if !time.Now().Before(deadline) {
			return lip.Envelope{}, false
		}
		envs, err := in.tryRead(time.Until(deadline))
		if err != nil {
			return lip.Envelope{}, false
		}
		in.buf = append(in.buf, envs...)
	}
}

// noneBefore proves that no envelope of typ is on its way to the window,
// with two sync points instead of a quiet pause: the host's lip.pong to a
// ping means it has handled every frame the shell sent before the ping, and
// a marker command sent after that is queued behind every command the host
// queued for the window until then; typ must not come before the marker.
func (in *inbox) noneBefore(t *testing.T, th *testHost, typ string) {
	t.Helper()
	in.sendEnv(lip.TypePing, map[string]any{}, "shell")
	in.until(t, typ, func(e lip.Envelope) bool { return e.Type == lip.TypePong })
	mark := "sync " + strconv.FormatInt(syncMarks.Add(1), 10)
	code, body := th.send(t, map[string]any{"lip": 1, "type": "entity.say", "win": in.window, "data": map[string]any{"text": mark}})
	if rej, _ := body["rejected"].([]any); code != 200 || len(rej) > 0 {
		t.Fatalf("the marker command was not sent: %d %v", code, body)
	}
	in.until(t, typ, func(e lip.Envelope) bool { return e.Type == "entity.say" && dataOf(t, e)["text"] == mark })
}

var syncMarks atomic.Int64

// until reads envelopes until stop accepts one (the rest stays for the
// next read) and fails the test if one of type unwanted comes first.
func (in *inbox) until(t *testing.T, unwanted string, stop func(lip.Envelope) bool) {
	t.Helper()
	deadline := time.Now().Add(testutil.EventuallyTimeout)
	for {
		for i, e := range in.buf {
			if e.Type == unwanted {
				t.Fatalf("%s reached window %s: %v", unwanted, in.window, dataOf(t, e))
			}
			if stop(e) {
				in.buf = in.buf[i+1:]
				return
			}
		}
		in.buf = in.buf[:0]
		envs, err := in.tryRead(time.Until(deadline))
		if err != nil {
			t.Fatalf("window %s: no sync point: %v", in.window, err)
		}
		in.buf = append(in.buf, envs...)
	}
}

// noneBefore is inbox.noneBefore for a plain shell client.
func (sc *shellClient) noneBefore(t *testing.T, th *testHost, typ string) {
	t.Helper()
	(&inbox{shellClient: sc}).noneBefore(t, th, typ)
}

// readyShell connects a window's shell and says lip.ready, so commands flow.
func (th *testHost) readyShell(t *testing.T, win testWindow) *inbox {
	t.Helper()
	sc := th.dialShell(t, win, nil)
	sc.sendEnv("lip.ready", map[string]any{}, "shell")
	return &inbox{shellClient: sc}
}

// report posts a hook's state report and returns the status and answer.
func (th *testHost) report(t *testing.T, body any) (int, map[string]any) {
	t.Helper()
	return th.call(t, "POST", "/lip/claude", body, testHostToken)
}

func rep(pid int, state string, extra ...string) map[string]any {
	b := map[string]any{"pid": pid, "session_id": "sess-1", "label": "project", "state": state}
	for i := 0; i+1 < len(extra); i += 2 {
		b[extra[i]] = extra[i+1]
	}
	return b
}

func (th *testHost) windowsByID(t *testing.T) map[string]map[string]any {
	t.Helper()
	code, body := th.call(t, "GET", "/lip/windows", nil, testHostToken)
	if code != 200 {
		t.Fatalf("GET /lip/windows: %d %v", code, body)
	}
	out := map[string]map[string]any{}
	for _, w := range body["windows"].([]any) {
		m := w.(map[string]any)
		out[m["window"].(string)] = m
	}
	return out
}

func moodOf(t *testing.T, sc *inbox) string {
	t.Helper()
	e, ok := sc.nextOfType("entity.mood", ioTimeout)
	if !ok {
		t.Fatal("no entity.mood reached the window")
	}
	return dataOf(t, e)["mood"].(string)
}

// TestClaudeBindingFromOpenHeader: a window opened with X-Lets-Claude-Pid
// is listed with claude_pid, and with claude_session once a hook reported
// the session; a malformed header binds nothing.
func TestClaudeBindingFromOpenHeader(t *testing.T) {
	th := startLIPHost(t)
	bound := th.openBound(t, "board", "4242")
	var loose []string
	for _, h := range []string{"abc", "-7", "0", "+12", "1.5", "99999999999"} {
		loose = append(loose, th.openBound(t, "board", h).Window)
	}
	plain := th.open(t, "board", "")

	ws := th.windowsByID(t)
	if ws[bound.Window]["claude_pid"] != float64(4242) {
		t.Fatalf("bound window: %v", ws[bound.Window])
	}
	if _, ok := ws[bound.Window]["claude_session"]; ok {
		t.Fatalf("a session before any report: %v", ws[bound.Window])
	}
	for _, id := range append(loose, plain.Window) {
		if _, ok := ws[id]["claude_pid"]; ok {
			t.Errorf("window %s is bound: %v", id, ws[id])
		}
	}

	code, body := th.report(t, rep(4242, "running"))
	if code != 200 || body["windows"] != float64(1) {
		t.Fatalf("report: %d %v", code, body)
	}
	if code, body := th.report(t, rep(777, "running")); code != 200 || body["windows"] != float64(0) {
		t.Fatalf("report for a pid without windows: %d %v", code, body)
	}
	ws = th.windowsByID(t)
	if ws[bound.Window]["claude_session"] != "sess-1" {
		t.Fatalf("the session is not shown: %v", ws[bound.Window])
	}
	if _, ok := ws[plain.Window]["claude_session"]; ok {
		t.Fatalf("an unbound window got a session: %v", ws[plain.Window])
	}
}

// TestClaudeReportValidation: a bad report is 400 with a message saying
// what to send; the route needs the host token.
func TestClaudeReportValidation(t *testing.T) {
	th := startLIPHost(t)
	for _, c := range []struct {
		name string
		body string
		want string
	}{
		{"not json", `{"pid": 1,`, "JSON object"},
		{"array", `[1]`, "JSON object"},
		{"missing pid", `{"session_id":"s","state":"running"}`, `"pid" is required`},
		{"zero pid", `{"pid":0,"session_id":"s","state":"running"}`, "positive process id"},
		{"negative pid", `{"pid":-3,"session_id":"s","state":"running"}`, "positive process id"},
		{"huge pid", `{"pid":9999999999,"session_id":"s","state":"running"}`, "positive process id"},
		{"string pid", `{"pid":"12","session_id":"s","state":"running"}`, `"pid" has the wrong type`},
		{"fraction pid", `{"pid":1.5,"session_id":"s","state":"running"}`, `"pid" has the wrong type`},
		{"missing session", `{"pid":1,"state":"running"}`, `"session_id" is required`},
		{"spaced session", `{"pid":1,"session_id":"a b","state":"running"}`, `"session_id" must be`},
		{"long session", `{"pid":1,"session_id":"` + strings.Repeat("x", 200) + `","state":"running"}`, `"session_id" must be`},
		{"missing state", `{"pid":1,"session_id":"s"}`, `"state" is required`},
		{"bad state", `{"pid":1,"session_id":"s","state":"sleeping"}`, `"state" "sleeping" is not known`},
		{"bad request id", `{"pid":1,"session_id":"s","state":"waiting_for_approval","request_id":"a\nb"}`, `"request_id" must be`},
	} {
		code, body := th.report(t, c.body)
		msg, _ := body["error"].(map[string]any)["message"].(string)
		if code != 400 || !strings.Contains(msg, c.want) {
			t.Errorf("%s: %d %q, want 400 with %q", c.name, code, msg, c.want)
		}
	}
	code, _ := th.call(t, "POST", "/lip/claude", rep(1, "running"), "")
	if code != 401 {
		t.Fatalf("without a token: %d, want 401", code)
	}
	if code, body := th.report(t, rep(1, ClaudeStateEnded)); code != 200 {
		t.Fatalf("ended is a state: %d %v", code, body)
	}
}

// TestClaudeMoodFollowsTheSessionInBoundWindowsOnly: the companion of a
// bound window follows the reported state; an unbound window hears
// nothing; a repeated state sends nothing new.
func TestClaudeMoodFollowsTheSessionInBoundWindowsOnly(t *testing.T) {
	th := startLIPHost(t)
	bound := th.readyShell(t, th.openBound(t, "board", "5150"))
	other := th.readyShell(t, th.openBound(t, "board", "5151"))
	plain := th.readyShell(t, th.open(t, "board", ""))

	for _, c := range []struct{ state, mood string }{
		{"running", "thinking"}, {"waiting_for_approval", "alert"}, {"success", "proud"},
		{"waiting_for_reply", "idle"}, {"error", "alert"}, {"running", "thinking"},
	} {
		if code, body := th.report(t, rep(5150, c.state)); code != 200 {
			t.Fatalf("report %s: %d %v", c.state, code, body)
		}
		if got := moodOf(t, bound); got != c.mood {
			t.Fatalf("%s: mood %q, want %q", c.state, got, c.mood)
		}
	}
	th.report(t, rep(5150, "running"))
	bound.noneBefore(t, th, "entity.mood") // a repeated state sends no other mood
	// Neither the window bound to another pid nor the unbound one heard.
	other.noneBefore(t, th, "entity.mood")
	plain.noneBefore(t, th, "entity.mood")
}

// askOf reads the next shell.ask and checks it is a Claude approval card.
func askOf(t *testing.T, sc *inbox) map[string]any {
	t.Helper()
	e, ok := sc.nextOfType("shell.ask", ioTimeout)
	if !ok {
		t.Fatalf("no approval card in %s", sc.window)
	}
	d := dataOf(t, e)
	if d["kind"] != "approval" || d["id"] == "" {
		t.Fatalf("shell.ask %v", d)
	}
	return d
}

func dismissOf(t *testing.T, sc *inbox) string {
	t.Helper()
	e, ok := sc.nextOfType("shell.dismiss", ioTimeout)
	if !ok {
		t.Fatalf("no shell.dismiss in %s", sc.window)
	}
	return dataOf(t, e)["id"].(string)
}

// TestClaudeApprovalCardAllowAndDeny: waiting_for_approval with a request
// id puts the card up in every bound window; Allow in one window is Wire
// approve for that session and request, and the card goes down in the
// other; Deny is reject; a card is answered once.
func TestClaudeApprovalCardAllowAndDeny(t *testing.T) {
	acts := newFakeActions()
	th := startLIPHost(t, withActions(acts))
	w1 := th.readyShell(t, th.openBound(t, "board", "6001"))
	w2 := th.readyShell(t, th.openBound(t, "coder", "6001"))

	th.report(t, rep(6001, "waiting_for_approval", "request_id", "req-1", "tool", "Bash", "summary", "npm test\n  --watch"))
	a1, a2 := askOf(t, w1), askOf(t, w2)
	if a1["id"] != a2["id"] || a1["tool"] != "Bash" || a1["summary"] != "npm test --watch" || a1["label"] != "project" {
		t.Fatalf("cards: %v / %v", a1, a2)
	}
	w1.sendEnv("shell.answer", map[string]any{"id": a1["id"], "choice": "allow"}, "shell")
	c := acts.next(t)
	if c.id != (wire.Identity{Backend: "claude", SessionID: "sess-1"}) || c.requestID != "req-1" || c.action != wire.ActionApprove {
		t.Fatalf("allow: %+v", c)
	}
	if id := dismissOf(t, w2); id != a1["id"] {
		t.Fatalf("w2 dismissed %q, want %q", id, a1["id"])
	}
	// The other window's late answer settles nothing: the next answer
	// Claude gets is req-2's below, not a second one for req-1.
	w2.sendEnv("shell.answer", map[string]any{"id": a2["id"], "choice": "deny"}, "shell")
	// The same request reported again is not asked again.
	th.report(t, rep(6001, "waiting_for_approval", "request_id", "req-1", "tool", "Bash"))
	w1.noneBefore(t, th, "shell.ask")

	th.report(t, rep(6001, "running"))
	th.report(t, rep(6001, "waiting_for_approval", "request_id", "req-2", "tool", "Write", "summary", "notes.md"))
	b2 := askOf(t, w2)
	askOf(t, w1)
	w2.sendEnv("shell.answer", map[string]any{"id": b2["id"], "choice": "deny"}, "shell")
	if c := acts.next(t); c.requestID != "req-2" || c.action != wire.ActionReject {
		t.Fatalf("deny: %+v", c)
	}
	if id := dismissOf(t, w1); id != b2["id"] {
		t.Fatalf("w1 dismissed %q, want %q", id, b2["id"])
	}
	// The unique's voice cannot answer a card: its "allow" is refused, and
	// the human's "deny" after it is the one answer Claude gets.
	th.report(t, rep(6001, "waiting_for_approval", "request_id", "req-3", "tool", "Bash"))
	d3 := askOf(t, w1)
	w1.sendEnv("shell.answer", map[string]any{"id": d3["id"], "choice": "allow"}, "unique")
	if e, ok := w1.nextOfType("lip.error", ioTimeout); !ok || dataOf(t, e)["code"] != "forbidden" {
		t.Fatalf("the unique's answer was not refused: %v %v", ok, e)
	}
	w1.sendEnv("shell.answer", map[string]any{"id": d3["id"], "choice": "deny"}, "shell")
	if c := acts.next(t); c.requestID != "req-3" || c.action != wire.ActionReject {
		t.Fatalf("after the unique's answer: %+v, want the human's deny of req-3", c)
	}
}

// TestCodexApprovalCard (issue #25): a report from `lets hook codex`
// ("backend": "codex") puts up a card that names Codex, and the answer
// goes to the Codex session on the Wire daemon; a Claude card names
// Claude; an unknown backend is refused with the ones to use.
func TestCodexApprovalCard(t *testing.T) {
	acts := newFakeActions()
	th := startLIPHost(t, withActions(acts))
	w := th.readyShell(t, th.openBound(t, "board", "6101"))

	th.report(t, rep(6101, "waiting_for_approval", "request_id", "cx-1", "tool", "Bash", "summary", "rm -r build", "backend", "codex"))
	a := askOf(t, w)
	if a["agent"] != "Codex" || a["tool"] != "Bash" || a["summary"] != "rm -r build" {
		t.Fatalf("Codex card %v: want agent Codex", a)
	}
	w.sendEnv("shell.answer", map[string]any{"id": a["id"], "choice": "allow"}, "shell")
	if c := acts.next(t); c.id != (wire.Identity{Backend: "codex", SessionID: "sess-1"}) || c.requestID != "cx-1" || c.action != wire.ActionApprove {
		t.Fatalf("Codex allow: %+v", c)
	}

	th.report(t, rep(6101, "running", "backend", "codex"))
	th.report(t, rep(6101, "waiting_for_approval", "request_id", "cl-1", "tool", "Bash"))
	if b := askOf(t, w); b["agent"] != "Claude" {
		t.Fatalf("Claude card %v: want agent Claude", b)
	}

	code, body := th.report(t, rep(6101, "running", "backend", "gemini"))
	e, _ := body["error"].(map[string]any)
	if msg, _ := e["message"].(string); code != http.StatusBadRequest || !strings.Contains(msg, `"codex"`) {
		t.Fatalf("unknown backend: %d %v", code, body)
	}
}

// TestClaudeCardDismissedWhenAnsweredElsewhere: a later report with
// another state (a pad or a phone answered), a new request, or the end of
// the session takes the card down.
func TestClaudeCardDismissedWhenAnsweredElsewhere(t *testing.T) {
	acts := newFakeActions()
	th := startLIPHost(t, withActions(acts))
	sc := th.readyShell(t, th.openBound(t, "board", "7007"))

	th.report(t, rep(7007, "waiting_for_approval", "request_id", "r1", "tool", "Bash"))
	first := askOf(t, sc)["id"].(string)
	// The same question again keeps it.
	th.report(t, rep(7007, "waiting_for_approval", "request_id", "r1", "tool", "Bash"))
	sc.noneBefore(t, th, "shell.dismiss") // the same question keeps its card
	th.report(t, rep(7007, "running"))
	if id := dismissOf(t, sc); id != first {
		t.Fatalf("running dismissed %q, want %q", id, first)
	}

	// The hook's wait ended (deadline, daemon gone): it reports
	// waiting_for_approval without a request id, Claude asks in its
	// terminal only, and the card goes at once.
	th.report(t, rep(7007, "waiting_for_approval", "request_id", "r1b", "tool", "Bash"))
	timedOut := askOf(t, sc)["id"].(string)
	th.report(t, rep(7007, "waiting_for_approval"))
	if id := dismissOf(t, sc); id != timedOut {
		t.Fatalf("the end of the hook's wait dismissed %q, want %q", id, timedOut)
	}

	th.report(t, rep(7007, "waiting_for_approval", "request_id", "r2", "tool", "Bash"))
	second := askOf(t, sc)["id"].(string)
	th.report(t, rep(7007, "waiting_for_approval", "request_id", "r3", "tool", "Edit"))
	if id := dismissOf(t, sc); id != second {
		t.Fatalf("a new request dismissed %q, want %q", id, second)
	}
	third := askOf(t, sc)
	if third["tool"] != "Edit" || third["id"] == second {
		t.Fatalf("the new card: %v", third)
	}
	th.report(t, rep(7007, ClaudeStateEnded))
	if id := dismissOf(t, sc); id != third["id"] {
		t.Fatalf("ended dismissed %q, want %q", id, third["id"])
	}
	// A dismissed card cannot be answered any more: the next answer Claude
	// gets is the one for a new card.
	sc.sendEnv("shell.answer", map[string]any{"id": third["id"], "choice": "allow"}, "shell")
	th.report(t, rep(7007, "waiting_for_approval", "request_id", "r4", "tool", "Bash"))
	fourth := askOf(t, sc)
	sc.sendEnv("shell.answer", map[string]any{"id": fourth["id"], "choice": "deny"}, "shell")
	if c := acts.next(t); c.requestID != "r4" || c.action != wire.ActionReject {
		t.Fatalf("after answering a dismissed card: %+v, want the deny of r4", c)
	}
}

// TestClaudeWindowOpenedLaterCatchesUp: a window bound after the state is
// known starts with the current mood and the card still waiting.
func TestClaudeWindowOpenedLaterCatchesUp(t *testing.T) {
	acts := newFakeActions()
	th := startLIPHost(t, withActions(acts))
	th.report(t, rep(8008, "waiting_for_approval", "request_id", "r9", "tool", "Bash", "summary", "make"))
	sc := th.readyShell(t, th.openBound(t, "board", "8008"))
	if got := moodOf(t, sc); got != "alert" {
		t.Fatalf("mood %q, want alert", got)
	}
	card := askOf(t, sc)
	if card["tool"] != "Bash" || card["summary"] != "make" {
		t.Fatalf("card %v", card)
	}
	sc.sendEnv("shell.answer", map[string]any{"id": card["id"], "choice": "allow"}, "shell")
	if c := acts.next(t); c.requestID != "r9" || c.action != wire.ActionApprove {
		t.Fatalf("allow: %+v", c)
	}
}

// TestClaudeNoCardWithoutActions: without a Wire daemon to answer, no card
// is drawn (the hook falls back to Claude's own prompt); the mood still
// follows.
func TestClaudeNoCardWithoutActions(t *testing.T) {
	th := startLIPHost(t)
	sc := th.readyShell(t, th.openBound(t, "board", "9009"))
	th.report(t, rep(9009, "waiting_for_approval", "request_id", "r1", "tool", "Bash"))
	th.report(t, rep(9009, "waiting_for_approval", "request_id", "r2", "tool", "Bash"))
	if got := moodOf(t, sc); got != "alert" {
		t.Fatalf("mood %q, want alert", got)
	}
	sc.noneBefore(t, th, "shell.ask") // no card without ClaudeActions
	if n := strings.Count(th.logBuf.String(), "no approval cards"); n != 1 {
		t.Fatalf("logged %d times, want once:\n%s", n, th.logBuf.String())
	}
}

// TestClaudeAnswerFailureIsToldToThePerson: when the daemon refuses the
// answer, the window says so kindly.
func TestClaudeAnswerFailureIsToldToThePerson(t *testing.T) {
	acts := newFakeActions()
	acts.err = errors.New("no hook waits for this request")
	th := startLIPHost(t, withActions(acts))
	sc := th.readyShell(t, th.openBound(t, "board", "3003"))
	th.report(t, rep(3003, "waiting_for_approval", "request_id", "r1", "tool", "Bash"))
	card := askOf(t, sc)
	sc.sendEnv("shell.answer", map[string]any{"id": card["id"], "choice": "allow"}, "shell")
	acts.next(t)
	e, ok := sc.nextOfType("ui.toast", ioTimeout)
	if !ok || !strings.Contains(dataOf(t, e)["text"].(string), "answer in its terminal") {
		t.Fatalf("no toast: %v %v", ok, e)
	}
}

// TestShellDismissIsHostOnly: neither Claude (/lip/send) nor the unique
// can send shell.dismiss.
func TestShellDismissIsHostOnly(t *testing.T) {
	th := startLIPHost(t)
	win := th.open(t, "board", "")
	code, body := th.send(t, map[string]any{"lip": 1, "type": "shell.dismiss", "win": win.Window, "data": map[string]any{"id": "ask_1"}})
	if code == 200 && len(body["rejected"].([]any)) != 1 {
		t.Fatalf("/lip/send accepted shell.dismiss: %v", body)
	}
}

// TestListenBeyond: cursor=hook&beyond=claude returns only events past the
// claude cursor, moves the hook cursor past everything scanned, and leaves
// the claude cursor where it was.
func TestListenBeyond(t *testing.T) {
	th := startLIPHost(t)
	win := th.open(t, "board", "")
	sc := th.readyShell(t, win)
	note := func(n int) {
		sc.sendEnv("board.note", map[string]any{"n": n}, "unique")
	}
	note(1)
	note(2)
	waitNotes(t, th, "probe2", 2)

	claude := th.listen(t, "cursor=claude&types=board.note&wait_ms=0")
	if len(claude.Events) != 2 {
		t.Fatalf("claude read %d notes, want 2", len(claude.Events))
	}
	note(3)
	waitNotes(t, th, "probe3", 3)

	hook := th.listen(t, "cursor=hook&beyond=claude&types=board.note&wait_ms=0")
	if len(hook.Events) != 1 || dataNum(t, hook.Events[0]) != 3 {
		t.Fatalf("hook beyond claude: %v", hook.Events)
	}
	if hook.Seq < hook.Events[0].Seq {
		t.Fatalf("the hook cursor is at %d, before the event it returned (%d)", hook.Seq, hook.Events[0].Seq)
	}
	again := th.listen(t, "cursor=hook&beyond=claude&types=board.note&wait_ms=0")
	if len(again.Events) != 0 || again.Seq != hook.Seq {
		t.Fatalf("the hook cursor did not advance: %v seq %d", again.Events, again.Seq)
	}
	// The claude cursor did not move: Claude still gets note 3.
	claude = th.listen(t, "cursor=claude&types=board.note&wait_ms=0")
	if len(claude.Events) != 1 || dataNum(t, claude.Events[0]) != 3 {
		t.Fatalf("claude after the hook: %v", claude.Events)
	}
	// A bad beyond name is refused like a bad cursor name.
	req, _ := http.NewRequest("GET", th.URL()+"/lip/listen?cursor=hook&beyond=Not+A+Name&wait_ms=0", nil)
	req.Header.Set("Authorization", "Bearer "+testHostToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || !bytes.Contains(raw, []byte("beyond")) {
		t.Fatalf("a bad beyond name: %d %s", resp.StatusCode, raw)
	}
}

// waitNotes waits until the ring holds n board.note events (read with a
// throwaway cursor; each listen returns as soon as notes are there).
func waitNotes(t *testing.T, th *testHost, cursor string, n int) {
	t.Helper()
	deadline := time.Now().Add(testutil.EventuallyTimeout)
	got := 0
	for got < n && time.Now().Before(deadline) {
		res := th.listen(t, "cursor="+cursor+"&types=board.note&wait_ms=500")
		got += len(res.Events)
	}
	if got < n {
		t.Fatalf("%d notes in the ring, want %d", got, n)
	}
}

func dataNum(t *testing.T, e lip.Envelope) int {
	t.Helper()
	var d struct {
		N int `json:"n"`
	}
	if err := json.Unmarshal(e.DataOrEmpty(), &d); err != nil {
		t.Fatal(err)
	}
	return d.N
}

// TestClaudeStepPolicy: the table's decisions, one report at a time.
func TestClaudeStepPolicy(t *testing.T) {
	a := newClaudeAgents(2)
	n := 0
	newID := func() string { n++; return "ask" + strconv.Itoa(n) }
	now := time.Unix(1000, 0)
	step := func(r claudeReport, cards bool) claudeStep {
		now = now.Add(time.Second)
		return a.stepLocked(r, cards, newID, now)
	}
	r := claudeReport{PID: 1, SessionID: "s", State: "running"}
	if st := step(r, true); st.mood != "thinking" || st.show != nil || st.dismiss != "" {
		t.Fatalf("running: %+v", st)
	}
	r.State, r.RequestID, r.Tool = "waiting_for_approval", "q1", "Bash"
	st := step(r, true)
	if st.mood != "alert" || st.show == nil || st.show.ID != "ask1" || st.show.RequestID != "q1" {
		t.Fatalf("approval: %+v", st)
	}
	// Another session of the same process takes the card down.
	r.SessionID, r.State, r.RequestID = "s2", "waiting_for_reply", ""
	if st := step(r, true); st.dismiss != "ask1" || st.mood != "idle" {
		t.Fatalf("new session: %+v", st)
	}
	// Without cards nothing is shown, and a later card is still possible.
	r.State, r.RequestID = "waiting_for_approval", "q2"
	if st := step(r, false); st.show != nil {
		t.Fatalf("a card without actions: %+v", st)
	}
	if _, ok := a.takeCardLocked(1, "ask1"); ok {
		t.Fatal("a dismissed card was taken")
	}
	// The table stays bounded: the least recently heard pid goes.
	step(claudeReport{PID: 2, SessionID: "x", State: "running"}, true)
	step(claudeReport{PID: 3, SessionID: "y", State: "running"}, true)
	if len(a.agents) != 2 || a.agents[1] != nil {
		t.Fatalf("agents after eviction: %v", a.agents)
	}
}

func TestClaudePIDHeader(t *testing.T) {
	for v, want := range map[string]int{"1": 1, "4242": 4242, "2147483647": 2147483647, "2147483648": 0, "": 0, "0": 0, "-1": 0, "+1": 0, "1 ": 0, "0x10": 0, "١": 0} {
		h := http.Header{}
		if v != "" {
			h.Set(hostapi.HeaderClaudePID, v)
		}
		if got := claudePIDOf(h); got != want {
			t.Errorf("%q: %d, want %d", v, got, want)
		}
	}
}

// FuzzClaudeReport: the POST /lip/claude decoder never panics, and what it
// accepts is within the limits the windows rely on.
func FuzzClaudeReport(f *testing.F) {
	f.Add([]byte(`{"pid":12,"session_id":"0b0e6c5e-7f7a-4a3e-9a55-1d0c2b8e6f11","label":"lets","state":"running"}`))
	f.Add([]byte(`{"pid":12,"session_id":"s","label":"x","state":"waiting_for_approval","request_id":"r-1","tool":"Bash","summary":"rm -rf /\nnow"}`))
	f.Add([]byte(`{"pid":12,"session_id":"s","state":"ended"}`))
	f.Add([]byte(`{"pid":"12"}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := decodeClaudeReport(b)
		if err != nil {
			return
		}
		if r.PID <= 0 || !plainID(r.SessionID) || (r.RequestID != "" && !plainID(r.RequestID)) {
			t.Fatalf("accepted %+v", r)
		}
		if _, ok := wire.ParseState(r.State); !ok && r.State != ClaudeStateEnded {
			t.Fatalf("accepted state %q", r.State)
		}
		for _, c := range []struct {
			s   string
			max int
		}{{r.Label, claudeLabelMax}, {r.Tool, approval.ToolMax}, {r.Summary, approval.SummaryMax}} {
			if strings.ContainsAny(c.s, "\n\r\t") || utf8.RuneCountInString(c.s) > c.max {
				t.Fatalf("not one short line: %q", c.s)
			}
		}
	})
}
