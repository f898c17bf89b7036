package uniques_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/lets-app/lets/backend/host"
	"github.com/lets-app/lets/backend/testenv/browsertest"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/uniques"
)

// These tests drive the chat unique through a real host: Claude's side is
// the privileged API (POST /lip/open, GET /lip/listen, POST /lip/send with
// the host token), the human's side is headless Chromium on the window's
// shell page, with the unique in its iframe on its own origin.

const chatToken = "chat-test-host-token-0123456789abcdefghijkl"

// chatEnv is an envelope as listen returns it.
type chatEnv struct {
	ID   string          `json:"id"`
	Type string          `json:"type"`
	From string          `json:"from"`
	Win  string          `json:"win"`
	Re   string          `json:"re"`
	Seq  uint64          `json:"seq"`
	Data json.RawMessage `json:"data"`
}

func (e chatEnv) data(t *testing.T) map[string]any {
	t.Helper()
	m := map[string]any{}
	if err := json.Unmarshal(e.Data, &m); err != nil {
		t.Fatalf("%s data: %v", e.Type, err)
	}
	return m
}

// chatHost is a real host with the built-in uniques, and Claude's view
// of it: every up-event read so far, in order.
type chatHost struct {
	srv  *host.Server
	home string
	seen []chatEnv
	used map[int]bool
	// script records the conversation as Claude and the human drove it.
	script []string
}

func startChatHost(t *testing.T) *chatHost {
	t.Helper()
	home := t.TempDir()
	s, err := host.Listen(host.Options{Token: chatToken, Version: "0.1.0", DataDir: home, Handoff: "close", OnOpen: testLaunches.Take})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(testutil.EventuallyTimeout):
		}
	})
	return &chatHost{srv: s, home: home, used: map[int]bool{}}
}

func (h *chatHost) api(t *testing.T, method, path string, body any) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		data, _ := json.Marshal(body)
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, h.srv.URL()+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+chatToken)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, data
}

type chatOpened struct {
	Window   string            `json:"window"`
	URL      string            `json:"url"`
	Guide    string            `json:"guide"`
	Events   map[string]string `json:"events"`
	Commands map[string]string `json:"commands"`
	Session  *struct {
		ID string `json:"id"`
	} `json:"session"`
}

// open is Claude's open tool: POST /lip/open {unique: "chat", resume?}.
func (h *chatHost) open(t *testing.T, resume string) chatOpened {
	t.Helper()
	body := map[string]any{"unique": "chat"}
	if resume != "" {
		body["resume"] = resume
	}
	code, raw := h.api(t, "POST", "/lip/open", body)
	if code != 200 {
		t.Fatalf("open: %d %s", code, raw)
	}
	var o chatOpened
	if err := json.Unmarshal(raw, &o); err != nil || o.Window == "" || o.URL != "" {
		t.Fatalf("open answer %s: %v (the answer to Claude never holds the window's URL)", raw, err)
	}
	o.URL = testLaunches.URL(t, h.srv.URL(), o.Window)
	h.note("claude: open chat%s → %s", map[bool]string{true: " (resume " + resume + ")", false: ""}[resume != ""], o.Window)
	return o
}

func (h *chatHost) note(format string, args ...any) {
	h.script = append(h.script, fmt.Sprintf(format, args...))
}

// send is Claude's send tool; it returns the accepted ids.
func (h *chatHost) send(t *testing.T, win, typ string, data map[string]any, re string) string {
	t.Helper()
	env := map[string]any{"lip": 1, "type": typ, "win": win, "data": data}
	if re != "" {
		env["re"] = re
	}
	ids := h.sendRaw(t, env)
	what := typ
	if text, ok := data["text"].(string); ok {
		what += fmt.Sprintf(" %q", text)
	}
	h.note("claude: send %s", what)
	return ids[0]
}

