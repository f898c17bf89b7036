package shell_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/lets-app/lets/backend/testenv/testutil"
)

// coverJS lists the controls the companion covers: the shell's own and
// the unique's (their boxes come from the unique's page, as window
// coordinates in __uniqueBoxes), and for each whether a click at the
// middle of the covered part would reach the companion instead.
const coverJS = `((uniqueBoxes) => {
  const pip = document.querySelector(".lets-companion");
  if (pip.dataset.hidden === "true") return [];
  const b = document.querySelector(".lets-companion-body").getBoundingClientRect();
  const boxes = [];
  for (const e of document.querySelectorAll("#lets-shell button, #lets-shell textarea, #lets-shell input:not([type=file]), #lets-shell select")) {
    if (pip.contains(e) || e.closest("[hidden]")) continue;
    const r = e.getBoundingClientRect();
    if (r.width > 0 && r.height > 0) boxes.push({name: "shell " + (e.id || e.textContent.trim().slice(0, 20)), x: r.left, y: r.top, w: r.width, h: r.height});
  }
  const frame = document.getElementById("lets-unique");
  for (const u of uniqueBoxes) {
    const at = document.elementFromPoint(u.x + u.w / 2, u.y + u.h / 2);
    if (at === frame || pip.contains(at)) boxes.push(u);
  }
  const out = [];
  for (const r of boxes) {
    const x0 = Math.max(b.left, r.x), y0 = Math.max(b.top, r.y), x1 = Math.min(b.right, r.x + r.w), y1 = Math.min(b.bottom, r.y + r.h);
    if (x1 - x0 < 1 || y1 - y0 < 1) continue;
    const hit = document.elementFromPoint((x0 + x1) / 2, (y0 + y1) / 2);
    out.push({name: r.name, takesClick: !!hit && pip.contains(hit), at: [Math.round(b.left), Math.round(b.top)], pt: [(x0 + x1) / 2, (y0 + y1) / 2]});
  }
  return out;
})`

// uniqueBoxesJS is every control of the unique's page, in its own
// coordinates.
const uniqueBoxesJS = `[...document.querySelectorAll("button, textarea, input, select, a[href]")].map(e => { const r = e.getBoundingClientRect(); return {name: "unique " + (e.id || e.textContent.trim().slice(0, 20)), x: r.left, y: r.top, w: r.width, h: r.height}; }).filter(r => r.w > 0 && r.h > 0 && r.y < innerHeight && r.x < innerWidth)`

type covered struct {
	Name       string
	TakesClick bool
	At         []float64
	Pt         []float64
}

// cover is what the companion covers now.
func (x *win) cover() []covered {
	x.t.Helper()
	var boxes []map[string]any
	x.evalU(uniqueBoxesJS, &boxes)
	fx, fy := x.frameAt(0, 0)
	for _, b := range boxes {
		b["x"] = b["x"].(float64) + fx
		b["y"] = b["y"].(float64) + fy
	}
	var out []covered
	x.run(chromedp.Evaluate(coverJS+"("+mustJSON(boxes)+")", &out))
	return out
}

func names(cs []covered) string {
	var s []string
	for _, c := range cs {
		s = append(s, fmt.Sprintf("%s (takes its click: %v, companion at %v)", c.Name, c.TakesClick, c.At))
	}
	return strings.Join(s, "; ")
}

// everyEntityCommand is one of each kind of entity command, several
// moves aimed at controls.
func everyEntityCommand(aim [2]float64) []map[string]any {
	return []map[string]any{
		{"type": "entity.say", "data": map[string]any{"text": "Hello!", "mood": "happy", "ttl": 60000}},
		{"type": "entity.mood", "data": map[string]any{"mood": "curious"}},
		{"type": "entity.suggest", "data": map[string]any{"items": []map[string]any{{"id": "a", "label": "Tidy up"}}}},
		{"type": "entity.move", "data": map[string]any{"x": aim[0], "y": aim[1]}},
		{"type": "entity.move", "data": map[string]any{"to": "center"}},
		{"type": "entity.move", "data": map[string]any{"to": "cursor"}},
		{"type": "entity.move", "data": map[string]any{"to": "#lets-status"}},
		{"type": "entity.move", "data": map[string]any{"x": 99999, "y": 99999}},
		{"type": "entity.hide", "data": map[string]any{}},
		{"type": "entity.show", "data": map[string]any{}},
		{"type": "entity.persona", "data": map[string]any{"name": "Juniper", "traits": map[string]any{"distance": "close"}}},
		{"type": "entity.react", "data": map[string]any{"name": "wave", "ms": 400}},
	}
}

