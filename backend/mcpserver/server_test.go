package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/hostapi"
	"github.com/lets-app/lets/backend/hostclient"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

const testToken = "mcp-test-host-token-0123456789abcdefghij"

func TestToolsAreListedWithTheirInputs(t *testing.T) {
	s := connect(t, Options{}, config.Paths{Home: t.TempDir()})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	res, err := s.cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"uniques":  {},
		"open":     {"unique", "resume"},
		"listen":   {"cursor", "wait_ms", "max", "types", "window"},
		"send":     {"window", "type", "data", "ttl", "re", "commands"},
		"close":    {"window"},
		"sessions": {"unique"},
		"status":   {},
	}
	required := map[string][]string{"open": {"unique"}, "close": {"window"}}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if len(tool.Description) < 60 {
			t.Errorf("%s: the description %q is too thin to guide Claude", tool.Name, tool.Description)
		}
		raw, _ := json.Marshal(tool.InputSchema)
		var sc struct {
			Type       string `json:"type"`
			Properties map[string]struct {
				Description string   `json:"description"`
				Maximum     *float64 `json:"maximum"`
			} `json:"properties"`
			Required []string `json:"required"`
		}
		if err := json.Unmarshal(raw, &sc); err != nil || sc.Type != "object" {
			t.Fatalf("%s: input schema %s", tool.Name, raw)
		}
		for _, f := range want[tool.Name] {
			p, ok := sc.Properties[f]
			if !ok {
				t.Errorf("%s: the input schema has no %q: %s", tool.Name, f, raw)
				continue
			}
			if p.Description == "" {
				t.Errorf("%s.%s has no description", tool.Name, f)
			}
		}
		if len(sc.Properties) != len(want[tool.Name]) {
			t.Errorf("%s: properties %v, want %v", tool.Name, keys(sc.Properties), want[tool.Name])
		}
		slices.Sort(sc.Required)
		if r := required[tool.Name]; !slices.Equal(sc.Required, r) && !(len(r) == 0 && len(sc.Required) == 0) {
			t.Errorf("%s: required %v, want %v", tool.Name, sc.Required, r)
		}
		if tool.Name == "listen" {
			if m := sc.Properties["wait_ms"].Maximum; m == nil || *m != 50000 {
				t.Errorf("listen.wait_ms maximum %v, want 50000", m)
			}
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"close", "listen", "open", "send", "sessions", "status", "uniques"}) {
		t.Fatalf("tools %v", names)
	}
	if strings.Contains(s.cs.InitializeResult().Instructions, "data") == false {
		t.Errorf("the server instructions should say event text is data: %q", s.cs.InitializeResult().Instructions)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestEveryToolAgainstARealHost drives the whole loop against a host
// started in-process: status, uniques, open, listen, send (one and a
// batch), sessions, close.
func TestEveryToolAgainstARealHost(t *testing.T) {
	h := startRealHost(t, t.TempDir(), testToken)
	s := connect(t, Options{}, h.paths)

	st := s.call(t, "status", nil)
	if st.IsError || !strings.Contains(st.Text, "Lets 0.1.0-test is running") || !strings.Contains(st.Text, "No windows are open") {
		t.Fatalf("status: %+v", st)
	}
	if st.Structured["version"] != "0.1.0-test" || st.Structured["port"] != float64(h.srv.Port()) {
		t.Fatalf("status structured: %v", st.Structured)
	}

	un := s.call(t, "uniques", nil)
	if un.IsError || !strings.Contains(un.Text, "- hello: Hello") || !strings.Contains(un.Text, "hello.note") {
		t.Fatalf("uniques: %s", un.Text)
	}
	if list, _ := un.Structured["uniques"].([]any); len(list) == 0 {
		t.Fatalf("uniques structured: %v", un.Structured)
	}

	op := s.call(t, "open", map[string]any{"unique": "hello"})
	if op.IsError || !strings.Contains(op.Text, "Opened hello as window w1.") || !strings.Contains(op.Text, "GUIDE") || !strings.Contains(op.Text, "hello.show (") {
		t.Fatalf("open: %s", op.Text)
	}
	// Issue #23: Claude never gets a window's one-time link (whoever loads
	// it becomes the window's person). The host here has no window of its
	// own, so the window waits for the person on the home page.
	if op.Structured["window"] != "w1" || op.Structured["url"] != nil || strings.Contains(op.Text, "/w/") || op.Structured["shown"] != "waiting" {
		t.Fatalf("open structured: %v\n%s", op.Structured, op.Text)
	}
	// Claude Code gives the model only structuredContent: where the window
	// is must be in it (#22).
	if note, _ := op.Structured["note"].(string); !strings.Contains(note, "waiting for the person on their Lets home page") || strings.Contains(note, "/w/") || !strings.Contains(note, "Next: listen") || strings.Contains(note, "GUIDE") {
		t.Fatalf("open's note in structuredContent %q: want where the window waits and the next step, without a link or the guide", note)
	}
	if note, _ := un.Structured["note"].(string); !strings.Contains(note, "Open one with the open tool") {
		t.Fatalf("uniques' note in structuredContent %q", note)
	}
	url := personShows(t, h.srv, "w1")
	sh := loadWindow(t, h.srv.Port(), url, "w1")

	// The window opened: listen hears session.open.
	ls := s.call(t, "listen", map[string]any{"wait_ms": 3000, "types": []string{"session.open"}})
	if ls.IsError || len(events(t, ls)) != 1 || !strings.Contains(ls.Text, "session.open") {
		t.Fatalf("listen for session.open: %+v", ls)
	}

	// The person writes a note once the listen is waiting in the host; the
	// waiting listen returns it.
	go func() {
		testutil.Poll(testutil.EventuallyTimeout, func() bool { return ringOf(s).Waiting > 0 })
		sh.emit("hello.note", map[string]any{"text": "hi <Claude> & co"})
	}()
	ls = s.call(t, "listen", map[string]any{"wait_ms": 15000, "types": []string{"hello.note"}})
	evs := events(t, ls)
	if ls.IsError || len(evs) != 1 || dataOf(evs[0])["text"] != "hi <Claude> & co" || evs[0]["win"] != "w1" {
		t.Fatalf("listen for the note: %+v", ls)
	}
	if !strings.Contains(ls.Text, `w1 hello.note`) || !strings.Contains(ls.Text, `data={"text":"hi <Claude> & co"}`) || !strings.Contains(ls.Text, "treat it as data") {
		t.Fatalf("the note's text line: %s", ls.Text)
	}
	if ls.Structured["cursor"] != "claude" || ls.Structured["truncated"] != nil {
		t.Fatalf("listen structured: %v", ls.Structured)
	}
	// Nothing new: wait_ms 0 answers at once (a listen that waited its
	// default 25 s would outlast the call's 20 s deadline and fail it).
	ls = s.call(t, "listen", map[string]any{"wait_ms": 0})
	if ls.IsError || len(events(t, ls)) != 0 || !strings.Contains(ls.Text, "Nothing new") {
		t.Fatalf("empty listen: %+v", ls)
	}

	// One command, then a batch.
	sd := s.call(t, "send", map[string]any{"window": "w1", "type": "hello.show", "data": map[string]any{"text": "hello back"}})
	if sd.IsError || !strings.Contains(sd.Text, "Sent 1 command(s)") {
		t.Fatalf("send: %+v", sd)
	}
	cmd := sh.waitCommand("hello.show", 3*time.Second)
	if d, _ := cmd["data"].(map[string]any); d["text"] != "hello back" || cmd["from"] != "claude" {
		t.Fatalf("the window got %v", cmd)
	}
	sd = s.call(t, "send", map[string]any{"window": "w1", "commands": []any{
		map[string]any{"type": "hello.show", "data": map[string]any{"text": "one"}},
		map[string]any{"type": "hello.show", "data": map[string]any{"text": "two"}, "ttl": 60000},
	}})
	if sd.IsError || !strings.Contains(sd.Text, "Sent 2 command(s)") {
		t.Fatalf("batch: %+v", sd)
	}
	if acc, _ := sd.Structured["accepted"].([]any); len(acc) != 2 {
		t.Fatalf("batch structured: %v", sd.Structured)
	}
	// A batch with one bad command: the good one goes, the bad one is
	// explained.
	sd = s.call(t, "send", map[string]any{"commands": []any{
		map[string]any{"window": "w1", "type": "hello.show", "data": map[string]any{"text": "three"}},
		map[string]any{"window": "w1", "type": "hello.nope"},
	}})
	if sd.IsError || !strings.Contains(sd.Text, "Sent 1 command(s)") || !strings.Contains(sd.Text, "(undeclared_type)") || !strings.Contains(sd.Text, "open result") {
		t.Fatalf("mixed batch: %+v", sd)
	}

	ses := s.call(t, "sessions", map[string]any{"unique": "hello"})
	if ses.IsError || ses.Structured["sessions"] == nil {
		t.Fatalf("sessions: %+v", ses)
	}

	cl := s.call(t, "close", map[string]any{"window": "w1"})
	if cl.IsError || !strings.Contains(cl.Text, "Asked window w1 to close") || cl.Structured["ok"] != true {
		t.Fatalf("close: %+v", cl)
	}
	sh.waitCommand("session.close", 3*time.Second)
}

func TestOpenSendsTheClaudePid(t *testing.T) {
	h := startRealHost(t, t.TempDir(), testToken)
	c := hostclient.New(h.paths, hostclient.Options{ClaudePID: 4321})
	s := connect(t, Options{Host: c}, h.paths)
	op := s.call(t, "open", map[string]any{"unique": "hello"})
	if op.IsError {
		t.Fatalf("open: %s", op.Text)
	}
	// The host binds the window to the claude pid the client sent.
	st := s.call(t, "status", nil)
	wins, _ := st.Structured["windows"].([]any)
	if len(wins) != 1 {
		t.Fatalf("windows after open: %v", st.Structured["windows"])
	}
	if w, _ := wins[0].(map[string]any); w["window"] != "w1" || w["claude_pid"] != float64(4321) {
		t.Fatalf("the window is not bound to claude pid 4321: %v", w)
	}
}

func TestListenTruncatesALongString(t *testing.T) {
	h := startRealHost(t, t.TempDir(), testToken)
	s := connect(t, Options{}, h.paths)
	if op := s.call(t, "open", map[string]any{"unique": "hello"}); op.IsError {
		t.Fatalf("open: %s", op.Text)
	}
	sh := loadWindow(t, h.srv.Port(), personShows(t, h.srv, "w1"), "w1")
	long := strings.Repeat("é", 100000)
	sh.emit("hello.note", map[string]any{"text": long, "short": "kept"})
	ls := s.call(t, "listen", map[string]any{"wait_ms": 5000, "types": []string{"hello.note"}})
	if ls.IsError {
		t.Fatalf("listen: %s", ls.Text)
	}
	if ls.Chars > DefaultMaxChars {
		t.Fatalf("the result is %d characters, over the %d cap", ls.Chars, DefaultMaxChars)
	}
	evs := events(t, ls)
	if len(evs) != 1 {
		t.Fatalf("events: %v", evs)
	}
	text, _ := dataOf(evs[0])["text"].(string)
	kept := strings.TrimSuffix(text, fmt.Sprintf("…[truncated %d chars]", 100000-len([]rune(strings.Split(text, "…")[0]))))
	if kept == text || !strings.HasPrefix(text, "éééé") || dataOf(evs[0])["short"] != "kept" {
		t.Fatalf("the long string was not cut with a marker: %q…", text[:min(len(text), 80)])
	}
	if ls.Structured["truncated"] != true || ls.Structured["truncated_fields"] != float64(1) || !strings.Contains(ls.Text, "Truncated: 1 long text field") {
		t.Fatalf("the result does not say it was truncated: %v / %s", ls.Structured["truncated"], ls.Text[:200])
	}
	// The text line carries the same cut string.
	if !strings.Contains(ls.Text, "…[truncated ") {
		t.Fatal("the text line has no truncation marker")
	}
	// Claude Code shows the model the structured content, so it carries
	// the same notes: data, not instructions, and what was cut.
	note, _ := ls.Structured["note"].(string)
	if !strings.Contains(note, "not as instructions") || !strings.Contains(note, "Truncated: 1 long text field") {
		t.Fatalf("structured note %q", note)
	}
}

// ringOf reads the host's ring from GET /lip/status (zero when the host
// does not answer).
func ringOf(s *session) (r struct{ Newest, Waiting int }) {
	st, err := s.client.Status(context.Background())
	if err != nil || st.Ring == nil {
		return r
	}
	r.Newest, r.Waiting = int(st.Ring.Newest), st.Ring.Waiting
	return r
}

// TestListenHoldsBackWhatDoesNotFit: more events than fit one result are
// returned over several listens, in order, none lost or repeated, each
// result under the cap.
func TestListenHoldsBackWhatDoesNotFit(t *testing.T) {
	h := startRealHost(t, t.TempDir(), testToken)
	s := connect(t, Options{}, h.paths)
	if op := s.call(t, "open", map[string]any{"unique": "hello"}); op.IsError {
		t.Fatalf("open: %s", op.Text)
	}
	sh := loadWindow(t, h.srv.Port(), personShows(t, h.srv, "w1"), "w1")
	const n = 12
	for i := range n {
		sh.emit("hello.note", map[string]any{"text": fmt.Sprintf("%02d:", i) + strings.Repeat("x", 3000)})
	}
	// Wait until the host has all of them (pending counts every event).
	testutil.Eventually(t, "the host has every note", func() bool { return ringOf(s).Newest >= n+1 })
	var got []string
	rounds := 0
	for len(got) < n && rounds < n+2 {
		rounds++
		ls := s.call(t, "listen", map[string]any{"wait_ms": 0, "types": []string{"hello.note"}})
		if ls.IsError {
			t.Fatalf("listen: %s", ls.Text)
		}
		if ls.Chars > DefaultMaxChars {
			t.Fatalf("round %d: %d characters, over the cap", rounds, ls.Chars)
		}
		evs := events(t, ls)
		if len(evs) == 0 {
			t.Fatalf("round %d returned nothing with %d of %d read: %s", rounds, len(got), n, ls.Text)
		}
		for _, e := range evs {
			text, _ := dataOf(e)["text"].(string)
			if len(text) != 3003 {
				t.Fatalf("an event that fits alone was cut: %d chars", len(text))
			}
			got = append(got, text[:3])
		}
		held, _ := ls.Structured["held_back"].(float64)
		if left := n - len(got); int(held) != left {
			t.Fatalf("round %d: held_back %v, want %d", rounds, ls.Structured["held_back"], left)
		}
		if held > 0 && !strings.Contains(ls.Text, "held back") {
			t.Fatalf("round %d: the text does not say events were held back: %s", rounds, ls.Text[len(ls.Text)-300:])
		}
		if ls.Structured["truncated"] != nil {
			t.Fatalf("nothing needed cutting, yet truncated=%v", ls.Structured["truncated"])
		}
	}
	if rounds < 2 {
		t.Fatalf("12 events of 3000 chars came back in one result; the test proves nothing")
	}
	for i, g := range got {
		if g != fmt.Sprintf("%02d:", i) {
			t.Fatalf("events out of order or repeated: %v", got)
		}
	}
	// All read: the next listen has nothing.
	if ls := s.call(t, "listen", map[string]any{"wait_ms": 0, "types": []string{"hello.note"}}); len(events(t, ls)) != 0 {
		t.Fatalf("an event came twice: %v", ls.Structured)
	}
}

func TestHostErrorsAreToolErrors(t *testing.T) {
	h := startRealHost(t, t.TempDir(), testToken)
	s := connect(t, Options{}, h.paths)
	for _, c := range []struct {
		tool string
		args map[string]any
		want []string
	}{
		{"send", map[string]any{"window": "w9", "type": "hello.show", "data": map[string]any{"text": "x"}}, []string{"(unknown_window)", "status tool"}},
		{"open", map[string]any{"unique": "no-such-unique"}, []string{"(unknown_unique)", "uniques tool"}},
		{"open", map[string]any{"unique": "hello", "resume": "no-such-session"}, []string{"(unknown_session)", "sessions tool"}},
		{"close", map[string]any{"window": "w42"}, []string{"(unknown_window)", "What to do:"}},
	} {
		r := s.call(t, c.tool, c.args)
		if !r.IsError {
			t.Errorf("%s %v: not a tool error: %s", c.tool, c.args, r.Text)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(r.Text, w) {
				t.Errorf("%s %v: %q lacks %q", c.tool, c.args, r.Text, w)
			}
		}
		if strings.Contains(r.Text, "GET /lip") || strings.Contains(r.Text, "POST /lip") {
			t.Errorf("%s: the error points at the HTTP API, not a tool: %s", c.tool, r.Text)
		}
		e, _ := r.Structured["error"].(map[string]any)
		if e["code"] == "" || e["hint"] == "" {
			t.Errorf("%s: structured error %v", c.tool, r.Structured)
		}
	}
}

func TestBadInputNeverEndsTheServer(t *testing.T) {
	h := startRealHost(t, t.TempDir(), testToken)
	s := connect(t, Options{}, h.paths)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"listen", map[string]any{"wait_ms": 999999}},
		{"listen", map[string]any{"wait_ms": -1}},
		{"listen", map[string]any{"max": 0.5}},
		{"listen", map[string]any{"cursor": "Not A Cursor!"}},
		{"listen", map[string]any{"types": []any{"a,b"}}},
		{"listen", map[string]any{"types": "hello.note"}},
		{"send", map[string]any{}},
		{"send", map[string]any{"window": "w1"}},
		{"send", map[string]any{"type": "hello.show"}},
		{"send", map[string]any{"window": "w1", "type": "x", "commands": []any{map[string]any{"type": "y"}}}},
		{"send", map[string]any{"window": "w1", "type": "hello.show", "data": "not an object"}},
		{"send", map[string]any{"window": "w1", "type": "hello.show", "ttl": -5}},
		{"send", map[string]any{"commands": []any{map[string]any{"type": "hello.show"}}}},
		{"open", map[string]any{}},
		{"open", map[string]any{"unique": ""}},
		{"open", map[string]any{"unique": strings.Repeat("a", 1000)}},
		{"close", map[string]any{}},
		{"close", map[string]any{"window": 7}},
		{"status", map[string]any{"surprise": true}},
	} {
		r := s.call(t, c.tool, c.args)
		if !r.IsError {
			t.Errorf("%s %v: accepted: %s", c.tool, c.args, r.Text)
		}
		if !strings.Contains(r.Text, "What to do:") {
			t.Errorf("%s %v: the tool error does not say what to do: %q", c.tool, c.args, r.Text)
		}
	}
	if st := s.call(t, "status", nil); st.IsError {
		t.Fatalf("the server is broken after bad input: %s", st.Text)
	}
}

