package uniques_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/lets-app/lets/backend/manifest"
	"github.com/lets-app/lets/backend/registry"
	"github.com/lets-app/lets/backend/testenv/browsertest"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/uniques"
)

// graphFakeSDK stands in for /lip/sdk.js: it records what the page emits
// (export and snapshot under their types), forwards right-clicks as
// entity.summon with the unique's context like the real SDK, lets the test
// deliver commands, and keeps the blobs the page downloads.
const graphFakeSDK = `
window.__emitted = [];
window.__violations = [];
window.__blobs = [];
document.addEventListener("securitypolicyviolation", (e) => window.__violations.push(e.violatedDirective + " " + e.blockedURI));
const createURL = URL.createObjectURL.bind(URL);
URL.createObjectURL = (b) => { window.__blobs.push(b); return createURL(b); };
HTMLAnchorElement.prototype.click = function () { window.__downloads = (window.__downloads || []).concat(this.download); };
const handlers = {};
let contextFn = null;
window.__command = (type, data) => (handlers[type] || []).forEach((h) => h(data, {type, data}));
window.lip = {
  emit(type, data) { window.__emitted.push({type, data}); },
  on(type, h) { (handlers[type] = handlers[type] || []).push(h); },
  export(data) { window.__emitted.push({type: "graph.export", data}); },
  snapshot(data) { window.__emitted.push({type: "graph.snapshot", data}); },
  ready() { window.__ready = true; },
  context(fn) { contextFn = fn; },
};
window.addEventListener("contextmenu", (ev) => {
  if (!contextFn) return;
  ev.preventDefault();
  window.__emitted.push({type: "entity.summon", data: {x: ev.clientX, y: ev.clientY, context: contextFn(ev.target, ev)}});
});
`

// serveGraph serves the graph unique as origin U does (through the
// registry's Unique.Open, CSP on), with the fake SDK first in <head>.
func serveGraph(t testing.TB) (*httptest.Server, *manifest.Manifest) {
	t.Helper()
	r, err := registry.OpenRegistry(registry.RegistryOptions{Builtin: uniques.FS(), UserDir: t.TempDir(), HostVersion: "0.1.0"})
	if err != nil {
		t.Fatal(err)
	}
	u, err := r.Get("graph")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'self'; base-uri 'self'; form-action 'self'; object-src 'none'")
		if req.URL.Path == "/lip/sdk.js" {
			w.Header().Set("Content-Type", "text/javascript")
			io.WriteString(w, graphFakeSDK)
			return
		}
		f, err := u.Open(req.URL.Path)
		if err != nil {
			http.NotFound(w, req)
			return
		}
		defer f.Close()
		data, _ := io.ReadAll(f)
		if req.URL.Path == "/"+u.Manifest.Entry {
			data = bytes.Replace(data, []byte("<head>"), []byte(`<head><script src="/lip/sdk.js"></script>`), 1)
		}
		http.ServeContent(w, req, req.URL.Path, time.Time{}, bytes.NewReader(data))
	}))
	t.Cleanup(srv.Close)
	return srv, u.Manifest
}

// graphPage drives one page of the graph unique with the fake SDK.
type graphPage struct {
	t    testing.TB
	ctx  context.Context
	m    *manifest.Manifest
	seen int // emitted events already looked at
}

type graphEmitted struct {
	Type string         `json:"type"`
	Data map[string]any `json:"data"`
}

func (p *graphPage) run(actions ...chromedp.Action) {
	p.t.Helper()
	if err := chromedp.Run(p.ctx, actions...); err != nil {
		p.t.Fatal(err)
	}
}

func (p *graphPage) eval(expr string, out any) {
	p.t.Helper()
	p.run(chromedp.Evaluate(expr, out))
}

// center is the middle of the element sel, in page pixels.
func (p *graphPage) center(sel string) (float64, float64) {
	p.t.Helper()
	var xy []float64
	p.eval(fmt.Sprintf(`(() => { const e = document.querySelector(%q); if (!e) return []; const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()`, sel), &xy)
	if len(xy) != 2 {
		p.t.Fatalf("no element %s", sel)
	}
	return xy[0], xy[1]
}

func mouse(typ input.MouseType, x, y float64, button input.MouseButton, clicks int64, mods input.Modifier) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		var buttons int64
		if typ == input.MouseMoved && button == input.Left {
			buttons = 1
		}
		return input.DispatchMouseEvent(typ, x, y).WithButton(button).WithButtons(buttons).WithClickCount(clicks).WithModifiers(mods).Do(ctx)
	})
}

func (p *graphPage) click(x, y float64, mods input.Modifier) {
	p.run(mouse(input.MousePressed, x, y, input.Left, 1, mods), mouse(input.MouseReleased, x, y, input.Left, 1, mods))
}