func (h *chatHost) sendRaw(t *testing.T, body any) []string {
	t.Helper()
	code, raw := h.api(t, "POST", "/lip/send", body)
	var ans struct {
		Accepted []string `json:"accepted"`
		Rejected []struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"rejected"`
	}
	_ = json.Unmarshal(raw, &ans)
	if code != 200 || len(ans.Rejected) > 0 || len(ans.Accepted) == 0 {
		data, _ := json.Marshal(body)
		t.Fatalf("send %s: %d %s", clip(string(data), 300), code, raw)
	}
	return ans.Accepted
}

// listen is Claude's listen tool with the claude cursor; what it reads is
// kept, so waitFor can pick events in any order.
func (h *chatHost) listen(t *testing.T, wait time.Duration) {
	t.Helper()
	code, raw := h.api(t, "GET", fmt.Sprintf("/lip/listen?cursor=claude&wait_ms=%d&max=100", wait.Milliseconds()), nil)
	if code != 200 {
		t.Fatalf("listen: %d %s", code, raw)
	}
	var ans struct {
		Events []chatEnv `json:"events"`
	}
	if err := json.Unmarshal(raw, &ans); err != nil {
		t.Fatalf("listen answer %s: %v", raw, err)
	}
	h.seen = append(h.seen, ans.Events...)
}

// waitFor returns the first unread event of type typ that ok accepts
// (nil accepts any), listening for up to 20 s.
func (h *chatHost) waitFor(t *testing.T, typ string, ok func(map[string]any) bool) chatEnv {
	t.Helper()
	var found *chatEnv
	match := func() bool {
		for i, e := range h.seen {
			if h.used[i] || e.Type != typ {
				continue
			}
			if ok != nil && !ok(e.data(t)) {
				continue
			}
			h.used[i] = true
			who := "human"
			if strings.HasPrefix(e.From, "host") {
				who = "host"
			}
			h.note("%s: %s from %s %s", who, e.Type, e.From, clip(string(e.Data), 160))
			found = &e
			return true
		}
		return false
	}
	// Each look listens (long-polling up to 2 s) before matching again.
	if !match() && !testutil.Poll(testutil.EventuallyTimeout, func() bool { h.listen(t, 2*time.Second); return match() }) {
		var types []string
		for _, e := range h.seen {
			types = append(types, e.Type)
		}
		t.Fatalf("no %s event within %v; seen %v", typ, testutil.EventuallyTimeout, types)
	}
	return *found
}

// unread lists the types of events not taken by waitFor yet.
func (h *chatHost) unread() []string {
	var out []string
	for i, e := range h.seen {
		if !h.used[i] {
			out = append(out, e.Type)
		}
	}
	return out
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// chatFrames finds the unique's JavaScript world inside the shell page.
type chatFrames struct {
	mu     sync.Mutex
	byOrig map[string]string
}

func watchChatFrames(ctx context.Context) *chatFrames {
	f := &chatFrames{byOrig: map[string]string{}}
	chromedp.ListenTarget(ctx, func(ev any) {
		if e, ok := ev.(*runtime.EventExecutionContextCreated); ok {
			var aux struct {
				IsDefault bool `json:"isDefault"`
			}
			_ = json.Unmarshal(e.Context.AuxData, &aux)
			if aux.IsDefault {
				f.mu.Lock()
				f.byOrig[e.Context.Origin] = e.Context.UniqueID
				f.mu.Unlock()
			}
		}
	})
	return f
}

// eval runs expr in the unique's page (awaiting a promise).
func (f *chatFrames) eval(t *testing.T, ctx context.Context, origin, expr string, out any) {
	t.Helper()
	var id string
	testutil.Eventually(t, "the unique's JavaScript world at "+origin+" exists", func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		id = f.byOrig[origin]
		return id != ""
	})
	err := chromedp.Run(ctx, chromedp.ActionFunc(func(ctx context.Context) error {
		res, exc, err := runtime.Evaluate(expr).WithUniqueContextID(id).WithAwaitPromise(true).WithReturnByValue(true).Do(ctx)
		if err != nil {
			return err
		}
		if exc != nil {
			return fmt.Errorf("%s: %s", exc.Text, exc.Exception.Description)
		}
		if out != nil && res != nil {
			return json.Unmarshal(res.Value, out)
		}
		return nil
	}))
	if err != nil {
		t.Fatalf("in the unique, %s: %v", expr, err)
	}
}

// until polls a boolean expression in the unique.
func (f *chatFrames) until(t *testing.T, ctx context.Context, origin, expr string) {
	t.Helper()
	if testutil.Poll(testutil.EventuallyTimeout, func() bool {
		var ok bool
		f.eval(t, ctx, origin, "!!("+expr+")", &ok)
		return ok
	}) {
		return
	}
	var status string
	f.eval(t, ctx, origin, `document.getElementById("status").textContent`, &status)
	t.Fatalf("in the unique, %s never became true (status %q)", expr, status)
}

// shellUntil polls a boolean expression in the shell page.
func shellUntil(t *testing.T, ctx context.Context, expr string) {
	t.Helper()
	if testutil.Poll(testutil.EventuallyTimeout, func() bool {
		var ok bool
		if err := chromedp.Run(ctx, chromedp.Evaluate("!!("+expr+")", &ok)); err != nil {
			t.Fatal(err)
		}
		return ok
	}) {
		return
	}
	var log string
	_ = chromedp.Run(ctx, chromedp.Evaluate(`document.getElementById("lets-chat-log")?.innerText ?? ""`, &log))
	t.Fatalf("in the shell, %s never became true; the chat shows:\n%s", expr, log)
}

func shellEval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	var v T
	if err := chromedp.Run(ctx, chromedp.Evaluate(expr, &v)); err != nil {
		t.Fatalf("in the shell, %s: %v", expr, err)
	}
	return v
}

// openChatPage loads a window's one-time URL and waits for the docked
// chat; it returns the unique's origin.
func openChatPage(t *testing.T, ctx context.Context, f *chatFrames, url string) string {
	t.Helper()
	err := chromedp.Run(ctx,
		chromedp.Navigate(url),
		chromedp.WaitVisible(`#lets-shell[data-state="online"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#lets-chat[data-docked="true"] #lets-chat-input`, chromedp.ByQuery),
	)
	if err != nil {
		t.Fatalf("the chat window did not come up: %v", err)
	}
	origin := shellEval[string](t, ctx, `new URL(document.getElementById("lets-unique").src).origin`)
	f.until(t, ctx, origin, `document.getElementById("status") && window.lip`)
	return origin
}

