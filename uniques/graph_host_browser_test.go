package uniques_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/lets-app/lets/backend/host"
	"github.com/lets-app/lets/backend/testenv/browsertest"
	"github.com/lets-app/lets/backend/testenv/launchbook"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// These tests drive the graph unique through a real host: Claude's side is
// the privileged API (POST /lip/open, GET /lip/listen, POST /lip/send with
// the host token); the human's side is headless Chromium on the window's
// shell page, with real mouse and keyboard input reaching the unique in its
// iframe on its own origin (through the real SDK).

const graphToken = "graph-test-host-token-0123456789abcdefghij"

type graphEnv struct {
	ID   string          `json:"id"`
	Type string          `json:"type"`
	From string          `json:"from"`
	Win  string          `json:"win"`
	Data json.RawMessage `json:"data"`
}

func (e graphEnv) data(t *testing.T) map[string]any {
	t.Helper()
	m := map[string]any{}
	if err := json.Unmarshal(e.Data, &m); err != nil {
		t.Fatalf("%s data: %v", e.Type, err)
	}
	return m
}

// graphHost is a real host with the built-in uniques, Claude's reading of
// it, and the recorded conversation.
type graphHost struct {
	srv    *host.Server
	home   string
	events []graphEnv   // every up-event Claude has read
	used   map[int]bool // events already matched by wait
	script []string
}

func startGraphHost(t *testing.T) *graphHost {
	t.Helper()
	home := t.TempDir()
	s, err := host.Listen(host.Options{Token: graphToken, Version: "0.1.0", DataDir: home, Handoff: "close", OnOpen: testLaunches.Take})
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
	return &graphHost{srv: s, home: home, used: map[int]bool{}}
}

func (h *graphHost) note(who, format string, args ...any) {
	h.script = append(h.script, fmt.Sprintf("%-6s %s", who+":", fmt.Sprintf(format, args...)))
}

func (h *graphHost) api(t *testing.T, method, path string, body any) []byte {
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
	req.Header.Set("Authorization", "Bearer "+graphToken)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, data)
	}
	return data
}

// testLaunches are every test host's window launches: the tests are the native
// window (issue #23: the open answer never carries the URL).
var testLaunches = &launchbook.Book{}

type graphOpened struct {
	Window   string            `json:"window"`
	URL      string            `json:"url"`
	Guide    string            `json:"guide"`
	Events   map[string]string `json:"events"`
	Commands map[string]string `json:"commands"`
	Session  *struct {
		ID string `json:"id"`
	} `json:"session"`
}

func (h *graphHost) open(t *testing.T, resume string) graphOpened {
	t.Helper()
	body := map[string]any{"unique": "graph"}
	if resume != "" {
		body["resume"] = resume
	}
	var o graphOpened
	if err := json.Unmarshal(h.api(t, "POST", "/lip/open", body), &o); err != nil || o.Window == "" || o.URL != "" {
		t.Fatalf("open: %+v %v (the answer to Claude never holds the window's URL)", o, err)
	}
	o.URL = testLaunches.URL(t, h.srv.URL(), o.Window)
	h.note("claude", "open graph%s → window %s (guide: %d words, %d events, %d commands)",
		map[bool]string{true: " resume " + resume, false: ""}[resume != ""], o.Window, len(strings.Fields(o.Guide)), len(o.Events), len(o.Commands))
	return o
}

// send is Claude's send tool with a batch of commands for one window.
func (h *graphHost) send(t *testing.T, win string, cmds ...map[string]any) {
	t.Helper()
	batch := make([]map[string]any, len(cmds))
	for i, c := range cmds {
		batch[i] = map[string]any{"lip": 1, "dir": "down", "win": win, "type": c["type"], "data": c["data"]}
		d, _ := json.Marshal(c["data"])
		h.note("claude", "send %s %s", c["type"], d)
	}
	var res struct {
		Accepted []string          `json:"accepted"`
		Rejected []json.RawMessage `json:"rejected"`
	}
	if err := json.Unmarshal(h.api(t, "POST", "/lip/send", batch), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Rejected) > 0 || len(res.Accepted) != len(cmds) {
		t.Fatalf("send: accepted %v, rejected %s", res.Accepted, res.Rejected)
	}
}