func (p *graphPage) dblclick(x, y float64) {
	p.click(x, y, 0)
	p.run(mouse(input.MousePressed, x, y, input.Left, 2, 0), mouse(input.MouseReleased, x, y, input.Left, 2, 0))
}

func (p *graphPage) drag(x0, y0, x1, y1 float64, mods input.Modifier) {
	acts := []chromedp.Action{mouse(input.MousePressed, x0, y0, input.Left, 1, mods)}
	for i := 1; i <= 8; i++ {
		f := float64(i) / 8
		acts = append(acts, mouse(input.MouseMoved, x0+(x1-x0)*f, y0+(y1-y0)*f, input.Left, 0, mods))
	}
	acts = append(acts, mouse(input.MouseReleased, x1, y1, input.Left, 1, mods))
	p.run(acts...)
}

func (p *graphPage) emitted() []graphEmitted {
	p.t.Helper()
	var raw string
	p.eval(`JSON.stringify(window.__emitted)`, &raw)
	var out []graphEmitted
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		p.t.Fatal(err)
	}
	return out
}

// next waits for the next emitted event of typ (after those already seen
// by next) and checks its data against the unique's schema.
func (p *graphPage) next(typ string) map[string]any {
	p.t.Helper()
	var found *graphEmitted
	var all []graphEmitted
	if !testutil.Poll(testutil.EventuallyTimeout, func() bool {
		all = p.emitted()
		for i := p.seen; i < len(all); i++ {
			if all[i].Type == typ {
				p.seen = i + 1
				found = &all[i]
				return true
			}
		}
		return false
	}) {
		var types []string
		for _, e := range all[p.seen:] {
			types = append(types, e.Type)
		}
		p.t.Fatalf("no %s emitted within %v; since the last one: %v", typ, testutil.EventuallyTimeout, types)
	}
	p.checkSchema(*found)
	return found.Data
}

// skip marks every event emitted so far as seen: next looks only at later ones.
func (p *graphPage) skip() {
	p.t.Helper()
	p.seen = len(p.emitted())
}

// settled waits until no animation (a layout, the view gliding) runs.
func (p *graphPage) settled() {
	p.t.Helper()
	testutil.Eventually(p.t, "the graph's animations end", func() bool {
		var moving bool
		p.eval(`document.getElementById("canvas").hasAttribute("data-animating")`, &moving)
		return !moving
	})
}

// wireAt is where node id stands in a graph.changed or snapshot.
func wireAt(t testing.TB, data map[string]any, id string) [2]float64 {
	t.Helper()
	nodes, _ := data["nodes"].([]any)
	for _, raw := range nodes {
		n, _ := raw.(map[string]any)
		if n["id"] == id {
			at, _ := n["at"].(map[string]any)
			x, _ := at["x"].(float64)
			y, _ := at["y"].(float64)
			return [2]float64{x, y}
		}
	}
	t.Fatalf("no node %s in %v", id, data)
	return [2]float64{}
}

func (p *graphPage) checkSchema(e graphEmitted) {
	p.t.Helper()
	if !strings.HasPrefix(e.Type, "graph.") {
		return
	}
	data, _ := json.Marshal(e.Data)
	if err := p.m.CheckEventData(e.Type, data); err != nil {
		p.t.Errorf("the page emitted %s that its own schema refuses: %v\n%s", e.Type, err, data)
	}
}

// command checks data against the command's schema, as the host does,
// then delivers it.
func (p *graphPage) command(typ string, data string) {
	p.t.Helper()
	if err := p.m.CheckCommandData(typ, []byte(data)); err != nil {
		p.t.Fatalf("the host would refuse %s %s: %v", typ, data, err)
	}
	p.eval(fmt.Sprintf(`window.__command(%q, %s)`, typ, data), nil)
}

func (p *graphPage) typeLabel(text string) {
	p.t.Helper()
	p.run(chromedp.WaitVisible(`#editor`, chromedp.ByQuery), chromedp.KeyEvent(text), chromedp.KeyEvent("\r"))
}

func newGraphPage(t testing.TB, scheme string) *graphPage {
	t.Helper()
	srv, m := serveGraph(t)
	ctx := browsertest.New(t, browsertest.Options{Width: 1100, Height: 720, Timeout: 120 * time.Second})
	p := &graphPage{t: t, ctx: ctx, m: m}
	p.run(
		browsertest.Media("prefers-color-scheme", scheme),
		chromedp.Navigate(srv.URL+"/ui/index.html"),
		chromedp.WaitVisible(`#canvas`, chromedp.ByQuery),
		chromedp.Poll(`window.__ready === true`, nil),
	)
	return p
}

func awaitPromise(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }

func asStrings(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, x := range list {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

// TestBrowserGraphHumanActs: every event the graph declares comes out of a
// human act in Chromium — draw by double-click, by key and by dragging a
// link into empty space, connect, select (click, shift, box), rename nodes
// and links, move, delete, undo/redo, right-click for the companion,
// export pictures and Send to Claude — each checked against its schema.
func TestBrowserGraphHumanActs(t *testing.T) {
	p := newGraphPage(t, "light")
	var hint bool
	p.eval(`!document.getElementById("empty").hidden`, &hint)
	if !hint {
		t.Error("an empty board should say how to start")
	}

	// Double-click the board: a node, named inline.
	p.dblclick(250, 250)
	p.typeLabel("Sign up")
	add := p.next("graph.node.add")
	if add["id"] != "n1" || add["label"] != "Sign up" || add["shape"] != "box" {
		t.Errorf("node.add %v", add)
	}
	if sel := p.next("graph.node.select"); fmt.Sprint(sel["ids"]) != "[n1]" {
		t.Errorf("select after add %v", sel)
	}
	// By keyboard: N on the board.
	// (One keydown, as a keyboard sends it: chromedp.KeyEvent would add a
	// separate char event that no real keyboard sends after a handled key.)
	p.run(chromedp.Focus(`#canvas`, chromedp.ByQuery), chromedp.ActionFunc(func(ctx context.Context) error {
		if err := input.DispatchKeyEvent(input.KeyDown).WithKey("n").WithCode("KeyN").WithText("n").WithWindowsVirtualKeyCode(78).Do(ctx); err != nil {
			return err
		}
		return input.DispatchKeyEvent(input.KeyUp).WithKey("n").WithCode("KeyN").WithWindowsVirtualKeyCode(78).Do(ctx)
	}))
	p.typeLabel("Verify email")
	if add := p.next("graph.node.add"); add["id"] != "n2" || add["label"] != "Verify email" {
		t.Errorf("node.add by key %v", add)
	}
	changed := p.next("graph.changed")
	if n, _ := changed["nodes"].([]any); len(n) != 2 {
		t.Errorf("graph.changed %v", changed)
	}
	p.next("graph.snapshot")

	// Connect n1 → n2 by dragging from n1's handle.
	hx, hy := p.center(`.node[data-id="n1"] .handle`)
	x2, y2 := p.center(`.node[data-id="n2"] .shape`)
	p.drag(hx, hy, x2, y2, 0)
	edge := p.next("graph.edge.add")
	if edge["from"] != "n1" || edge["to"] != "n2" || edge["fromLabel"] != "Sign up" || edge["toLabel"] != "Verify email" {
		t.Errorf("edge.add %v", edge)
	}
	// Drag a link from n2 into empty space: a new, connected node.
	hx, hy = p.center(`.node[data-id="n2"] .handle`)
	p.drag(hx, hy, hx+40, hy+170, 0)
	p.typeLabel("Welcome")
	if add := p.next("graph.node.add"); add["id"] != "n3" || add["from"] != "n2" || add["label"] != "Welcome" {
		t.Errorf("node.add from a link %v", add)
	}
	if e := p.next("graph.edge.add"); e["from"] != "n2" || e["to"] != "n3" {
		t.Errorf("edge.add with the new node %v", e)
	}
	if sel := p.next("graph.node.select"); fmt.Sprint(sel["ids"]) != "[n3]" {
		t.Errorf("select after the new node %v", sel)
	}

	// Escape while naming a new node: no node.
	var corner []float64
	p.eval(`(() => { const r = document.getElementById("canvas").getBoundingClientRect(); return [r.right - 120, r.bottom - 40]; })()`, &corner)
	p.dblclick(corner[0], corner[1])
	p.run(chromedp.WaitVisible(`#editor`, chromedp.ByQuery), chromedp.KeyEvent("Oops"), chromedp.KeyEvent(kb.Escape))
	var n int
	p.eval(`document.querySelectorAll("#nodes .node").length`, &n)
	if n != 3 {
		t.Errorf("Escape on a new node left %d nodes", n)
	}
	for _, e := range p.emitted() {
		if e.Type == "graph.node.add" && strings.Contains(fmt.Sprint(e.Data["label"]), "Oops") {
			t.Errorf("a cancelled node was announced: %v", e.Data)
		}
	}
	if sel := p.next("graph.node.select"); len(asStrings(sel["ids"])) != 0 { // the click on the empty board
		t.Errorf("a click on the board %v", sel)
	}

	// Selection: click, shift-click, box, Escape.
	x1, y1 := p.center(`.node[data-id="n1"] .shape`)
	p.click(x1, y1, 0)
	if sel := p.next("graph.node.select"); fmt.Sprint(sel["ids"]) != "[n1]" || fmt.Sprint(sel["labels"]) != "[Sign up]" {
		t.Errorf("click select %v", sel)
	}
	x3, y3 := p.center(`.node[data-id="n3"] .shape`)
	p.click(x3, y3, input.ModifierShift)
	if sel := p.next("graph.node.select"); fmt.Sprint(sel["ids"]) != "[n1 n3]" {
		t.Errorf("shift-click select %v", sel)
	}
	p.run(chromedp.KeyEvent(kb.Escape))
	if sel := p.next("graph.node.select"); len(asStrings(sel["ids"])) != 0 {
		t.Errorf("Escape %v", sel)
	}
	var board []float64
	p.eval(`(() => { const r = document.getElementById("canvas").getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; })()`, &board)
	p.drag(board[0]+8, board[1]+8, board[2]-8, board[3]-8, input.ModifierShift)
	if sel := p.next("graph.node.select"); len(asStrings(sel["ids"])) != 3 {
		t.Errorf("box select %v", sel)
	}

	// Rename a node and a link inline.
	p.dblclick(x1, y1)
	p.typeLabel("Create account")
	lc := p.next("graph.label.change")
	if lc["id"] != "n1" || lc["kind"] != "node" || lc["label"] != "Create account" || lc["before"] != "Sign up" {
		t.Errorf("label.change %v", lc)
	}
	ex, ey := p.center(`.edge[data-id="e1"] .line`)
	p.dblclick(ex, ey)
	p.typeLabel("then")
	if lc := p.next("graph.label.change"); lc["id"] != "e1" || lc["kind"] != "edge" || lc["label"] != "then" {
		t.Errorf("edge label.change %v", lc)
	}
	var edgeText string
	p.eval(`document.querySelector('.edge[data-id="e1"] .elabel').textContent`, &edgeText)
	if edgeText != "then" {
		t.Errorf("edge label shows %q", edgeText)
	}

	// Move n3 by dragging: graph.changed has the new place. First the
	// renames' own graph.changed (250 ms after the last one): under load it
	// may come out in the middle of the drag, with n3 half-way.
	p.next("graph.changed")
	var before []float64
	p.eval(`[graphDebug.graph.nodes.get("n3").x, graphDebug.graph.nodes.get("n3").y]`, &before)
	x3, y3 = p.center(`.node[data-id="n3"] .shape`)
	p.drag(x3, y3, x3+120, y3+30, 0)
	changed = p.next("graph.changed")
	at := wireAt(t, changed, "n3")
	// At zoom 1 the node lands where the pointer was released; ± 1 px is the
	// wire's rounding to whole units.
	if dx, dy := at[0]-before[0], at[1]-before[1]; math.Abs(dx-120) > 1 || math.Abs(dy-30) > 1 {
		t.Errorf("n3 moved by (%v, %v), want (120, 30) (%v → %v)", dx, dy, before, at)
	}

	// Delete a link (click it, Delete), then a node with its link.
	ex, ey = p.center(`.edge[data-id="e1"] .line`)
	p.click(ex, ey, 0)
	p.run(chromedp.KeyEvent(kb.Delete))
	if rm := p.next("graph.edge.remove"); fmt.Sprint(rm["ids"]) != "[e1]" {
		t.Errorf("edge.remove %v", rm)
	}
	x3, y3 = p.center(`.node[data-id="n3"] .shape`)
	p.click(x3, y3, 0)
	p.run(chromedp.KeyEvent(kb.Delete))
	rm := p.next("graph.node.remove")
	if fmt.Sprint(rm["ids"]) != "[n3]" || fmt.Sprint(rm["labels"]) != "[Welcome]" || fmt.Sprint(rm["edges"]) != "[e2]" {
		t.Errorf("node.remove %v", rm)
	}
	// Undo brings it back, redo takes it away, undo again.
	count := func() (n int) { p.eval(`document.querySelectorAll("#nodes .node").length`, &n); return }
	p.run(chromedp.KeyEvent("z", chromedp.KeyModifiers(input.ModifierCtrl)))
	if c := count(); c != 3 {
		t.Errorf("after undo %d nodes", c)
	}
	p.run(chromedp.KeyEvent("z", chromedp.KeyModifiers(input.ModifierCtrl, input.ModifierShift)))
	if c := count(); c != 2 {
		t.Errorf("after redo %d nodes", c)
	}
	p.run(chromedp.Click(`#undo`, chromedp.ByQuery))
	if c := count(); c != 3 {
		t.Errorf("after the undo button %d nodes", c)
	}
	// The graph.changed of the deletes may have gone out before the undo
	// (debounced, 250 ms); the undo's own comes after now.
	p.skip()
	if ch := p.next("graph.changed"); len(ch["nodes"].([]any)) != 3 {
		t.Errorf("graph.changed after undo %v", ch)
	}
	// Connect by keyboard: select two, press C.
	x1, y1 = p.center(`.node[data-id="n1"] .shape`)
	x2, y2 = p.center(`.node[data-id="n2"] .shape`)
	p.click(x1, y1, 0)
	p.click(x2, y2, input.ModifierShift)
	p.run(chromedp.KeyEvent("c"))
	if e := p.next("graph.edge.add"); e["from"] != "n1" || e["to"] != "n2" {
		t.Errorf("edge.add by C %v", e)
	}
	p.run(chromedp.KeyEvent(kb.Escape))
	if sel := p.next("graph.node.select"); len(asStrings(sel["ids"])) != 0 {
		t.Errorf("Escape %v", sel)
	}

	// Right-click a node: it is selected and the companion is called with it.
	x2, y2 = p.center(`.node[data-id="n2"] .shape`)
	p.run(mouse(input.MousePressed, x2, y2, input.Right, 1, 0), mouse(input.MouseReleased, x2, y2, input.Right, 1, 0))
	if sel := p.next("graph.node.select"); fmt.Sprint(sel["ids"]) != "[n2]" {
		t.Errorf("right-click select %v", sel)
	}
	summon := p.next("entity.summon")
	ctxNode, _ := summon["context"].(map[string]any)["node"].(map[string]any)
	if ctxNode == nil || ctxNode["id"] != "n2" || ctxNode["label"] != "Verify email" ||
		fmt.Sprint(ctxNode["in"]) != "[Create account]" || fmt.Sprint(ctxNode["out"]) != "[Welcome]" {
		t.Errorf("summon context %v", summon)
	}

	// Pan by dragging the empty board, zoom with the wheel.
	var v0, v1 map[string]float64
	p.eval(`graphDebug.view`, &v0)
	p.drag(1000, 650, 900, 600, 0)
	p.run(chromedp.ActionFunc(func(ctx context.Context) error {
		return input.DispatchMouseEvent(input.MouseWheel, 500, 400).WithDeltaY(-400).Do(ctx)
	}))
	p.eval(`graphDebug.view`, &v1)
	if v1["zoom"] <= v0["zoom"] || v1["x"] == v0["x"] {
		t.Errorf("view %v → %v: pan and zoom did nothing", v0, v1)
	}

	// Pictures for the human: PNG and SVG downloads.
	var png, svgText string
	p.run(chromedp.Click(`#export-png`, chromedp.ByQuery), chromedp.Poll(`window.__blobs.length === 1`, nil))
	p.run(chromedp.Evaluate(`window.__blobs[0].arrayBuffer().then((b) => window.__blobs[0].type + " " + Array.from(new Uint8Array(b).slice(0, 4)).join(","))`, &png, awaitPromise))
	p.run(chromedp.Click(`#export-svg`, chromedp.ByQuery), chromedp.Poll(`window.__blobs.length === 2`, nil))
	p.run(chromedp.Evaluate(`window.__blobs[1].text()`, &svgText, awaitPromise))
	var downloads []string
	p.eval(`window.__downloads`, &downloads)
	if png != "image/png 137,80,78,71" {
		t.Errorf("PNG export %q", png)
	}
	if !strings.HasPrefix(svgText, "<svg") || !strings.Contains(svgText, "Create account") || strings.Count(svgText, "<line") != 2 {
		t.Errorf("SVG export:\n%s", svgText)
	}
	if strings.Join(downloads, " ") != "graph.png graph.svg" {
		t.Errorf("downloads %v", downloads)
	}

	// Send to Claude: the whole graph and a text summary.
	p.run(chromedp.Click(`#send`, chromedp.ByQuery))
	exp := p.next("graph.export")
	text, _ := exp["text"].(string)
	if len(exp["nodes"].([]any)) != 3 || len(exp["edges"].([]any)) != 2 || fmt.Sprint(exp["selection"]) != "[n2]" ||
		!strings.Contains(text, `"Verify email" → "Welcome"`) || !strings.Contains(text, `Starts: "Create account"`) ||
		!strings.HasPrefix(exp["summary"].(string), "3 nodes, 2 links: Create account") {
		t.Errorf("export %v", exp)
	}
	t.Logf("export text:\n%s", text)

	// Keyboard: Tab from the board reaches a node; [ and ] walk the nodes.
	var focused string
	p.run(chromedp.Focus(`#canvas`, chromedp.ByQuery), chromedp.KeyEvent("\t"))
	p.eval(`document.activeElement.dataset.id || document.activeElement.id`, &focused)
	if focused != "n1" {
		t.Errorf("Tab from the board focused %q", focused)
	}
	p.run(chromedp.KeyEvent("]"))
	p.eval(`document.activeElement.dataset.id`, &focused)
	if focused != "n2" {
		t.Errorf("] focused %q", focused)
	}
	p.run(chromedp.Focus(`#fit`, chromedp.ByQuery), chromedp.KeyEvent(kb.ArrowRight))
	p.eval(`document.activeElement.id`, &focused)
	if focused != "zoom-in" {
		t.Errorf("ArrowRight in the toolbar focused %q", focused)
	}
	p.run(chromedp.KeyEvent(kb.End))
	p.eval(`document.activeElement.id`, &focused)
	if focused != "send" {
		t.Errorf("End in the toolbar focused %q", focused)
	}
	var violations string
	p.eval(`JSON.stringify(window.__violations)`, &violations)
	if violations != "[]" {
		t.Errorf("CSP violations: %s", violations)
	}
	for _, e := range p.emitted() {
		p.checkSchema(e)
	}
}

// TestBrowserGraphCommands: every command the graph declares, delivered as
// the host would (checked against its schema first), changes the DOM.
func TestBrowserGraphCommands(t *testing.T) {
	p := newGraphPage(t, "dark")
	nodes := func() (n int) { p.eval(`document.querySelectorAll("#nodes .node").length`, &n); return }
	edges := func() (n int) { p.eval(`document.querySelectorAll("#edges .edge").length`, &n); return }
	text := func(sel string) (s string) {
		p.eval(fmt.Sprintf(`(document.querySelector(%q) || {}).textContent || ""`, sel), &s)
		return
	}
	attr := func(sel, name string) (s string) {
		p.eval(fmt.Sprintf(`(document.querySelector(%q) || {getAttribute() { return "" }}).getAttribute(%q) || ""`, sel, name), &s)
		return
	}

	p.command("graph.load", `{"nodes":[{"id":"a","label":"Order placed","at":{"x":0,"y":0},"shape":"round","color":"green"},
		{"id":"b","label":"Paid?","at":{"x":0,"y":120},"shape":"diamond"},{"id":"c","label":"Ship it","at":{"x":0,"y":260}}],
		"edges":[{"id":"e1","from":"a","to":"b"},{"id":"e2","from":"b","to":"c","label":"yes"}],"viewport":{"x":-300,"y":-100,"zoom":1.25}}`)
	if nodes() != 3 || edges() != 2 || text(`.node[data-id="b"] .label`) != "Paid?" || attr(`.node[data-id="b"]`, "data-shape") != "diamond" ||
		attr(`.node[data-id="a"]`, "data-color") != "green" || text(`.edge[data-id="e2"] .elabel`) != "yes" {
		t.Fatalf("graph.load: %d nodes, %d edges", nodes(), edges())
	}
	var view map[string]float64
	p.eval(`graphDebug.view`, &view)
	if view["zoom"] != 1.25 || view["x"] != -300 {
		t.Errorf("graph.load viewport %v", view)
	}
	var hintHidden bool
	p.eval(`document.getElementById("empty").hidden`, &hintHidden)
	if !hintHidden {
		t.Error("the start hint still shows over a loaded graph")
	}

	p.command("graph.node.add", `{"id":"r","label":"Remind the customer","near":"b","color":"purple","shape":"note"}`)
	if text(`.node[data-id="r"] .label`) != "Remind the customer" || attr(`.node[data-id="r"]`, "data-color") != "purple" || attr(`.node[data-id="r"]`, "data-shape") != "note" {
		t.Errorf("graph.node.add: %q", text(`.node[data-id="r"]`))
	}
	p.command("graph.node.add", `{"label":"Placed by Claude","at":{"x":400,"y":40}}`)
	var placed []float64
	p.eval(`(() => { const n = [...graphDebug.graph.nodes.values()].find((n) => n.label === "Placed by Claude"); return [n.x, n.y]; })()`, &placed)
	if len(placed) != 2 || placed[0] != 400 || placed[1] != 40 {
		t.Errorf("graph.node.add at: %v", placed)
	}
	p.command("graph.node.update", `{"id":"r","label":"Send a reminder","shape":"box","color":"#d04a8a"}`)
	if text(`.node[data-id="r"] .label`) != "Send a reminder" || attr(`.node[data-id="r"]`, "data-shape") != "box" || attr(`.node[data-id="r"]`, "data-color") != "" {
		t.Errorf("graph.node.update: %q", text(`.node[data-id="r"]`))
	}
	var fill string
	p.eval(`getComputedStyle(document.querySelector('.node[data-id="r"]')).getPropertyValue("--node-line")`, &fill)
	if fill != "#d04a8a" {
		t.Errorf("custom colour stroke %q", fill)
	}
	p.command("graph.edge.add", `{"id":"no","from":"b","to":"r","label":"no"}`)
	if attr(`.edge[data-id="no"]`, "data-from") != "b" || text(`.edge[data-id="no"] .elabel`) != "no" {
		t.Error("graph.edge.add did not draw the link")
	}
	p.command("graph.edge.add", `{"from":"r","to":"b"}`)
	if edges() != 4 {
		t.Errorf("graph.edge.add without id: %d links", edges())
	}
	p.command("graph.edge.remove", `{"from":"r","to":"b"}`)
	p.command("graph.edge.remove", `{"ids":["nope"]}`)
	if edges() != 3 {
		t.Errorf("graph.edge.remove: %d links", edges())
	}

	p.command("graph.select", `{"ids":["a","c"]}`)
	var selected []string
	p.eval(`[...document.querySelectorAll("#nodes .node.selected")].map((g) => g.dataset.id)`, &selected)
	if strings.Join(selected, " ") != "a c" || attr(`.node[data-id="a"]`, "aria-pressed") != "true" {
		t.Errorf("graph.select: %v", selected)
	}

	p.command("graph.layout", `{"direction":"right"}`)
	p.settled()
	var pos map[string][]float64
	p.eval(`Object.fromEntries([...graphDebug.graph.nodes.values()].map((n) => [n.id, [n.x, n.y]]))`, &pos)
	if !(pos["a"][0] < pos["b"][0] && pos["b"][0] < pos["c"][0] && pos["b"][0] < pos["r"][0]) || pos["c"][0] != pos["r"][0] {
		t.Errorf("graph.layout right: %v", pos)
	}
	p.command("graph.layout", `{}`)
	p.settled()
	p.eval(`Object.fromEntries([...graphDebug.graph.nodes.values()].map((n) => [n.id, [n.x, n.y]]))`, &pos)
	if !(pos["a"][1] < pos["b"][1] && pos["b"][1] < pos["c"][1]) || pos["c"][1] != pos["r"][1] {
		t.Errorf("graph.layout down: %v", pos)
	}
	var dir string
	p.eval(`document.getElementById("direction").value`, &dir)
	if dir != "down" {
		t.Errorf("the direction picker shows %q", dir)
	}

	p.command("graph.focus", `{"ids":["c"]}`)
	// The view glides to the node: wait for the glide to end.
	p.settled()
	var off []float64
	p.eval(`(() => { const b = document.getElementById("canvas").getBoundingClientRect(); const r = document.querySelector('.node[data-id="c"] .shape').getBoundingClientRect();
		return [r.x + r.width / 2 - (b.x + b.width / 2), r.y + r.height / 2 - (b.y + b.height / 2)]; })()`, &off)
	// ± 1 px: node positions are drawn rounded to 0.1 unit (at most 1.5× zoom).
	if attr(`#canvas`, "data-focus") != "c" || len(off) != 2 || math.Abs(off[0]) > 1 || math.Abs(off[1]) > 1 {
		t.Errorf("graph.focus: node c is %v from the centre", off)
	}

	p.command("graph.node.remove", `{"id":"r"}`)
	if nodes() != 4 || edges() != 2 {
		t.Errorf("graph.node.remove: %d nodes, %d links", nodes(), edges())
	}
	p.command("graph.clear", `{}`)
	var hint bool
	p.eval(`!document.getElementById("empty").hidden`, &hint)
	if nodes() != 0 || edges() != 0 || !hint {
		t.Errorf("graph.clear: %d nodes, %d links, hint %v", nodes(), edges(), hint)
	}
	// The human can undo what Claude did.
	p.run(chromedp.Focus(`#canvas`, chromedp.ByQuery), chromedp.KeyEvent("z", chromedp.KeyModifiers(input.ModifierCtrl)))
	if nodes() != 4 {
		t.Errorf("undo after graph.clear: %d nodes", nodes())
	}
	// Claude's commands are not echoed as human events; snapshots follow.
	snap := p.next("graph.snapshot")
	for _, e := range p.emitted() {
		if e.Type != "graph.snapshot" && e.Type != "graph.changed" {
			t.Errorf("a command made the page emit %s %v", e.Type, e.Data)
		}
	}
	if snap["summary"] == "" {
		t.Errorf("snapshot %v", snap)
	}
	// A graph too big for one envelope goes up trimmed, and says so.
	var big strings.Builder
	big.WriteString(`{"nodes":[`)
	for i := 0; i < 2000; i++ {
		if i > 0 {
			big.WriteString(",")
		}
		fmt.Fprintf(&big, `{"id":"b%d","label":"%s %d","at":{"x":%d,"y":%d}}`, i, strings.Repeat("long label ", 15), i, (i%40)*200, (i/40)*90)
	}
	big.WriteString(`],"edges":[`)
	for i := 0; i < 3000; i++ {
		if i > 0 {
			big.WriteString(",")
		}
		fmt.Fprintf(&big, `{"from":"b%d","to":"b%d","label":"step"}`, i%2000, (i*7+1)%2000)
	}
	big.WriteString(`]}`)
	p.command("graph.load", big.String())
	// A snapshot reads the graph when it goes out, so every one from now on
	// (the small graph's, still due, included) is of the big graph.
	p.skip()
	p.command("graph.layout", `{"direction":"right"}`)
	snap = p.next("graph.snapshot")
	tr, _ := snap["truncated"].(map[string]any)
	raw, _ := json.Marshal(snap)
	if len(raw) > 250_000 || tr == nil || tr["nodes"] != float64(2000) || tr["edges"] != float64(3000) || len(snap["nodes"].([]any)) == 0 {
		t.Errorf("a 2000-node snapshot is %d bytes, truncated %v", len(raw), tr)
	}
	t.Logf("a 2000-node, 3000-link graph snapshot: %d bytes with %d nodes", len(raw), len(snap["nodes"].([]any)))
	p.command("graph.clear", `{}`)

	// Unknown ids and nodes without positions are handled kindly.
	p.command("graph.node.update", `{"id":"ghost","label":"boo"}`)
	var status string
	p.eval(`document.getElementById("status").textContent`, &status)
	if !strings.Contains(status, "no node ghost") {
		t.Errorf("status after an unknown id: %q", status)
	}
	p.command("graph.load", `{"nodes":[{"id":"x","label":"One"},{"id":"y","label":"Two"}],"edges":[{"from":"x","to":"y"},{"from":"x","to":"zzz"}]}`)
	p.eval(`Object.fromEntries([...graphDebug.graph.nodes.values()].map((n) => [n.id, [n.x, n.y]]))`, &pos)
	p.eval(`document.getElementById("status").textContent`, &status)
	if nodes() != 2 || edges() != 1 || pos["x"][1] >= pos["y"][1] || !strings.Contains(status, "1 broken") {
		t.Errorf("graph.load without positions: %v, status %q", pos, status)
	}
}

// TestBrowserGraphDragLandsWhereReleased: a loaded browser merges or drops
// pointermove events, so a gesture may reach the page as a press, a few
// moves or none, and the release. Moved nodes, a panned board and a
// selection box still end where the pointer was released.
func TestBrowserGraphDragLandsWhereReleased(t *testing.T) {
	p := newGraphPage(t, "light")
	p.command("graph.load", `{"nodes":[{"id":"a","label":"A","at":{"x":0,"y":0}},{"id":"b","label":"B","at":{"x":0,"y":150}}],"edges":[]}`)
	// gesture presses at (x0, y0), moves the first of eight steps for each
	// of moves, then releases at (x1, y1).
	gesture := func(x0, y0, x1, y1 float64, moves int, mods input.Modifier) {
		acts := []chromedp.Action{mouse(input.MousePressed, x0, y0, input.Left, 1, mods)}
		for i := 1; i <= moves; i++ {
			f := float64(i) / 8
			acts = append(acts, mouse(input.MouseMoved, x0+(x1-x0)*f, y0+(y1-y0)*f, input.Left, 0, mods))
		}
		p.run(append(acts, mouse(input.MouseReleased, x1, y1, input.Left, 1, mods))...)
	}
	// ± 1 px: the page sees mouse positions rounded to whole pixels.
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1 }

	for moves := 0; moves <= 2; moves++ {
		x, y := p.center(`.node[data-id="a"] .shape`)
		gesture(x, y, x+120, y+30, moves, 0)
		if ax, ay := p.center(`.node[data-id="a"] .shape`); !near(ax, x+120) || !near(ay, y+30) {
			t.Errorf("with %d moves before the release, node a is at (%v, %v), want (%v, %v)", moves, ax, ay, x+120, y+30)
		}
	}
	if ch := p.next("graph.changed"); len(ch["nodes"].([]any)) != 2 {
		t.Errorf("graph.changed after moving %v", ch)
	}

	// A pan: the board point under the press ends under the release.
	var board []float64
	p.eval(`(() => { const r = document.getElementById("board-wrap").getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; })()`, &board)
	var v0, v1 map[string]float64
	p.eval(`graphDebug.view`, &v0)
	gesture(board[2]-60, board[3]-60, board[2]-260, board[3]-110, 0, 0)
	p.eval(`graphDebug.view`, &v1)
	if sx, sy := (v0["x"]-v1["x"])*v1["zoom"], (v0["y"]-v1["y"])*v1["zoom"]; v1["zoom"] != v0["zoom"] || !near(sx, -200) || !near(sy, -50) {
		t.Errorf("a pan by (-200, -50) px with no moves moved the view %v → %v", v0, v1)
	}

	// A selection box drawn with no moves selects what it encloses.
	p.eval(`(() => { const r = document.getElementById("board-wrap").getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; })()`, &board)
	gesture(board[0]+8, board[1]+8, board[2]-8, board[3]-8, 0, input.ModifierShift)
	if sel := p.next("graph.node.select"); strings.Join(asStrings(sel["ids"]), " ") != "a b" {
		t.Errorf("a box with no moves selected %v", sel)
	}
}