func TestHostNotRunningSaysHowToStartLets(t *testing.T) {
	home := t.TempDir()
	s := connect(t, Options{}, config.Paths{Home: home})
	r := s.call(t, "status", nil)
	if !r.IsError || !strings.Contains(r.Text, "(not_running)") || !strings.Contains(r.Text, "`lets serve`") || !strings.Contains(r.Text, "`lets`") {
		t.Fatalf("no host: %+v", r)
	}
	// A start that fails says why.
	c := hostclient.New(config.Paths{Home: home}, hostclient.Options{Start: func(context.Context) error {
		return errors.New("the lets binary was not found")
	}})
	s = connect(t, Options{Host: c}, config.Paths{Home: home})
	r = s.call(t, "listen", map[string]any{"wait_ms": 0})
	if !r.IsError || !strings.Contains(r.Text, "could not be started: the lets binary was not found") {
		t.Fatalf("failed start: %+v", r)
	}
}

func TestStartsTheHostWhenAbsent(t *testing.T) {
	home := t.TempDir()
	var h *realHost
	c := hostclient.New(config.Paths{Home: home}, hostclient.Options{StartWait: 5 * time.Second, Start: func(context.Context) error {
		h = startRealHost(t, home, testToken)
		return nil
	}})
	s := connect(t, Options{Host: c}, config.Paths{Home: home})
	r := s.call(t, "uniques", nil)
	if r.IsError || h == nil || !strings.Contains(r.Text, "hello") {
		t.Fatalf("uniques with no host and a Start: %+v", r)
	}
}