// wait is Claude's listen tool: it reads until an event of typ that
// satisfies ok arrives and returns the first one not matched before. Events
// from the page, the shell and the host come in no fixed order among
// themselves, so a wait never skips past events it did not take.
func (h *graphHost) wait(t *testing.T, typ string, ok func(map[string]any) bool) graphEnv {
	t.Helper()
	var found *graphEnv
	match := func() bool {
		for i, e := range h.events {
			if !h.used[i] && e.Type == typ && (ok == nil || ok(e.data(t))) {
				h.used[i] = true
				found = &e
				return true
			}
		}
		return false
	}
	// Each look listens (long-polling up to 1 s) before matching again.
	if !match() && !testutil.Poll(testutil.EventuallyTimeout, func() bool { h.listen(t); return match() }) {
		var types []string
		for i, e := range h.events {
			if !h.used[i] {
				types = append(types, e.Type)
			}
		}
		t.Fatalf("Claude never heard %s within %v; unread: %v", typ, testutil.EventuallyTimeout, types)
	}
	return *found
}

// listen is one call of Claude's listen tool; what it hears is kept.
func (h *graphHost) listen(t *testing.T) {
	t.Helper()
	var res struct {
		Events []graphEnv `json:"events"`
	}
	q := url.Values{"cursor": {"claude"}, "wait_ms": {"1000"}, "max": {"100"}}
	if err := json.Unmarshal(h.api(t, "GET", "/lip/listen?"+q.Encode(), nil), &res); err != nil {
		t.Fatal(err)
	}
	for _, e := range res.Events {
		short := string(e.Data)
		if len(short) > 160 {
			short = short[:160] + "…"
		}
		h.note("listen", "%s %s", e.Type, short)
	}
	h.events = append(h.events, res.Events...)
}

// graphFrames finds the unique's JavaScript world inside the shell page.
type graphFrames struct {
	mu     sync.Mutex
	byOrig map[string]string
}

