package host

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/lets-app/lets/backend/lip"
	"github.com/lets-app/lets/backend/testenv/browsertest"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// Issue #11, the companion (entity): every entity.* message of seed §3.2
// in both directions, in headless Chromium against a real host. Down:
// the command goes through POST /lip/send and the test asserts the DOM.
// Up: the test does the human act and asserts the envelope from listen.

// entityRig is one board window in Chromium.
type entityRig struct {
	th  *testHost
	win testWindow
	ctx context.Context
	uo  string
	uc  *uniqueContexts
	// pointer is where the test last moved the mouse (pointerStep, or
	// set by hand after other moves).
	pointer [2]float64
}

// pageClockJS makes the page's performance.now, the clock the companion
// reads for its glides and its hold after a move, one the test can drive:
// __letsClock.advance(ms) moves it on, hold() stops it (frames keep
// coming, time does not pass) and release() lets it run again from there.
// Left alone it is the real clock. __samples counts the pointer samples
// the shell handled.
const pageClockJS = `(() => {
	const real = performance.now.bind(performance);
	let ahead = 0, held = null;
	performance.now = () => held !== null ? held : real() + ahead;
	window.__letsClock = {
		advance(ms) { if (held !== null) held += ms; else ahead += ms; },
		hold() { held = real() + ahead; },
		release() { ahead = held - real(); held = null; },
	};
	// Pointer samples the shell has handled: its own pointermoves, and
	// the ones the unique's SDK relays through its port.
	window.__samples = 0;
	addEventListener("pointermove", () => { window.__samples++; }, true);
	const onmessage = Object.getOwnPropertyDescriptor(MessagePort.prototype, "onmessage");
	Object.defineProperty(MessagePort.prototype, "onmessage", {
		get() { return onmessage.get.call(this); },
		set(fn) { onmessage.set.call(this, typeof fn !== "function" ? fn : function (ev) {
			const r = fn.call(this, ev);
			if (ev.data && ev.data.op === "pointer" && ev.data.kind === "move") window.__samples++;
			return r;
		}); },
	});
})()`

func newEntityRig(t testing.TB, features ...*emulation.MediaFeature) *entityRig {
	t.Helper()
	th := startLIPHost(t)
	win := th.openOnly(t, "board", "")
	ctx := browsertest.New(t, browsertest.Options{Width: 1000, Height: 640, Timeout: 120 * time.Second})
	uc := watchContexts(ctx)
	actions := []chromedp.Action{chromedp.ActionFunc(func(ctx context.Context) error {
		_, err := page.AddScriptToEvaluateOnNewDocument(pageClockJS).Do(ctx)
		return err
	})}
	if len(features) > 0 {
		actions = append(actions, emulation.SetEmulatedMedia().WithFeatures(features))
	}
	actions = append(actions,
		chromedp.Navigate(win.URL),
		chromedp.WaitVisible(`#lets-shell[data-state="online"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.lets-companion-body`, chromedp.ByQuery),
	)
	if err := chromedp.Run(ctx, actions...); err != nil {
		t.Fatalf("shell page: %v", err)
	}
	o, _ := th.origins.get("board")
	return &entityRig{th: th, win: win, ctx: ctx, uo: o.url(), uc: uc}
}

// send posts entity commands to the rig's window.
func (r *entityRig) send(t testing.TB, cmds ...map[string]any) {
	t.Helper()
	list := make([]map[string]any, len(cmds))
	for i, c := range cmds {
		list[i] = map[string]any{"lip": 1, "type": c["type"], "win": r.win.Window, "data": c["data"]}
	}
	code, body := r.th.send(t, list)
	if code != 200 {
		t.Fatalf("send: %d %v", code, body)
	}
	if rej, _ := body["rejected"].([]any); len(rej) > 0 {
		t.Fatalf("send rejected: %v", rej)
	}
}

func (r *entityRig) eval(t testing.TB, expr string, out any) {
	t.Helper()
	if err := chromedp.Run(r.ctx, chromedp.Evaluate(expr, out, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) })); err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
}

// poll waits until a boolean expression in the shell page is true.
func (r *entityRig) poll(t *testing.T, expr string) {
	t.Helper()
	if err := chromedp.Run(r.ctx, chromedp.Poll("!!("+expr+")", nil, chromedp.WithPollingTimeout(ioTimeout))); err != nil {
		var state any
		_ = chromedp.Run(r.ctx, chromedp.Evaluate(`(() => { const b = document.querySelector(".lets-companion-body").getBoundingClientRect(); return {left: b.left, top: b.top, view: [innerWidth, innerHeight], data: {...document.querySelector(".lets-companion").dataset}}; })()`, &state))
		t.Fatalf("in the shell, %s never became true: %v\ncompanion: %v", expr, err, state)
	}
}

// shellEvent waits for the next event of typ and checks it is a human act
// from this window's shell.
func (r *entityRig) shellEvent(t *testing.T, cursor, typ string) map[string]any {
	t.Helper()
	ev := r.th.waitEvent(t, cursor, typ, ioTimeout)
	if want := "shell:board#" + r.win.Window; ev.From != want {
		t.Fatalf("%s came from %q, want %q", typ, ev.From, want)
	}
	return dataOf(t, ev)
}

func (r *entityRig) companionBox(t *testing.T) (x, y float64) {
	t.Helper()
	var p []float64
	r.eval(t, `(() => { const b = document.querySelector(".lets-companion-body").getBoundingClientRect(); return [b.left, b.top]; })()`, &p)
	return p[0], p[1]
}

// savePNG writes an element screenshot where browsertest.Screenshot
// writes page screenshots ($LETS_SCREENSHOTS, e.g. docs/screenshots).
func savePNG(t *testing.T, name string, png []byte) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(browsertest.ScreenshotDir(t), name), png, 0o644); err != nil {
		t.Fatalf("save screenshot %s: %v", name, err)
	}
}

// pointerTo moves the mouse to (x, y) and returns once every pointermove
// listener of the page has run for it.
func (r *entityRig) pointerTo(t *testing.T, x, y float64) {
	t.Helper()
	r.pointerStep(t, x, y, 0)
}

// pointerStep is pointerTo after the page's (held) clock moved on ms: one
// pointer sample of a gesture, at a known time, never merged with the
// next one into a single pointermove.
func (r *entityRig) pointerStep(t *testing.T, x, y, ms float64) {
	t.Helper()
	var before int
	r.eval(t, `__letsClock.advance(`+jsNum(ms)+`), __samples`, &before)
	if err := chromedp.Run(r.ctx, mouse(input.MouseMoved, x, y, input.None, 0)); err != nil {
		t.Fatal(err)
	}
	if math.Abs(r.pointer[0]-x) < 1 && math.Abs(r.pointer[1]-y) < 1 {
		return // a move to where the pointer already is fires no pointermove
	}
	r.pointer = [2]float64{x, y}
	r.poll(t, `__samples > `+strconv.Itoa(before))
}