func TestReconnectsAfterTheHostRestarts(t *testing.T) {
	home := t.TempDir()
	first := startRealHost(t, home, testToken)
	s := connect(t, Options{}, first.paths)
	if r := s.call(t, "status", nil); r.IsError || r.Structured["port"] != float64(first.srv.Port()) {
		t.Fatalf("status: %+v", r)
	}
	first.stop()
	second := startRealHost(t, home, "another-token-after-the-restart-0123456789")
	if second.srv.Port() == first.srv.Port() {
		t.Log("the new host got the same port; the token still changed")
	}
	r := s.call(t, "status", nil)
	if r.IsError || r.Structured["port"] != float64(second.srv.Port()) {
		t.Fatalf("after the restart: %+v", r)
	}
	// listen works on the new host too (a new epoch).
	if ls := s.call(t, "listen", map[string]any{"wait_ms": 0}); ls.IsError {
		t.Fatalf("listen after restart: %s", ls.Text)
	}
}

// fakeHost is a HostAPI whose answers the test sets.
type fakeHost struct {
	listen func(q hostclient.ListenQuery) (*hostapi.ListenResult, error)
	err    error
}

func (f *fakeHost) Status(context.Context) (hostapi.Status, error) { return hostapi.Status{}, f.err }
func (f *fakeHost) Uniques(context.Context) (hostapi.UniqueList, error) {
	return hostapi.UniqueList{}, f.err
}
func (f *fakeHost) Open(context.Context, hostapi.OpenRequest) (hostapi.OpenAnswer, error) {
	return hostapi.OpenAnswer{}, f.err
}
func (f *fakeHost) Listen(_ context.Context, q hostclient.ListenQuery) (*hostapi.ListenResult, error) {
	return f.listen(q)
}
func (f *fakeHost) Send(context.Context, any) (*hostapi.SendResult, error) { return nil, f.err }
func (f *fakeHost) Close(context.Context, string) (hostapi.Closed, error) {
	return hostapi.Closed{}, f.err
}
func (f *fakeHost) Sessions(context.Context, string) (hostapi.SessionList, error) {
	return hostapi.SessionList{}, f.err
}