// TestCompanionNeverCoversAControl (issue #21): on the hello unique, a page
// with room, after every kind of entity command the companion rests where
// it covers no control of the shell or the unique (old code: a move onto
// the note box, to the bottom-right corner or beside the status line left
// it on a control).
func TestCompanionNeverCoversAControl(t *testing.T) {
	s := startRigHost(t)
	x := openWin(t, s, "hello", 1000, 640, 1)
	x.controlsKnown(3)
	note := x.rectU("#note")
	x.run(mouseAt(input.MouseMoved, 40, 300, input.None, 0))
	for _, c := range everyEntityCommand([2]float64{note[0] + note[2]/2, note[1] + note[3]/2}) {
		x.send(c)
		x.settled()
		if cs := x.cover(); len(cs) > 0 {
			t.Errorf("after %s %v the companion covers %s", c["type"], c["data"], names(cs))
		}
	}
}

// TestCompanionLeavesTheNoteBoxAfterAWave is the reported case: after
// "Wave to Claude" the person goes to the note box, clicks it and types;
// the text goes into the note box, not to the companion's menu.
func TestCompanionLeavesTheNoteBoxAfterAWave(t *testing.T) {
	for _, size := range [][2]int64{{1000, 640}, {640, 720}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			s := startRigHost(t)
			x := openWin(t, s, "hello", size[0], size[1], 1)
			x.controlsKnown(3)
			wave := x.rectU("#wave")
			wx, wy := wave[0]+wave[2]/2, wave[1]+wave[3]/2
			// The pointer comes in from the right, the way a hand does, and waves.
			for i := 6; i >= 0; i-- {
				x.run(mouseAt(input.MouseMoved, wx+float64(i)*60, wy+float64(i)*20, input.None, 0))
			}
			x.click(wx, wy)
			x.pollU(`document.getElementById("status").textContent === "You waved."`)
			x.settled()
			// Down to the note box; the companion follows and settles.
			note := x.rectU("#note")
			nx, ny := note[0]+note[2]/2, note[1]+note[3]/2
			for i := 1; i <= 6; i++ {
				x.run(mouseAt(input.MouseMoved, wx+(nx-wx)*float64(i)/6, wy+(ny-wy)*float64(i)/6, input.None, 0))
			}
			x.settled()
			// Click where the companion is, if it is over the note box at
			// all, else in the box's middle. Never within 16 px of the
			// box's edges: the bottom-right corner is the textarea's resize
			// grip, and a press there resizes instead of focusing (CI k1
			// clicked at (751,379), 4 px inside that corner, with the
			// companion below the box, not over it).
			var pip []float64
			x.eval(`(() => { const b = document.querySelector(".lets-companion-body").getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; })()`, &pip)
			cx, cy := note[0]+note[2]/2, note[1]+note[3]/2
			if pip[0] < note[0]+note[2] && pip[2] > note[0] && pip[1] < note[1]+note[3] && pip[3] > note[1] {
				const inset = 16
				cx = math.Min(math.Max((pip[0]+pip[2])/2, note[0]+inset), note[0]+note[2]-inset)
				cy = math.Min(math.Max((pip[1]+pip[3])/2, note[1]+inset), note[1]+note[3]-inset)
			}
			x.click(cx, cy)
			// Where the click went, for the log.
			var diagS, diagU string
			x.eval(fmt.Sprintf(`(() => { const e = document.elementFromPoint(%f, %f); const b = document.querySelector(".lets-companion-body").getBoundingClientRect(); return "shell: at=" + (e ? e.tagName + "#" + e.id + "." + e.className : "none") + " active=" + (document.activeElement ? document.activeElement.tagName + "#" + document.activeElement.id : "none") + " hasFocus=" + document.hasFocus() + " pip=" + [b.left,b.top,b.width,b.height] + " menuHidden=" + document.getElementById("lets-companion-menu").hidden + " ds=" + JSON.stringify(document.querySelector(".lets-companion").dataset); })()`, cx, cy), &diagS)
			x.evalU(`"unique: active=" + (document.activeElement ? document.activeElement.tagName + "#" + document.activeElement.id : "none") + " hasFocus=" + document.hasFocus()`, &diagU)
			t.Logf("the click at (%.0f,%.0f) note=%v: %s | %s", cx, cy, note, diagS, diagU)
			// A person types once the click has landed: the caret is in the
			// note box, or the companion's menu opened (the old bug). Under
			// load focus reaches the unique's frame (another process) a
			// moment after the click, and keys sent before it go nowhere.
			testutil.Eventually(t, "the click lands (the note box has the focus, or the companion's menu opened)", func() bool {
				var inNote, open bool
				x.evalU(`document.activeElement !== null && document.activeElement.id === "note" && document.hasFocus()`, &inNote)
				x.eval(`!document.getElementById("lets-companion-menu").hidden`, &open)
				return inNote || open
			})
			x.run(chromedp.KeyEvent("Hi Claude"))
			var typed string
			x.evalU(`document.getElementById("note").value`, &typed)
			var menuOpen bool
			x.eval(`!document.getElementById("lets-companion-menu").hidden`, &menuOpen)
			if typed != "Hi Claude" || menuOpen {
				t.Errorf("clicked the note box at (%.0f, %.0f) with the companion at %v: the box holds %q, the companion's menu open: %v", cx, cy, pip, typed, menuOpen)
			}
			if cs := x.cover(); len(cs) > 0 {
				t.Errorf("the companion covers %s", names(cs))
			}
		})
	}
}