// chatTexts is the text of every turn in the shell's chat log (not the
// welcome line).
const chatTexts = `Array.from(document.querySelectorAll("#lets-chat-log > .chat-msg")).map((e) => e.innerText.trim())`

// TestBrowserChatEvents: each declared event and command of the chat
// unique, and the docked chat it asks the shell for, end to end through a
// real host in Chromium (dark): command in → DOM result, human act →
// envelope out.
func TestBrowserChatEvents(t *testing.T) {
	h := startChatHost(t)
	win := h.open(t, "")
	if !strings.Contains(win.Guide, "chat.say") || win.Events["talk.export"] == "" || win.Commands["talk.load"] == "" {
		t.Fatalf("open answer lacks the guide or the declarations: %+v", win)
	}
	ctx := browsertest.New(t, browsertest.Options{Width: 900, Height: 720, Timeout: 150 * time.Second})
	f := watchChatFrames(ctx)
	// Dark, and the system asks for less motion.
	err := chromedp.Run(ctx, emulation.SetEmulatedMedia().WithFeatures([]*emulation.MediaFeature{
		{Name: "prefers-color-scheme", Value: "dark"}, {Name: "prefers-reduced-motion", Value: "reduce"},
	}))
	if err != nil {
		t.Fatal(err)
	}
	origin := openChatPage(t, ctx, f, win.URL)

	t.Run("docked", func(t *testing.T) {
		// The chat is the main view: no toggle, no close button, the page a
		// 56 px band above it, focus in the input, the companion's welcome
		// line and four starter chips.
		got := shellEval[map[string]any](t, ctx, `({
			toggle: getComputedStyle(document.getElementById("lets-chat-toggle")).display,
			close: document.querySelector("#lets-chat .chat-head button").hidden,
			band: document.getElementById("lets-unique").clientHeight,
			chatTop: document.getElementById("lets-chat").getBoundingClientRect().top,
			frameBottom: document.getElementById("lets-unique").getBoundingClientRect().bottom,
			focus: document.activeElement && document.activeElement.id,
			welcome: document.querySelector(".chat-intro .chat-msg.companion")?.innerText ?? "",
			chips: Array.from(document.querySelectorAll(".chat-suggest .chat-chip")).map((b) => b.textContent),
			bg: getComputedStyle(document.getElementById("lets-shell")).backgroundColor,
		})`)
		if got["toggle"] != "none" || got["close"] != true || got["band"] != 56.0 || got["chatTop"].(float64) < got["frameBottom"].(float64) {
			t.Errorf("layout %v", got)
		}
		if got["focus"] != "lets-chat-input" {
			t.Errorf("focus on %v, want the chat input", got["focus"])
		}
		if !strings.Contains(got["welcome"].(string), "Claude is right here") || len(got["chips"].([]any)) != 4 {
			t.Errorf("welcome %q chips %v", got["welcome"], got["chips"])
		}
		if got["bg"] != "rgb(18, 19, 22)" {
			t.Errorf("dark shell background %v", got["bg"])
		}
		var band string
		f.eval(t, ctx, origin, `getComputedStyle(document.body).backgroundColor`, &band)
		if band != "rgb(18, 19, 22)" {
			t.Errorf("the band is %s in dark mode, want the shell's rgb(18, 19, 22)", band)
		}
		// Reduced motion: the chips and the band's buttons do not animate.
		chip := shellEval[string](t, ctx, `getComputedStyle(document.querySelector(".chat-chip")).transitionDuration`)
		var button string
		f.eval(t, ctx, origin, `getComputedStyle(document.getElementById("handoff")).transitionDuration`, &button)
		if chip != "0.001s" || button != "0s" {
			t.Errorf("with reduced motion: chip transition %s, band button %s", chip, button)
		}
		// The first view: the companion's welcome line and the starter chips.
		browsertest.Screenshot(t, ctx, "chat-unique-dark.png")
	})

	t.Run("ui.toast stays clear of the input", func(t *testing.T) {
		h.send(t, win.Window, "ui.toast", map[string]any{"text": "Saved your trip notes", "level": "ok"}, "")
		shellUntil(t, ctx, `document.querySelector(".toast")?.getAnimations().every((a) => a.playState === "finished")`)
		got := shellEval[map[string]float64](t, ctx, `(() => {
			const r = document.querySelector(".toast").getBoundingClientRect();
			const f = document.querySelector("#lets-chat .chat-form").getBoundingClientRect();
			return {right: r.right, bottom: r.bottom, width: innerWidth, formTop: f.top};
		})()`)
		if got["right"] < got["width"]-40 || got["bottom"] > got["formTop"] {
			t.Errorf("toast %v: want it at the right, above the input", got)
		}
	})

	t.Run("narrow window", func(t *testing.T) {
		// A phone-narrow window (or a big zoom): everything stays reachable.
		err := chromedp.Run(ctx, emulation.SetDeviceMetricsOverride(380, 640, 1, false))
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = chromedp.Run(ctx, emulation.ClearDeviceMetricsOverride()) }()
		got := shellEval[map[string]float64](t, ctx, `(() => {
			const r = (s) => document.querySelector(s).getBoundingClientRect();
			return {w: innerWidth, h: innerHeight, input: r("#lets-chat-input").right, send: r("#lets-chat .send").right,
				sendBottom: r("#lets-chat .send").bottom, frame: r("#lets-unique").width, scroll: document.documentElement.scrollWidth};
		})()`)
		if got["send"] > got["w"] || got["sendBottom"] > got["h"] || got["scroll"] > got["w"] || got["frame"] > got["w"] {
			t.Errorf("narrow layout %v", got)
		}
		var band map[string]float64
		f.eval(t, ctx, origin, `(() => { const b = document.getElementById("handoff").getBoundingClientRect(); return {right: b.right, width: innerWidth, scroll: document.documentElement.scrollWidth}; })()`, &band)
		if band["right"] > band["width"] || band["scroll"] > band["width"] {
			t.Errorf("narrow band %v", band)
		}
		browsertest.Screenshot(t, ctx, "chat-unique-narrow.png")
	})

	t.Run("talk.welcome", func(t *testing.T) {
		h.send(t, win.Window, "talk.welcome", map[string]any{"text": "Hi Sam! Shall we sort out the trip?", "suggestions": []string{"Find trains to Lyon", "Make a packing list"}}, "")
		shellUntil(t, ctx, `document.querySelector(".chat-intro .chat-msg.companion")?.innerText === "Hi Sam! Shall we sort out the trip?"`)
		chips := shellEval[[]string](t, ctx, `Array.from(document.querySelectorAll(".chat-suggest .chat-chip")).map((b) => b.textContent)`)
		if strings.Join(chips, "|") != "Find trains to Lyon|Make a packing list" {
			t.Errorf("chips %v", chips)
		}
	})

	var asked chatEnv
	t.Run("chip sends chat.message, talk.snapshot follows", func(t *testing.T) {
		if err := chromedp.Run(ctx, chromedp.Click(`.chat-suggest .chat-chip`, chromedp.ByQuery)); err != nil {
			t.Fatal(err)
		}
		asked = h.waitFor(t, "chat.message", nil)
		if d := asked.data(t); d["text"] != "Find trains to Lyon" || asked.From != "shell:chat#"+win.Window {
			t.Errorf("chat.message %s from %s", asked.Data, asked.From)
		}
		snap := h.waitFor(t, "talk.snapshot", nil)
		if snap.From != "unique:chat#"+win.Window {
			t.Errorf("snapshot from %s", snap.From)
		}
		msgs := snap.data(t)["messages"].([]any)
		if len(msgs) != 1 || msgs[0].(map[string]any)["role"] != "human" || msgs[0].(map[string]any)["text"] != "Find trains to Lyon" {
			t.Errorf("snapshot %s", snap.Data)
		}
		shellUntil(t, ctx, `!document.querySelector(".chat-suggest")`)
	})

	t.Run("chat.say stream, talk.snapshot after the turn", func(t *testing.T) {
		h.sendRaw(t, []map[string]any{
			{"lip": 1, "type": "chat.say", "win": win.Window, "re": asked.ID, "data": map[string]any{"text": "from Paris or from somewhere else?", "seq": 2}},
			{"lip": 1, "type": "chat.say", "win": win.Window, "re": asked.ID, "data": map[string]any{"text": "Happy to help! Are you leaving ", "seq": 1}},
		})
		shellUntil(t, ctx, `document.querySelector("#lets-chat-log .chat-bubble[data-done='false']")?.innerText.includes("from Paris")`)
		h.send(t, win.Window, "chat.say", map[string]any{"text": " And which day?", "seq": 3, "done": true}, asked.ID)
		shellUntil(t, ctx, `document.querySelector("#lets-chat-log .chat-bubble[data-done='true']")`)
		snap := h.waitFor(t, "talk.snapshot", func(d map[string]any) bool { return len(d["messages"].([]any)) == 2 })
		last := snap.data(t)["messages"].([]any)[1].(map[string]any)
		if last["role"] != "claude" || last["text"] != "Happy to help! Are you leaving from Paris or from somewhere else? And which day?" {
			t.Errorf("Claude's turn in the snapshot: %v", last)
		}
		f.until(t, ctx, origin, `document.getElementById("status").textContent === "Saved · 2 messages"`)
	})

	t.Run("talk.load", func(t *testing.T) {
		h.send(t, win.Window, "talk.load", map[string]any{"messages": []map[string]any{
			{"role": "human", "text": "What should I cook tonight?", "at": "2026-12-01T18:00:00Z"},
			{"role": "claude", "text": "How about a **mushroom risotto**?", "at": "2026-12-01T18:00:03Z"},
			{"role": "human", "kind": "choice", "text": "Chose: Risotto", "at": "2026-12-01T18:00:09Z"},
		}}, "")
		shellUntil(t, ctx, `document.querySelectorAll("#lets-chat-log > .chat-msg[data-restored='true']").length === 3`)
		texts := shellEval[[]string](t, ctx, chatTexts)
		if strings.Join(texts, "|") != "What should I cook tonight?|How about a mushroom risotto?|Chose: Risotto" {
			t.Errorf("restored turns %q", texts)
		}
		f.until(t, ctx, origin, `document.getElementById("status").textContent === "Your conversation is back · 3 messages" && !document.getElementById("handoff").disabled`)
	})

	t.Run("talk.new", func(t *testing.T) {
		// "New chat" asks once more before it clears anything.
		f.eval(t, ctx, origin, `document.getElementById("new").click(), document.getElementById("new").textContent`, nil)
		f.until(t, ctx, origin, `document.getElementById("new").textContent === "Clear it all?"`)
		f.eval(t, ctx, origin, `document.getElementById("new").click()`, nil)
		ev := h.waitFor(t, "talk.new", nil)
		if ev.data(t)["cleared"] != 3.0 {
			t.Errorf("talk.new %s", ev.Data)
		}
		snap := h.waitFor(t, "talk.snapshot", func(d map[string]any) bool { return len(d["messages"].([]any)) == 0 })
		if snap.data(t)["summary"] != "An empty conversation" {
			t.Errorf("empty snapshot %s", snap.Data)
		}
		shellUntil(t, ctx, `document.querySelectorAll("#lets-chat-log > .chat-msg").length === 0 && document.querySelectorAll(".chat-suggest .chat-chip").length === 4`)
	})

	t.Run("image paste", func(t *testing.T) {
		// A PNG pasted into the input is uploaded first; the message carries its path.
		err := chromedp.Run(ctx, chromedp.Evaluate(`new Promise((res) => {
			const c = document.createElement("canvas");
			c.width = 12; c.height = 9;
			const g = c.getContext("2d"); g.fillStyle = "#e07a5f"; g.fillRect(0, 0, 12, 9);
			c.toBlob((b) => {
				const dt = new DataTransfer();
				dt.items.add(new File([b], "sketch.png", {type: "image/png"}));
				const input = document.getElementById("lets-chat-input");
				input.focus();
				input.dispatchEvent(new ClipboardEvent("paste", {clipboardData: dt, bubbles: true, cancelable: true}));
				res(true);
			}, "image/png");
		})`, nil, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
		if err != nil {
			t.Fatal(err)
		}
		shellUntil(t, ctx, `document.querySelector(".chat-attachments .chip[data-state='ready']")`)
		if err := chromedp.Run(ctx, chromedp.SendKeys(`#lets-chat-input`, "What do you see here?\r", chromedp.ByQuery)); err != nil {
			t.Fatal(err)
		}
		msg := h.waitFor(t, "chat.message", func(d map[string]any) bool { return d["text"] == "What do you see here?" })
		att, _ := msg.data(t)["attachments"].([]any)
		if len(att) != 1 {
			t.Fatalf("attachments %s", msg.Data)
		}
		path := att[0].(map[string]any)["path"].(string)
		if !strings.HasPrefix(path, filepath.Join(h.home, "uploads", "chat")) || !strings.HasSuffix(path, ".png") {
			t.Errorf("upload path %s", path)
		}
		if _, err := os.Stat(path); err != nil {
			t.Errorf("the upload is not on disk: %v", err)
		}
		snap := h.waitFor(t, "talk.snapshot", func(d map[string]any) bool { return len(d["messages"].([]any)) == 1 })
		m0 := snap.data(t)["messages"].([]any)[0].(map[string]any)
		if a, _ := m0["attachments"].([]any); len(a) != 1 || a[0].(map[string]any)["path"] != path {
			t.Errorf("the snapshot lost the image: %v", m0)
		}
	})

	t.Run("an undeclared chat.export is refused", func(t *testing.T) {
		code, raw := h.api(t, "POST", "/lip/send", map[string]any{"lip": 1, "type": "chat.export", "win": win.Window, "data": map[string]any{}})
		if code == 200 && !strings.Contains(string(raw), "undeclared_type") {
			t.Errorf("chat.export was not refused: %d %s", code, raw)
		}
	})

	t.Run("talk.export", func(t *testing.T) {
		f.eval(t, ctx, origin, `document.getElementById("handoff").click()`, nil)
		ev := h.waitFor(t, "talk.export", nil)
		checkChatExport(t, h, ev, []string{"human"}, "You: What do you see here?")
		shellUntil(t, ctx, `document.querySelector("#lets-shell > .closed")?.textContent.startsWith("Sent to Claude")`)
	})
	if un := h.unread(); len(un) > 0 {
		for _, typ := range un {
			if strings.HasPrefix(typ, "talk.") || typ == "chat.message" {
				t.Errorf("unexpected %s among the unread events %v", typ, un)
			}
		}
	}
}

// checkChatExport checks a talk.export event, the host's session.saved
// and the session file it wrote (data.session first, handoff true); it
// returns the session id.
func checkChatExport(t *testing.T, h *chatHost, ev chatEnv, roles []string, textHas string) string {
	t.Helper()
	d := ev.data(t)
	msgs, _ := d["messages"].([]any)
	if len(msgs) != len(roles) {
		t.Fatalf("export has %d messages, want %d: %s", len(msgs), len(roles), ev.Data)
	}
	for i, r := range roles {
		if msgs[i].(map[string]any)["role"] != r {
			t.Errorf("message %d is %v, want role %s", i, msgs[i], r)
		}
	}
	if text, _ := d["text"].(string); !strings.Contains(text, textHas) {
		t.Errorf("export text %q lacks %q", text, textHas)
	}
	saved := h.waitFor(t, "session.saved", nil)
	sd := saved.data(t)
	id, _ := sd["id"].(string)
	if sd["unique"] != "chat" || sd["handoff"] != true || id == "" {
		t.Fatalf("session.saved %s", saved.Data)
	}
	raw, err := os.ReadFile(filepath.Join(h.home, "sessions", "chat", id+".json"))
	if err != nil {
		t.Fatalf("session file: %v", err)
	}
	var file struct {
		Type string          `json:"type"`
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatalf("session file %s: %v", clip(string(raw), 300), err)
	}
	dec := json.NewDecoder(bytes.NewReader(file.Data))
	_, _ = dec.Token() // {
	first, _ := dec.Token()
	if file.Type != "talk.export" || first != "session" {
		t.Errorf("session file: type %s, first data key %v", file.Type, first)
	}
	var fd struct {
		Session  map[string]any `json:"session"`
		Messages []any          `json:"messages"`
	}
	_ = json.Unmarshal(file.Data, &fd)
	if fd.Session["handoff"] != true || fd.Session["saved"] != true || len(fd.Messages) != len(roles) {
		t.Errorf("session file data: session %v, %d messages", fd.Session, len(fd.Messages))
	}
	return id
}

// TestBrowserChatOutsideLets: opened in a plain browser (no shell, no SDK)
// the page says kindly where it works, and it is clean under the unique
// CSP (no inline code, nothing from outside).
func TestBrowserChatOutsideLets(t *testing.T) {
	sub, err := fs.Sub(uniques.FS(), "chat")
	if err != nil {
		t.Fatal(err)
	}
	files := http.FileServerFS(sub)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'self'; base-uri 'self'; form-action 'self'; object-src 'none'")
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	ctx := browsertest.New(t, browsertest.Options{Width: 700, Height: 500})
	var got map[string]any
	err = chromedp.Run(ctx,
		chromedp.Navigate(srv.URL+"/index.html"),
		chromedp.Evaluate(`window.__violations = []; document.addEventListener("securitypolicyviolation", (e) => window.__violations.push(e.violatedDirective)); true`, nil),
		chromedp.WaitVisible(`#outside`, chromedp.ByQuery),
		chromedp.Evaluate(`({status: document.getElementById("status").textContent, handoff: document.getElementById("handoff").disabled,
			violations: window.__violations.length, outside: document.getElementById("outside").innerText})`, &got),
	)
	if err != nil {
		t.Fatal(err)
	}
	if got["status"] != "Open this in Lets to chat with Claude." || got["handoff"] != true || got["violations"] != 0.0 || !strings.Contains(got["outside"].(string), "lets open chat") {
		t.Errorf("outside Lets: %v", got)
	}
}