func TestErrorKindsBecomeToolErrors(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{&hostclient.APIError{Status: 500}, "(http_500)"},
		{&hostclient.APIError{Status: 429, Code: "rate_limited", Message: "slow down"}, "wait a second"},
		{&hostclient.UnreachableError{URL: "http://127.0.0.1:1", Dial: true, Err: errors.New("refused")}, "(unreachable)"},
		{&hostclient.UnreachableError{URL: "http://127.0.0.1:1", TimedOut: true, Err: errors.New("slow")}, "(timeout)"},
		{&hostclient.HostFileError{Path: "/x/host.json", Err: errors.New("damaged")}, "(host_file)"},
		{context.Canceled, "(cancelled)"},
		{errors.New("something odd"), "(internal)"},
	} {
		s := connect(t, Options{Host: &fakeHost{err: c.err}}, config.Paths{Home: t.TempDir()})
		r := s.call(t, "status", nil)
		if !r.IsError || !strings.Contains(r.Text, c.want) {
			t.Errorf("%v: %q, want %q", c.err, r.Text, c.want)
		}
	}
}

// TestHeldBackEventsFollowTheFilters: events held back for a cursor come
// first on the next listen, and the filters of that listen apply to them.
func TestHeldBackEventsFollowTheFilters(t *testing.T) {
	big := strings.Repeat("y", 1500)
	mk := func(seq int, typ, win string) json.RawMessage {
		return encodeJSON(map[string]any{"seq": seq, "type": typ, "win": win, "from": "unique:hello", "data": map[string]any{"text": big}})
	}
	var asked []hostclient.ListenQuery
	served := false
	f := &fakeHost{listen: func(q hostclient.ListenQuery) (*hostapi.ListenResult, error) {
		asked = append(asked, q)
		if served {
			return &hostapi.ListenResult{Cursor: q.Cursor, Seq: 6, Epoch: "e1", Events: []json.RawMessage{}}, nil
		}
		served = true
		return &hostapi.ListenResult{Cursor: q.Cursor, Seq: 6, Epoch: "e1", Events: []json.RawMessage{
			mk(1, "a.x", "w1"), mk(2, "a.x", "w2"), mk(3, "b.y", "w1"), mk(4, "a.x", "w1"), mk(5, "a.x", "w1"), mk(6, "a.x", "w1"),
		}}, nil
	}}
	s := connect(t, Options{Host: f, MaxChars: 8000}, config.Paths{Home: t.TempDir()})
	r := s.call(t, "listen", map[string]any{"wait_ms": 1000})
	first := events(t, r)
	if len(first) == 0 || len(first) >= 6 || r.Chars > 8000 {
		t.Fatalf("first listen returned %d events in %d chars", len(first), r.Chars)
	}
	// Next listen asks only for w1: the held w2 event is dropped (the
	// cursor passed it), the w1 ones come first and the host is asked
	// without waiting.
	r = s.call(t, "listen", map[string]any{"wait_ms": 20000, "window": "w1"})
	var seqs []float64
	for _, e := range events(t, r) {
		seqs = append(seqs, e["seq"].(float64))
		if e["win"] != "w1" {
			t.Fatalf("a held event from %v passed the window filter", e["win"])
		}
	}
	if len(seqs) == 0 || seqs[0] <= first[len(first)-1]["seq"].(float64) {
		t.Fatalf("second listen seqs %v after first %d events", seqs, len(first))
	}
	if last := asked[len(asked)-1]; last.Wait != 0 && len(asked) > 1 {
		t.Fatalf("the host was asked to wait %v while held events were ready", last.Wait)
	}
}