// TestCompanionOnAWallOfControls: when the unique's controls fill the
// whole view there is no clear place. After every kind of entity command
// a click anywhere on the companion still reaches the control under it;
// the pointer coming near makes it step aside, and so does the focus
// (Tab) landing on a control under it.
func TestCompanionOnAWallOfControls(t *testing.T) {
	s := startRigHost(t)
	x := openWin(t, s, "wall", 800, 600, 1)
	x.controlsKnown(60)
	// The pointer rests in the bar, away from the companion.
	x.run(mouseAt(input.MouseMoved, 300, 12, input.None, 0))
	for _, c := range everyEntityCommand([2]float64{400, 300}) {
		x.send(c)
		x.settled()
		for _, cv := range x.cover() {
			if cv.TakesClick {
				t.Errorf("after %s %v a click meant for %s reaches the companion", c["type"], c["data"], cv.Name)
			}
		}
	}
	// A real click where the companion covers a button presses the button.
	x.send(map[string]any{"type": "entity.move", "data": map[string]any{"x": 400, "y": 300}})
	x.settled()
	under := x.coveredButton()
	x.evalU(`window.clicks = [], true`, nil)
	x.run(mouseAt(input.MousePressed, under.Pt[0], under.Pt[1], input.Left, 1), mouseAt(input.MouseReleased, under.Pt[0], under.Pt[1], input.Left, 0))
	var clicks []string
	x.evalU(`window.clicks`, &clicks)
	var menuOpen bool
	x.eval(`!document.getElementById("lets-companion-menu").hidden`, &menuOpen)
	if want := strings.TrimPrefix(under.Name, "unique "); len(clicks) != 1 || clicks[0] != want || menuOpen {
		t.Errorf("a click on the companion over %s: the unique got %v, the companion's menu open: %v", want, clicks, menuOpen)
	}
	// The pointer comes near: the companion steps aside from it.
	x.send(map[string]any{"type": "entity.move", "data": map[string]any{"x": 400, "y": 300}})
	x.settled()
	var box []float64
	x.eval(`(() => { const b = document.querySelector(".lets-companion-body").getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; })()`, &box)
	px, py := box[0]-14, (box[1]+box[3])/2
	x.run(mouseAt(input.MouseMoved, px-80, py, input.None, 0), mouseAt(input.MouseMoved, px, py, input.None, 0))
	x.settled()
	x.eval(`(() => { const b = document.querySelector(".lets-companion-body").getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; })()`, &box)
	if px > box[0]-24 && px < box[2]+24 && py > box[1]-24 && py < box[3]+24 {
		t.Errorf("the pointer at (%.0f, %.0f) is next to the companion %v: it did not step aside", px, py, box)
	}
	// Tab to a button under it: the companion steps aside from the focus.
	x.run(mouseAt(input.MouseMoved, 300, 12, input.None, 0))
	x.send(map[string]any{"type": "entity.move", "data": map[string]any{"x": 400, "y": 300}})
	x.settled()
	id := strings.TrimPrefix(x.coveredButton().Name, "unique ")
	prev := fmt.Sprintf("b%d", atoiOr(strings.TrimPrefix(id, "b"))-1)
	// Each focus reaches the companion as a message from the unique's
	// frame: wait until both (prev's, then the Tab's) have arrived (CI k1
	// measured before the second did), then for the step aside it starts.
	var seen int
	x.eval(`+(document.querySelector(".lets-companion").dataset.focusSeen || 0)`, &seen)
	x.evalU(fmt.Sprintf(`document.getElementById(%q).focus(), true`, prev), nil)
	x.run(chromedp.KeyEvent(kb.Tab))
	x.pollU(fmt.Sprintf(`document.activeElement && document.activeElement.id === %q`, id))
	x.poll(fmt.Sprintf(`+(document.querySelector(".lets-companion").dataset.focusSeen || 0) >= %d`, seen+2))
	x.settled()
	f := x.rectU("#" + id)
	x.eval(`(() => { const b = document.querySelector(".lets-companion-body").getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; })()`, &box)
	if box[0] < f[0]+f[2] && box[2] > f[0] && box[1] < f[1]+f[3] && box[3] > f[1] {
		t.Errorf("the focused %s at %v is still under the companion %v", id, f, box)
	}
}

// coveredButton is a button of the wall the companion covers.
func (x *win) coveredButton() covered {
	x.t.Helper()
	for _, c := range x.cover() {
		if strings.HasPrefix(c.Name, "unique b") {
			return c
		}
	}
	x.t.Fatal("the companion covers no button of the wall (there should be no clear place)")
	return covered{}
}

func atoiOr(s string) int {
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0
		}
		n = n*10 + int(c-'0')
	}
	return n
}
