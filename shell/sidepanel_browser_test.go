package shell_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// reachJS checks that each control (by selector) shows, lies in the view
// and is the element found at its middle (nothing drawn over it), and
// that focusing it leaves it so.
const reachJS = `((sels) => {
  const bad = [];
  for (const sel of sels) {
    const e = document.querySelector(sel);
    if (!e) { bad.push(sel + " is missing"); continue; }
    e.focus();
    if (document.activeElement !== e) bad.push(sel + " takes no focus");
    const r = e.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0 || r.left < 0 || r.top < 0 || r.right > innerWidth + 0.5 || r.bottom > innerHeight + 0.5) { bad.push(sel + " is outside the view at " + [r.left, r.top, r.right, r.bottom].map(Math.round)); continue; }
    const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (!at || !(at === e || e.contains(at))) bad.push(sel + " is covered by " + (at ? (at.id || at.className || at.tagName) : "nothing"));
  }
  return bad;
})`

// TestChatKeepsTheSidePanelUsable (issue #21): Claude's side panel and the
// chat open together (chat.say opens the chat by itself) at 100 %, 150 %
// and 200 % zoom: the panel's controls and the chat's input and Send stay
// visible, clickable (nothing drawn over them) and take the keyboard focus
// (old code: the panel was drawn under the chat).
func TestChatKeepsTheSidePanelUsable(t *testing.T) {
	s := startRigHost(t)
	for _, z := range []struct {
		pct  int
		w, h int64
		dpr  float64
	}{{100, 1000, 640, 1}, {150, 667, 427, 1.5}, {200, 500, 320, 2}} {
		t.Run(fmt.Sprintf("zoom-%d", z.pct), func(t *testing.T) {
			x := openWin(t, s, "hello", z.w, z.h, z.dpr)
			x.send(
				map[string]any{"type": "component.create", "data": map[string]any{"id": "side", "type": "options", "slot": "panel", "props": map[string]any{
					"label": "Pick a colour", "items": []any{map[string]any{"id": "red", "label": "Red"}, map[string]any{"id": "blue", "label": "Blue"}}}}},
				map[string]any{"type": "chat.say", "data": map[string]any{"text": "I put two colours in the side panel.", "done": true}},
			)
			x.poll(`!document.getElementById("lets-chat").hidden && document.querySelector('[data-component="side"] button[data-id="blue"]')`)
			x.settled()
			x.poll(`document.getAnimations().every(a => a.playState !== "running" || a.animationName === "lets-c-breathe")`)
			var bad []string
			sels := []string{`[data-component="side"] button[data-id="red"]`, `[data-component="side"] button[data-id="blue"]`, "#lets-chat-input", "#lets-chat button.send", "#lets-chat .chat-head button"}
			x.eval(reachJS+"("+mustJSON(sels)+")", &bad)
			if len(bad) > 0 {
				t.Errorf("%d%%: %s", z.pct, strings.Join(bad, "; "))
			}
			var png []byte
			if err := chromedp.Run(x.ctx, chromedp.CaptureScreenshot(&png)); err == nil {
				t.Logf("%d%%: %d byte screenshot", z.pct, len(png))
			}
		})
	}
}