// gesture plays pointer samples every ms on the page's clock, held for
// the time of it, so the gesture's speed is what the test says whatever
// the machine's load.
func (r *entityRig) gesture(t *testing.T, ms float64, points [][2]float64) {
	t.Helper()
	r.eval(t, `__letsClock.hold(), true`, nil)
	for _, p := range points {
		r.pointerStep(t, p[0], p[1], ms)
	}
	r.eval(t, `__letsClock.release(), true`, nil)
}

func mouse(typ input.MouseType, x, y float64, button input.MouseButton, buttons int64) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		p := input.DispatchMouseEvent(typ, x, y).WithButton(button).WithButtons(buttons)
		if typ != input.MouseMoved {
			p = p.WithClickCount(1)
		}
		return p.Do(ctx)
	})
}

// TestBrowserEntityCommands: entity.say (ttl, replace, mood, live region),
// entity.mood (eight visibly different moods), entity.suggest (merge and
// replace), entity.move (eased, clamped; point, center, selector, cursor),
// entity.show/hide, entity.persona (name, speed, distance while
// following) and all eighteen entity.react expressions.
func TestBrowserEntityCommands(t *testing.T) {
	r := newEntityRig(t)

	// entity.say: bubble with text, mood applied, a screen-reader live
	// region, replaced by the next say, gone after ttl.
	r.send(t, map[string]any{"type": "entity.say", "data": map[string]any{"text": "Hello there!", "mood": "happy", "ttl": 1500}})
	r.poll(t, `!document.querySelector(".lets-companion-bubble").hidden && document.querySelector(".lets-companion-bubble").textContent === "Hello there!"`)
	var live, mood string
	r.eval(t, `document.getElementById("lets-companion-live").textContent`, &live)
	r.eval(t, `document.querySelector(".lets-companion").dataset.mood`, &mood)
	if !strings.Contains(live, "Hello there!") || mood != "happy" {
		t.Errorf("say: live region %q, mood %q", live, mood)
	}
	// The page notes when the next bubble's timer is armed and when the
	// bubble hides. Armed, not "shown": an observer notes a change only
	// when the task that made it ends, and the rest of that task (the
	// bubble's placement, a forced layout) took over 100 ms in a loaded
	// race build (CI r8), so "shown" came late and the time looked short.
	r.eval(t, `(() => { const b = document.querySelector(".lets-companion-bubble"); window.__bubble = {};
		const arm = window.setTimeout;
		window.setTimeout = function (fn, ms, ...rest) { if (ms === 1200 && window.__bubble.armed === undefined) window.__bubble.armed = performance.now(); return arm.call(this, fn, ms, ...rest); };
		new MutationObserver(() => {
		if (b.hidden && window.__bubble.armed !== undefined && window.__bubble.hidden === undefined) window.__bubble.hidden = performance.now();
	}).observe(b, {childList: true, attributes: true, attributeFilter: ["hidden"]}); return true; })()`, nil)
	r.send(t, map[string]any{"type": "entity.say", "data": map[string]any{"text": "Second thought.", "ttl": 1200}})
	r.poll(t, `document.querySelector(".lets-companion-bubble").textContent === "Second thought."`)
	var bubbles int
	r.eval(t, `document.querySelectorAll(".lets-companion-bubble").length`, &bubbles)
	r.eval(t, `document.querySelector(".lets-companion").dataset.mood`, &mood)
	if bubbles != 1 || mood != "happy" {
		t.Errorf("a new say replaces the bubble (%d bubbles) and keeps the mood (%q)", bubbles, mood)
	}
	r.poll(t, `document.querySelector(".lets-companion-bubble").hidden`)
	var shownFor float64
	r.eval(t, `window.__bubble.armed === undefined ? -1 : window.__bubble.hidden - window.__bubble.armed`, &shownFor)
	if shownFor < 0 {
		t.Fatal("the companion armed no 1.2 s timer for the bubble")
	}
	// A page timer never fires early; the one millisecond is the clock's
	// grain (performance.now is coarsened, timers run on whole ms).
	if shownFor < 1199 {
		t.Errorf("the bubble left %.0f ms after its timer was armed, before its ttl of 1.2 s", shownFor)
	}

	// entity.mood: each of the eight moods draws differently.
	shots := map[string][]byte{}
	_ = chromedp.Run(r.ctx, emulation.SetDeviceMetricsOverride(1000, 640, 3, false))
	// Still pictures: the pointer rests mid-page and the companion settles
	// beside it, so following has nothing more to do.
	if err := chromedp.Run(r.ctx, mouse(input.MouseMoved, 500, 300, input.None, 0)); err != nil {
		t.Fatal(err)
	}
	r.poll(t, `(() => { const b = document.querySelector(".lets-companion-body").getBoundingClientRect(); return !document.querySelector(".lets-companion").dataset.moving && Math.hypot(b.left + 32 - 500, b.top + 32 - 300) < 200; })()`)
	// Still poses for the pictures: mood motions paused.
	for _, m := range lip.Moods() {
		r.send(t, map[string]any{"type": "entity.mood", "data": map[string]any{"mood": m}})
		r.poll(t, `document.querySelector(".lets-companion").dataset.mood === `+jsString(m))
		// Colour transitions end; mood motions hold their first pose.
		r.eval(t, `new Promise(res => requestAnimationFrame(() => { document.getAnimations().forEach(a => { if (a instanceof CSSTransition) a.finish(); else { a.pause(); a.currentTime = 0; } }); requestAnimationFrame(() => res(true)); }))`, nil)
		var png []byte
		if err := chromedp.Run(r.ctx, chromedp.Screenshot(`.lets-companion-body`, &png, chromedp.ByQuery)); err != nil {
			t.Fatal(err)
		}
		shots[m] = png
		if len(png) < 2000 {
			t.Errorf("the picture of mood %s is empty (%d bytes): the companion was not where it was captured", m, len(png))
		}
		savePNG(t, "entity-mood-"+m+".png", png)
	}
	for a, pa := range shots {
		for b, pb := range shots {
			if a < b && bytes.Equal(pa, pb) {
				t.Errorf("moods %s and %s look the same", a, b)
			}
		}
	}
	_ = chromedp.Run(r.ctx, emulation.ClearDeviceMetricsOverride())
	r.send(t, map[string]any{"type": "entity.mood", "data": map[string]any{"mood": "idle"}})

	// entity.suggest: merged into, then replacing, the click menu, which
	// also holds the instant local suggestions.
	r.send(t, map[string]any{"type": "entity.suggest", "data": map[string]any{"items": []map[string]any{{"id": "s1", "label": "Sort the board"}, {"id": "s2", "label": "Add a column", "hint": "to the right"}}}})
	r.send(t, map[string]any{"type": "entity.suggest", "data": map[string]any{"items": []map[string]any{{"id": "s2", "label": "Add two columns"}, {"id": "s3", "label": "Tidy up"}}}})
	if err := chromedp.Run(r.ctx, chromedp.Click(`.lets-companion-body`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	r.poll(t, `!document.getElementById("lets-companion-menu").hidden`)
	var ids []string
	r.eval(t, `[...document.querySelectorAll("#lets-companion-menu [role=menuitem][data-id]")].map(b => b.dataset.id + "=" + b.querySelector(".lets-companion-label").textContent)`, &ids)
	want := "s1=Sort the board s2=Add two columns s3=Tidy up quick.explain=Explain what I'm looking at"
	if got := strings.Join(ids, " "); !strings.HasPrefix(got, want) {
		t.Errorf("merged menu:\n got %s\nwant %s…", got, want)
	}
	r.send(t, map[string]any{"type": "entity.suggest", "data": map[string]any{"replace": true, "items": []map[string]any{{"id": "only", "label": "Only this"}}}})
	r.poll(t, `document.querySelector("#lets-companion-menu [data-id]").dataset.id === "only" && !document.querySelector('#lets-companion-menu [data-id="s1"]')`)
	if err := chromedp.Run(r.ctx, chromedp.KeyEvent(kb.Escape)); err != nil {
		t.Fatal(err)
	}
	r.poll(t, `document.getElementById("lets-companion-menu").hidden && document.activeElement === document.querySelector(".lets-companion-body")`)

	// entity.move to a point: eased over frames, never a jump. The page's
	// clock is held and moved on one 16 ms frame at a time, so every frame
	// of the glide is seen, however busy the machine.
	for i, target := range [][2]float64{{200, 200}, {600, 400}} {
		x0, y0 := r.companionBox(t)
		r.eval(t, `__letsClock.hold(), true`, nil)
		r.send(t, map[string]any{"type": "entity.move", "data": map[string]any{"x": target[0], "y": target[1]}})
		r.poll(t, `document.querySelector(".lets-companion").dataset.moving`)
		var track [][]float64
		for moving := true; moving; {
			var f struct {
				X, Y   float64
				Moving bool
			}
			r.eval(t, `new Promise(res => { __letsClock.advance(16); requestAnimationFrame(() => requestAnimationFrame(() => { const e = document.querySelector(".lets-companion"); res({x: +e.dataset.x, y: +e.dataset.y, moving: !!e.dataset.moving}); })); })`, &f)
			track = append(track, []float64{f.X, f.Y})
			moving = f.Moving
			if len(track) > 100 {
				t.Fatalf("move %d still gliding after %d frames of 16 ms", i+1, len(track))
			}
		}
		r.eval(t, `__letsClock.release(), true`, nil)
		tx, ty := target[0]-32, target[1]-32
		dist := math.Hypot(tx-x0, ty-y0)
		between, maxStep := 0, 0.0
		prev := []float64{x0, y0}
		for _, p := range track {
			maxStep = math.Max(maxStep, math.Hypot(p[0]-prev[0], p[1]-prev[1]))
			prev = p
			if math.Hypot(p[0]-x0, p[1]-y0) > 2 && math.Hypot(p[0]-tx, p[1]-ty) > 2 {
				between++
			}
		}
		if end := track[len(track)-1]; math.Abs(end[0]-tx) > 1 || math.Abs(end[1]-ty) > 1 {
			t.Fatalf("move %d ended at %v, want (%v, %v)", i+1, end, tx, ty)
		}
		// At most 600 ms of glide over 16 ms frames, eased: a step is a
		// small part of the way.
		if between < 10 || maxStep > dist*0.3 {
			t.Errorf("move %d teleported: %d frames in between, largest step %.0f px of %.0f", i+1, between, maxStep, dist)
		}
	}
	// Off-screen targets are clamped to the viewport; the top-right corner
	// holds the Chat button, so the companion rests just clear of it
	// (issue #21: it never covers a control).
	r.send(t, map[string]any{"type": "entity.move", "data": map[string]any{"x": 99999, "y": -500}})
	r.poll(t, `(() => { const b = document.querySelector(".lets-companion-body").getBoundingClientRect(); const c = document.getElementById("lets-chat-toggle").getBoundingClientRect(); const clear = b.right <= c.left || b.left >= c.right || b.bottom <= c.top || b.top >= c.bottom; return !document.querySelector(".lets-companion").dataset.moving && b.right <= innerWidth && b.top >= 0 && b.right > innerWidth - 20 && b.top < c.bottom + 20 && clear; })()`)
	r.send(t, map[string]any{"type": "entity.move", "data": map[string]any{"to": "center"}})
	r.poll(t, `(() => { const b = document.querySelector(".lets-companion-body").getBoundingClientRect(); return Math.abs(b.left + 32 - innerWidth / 2) <= 2 && Math.abs(b.top + 32 - innerHeight / 2) <= 2; })()`)
	r.send(t, map[string]any{"type": "entity.move", "data": map[string]any{"to": "#lets-status"}})
	r.poll(t, `(() => { const b = document.querySelector(".lets-companion-body").getBoundingClientRect(); const s = document.getElementById("lets-status").getBoundingClientRect(); return !document.querySelector(".lets-companion").dataset.moving && Math.abs((b.top + 32) - (s.top + s.height / 2)) <= 40 && (Math.abs(b.left - s.right - 8) <= 2 || Math.abs(b.right - s.left + 8) <= 2); })()`)

	// The pointer's spot for following: low in the view, 140 px above its
	// bottom edge (whatever the window's inner height), so there is no
	// room below it for the companion at the persona distance.
	var innerH float64
	r.eval(t, `innerHeight`, &innerH)
	px, py := 302.0, innerH-140
	// Start the following check from a corner far from the pointer's spot
	// (following starts only beyond 2.2 × the distance), whatever the
	// status line's place and width happen to be. The page's clock is
	// held from this move on (the glide is moved to its end by hand), so
	// the hold after it lasts however slow the machine is.
	r.eval(t, `__letsClock.hold(), true`, nil)
	r.send(t, map[string]any{"type": "entity.move", "data": map[string]any{"x": 99999, "y": 0}})
	r.poll(t, `document.querySelector(".lets-companion").dataset.moving`)
	r.eval(t, `__letsClock.advance(600), true`, nil) // the longest glide
	r.poll(t, `(() => { const b = document.querySelector(".lets-companion-body").getBoundingClientRect(); return !document.querySelector(".lets-companion").dataset.moving && Math.hypot(b.left + 32 - `+jsNum(px)+`, b.top + 32 - `+jsNum(py)+`) > 2.2 * 120 + 20; })()`)

	// entity.persona: name (label, menu), speed and distance; following
	// the cursor keeps that distance and never covers the pointer.
	r.send(t, map[string]any{"type": "entity.persona", "data": map[string]any{"name": "Juniper", "traits": map[string]any{"speed": "fast", "distance": 120}}})
	r.poll(t, `document.querySelector(".lets-companion-body").getAttribute("aria-label").startsWith("Juniper,")`)
	// Claude's last move holds following for 5 s: the pointer is not
	// followed yet; once the page's clock has moved on to the end of the
	// hold it is.
	r.pointerTo(t, px-2, py-1)
	var moving bool
	r.eval(t, `!!document.querySelector(".lets-companion").dataset.moving`, &moving)
	if moving {
		t.Fatal("the companion followed the pointer during the hold after Claude's move")
	}
	r.eval(t, `__letsClock.advance(5000 - 600), __letsClock.release(), true`, nil)
	r.pointerTo(t, px, py)
	r.poll(t, `!document.querySelector(".lets-companion").dataset.moving && (() => { const b = document.querySelector(".lets-companion-body").getBoundingClientRect(); return Math.abs(Math.hypot(b.left + 32 - `+jsNum(px)+`, b.top + 32 - `+jsNum(py)+`) - (120 + 32)) <= 3; })()`)
	var covered bool
	r.eval(t, `(() => { const b = document.querySelector(".lets-companion-body").getBoundingClientRect(); return `+jsNum(px)+` >= b.left && `+jsNum(px)+` <= b.right && `+jsNum(py)+` >= b.top && `+jsNum(py)+` <= b.bottom; })()`, &covered)
	if covered {
		t.Error("following covers the pointer")
	}
	// to: "cursor" goes next to the pointer at the persona distance, on a
	// diagonal with room: the pointer is low in this view, so above-right,
	// not below it (where the view's edge would push it nearer).
	var followed []float64
	r.eval(t, `(() => { const b = document.querySelector(".lets-companion-body").getBoundingClientRect(); return [b.left, b.top]; })()`, &followed)
	r.send(t, map[string]any{"type": "entity.move", "data": map[string]any{"to": "cursor"}})
	r.poll(t, fmt.Sprintf(`!document.querySelector(".lets-companion").dataset.moving && (() => { const b = document.querySelector(".lets-companion-body").getBoundingClientRect(); return Math.hypot(b.left - %f, b.top - %f) > 2 && Math.abs(Math.hypot(b.left + 32 - `+jsNum(px)+`, b.top + 32 - `+jsNum(py)+`) - (120 + 32)) <= 3 && b.left + 32 > `+jsNum(px)+` && b.top + 32 < `+jsNum(py)+`; })()`, followed[0], followed[1]))

	// entity.hide / entity.show.
	r.send(t, map[string]any{"type": "entity.hide", "data": map[string]any{}})
	r.poll(t, `getComputedStyle(document.querySelector(".lets-companion")).visibility === "hidden"`)
	r.send(t, map[string]any{"type": "entity.show", "data": map[string]any{}})
	r.poll(t, `getComputedStyle(document.querySelector(".lets-companion")).visibility === "visible" && getComputedStyle(document.querySelector(".lets-companion")).opacity === "1"`)

	// entity.react: all eighteen play a CSS animation of their own.
	for _, name := range lip.Reactions() {
		r.send(t, map[string]any{"type": "entity.react", "data": map[string]any{"name": name, "ms": 1500}})
		r.poll(t, `document.querySelector(".lets-companion").dataset.react === `+jsString(name))
		var anims []string
		r.eval(t, `document.querySelector(".lets-companion").getAnimations({subtree: true}).map(a => a.animationName).filter(n => n.startsWith("lets-r-"))`, &anims)
		if len(anims) == 0 {
			t.Errorf("entity.react %s plays no animation", name)
		}
	}
	r.poll(t, `!document.querySelector(".lets-companion").dataset.react`)
}

// TestBrowserEntityHumanActs: entity.click (with instant local
// suggestions), entity.pick, entity.summon by right-click, by Ctrl+Space
// and from the unique with its context, entity.dismiss, dragging, the
// self-played reactions, the four secret moves (once each) and
// entity.profile on close — each asserted as the envelope listen returns,
// from: shell:board#<window>.
func TestBrowserEntityHumanActs(t *testing.T) {
	r := newEntityRig(t)
	const cur = "e2e"
	// Every reaction the companion plays, as it starts.
	r.eval(t, `window.__reacts = []; new MutationObserver(() => { const r = document.querySelector(".lets-companion").dataset.react; if (r) window.__reacts.push(r); }).observe(document.querySelector(".lets-companion"), {attributes: true, attributeFilter: ["data-react"]}), true`, nil)

	// A click on the companion: entity.click; the menu opens at once with
	// the local quick suggestions.
	if err := chromedp.Run(r.ctx, chromedp.Click(`.lets-companion-body`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	var quick int
	r.eval(t, `document.querySelectorAll('#lets-companion-menu [data-id^="quick."]').length`, &quick)
	if quick < 3 {
		t.Errorf("the menu shows %d local suggestions right away", quick)
	}
	bx, by := r.companionBox(t)
	click := r.shellEvent(t, cur, "entity.click")
	if cx, cy := click["x"].(float64), click["y"].(float64); math.Abs(cx-(bx+32)) > 4 || math.Abs(cy-(by+32)) > 4 {
		t.Errorf("entity.click at (%v, %v), the companion is at (%v, %v)", cx, cy, bx+32, by+32)
	}
	// Claude adds a smarter item; the human picks it.
	r.send(t, map[string]any{"type": "entity.suggest", "data": map[string]any{"items": []map[string]any{{"id": "tidy", "label": "Tidy the board"}}}})
	r.poll(t, `document.querySelector('#lets-companion-menu [data-id="tidy"]')`)
	if err := chromedp.Run(r.ctx, chromedp.Click(`#lets-companion-menu [data-id="tidy"]`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	if pick := r.shellEvent(t, cur, "entity.pick"); pick["id"] != "tidy" || pick["label"] != "Tidy the board" {
		t.Errorf("entity.pick %v", pick)
	}
	r.poll(t, `document.getElementById("lets-companion-menu").hidden`)
	// Keyboard: Enter opens the menu focused on the first item; arrows
	// move; Enter picks a local suggestion.
	if err := chromedp.Run(r.ctx, chromedp.Focus(`.lets-companion-body`, chromedp.ByQuery), chromedp.KeyEvent(kb.Enter)); err != nil {
		t.Fatal(err)
	}
	r.poll(t, `document.activeElement && document.activeElement.dataset.id === "tidy"`)
	r.shellEvent(t, cur, "entity.click")
	if err := chromedp.Run(r.ctx, chromedp.KeyEvent(kb.ArrowDown), chromedp.KeyEvent(kb.Enter)); err != nil {
		t.Fatal(err)
	}
	if pick := r.shellEvent(t, cur, "entity.pick"); pick["id"] != "quick.explain" {
		t.Errorf("keyboard pick %v", pick)
	}

	// Right-click on the shell's own chrome summons the companion there.
	if err := chromedp.Run(r.ctx, mouse(input.MousePressed, 480, 18, input.Right, 2), mouse(input.MouseReleased, 480, 18, input.Right, 0)); err != nil {
		t.Fatal(err)
	}
	if s := r.shellEvent(t, cur, "entity.summon"); s["x"] != 480.0 || s["y"] != 18.0 {
		t.Errorf("right-click summon %v", s)
	}
	r.poll(t, `!document.getElementById("lets-companion-menu").hidden && !document.querySelector(".lets-companion").dataset.moving`)
	if err := chromedp.Run(r.ctx, chromedp.KeyEvent(kb.Escape)); err != nil {
		t.Fatal(err)
	}
	// Not in a text field: there the browser's own menu (paste) stays.
	r.send(t, map[string]any{"type": "chat.open", "data": map[string]any{}})
	r.poll(t, `document.getElementById("lets-chat-input") && document.getElementById("lets-chat-input").getClientRects().length > 0`)
	var prevented bool
	r.eval(t, `(() => { const ev = new MouseEvent("contextmenu", {bubbles: true, cancelable: true, clientX: 5, clientY: 5}); document.getElementById("lets-chat-input").dispatchEvent(ev); return ev.defaultPrevented; })()`, &prevented)
	if prevented {
		t.Error("a right-click in the chat input was taken for a summon")
	}
	if res := r.th.listen(t, "cursor="+cur+"&types=entity.summon&wait_ms=300"); len(res.Events) > 0 {
		t.Errorf("a right-click in the chat input summoned the companion: %+v", res.Events)
	}
	r.send(t, map[string]any{"type": "chat.close", "data": map[string]any{}})
	// Ctrl+Space summons from the keyboard.
	if err := chromedp.Run(r.ctx, chromedp.KeyEvent(" ", chromedp.KeyModifiers(input.ModifierCtrl))); err != nil {
		t.Fatal(err)
	}
	if s := r.shellEvent(t, cur, "entity.summon"); s["context"] == nil || s["context"].(map[string]any)["via"] != "hotkey" {
		t.Errorf("Ctrl+Space summon %v", s)
	}
	r.poll(t, `!document.getElementById("lets-companion-menu").hidden && document.activeElement.getAttribute("role") === "menuitem"`)
	if err := chromedp.Run(r.ctx, chromedp.KeyEvent(kb.Escape)); err != nil {
		t.Fatal(err)
	}
	// A right-click inside the unique: its SDK sends entity.summon with the
	// unique's context, and the companion comes to that point.
	r.uc.pollIn(t, r.ctx, r.uo, `window.lip && document.readyState === "complete"`)
	r.uc.evalIn(t, r.ctx, r.uo, `lip.context(function (el) { return {tag: el ? el.tagName.toLowerCase() : ""}; }), true`, nil)
	var frame []float64
	r.eval(t, `(() => { const b = document.getElementById("lets-unique").getBoundingClientRect(); return [b.left, b.top]; })()`, &frame)
	if err := chromedp.Run(r.ctx, mouse(input.MousePressed, frame[0]+30, frame[1]+30, input.Right, 2), mouse(input.MouseReleased, frame[0]+30, frame[1]+30, input.Right, 0)); err != nil {
		t.Fatal(err)
	}
	ev := r.th.waitEvent(t, cur, "entity.summon", ioTimeout)
	if !strings.HasPrefix(ev.From, "unique:board#") || dataOf(t, ev)["context"] == nil {
		t.Errorf("summon from the unique: from %q, data %v", ev.From, dataOf(t, ev))
	}
	r.poll(t, `!document.getElementById("lets-companion-menu").hidden && !document.querySelector(".lets-companion").dataset.moving`)
	cx, cy := r.companionBox(t)
	if d := math.Hypot(cx+32-(frame[0]+30), cy+32-(frame[1]+30)); d > 120 {
		t.Errorf("the companion is %.0f px from the right-click in the unique", d)
	}
	if err := chromedp.Run(r.ctx, chromedp.KeyEvent(kb.Escape)); err != nil {
		t.Fatal(err)
	}

	// Self-played reactions: hover peeks, a double-click boops.
	bx, by = r.companionBox(t)
	if err := chromedp.Run(r.ctx, mouse(input.MouseMoved, bx+32, by+132, input.None, 0), mouse(input.MouseMoved, bx+32, by+32, input.None, 0)); err != nil {
		t.Fatal(err)
	}
	// (Peek has a cool-down; the pointer reaching it for the first click
	// may already have played it.)
	r.poll(t, `window.__reacts.includes("peek")`)
	if err := chromedp.Run(r.ctx, chromedp.DoubleClick(`.lets-companion-body`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	r.poll(t, `window.__reacts.includes("boop")`)
	if err := chromedp.Run(r.ctx, chromedp.KeyEvent(kb.Escape)); err != nil {
		t.Fatal(err)
	}
	// Fast circles far from it make it dizzy.
	var circles [][2]float64
	for i := 0; i < 64; i++ {
		a := float64(i) / 16 * 2 * math.Pi
		circles = append(circles, [2]float64{250 + 60*math.Cos(a), 350 + 60*math.Sin(a)})
	}
	r.gesture(t, 16, circles)
	r.poll(t, `window.__reacts.includes("dizzy")`)

	// Dragging moves it (no click, no menu), and a full circle while
	// dragging is the "spin" secret.
	r.send(t, map[string]any{"type": "entity.move", "data": map[string]any{"to": "center"}})
	r.poll(t, `!document.querySelector(".lets-companion").dataset.moving && (() => { const b = document.querySelector(".lets-companion-body").getBoundingClientRect(); return Math.abs(b.left + 32 - innerWidth / 2) <= 2 && Math.abs(b.top + 32 - innerHeight / 2) <= 2; })()`)
	bx, by = r.companionBox(t)
	px, py := bx+32, by+32
	drag := []chromedp.Action{mouse(input.MousePressed, px, py, input.Left, 1)}
	for i := 0; i <= 48; i++ {
		a := float64(i) / 40 * 2 * math.Pi
		drag = append(drag, mouse(input.MouseMoved, px+80-80*math.Cos(a), py-80*math.Sin(a), input.Left, 1))
	}
	drag = append(drag, mouse(input.MouseMoved, px+160, py, input.Left, 1), mouse(input.MouseReleased, px+160, py, input.Left, 0))
	if err := chromedp.Run(r.ctx, drag...); err != nil {
		t.Fatal(err)
	}
	r.pointer = [2]float64{px + 160, py}
	if s := r.shellEvent(t, cur, "entity.secret"); s["name"] != "spin" {
		t.Errorf("secret %v, want spin", s)
	}
	nx, ny := r.companionBox(t)
	if math.Abs(nx-(bx+160)) > 2 || math.Abs(ny-by) > 2 {
		t.Errorf("dragged to (%v, %v), want (%v, %v)", nx, ny, bx+160, by)
	}
	var menuHidden bool
	r.eval(t, `document.getElementById("lets-companion-menu").hidden`, &menuHidden)
	if !menuHidden {
		t.Error("a drag opened the menu")
	}

	// "party" typed with the companion focused: disco.
	if err := chromedp.Run(r.ctx, chromedp.Focus(`.lets-companion-body`, chromedp.ByQuery), chromedp.KeyEvent("party")); err != nil {
		t.Fatal(err)
	}
	if s := r.shellEvent(t, cur, "entity.secret"); s["name"] != "disco" {
		t.Errorf("secret %v, want disco", s)
	}
	// Shaking the pointer left-right over it three times: wave.
	bx, by = r.companionBox(t)
	var shake [][2]float64
	for _, dx := range []float64{0, 18, 0, -18, 0, 18, 0, -18, 0, 18, 0, -18, 0} {
		shake = append(shake, [2]float64{bx + 32 + dx, by + 32})
	}
	r.gesture(t, 30, shake)
	if s := r.shellEvent(t, cur, "entity.secret"); s["name"] != "wave" {
		t.Errorf("secret %v, want wave", s)
	}
	// The Konami sequence, twice: reported once.
	konami := []chromedp.Action{chromedp.Click(`.title`, chromedp.ByQuery)}
	for range 2 {
		for _, k := range []string{kb.ArrowUp, kb.ArrowUp, kb.ArrowDown, kb.ArrowDown, kb.ArrowLeft, kb.ArrowRight, kb.ArrowLeft, kb.ArrowRight, "b", "a"} {
			konami = append(konami, chromedp.KeyEvent(k))
		}
	}
	if err := chromedp.Run(r.ctx, konami...); err != nil {
		t.Fatal(err)
	}
	if s := r.shellEvent(t, cur, "entity.secret"); s["name"] != "konami" {
		t.Errorf("secret %v, want konami", s)
	}
	// Once per window: another spin and another party send nothing.
	if err := chromedp.Run(r.ctx, chromedp.Focus(`.lets-companion-body`, chromedp.ByQuery), chromedp.KeyEvent("party")); err != nil {
		t.Fatal(err)
	}

	// "Hide for now" in the menu: entity.dismiss; Ctrl+Space brings it back.
	if err := chromedp.Run(r.ctx, chromedp.Click(`.lets-companion-body`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	r.poll(t, `!document.getElementById("lets-companion-menu").hidden`)
	if err := chromedp.Run(r.ctx, chromedp.Click(`.lets-companion-dismiss`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	r.shellEvent(t, cur, "entity.dismiss")
	r.poll(t, `document.querySelector(".lets-companion").dataset.hidden === "true"`)
	if err := chromedp.Run(r.ctx, chromedp.KeyEvent(" ", chromedp.KeyModifiers(input.ModifierCtrl))); err != nil {
		t.Fatal(err)
	}
	r.poll(t, `document.querySelector(".lets-companion").dataset.hidden === "false"`)

	// Closing the window sends the profile: counts only, never moves.
	if code, body := r.th.call(t, "POST", "/lip/close", map[string]any{"window": r.win.Window}, testHostToken); code != 200 {
		t.Fatalf("close: %d %v", code, body)
	}
	prof := r.shellEvent(t, cur, "entity.profile")
	keys := make([]string, 0, len(prof))
	for k := range prof {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if strings.Join(keys, " ") != "clickRate dwell idleMs keys pace regions sessionMs" {
		t.Errorf("entity.profile fields %v", keys)
	}
	if prof["clickRate"].(float64) <= 0 || prof["keys"].(float64) <= 0 || prof["sessionMs"].(float64) <= 0 || len(prof["regions"].([]any)) == 0 {
		t.Errorf("entity.profile counted nothing: %v", prof)
	}
	// Exactly the four secrets, each once.
	res := r.th.listen(t, "cursor=secrets&types=entity.secret&wait_ms=0")
	var names []string
	for _, e := range res.Events {
		names = append(names, dataOf(t, e)["name"].(string))
	}
	sort.Strings(names)
	if strings.Join(names, " ") != "disco konami spin wave" {
		t.Errorf("secrets reported %v, want each of disco konami spin wave once", names)
	}
}

// TestBrowserEntityLooks: the speech bubble with the suggestion menu in
// light and dark (screenshots), and prefers-reduced-motion turning the
// companion's animations into fades (no travel, no bounce).
func TestBrowserEntityLooks(t *testing.T) {
	for _, scheme := range []string{"light", "dark"} {
		t.Run(scheme, func(t *testing.T) {
			r := newEntityRig(t, &emulation.MediaFeature{Name: "prefers-color-scheme", Value: scheme})
			// Somewhere calm for the picture (following holds after a move).
			r.send(t, map[string]any{"type": "entity.move", "data": map[string]any{"x": 700, "y": 380}})
			r.poll(t, `!document.querySelector(".lets-companion").dataset.moving && document.querySelector(".lets-companion").dataset.x === "668"`)
			r.send(t,
				map[string]any{"type": "entity.persona", "data": map[string]any{"name": "Pip", "traits": map[string]any{}}},
				map[string]any{"type": "entity.suggest", "data": map[string]any{"replace": true, "items": []map[string]any{
					{"id": "sort", "label": "Sort the board by date"}, {"id": "col", "label": "Add a “Done” column", "hint": "to the right"}}}},
			)
			if err := chromedp.Run(r.ctx, chromedp.Click(`.lets-companion-body`, chromedp.ByQuery)); err != nil {
				t.Fatal(err)
			}
			r.send(t, map[string]any{"type": "entity.say", "data": map[string]any{"text": "Want me to tidy this up? Pick one, or just keep going.", "mood": "curious", "ttl": 60000}})
			r.poll(t, `!document.querySelector(".lets-companion-bubble").hidden && !document.getElementById("lets-companion-menu").hidden && document.querySelector('#lets-companion-menu [data-id="col"]')`)
			// With the menu open, the speech heads it.
			r.poll(t, `document.querySelector(".lets-companion-menu-say") && document.querySelector(".lets-companion-menu-say").textContent.startsWith("Want me to tidy")`)
			// Every control is labelled.
			var unlabelled []string
			r.eval(t, `[...document.querySelectorAll(".lets-companion button, #lets-companion-menu")].filter(e => !(e.getAttribute("aria-label") || e.textContent.trim())).map(e => e.outerHTML.slice(0, 80))`, &unlabelled)
			if len(unlabelled) > 0 {
				t.Errorf("controls without a label: %v", unlabelled)
			}
			// The pop-in animations end (the endless mood motions go on).
			r.poll(t, `document.getAnimations().every(a => a.effect?.getTiming().iterations === Infinity || a.playState !== "running")`)
			// The viewport as the human sees it (a full-page capture lays
			// out fixed, transformed elements differently).
			var png []byte
			if err := chromedp.Run(r.ctx, chromedp.CaptureScreenshot(&png)); err != nil {
				t.Fatal(err)
			}
			savePNG(t, "entity-say-suggest-"+scheme+".png", png)
		})
	}
	t.Run("reduced-motion", func(t *testing.T) {
		r := newEntityRig(t, &emulation.MediaFeature{Name: "prefers-reduced-motion", Value: "reduce"})
		var moodAnim string
		r.send(t, map[string]any{"type": "entity.mood", "data": map[string]any{"mood": "happy"}})
		r.poll(t, `document.querySelector(".lets-companion").dataset.mood === "happy"`)
		r.eval(t, `getComputedStyle(document.querySelector(".lets-c-mood")).animationName`, &moodAnim)
		if moodAnim != "none" {
			t.Errorf("reduced motion: the happy mood still bounces (%s)", moodAnim)
		}
		for _, name := range []string{"spin", "dance", "wink"} {
			r.send(t, map[string]any{"type": "entity.react", "data": map[string]any{"name": name, "ms": 1500}})
			r.poll(t, `document.querySelector(".lets-companion").dataset.react === `+jsString(name))
			var anims []string
			r.eval(t, `document.querySelector(".lets-companion").getAnimations({subtree: true}).map(a => a.animationName)`, &anims)
			if strings.Join(anims, " ") != "lets-c-fade" {
				t.Errorf("reduced motion: %s plays %v, want only the fade", name, anims)
			}
		}
		// A move is a fade out and in at the new place, with no travel.
		x0, y0 := r.companionBox(t)
		r.eval(t, `window.__track = []; (function f() { const e = document.querySelector(".lets-companion"); window.__track.push([+e.dataset.x, +e.dataset.y, getComputedStyle(e).opacity]); if (window.__track.length < 60) requestAnimationFrame(f); })(), true`, nil)
		r.send(t, map[string]any{"type": "entity.move", "data": map[string]any{"to": "center"}})
		r.poll(t, `window.__track.length >= 60`)
		var track [][]any
		r.eval(t, `window.__track`, &track)
		faded := false
		for _, p := range track {
			x, y := p[0].(float64), p[1].(float64)
			atStart := math.Abs(x-x0) <= 1 && math.Abs(y-y0) <= 1
			last := track[len(track)-1]
			atEnd := math.Abs(x-last[0].(float64)) <= 1 && math.Abs(y-last[1].(float64)) <= 1
			if !atStart && !atEnd {
				t.Fatalf("reduced motion: the companion travelled through (%v, %v)", x, y)
			}
			if p[2].(string) != "1" {
				faded = true
			}
		}
		if !faded {
			t.Error("reduced motion: the move did not fade")
		}
	})
}

// TestBrowserCompanionFirstPaint: a window's shell marks
// "lets-companion-paint" after the frame that first drew the companion
// (Performance API), which BenchmarkBrowserCompanionFirstPaint times.
func TestBrowserCompanionFirstPaint(t *testing.T) {
	th := startLIPHost(t)
	ctx := browsertest.New(t, browsertest.Options{Width: 1000, Height: 640, Timeout: 120 * time.Second})
	if ms, _ := companionFirstPaint(t, th, ctx); ms <= 0 {
		t.Fatalf("the companion's paint mark is at %.1f ms", ms)
	}
}

// BenchmarkBrowserCompanionFirstPaint measures, per window load, the time
// from navigation start to the first paint of the companion (target:
// 300 ms, issue #11), and the part of it after the page was parsed.
func BenchmarkBrowserCompanionFirstPaint(b *testing.B) {
	th := startLIPHost(b)
	ctx := browsertest.New(b, browsertest.Options{Width: 1000, Height: 640, Timeout: 10 * time.Minute})
	var total, own []float64
	for b.Loop() {
		ms, parsed := companionFirstPaint(b, th, ctx)
		total = append(total, ms)
		own = append(own, ms-parsed)
	}
	sort.Float64s(total)
	sort.Float64s(own)
	b.ReportMetric(total[len(total)/2], "paint-ms")
	b.ReportMetric(own[len(own)/2], "after-parse-ms")
}

// companionFirstPaint opens a board window and returns when the companion
// first painted and when the page was parsed (ms from navigation start).
func companionFirstPaint(tb testing.TB, th *testHost, ctx context.Context) (paint, parsed float64) {
	tb.Helper()
	win := th.openOnly(tb, "board", "")
	err := chromedp.Run(ctx,
		chromedp.Navigate(win.URL),
		chromedp.Poll(`(() => { const m = performance.getEntriesByName("lets-companion-paint")[0]; return m ? m.startTime : 0; })()`, &paint, chromedp.WithPollingTimeout(testutil.EventuallyTimeout)),
		chromedp.Evaluate(`performance.getEntriesByType("navigation")[0].domInteractive`, &parsed),
	)
	if err != nil {
		tb.Fatalf("first paint: %v", err)
	}
	return paint, parsed
}

// TestBrowserEntityFromTheUnique: Ctrl+Space inside the unique summons the
// companion with the unique's context (through its SDK, from: unique), and
// the pointer relay the SDK uses cannot be abused: a unique that grabs the
// port and fakes a shake over the companion gets no entity.secret, while
// its fake positions only move the companion as a real pointer would.
func TestBrowserEntityFromTheUnique(t *testing.T) {
	r := newEntityRig(t)
	const cur = "fromunique"
	r.uc.pollIn(t, r.ctx, r.uo, `window.lip && document.readyState === "complete"`)
	r.uc.evalIn(t, r.ctx, r.uo, `lip.context(function (el) { return {tag: el ? el.tagName.toLowerCase() : "", id: el ? el.id : ""}; }), true`, nil)
	var frame []float64
	r.eval(t, `(() => { const b = document.getElementById("lets-unique").getBoundingClientRect(); return [b.left, b.top]; })()`, &frame)
	// Focus the unique's button, then the hotkey.
	r.uc.evalIn(t, r.ctx, r.uo, `document.getElementById("probe").focus(), true`, nil)
	if err := chromedp.Run(r.ctx, mouse(input.MouseMoved, frame[0]+40, frame[1]+90, input.None, 0), chromedp.KeyEvent(" ", chromedp.KeyModifiers(input.ModifierCtrl))); err != nil {
		t.Fatal(err)
	}
	ev := r.th.waitEvent(t, cur, "entity.summon", ioTimeout)
	d := dataOf(t, ev)
	ctxData, _ := d["context"].(map[string]any)
	if !strings.HasPrefix(ev.From, "unique:board#") || ctxData["id"] != "probe" {
		t.Errorf("Ctrl+Space in the unique: from %q, data %v", ev.From, d)
	}
	r.poll(t, `!document.getElementById("lets-companion-menu").hidden`)

	// A hostile unique takes the SDK's port and fakes a left-right shake
	// right over the companion.
	if err := chromedp.Run(r.ctx, chromedp.KeyEvent(kb.Escape)); err != nil {
		t.Fatal(err)
	}
	bx, by := r.companionBox(t)
	r.uc.evalIn(t, r.ctx, r.uo, `(() => {
		const orig = MessagePort.prototype.postMessage;
		window.__port = null;
		MessagePort.prototype.postMessage = function (m, tr) { window.__port = this; return orig.call(this, m, tr); };
		document.body.dispatchEvent(new PointerEvent("pointerdown", {bubbles: true}));
		return true;
	})()`, nil)
	r.uc.pollIn(t, r.ctx, r.uo, `window.__port`)
	fx, fy := bx+32-frame[0], by+32-frame[1]
	r.uc.evalIn(t, r.ctx, r.uo, `(async () => {
		for (let round = 0; round < 3; round++) {
			for (const dx of [0, 18, 0, -18, 0, 18, 0, -18, 0, 18, 0, -18, 0]) {
				window.__port.postMessage({op: "pointer", kind: "move", x: `+jsNum(fx)+` + dx, y: `+jsNum(fy)+`});
				await new Promise(res => setTimeout(res, 20));
			}
		}
		for (let i = 0; i < 50; i++) window.__port.postMessage({op: "pointer", kind: "key"});
		return true;
	})()`, nil)
	// Then a note through the same port: the shell handles the port's
	// messages in order, so a secret the shake made would be in the ring
	// before the note.
	r.uc.evalIn(t, r.ctx, r.uo, `lip.emit("board.note", {text: "after the shake"}), true`, nil)
	if ev := r.th.nextEvent(t, cur, "entity.secret,board.note", nil); ev.Type != "board.note" {
		t.Errorf("a unique faked a secret move: %+v", ev)
	}
}

func jsNum(f float64) string {
	return strconv.FormatFloat(f, 'f', 1, 64)
}

// BenchmarkBrowserEntityInteractionSmoothness plays, per iteration, a 10 s
// interaction script (pointer circles over the unique, which the companion
// follows, plus a reaction, a mood, a move or a say every 400 ms) and reads
// the trace the page keeps: long tasks (PerformanceObserver "longtask") and
// frame intervals (requestAnimationFrame). Target: no long task over 50 ms
// and frames at 60 fps (median-frame-ms ≤ 16.7).
func BenchmarkBrowserEntityInteractionSmoothness(b *testing.B) {
	r := newEntityRig(b)
	var median, p95, longest, smoothPct float64
	for b.Loop() {
		median, p95, longest, smoothPct = r.interact(b)
	}
	b.ReportMetric(median, "median-frame-ms")
	b.ReportMetric(p95, "p95-frame-ms")
	b.ReportMetric(longest, "longest-task-ms")
	b.ReportMetric(smoothPct, "%frames≤20ms")
}

// interact plays the 10 s script once and returns the frame statistics.
func (r *entityRig) interact(t testing.TB) (median, p95, longest, smoothPct float64) {
	t.Helper()
	r.eval(t, `(() => {
		window.__long = [];
		new PerformanceObserver(l => { for (const e of l.getEntries()) window.__long.push(e.duration); }).observe({type: "longtask"});
		window.__frames = [];
		let last = performance.now();
		(function f(now) { window.__frames.push(now - last); last = now; if (window.__frames.length < 5000) requestAnimationFrame(f); })(last);
		return true;
	})()`, nil)
	var frame []float64
	r.eval(t, `(() => { const b = document.getElementById("lets-unique").getBoundingClientRect(); return [b.left, b.top, b.width, b.height]; })()`, &frame)
	cmds := []map[string]any{
		{"type": "entity.react", "data": map[string]any{"name": "dance"}},
		{"type": "entity.mood", "data": map[string]any{"mood": "busy"}},
		{"type": "entity.say", "data": map[string]any{"text": "Working on it…", "ttl": 2000}},
		{"type": "entity.react", "data": map[string]any{"name": "sparkle"}},
		{"type": "entity.move", "data": map[string]any{"to": "center"}},
		{"type": "entity.mood", "data": map[string]any{"mood": "happy"}},
	}
	start := time.Now()
	next := start
	pace := time.NewTicker(16 * time.Millisecond) // the pointer moves at a person's pace
	defer pace.Stop()
	for i := 0; time.Since(start) < 10*time.Second; i++ {
		a := float64(i) / 30 * 2 * math.Pi
		x := frame[0] + frame[2]/2 + frame[2]/4*math.Cos(a)
		y := frame[1] + frame[3]/2 + frame[3]/4*math.Sin(a)
		if err := chromedp.Run(r.ctx, mouse(input.MouseMoved, x, y, input.None, 0)); err != nil {
			t.Fatal(err)
		}
		if time.Now().After(next) {
			r.send(t, cmds[(i/7)%len(cmds)])
			next = time.Now().Add(400 * time.Millisecond)
		}
		<-pace.C
	}
	var long, frames []float64
	r.eval(t, `window.__long`, &long)
	r.eval(t, `window.__frames.slice(1)`, &frames)
	if len(frames) < 10 {
		t.Fatalf("only %d frames in 10 s", len(frames))
	}
	sort.Float64s(frames)
	for _, d := range long {
		longest = math.Max(longest, d)
	}
	smooth := 0
	for _, f := range frames {
		if f <= 20 {
			smooth++
		}
	}
	return frames[len(frames)/2], frames[len(frames)*95/100], longest, 100 * float64(smooth) / float64(len(frames))
}