func watchGraphFrames(ctx context.Context) *graphFrames {
	f := &graphFrames{byOrig: map[string]string{}}
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

// graphWindow is one window of the graph unique in Chromium.
type graphWindow struct {
	t      *testing.T
	ctx    context.Context
	f      *graphFrames
	origin string
}

func (w *graphWindow) run(actions ...chromedp.Action) {
	w.t.Helper()
	if err := chromedp.Run(w.ctx, actions...); err != nil {
		w.t.Fatal(err)
	}
}

// eval runs expr in the unique's page.
func (w *graphWindow) eval(expr string, out any) {
	w.t.Helper()
	var id string
	testutil.Eventually(w.t, "the unique's JavaScript world at "+w.origin+" exists", func() bool {
		w.f.mu.Lock()
		defer w.f.mu.Unlock()
		id = w.f.byOrig[w.origin]
		return id != ""
	})
	w.run(chromedp.ActionFunc(func(ctx context.Context) error {
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
}

func (w *graphWindow) until(expr string) {
	w.t.Helper()
	testutil.Eventually(w.t, "in the unique, "+expr, func() bool {
		var ok bool
		w.eval("!!("+expr+")", &ok)
		return ok
	})
}

// at turns a point of the unique's page into a point of the window.
func (w *graphWindow) at(x, y float64) (float64, float64) {
	w.t.Helper()
	var r []float64
	w.run(chromedp.Evaluate(`(() => { const f = document.getElementById("lets-unique"); const r = f.getBoundingClientRect(); return [r.left + f.clientLeft, r.top + f.clientTop]; })()`, &r))
	return r[0] + x, r[1] + y
}

// centerOf is the window point at the middle of sel inside the unique.
func (w *graphWindow) centerOf(sel string) (float64, float64) {
	w.t.Helper()
	var xy []float64
	w.eval(fmt.Sprintf(`(() => { const r = document.querySelector(%q).getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()`, sel), &xy)
	return w.at(xy[0], xy[1])
}

func (w *graphWindow) typeLabel(text string) {
	w.t.Helper()
	w.until(`!document.getElementById("editor").hidden && document.activeElement === document.getElementById("editor")`)
	w.run(chromedp.KeyEvent(text), chromedp.KeyEvent("\r"))
}

func openGraphWindow(t *testing.T, ctx context.Context, f *graphFrames, shellURL string) *graphWindow {
	t.Helper()
	w := &graphWindow{t: t, ctx: ctx, f: f}
	w.run(
		chromedp.Navigate(shellURL),
		chromedp.WaitVisible(`#lets-shell[data-state="online"]`, chromedp.ByQuery),
		chromedp.Evaluate(`new URL(document.getElementById("lets-unique").src).origin`, &w.origin),
	)
	w.until(`window.lip && window.graphDebug && document.readyState === "complete"`)
	return w
}

func nodeLabels(t *testing.T, w *graphWindow) map[string]string {
	t.Helper()
	var m map[string]string
	w.eval(`Object.fromEntries([...graphDebug.graph.nodes.values()].map((n) => [n.id, n.label]))`, &m)
	return m
}

// TestBrowserGraphWithClaude is the recorded end-to-end script: Claude
// opens the graph; the human draws three nodes with the mouse, selects
// one and right-clicks it; Claude hears the summon with that node, adds
// two connected nodes and lays the graph out while the companion speaks;
// the snapshot follows; the human sends the graph to Claude (handoff) and
// reopening the saved session restores it.
func TestBrowserGraphWithClaude(t *testing.T) {
	h := startGraphHost(t)
	o := h.open(t, "")
	if !strings.Contains(o.Guide, "# Graph — guide for Claude") || o.Commands["graph.layout"] == "" || o.Events["graph.node.select"] == "" {
		t.Fatalf("open answer: %+v", o)
	}
	ctx := browsertest.New(t, browsertest.Options{Width: 1200, Height: 800, Timeout: 150 * time.Second})
	f := watchGraphFrames(ctx)
	w := openGraphWindow(t, ctx, f, o.URL)
	defer func() { t.Logf("the conversation:\n%s", strings.Join(h.script, "\n")) }()

	// The human draws three nodes: double-click, type, Enter.
	for i, label := range []string{"Sign up", "Verify email", "Welcome"} {
		x, y := w.at(220+float64(i)*280, 220)
		w.run(chromedp.MouseClickXY(x, y), chromedp.MouseClickXY(x, y, chromedp.ClickCount(2)))
		w.typeLabel(label)
		h.note("human", "double-clicks the board at (%.0f, %.0f) and types %q", x, y, label)
	}
	for _, label := range []string{"Sign up", "Verify email", "Welcome"} {
		add := h.wait(t, "graph.node.add", nil).data(t)
		if add["label"] != label {
			t.Fatalf("node.add %v, want %q", add, label)
		}
	}
	// Selects the middle one, then right-clicks it.
	x, y := w.centerOf(`.node[data-id="n2"] .shape`)
	w.run(chromedp.MouseClickXY(x, y))
	h.note("human", "clicks “Verify email”")
	sel := h.wait(t, "graph.node.select", func(d map[string]any) bool { return fmt.Sprint(d["ids"]) == "[n2]" })
	if sel.From != "unique:graph#"+o.Window || sel.Win != o.Window {
		t.Errorf("select from %q win %q", sel.From, sel.Win)
	}
	w.run(chromedp.MouseClickXY(x, y, chromedp.ButtonType(input.Right)))
	h.note("human", "right-clicks “Verify email”")
	summon := h.wait(t, "entity.summon", nil).data(t)
	node, _ := summon["context"].(map[string]any)["node"].(map[string]any)
	if node == nil || node["id"] != "n2" || node["label"] != "Verify email" {
		t.Fatalf("summon context %v", summon)
	}
	changed := h.wait(t, "graph.changed", func(d map[string]any) bool { return len(d["nodes"].([]any)) == 3 }).data(t)
	t.Logf("graph.changed as Claude reads it (coalesced %v)", changed["_coalesced"])

	// Claude answers on the board: two connected nodes after the selected
	// one, a layout, and a word from the companion.
	h.send(t, o.Window,
		map[string]any{"type": "entity.mood", "data": map[string]any{"mood": "thinking"}},
		map[string]any{"type": "graph.node.add", "data": map[string]any{"id": "expired", "label": "Link expired?", "near": "n2", "shape": "diamond", "color": "purple"}},
		map[string]any{"type": "graph.node.add", "data": map[string]any{"id": "resend", "label": "Resend the link", "near": "expired", "color": "purple"}},
		map[string]any{"type": "graph.edge.add", "data": map[string]any{"from": "n2", "to": "expired", "label": "no click"}},
		map[string]any{"type": "graph.edge.add", "data": map[string]any{"from": "expired", "to": "resend", "label": "yes"}},
		map[string]any{"type": "graph.edge.add", "data": map[string]any{"from": "n2", "to": "n3", "label": "clicked"}},
		map[string]any{"type": "graph.layout", "data": map[string]any{"direction": "down"}},
		map[string]any{"type": "entity.say", "data": map[string]any{"text": "I added what happens when the email link expires.", "mood": "happy", "ttl": 60000}},
	)
	// The batch's layout ran and its animation (nodes, then the view) ended.
	w.until(`document.querySelectorAll("#nodes .node").length === 5 && document.querySelectorAll("#edges .edge").length === 3 &&
		document.getElementById("canvas").dataset.layout === "down" && !document.getElementById("canvas").hasAttribute("data-animating")`)
	var pos map[string][]float64
	w.eval(`Object.fromEntries([...graphDebug.graph.nodes.values()].map((n) => [n.id, [Math.round(n.x), Math.round(n.y)]]))`, &pos)
	if !(pos["n2"][1] < pos["expired"][1] && pos["expired"][1] < pos["resend"][1] && pos["n2"][1] < pos["n3"][1]) {
		t.Errorf("after graph.layout the flow does not go down: %v", pos)
	}
	w.run(chromedp.Poll(`document.querySelector(".lets-companion-bubble") && document.querySelector(".lets-companion-bubble").textContent.includes("expires")`, nil))
	h.note("human", "sees the two new nodes, laid out, and the companion's words")
	snap := h.wait(t, "graph.snapshot", func(d map[string]any) bool { return len(d["nodes"].([]any)) == 5 }).data(t)
	if !strings.HasPrefix(snap["summary"].(string), "5 nodes, 3 links") {
		t.Errorf("snapshot summary %q", snap["summary"])
	}
	browsertest.Screenshot(t, ctx, "graph-with-claude.png")

	// Handoff: Send to Claude.
	x, y = w.centerOf(`#send`)
	w.run(chromedp.MouseClickXY(x, y))
	h.note("human", "presses Send to Claude")
	exp := h.wait(t, "graph.export", nil).data(t)
	text, _ := exp["text"].(string)
	if len(exp["nodes"].([]any)) != 5 || !strings.Contains(text, `"Verify email" → "Link expired?" [no click]`) || !strings.Contains(text, `Starts: "Verify email"`) {
		t.Errorf("export %v", exp)
	}
	saved := h.wait(t, "session.saved", nil).data(t)
	sid, _ := saved["id"].(string)
	if sid == "" || saved["handoff"] != true {
		t.Fatalf("session.saved %v", saved)
	}
	files, _ := filepath.Glob(filepath.Join(h.home, "sessions", "graph", "*.json"))
	if len(files) != 1 {
		t.Fatalf("session files %v", files)
	}
	raw, _ := os.ReadFile(files[0])
	if !bytes.Contains(raw, []byte(`"Resend the link"`)) {
		t.Errorf("the saved session lacks Claude's node:\n%s", raw)
	}
	w.run(chromedp.WaitVisible(`.closed`, chromedp.ByQuery))
	h.wait(t, "session.closed", nil)

	// Reopen with resume: graph.load puts it all back.
	again := h.open(t, "last")
	if again.Session == nil || again.Session.ID != sid {
		t.Fatalf("resume: %+v", again.Session)
	}
	w2 := openGraphWindow(t, ctx, f, again.URL)
	w2.until(`document.querySelectorAll("#nodes .node").length === 5`)
	labels := nodeLabels(t, w2)
	var edgeLabel string
	w2.eval(`[...document.querySelectorAll("#edges .elabel")].map((e) => e.textContent).sort().join(",")`, &edgeLabel)
	if labels["expired"] != "Link expired?" || labels["n1"] != "Sign up" || edgeLabel != "clicked,no click,yes" {
		t.Errorf("restored %v, edge labels %q", labels, edgeLabel)
	}
	h.note("human", "reopens the graph: %d nodes are back", len(labels))
}

// TestBrowserGraphScreenshots takes the graph window, through a real host,
// in light and dark mode (reduced motion): a small product flow Claude
// drew with the human, one node selected, the companion suggesting a next
// step. LETS_SCREENSHOTS=$PWD/docs/screenshots keeps graph-light.png and
// graph-dark.png.
func TestBrowserGraphScreenshots(t *testing.T) {
	h := startGraphHost(t)
	for _, scheme := range []string{"light", "dark"} {
		t.Run(scheme, func(t *testing.T) {
			o := h.open(t, "")
			ctx := browsertest.New(t, browsertest.Options{Width: 1200, Height: 780, Timeout: 90 * time.Second})
			f := watchGraphFrames(ctx)
			w := &graphWindow{t: t, ctx: ctx, f: f}
			w.run(emulation.SetEmulatedMedia().WithFeatures([]*emulation.MediaFeature{
				{Name: "prefers-color-scheme", Value: scheme}, {Name: "prefers-reduced-motion", Value: "reduce"}}))
			w = openGraphWindow(t, ctx, f, o.URL)
			n := func(id, label, shape, color string) map[string]any {
				m := map[string]any{"id": id, "label": label, "shape": shape}
				if color != "" {
					m["color"] = color
				}
				return m
			}
			e := func(from, to, label string) map[string]any {
				m := map[string]any{"from": from, "to": to}
				if label != "" {
					m["label"] = label
				}
				return m
			}
			h.send(t, o.Window,
				map[string]any{"type": "graph.load", "data": map[string]any{
					"nodes": []any{
						n("idea", "An idea from a customer", "round", "green"),
						n("spec", "Write a one-page spec", "box", ""),
						n("ask", "Ask two users", "box", "purple"),
						n("worth", "Worth building?", "diamond", "yellow"),
						n("park", "Park it with a note", "note", "gray"),
						n("build", "Build it", "box", "blue"),
						n("review", "Code review", "box", "blue"),
						n("ship", "Ship it", "round", "green"),
					},
					"edges": []any{
						e("idea", "spec", ""), e("spec", "ask", ""), e("ask", "worth", ""),
						e("worth", "build", "yes"), e("worth", "park", "no"),
						e("build", "review", ""), e("review", "ship", "approved"), e("review", "build", "changes"),
					},
				}},
				map[string]any{"type": "graph.layout", "data": map[string]any{"direction": "right"}},
				map[string]any{"type": "graph.select", "data": map[string]any{"ids": []string{"review"}}},
				map[string]any{"type": "entity.say", "data": map[string]any{"text": "Shall I add a test step before the review?", "mood": "curious", "ttl": 60000}},
			)
			w.until(`document.querySelectorAll("#nodes .node").length === 8 && document.querySelector(".node.selected") &&
				document.getElementById("canvas").dataset.layout === "right" && !document.getElementById("canvas").hasAttribute("data-animating")`)
			// The companion's bubble shows and its entrance has played (the
			// shell's finite animations and transitions are over).
			w.run(chromedp.Poll(`document.querySelector(".lets-companion-bubble") && !document.querySelector(".lets-companion-bubble").hidden &&
				document.getAnimations().every((a) => a.playState !== "running" || a.effect.getComputedTiming().endTime === Infinity)`, nil))
			var bg string
			w.eval(`getComputedStyle(document.getElementById("canvas")).backgroundColor`, &bg)
			want := map[string]string{"light": "rgb(251, 250, 248)", "dark": "rgb(23, 22, 28)"}[scheme]
			if bg != want {
				t.Errorf("board background %s, want %s", bg, want)
			}
			path := browsertest.Screenshot(t, ctx, "graph-"+scheme+".png")
			t.Logf("screenshot %s", path)
		})
	}
}