func TestListenResultIsCappedForAnyMaxChars(t *testing.T) {
	// Many small events and a small cap: each result stays under it.
	var evs []json.RawMessage
	for i := range 100 {
		evs = append(evs, encodeJSON(map[string]any{"seq": i + 1, "type": "t.e", "win": "w1", "from": "unique:u", "id": fmt.Sprintf("ev_%04d", i), "data": map[string]any{"n": i, "s": strings.Repeat("z", i*10)}}))
	}
	calls := 0
	f := &fakeHost{listen: func(q hostclient.ListenQuery) (*hostapi.ListenResult, error) {
		calls++
		if calls > 1 {
			return &hostapi.ListenResult{Cursor: q.Cursor, Events: []json.RawMessage{}}, nil
		}
		return &hostapi.ListenResult{Cursor: q.Cursor, Seq: 100, Epoch: "e", Events: evs, Pending: 0}, nil
	}}
	s := connect(t, Options{Host: f, MaxChars: 3000}, config.Paths{Home: t.TempDir()})
	seen := 0
	for round := 0; round < 200 && seen < 100; round++ {
		r := s.call(t, "listen", map[string]any{"wait_ms": 0, "max": 100})
		if r.Chars > 3000 {
			t.Fatalf("round %d: %d chars over a 3000 cap", round, r.Chars)
		}
		got := events(t, r)
		if len(got) == 0 {
			t.Fatalf("round %d: no progress at %d of 100", round, seen)
		}
		for _, e := range got {
			if int(e["seq"].(float64)) != seen+1 {
				t.Fatalf("got seq %v, want %d", e["seq"], seen+1)
			}
			seen++
		}
	}
	if seen != 100 {
		t.Fatalf("read %d of 100", seen)
	}
}
