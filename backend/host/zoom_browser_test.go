package host

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// zoomCheckJS measures what a person would see go wrong when zoomed in:
// controls partly outside the viewport, a page that scrolls sideways,
// button text that spills out of its button, and the chat input or Send
// button, the chat's toggle and close or the dock's choices covered by
// something else (the companion, a toast, the dock).
const zoomCheckJS = `(() => {
  const vw = innerWidth, vh = innerHeight, out = [], spill = [], covered = [], underToast = [];
  const name = (e) => (e.id ? "#" + e.id : "") + (e.className && typeof e.className === "string" ? "." + e.className.trim().split(/\s+/).join(".") : "") + " " + (e.getAttribute("aria-label") || e.textContent || "").trim().slice(0, 30);
  const visible = (e) => { const s = getComputedStyle(e); const r = e.getBoundingClientRect(); return s.visibility !== "hidden" && s.display !== "none" && r.width > 0 && r.height > 0 && !e.closest("[hidden]") && !e.classList.contains("visually-hidden"); };
  for (const e of document.querySelectorAll("#lets-shell button, #lets-shell input:not([type=file]), #lets-shell textarea, #lets-shell select, #lets-shell [role=switch], .lets-companion-body, .lets-companion-bubble, .toast")) {
    if (!visible(e)) continue;
    const r = e.getBoundingClientRect();
    if (r.left < -0.5 || r.top < -0.5 || r.right > vw + 0.5 || r.bottom > vh + 0.5) out.push(name(e) + " at " + [r.left, r.top, r.right, r.bottom].map(Math.round).join(","));
    if (e.tagName === "BUTTON" && e.scrollWidth > e.clientWidth + 1) spill.push(name(e) + " " + e.scrollWidth + ">" + e.clientWidth);
  }
  for (const sel of ["#lets-chat-input", "#lets-chat button.send", "#lets-chat-toggle", "#lets-chat .chat-head button", '[data-component="plan"] button[data-id="cols"]', '[data-component="plan"] button[data-id="rows"]']) {
    const e = document.querySelector(sel);
    if (!e || !visible(e)) { covered.push(sel + " is not shown"); continue; }
    const r = e.getBoundingClientRect();
    const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    // A toast is brief and can be dismissed: a control under one is
    // reported, not failed (at 100 % a toast beside the open chat can sit
    // over a wide dock for its ttl).
    if (at && at.closest(".toast") && !e.closest(".toast")) { underToast.push(sel); continue; }
    if (!at || !(at === e || e.contains(at))) covered.push(sel + " is covered by " + (at ? name(at) : "nothing"));
  }
  const se = document.scrollingElement;
  return {out, spill, covered, underToast, scrollWidth: se.scrollWidth, innerWidth: vw, innerHeight: vh, dpr: devicePixelRatio};
})()`

type zoomReport struct {
	Out, Spill, Covered, UnderToast []string
	ScrollWidth                     float64
	InnerWidth                      float64
	InnerHeight                     float64
	DPR                             float64
}

// TestBrowserShellZoom: issue #11, "Looks right at 100%, 150% and 200%
// zoom". Browser zoom multiplies the device pixel ratio and shrinks the
// CSS viewport by the same factor, so a 1000×640 window becomes 667×427
// CSS px at 150 % and 500×320 at 200 %; the test emulates exactly that.
// With the chat panel open, a dock component, a toast and the companion
// speaking, at every zoom: every visible control lies inside the
// viewport, nothing scrolls sideways, no button's text spills out, and
// the chat input, the Send button, the chat's toggle and close buttons and
// the dock's choices are not covered (elementFromPoint at their centres
// finds them). It saves docs/screenshots/zoom-*.png (light).
func TestBrowserShellZoom(t *testing.T) {
	zooms := []struct {
		pct  int
		w, h int64
		dpr  float64
	}{{100, 1000, 640, 1}, {150, 667, 427, 1.5}, {200, 500, 320, 2}}
	for _, z := range zooms {
		t.Run(fmt.Sprintf("zoom-%d", z.pct), func(t *testing.T) {
			r := newEntityRig(t, &emulation.MediaFeature{Name: "prefers-color-scheme", Value: "light"})
			if err := chromedp.Run(r.ctx, emulation.SetDeviceMetricsOverride(z.w, z.h, z.dpr, false)); err != nil {
				t.Fatalf("emulate %d%% zoom: %v", z.pct, err)
			}
			r.poll(t, fmt.Sprintf(`innerWidth === %d && devicePixelRatio === %v`, z.w, z.dpr))
			r.send(t,
				map[string]any{"type": "chat.open", "data": map[string]any{}},
				map[string]any{"type": "component.create", "data": map[string]any{"id": "plan", "type": "options", "slot": "dock", "props": map[string]any{
					"label": "Which board layout would you like?", "items": []any{
						map[string]any{"id": "cols", "label": "Columns by status"},
						map[string]any{"id": "rows", "label": "Rows by person"},
					}}}},
				map[string]any{"type": "ui.toast", "data": map[string]any{"text": "Saved the board to your sessions.", "level": "success", "ttl": 60000}},
				map[string]any{"type": "chat.say", "data": map[string]any{"text": "Here is the plan: I will sort the cards by date and add a **Done** column.", "done": true}},
				map[string]any{"type": "entity.say", "data": map[string]any{"text": "I can tidy this board up for you.", "mood": "happy", "ttl": 60000}},
			)
			r.poll(t, `!document.getElementById("lets-chat").hidden && document.querySelector('[data-component="plan"]') && document.querySelector(".toast") && !document.querySelector(".lets-companion-bubble").hidden`)
			// Let the companion settle where it means to stay, and the
			// entry animations end, before measuring.
			r.poll(t, `!document.querySelector(".lets-companion").dataset.moving`)
			r.poll(t, animationsSettledJS)

			var rep zoomReport
			r.eval(t, zoomCheckJS, &rep)
			t.Logf("%d%%: viewport %v×%v CSS px at dpr %v, scrollWidth %v", z.pct, rep.InnerWidth, rep.InnerHeight, rep.DPR, rep.ScrollWidth)
			if rep.ScrollWidth > rep.InnerWidth {
				t.Errorf("%d%%: the page scrolls sideways (scrollWidth %v > innerWidth %v)", z.pct, rep.ScrollWidth, rep.InnerWidth)
			}
			if len(rep.Out) > 0 {
				t.Errorf("%d%%: controls outside the viewport:\n%s", z.pct, strings.Join(rep.Out, "\n"))
			}
			if len(rep.Spill) > 0 {
				t.Errorf("%d%%: button text spills out of its button:\n%s", z.pct, strings.Join(rep.Spill, "\n"))
			}
			if len(rep.UnderToast) > 0 {
				t.Logf("%d%%: under a toast for its ttl: %s", z.pct, strings.Join(rep.UnderToast, ", "))
			}
			if len(rep.Covered) > 0 {
				t.Errorf("%d%%: controls are covered:\n%s", z.pct, strings.Join(rep.Covered, "\n"))
			}
			var png []byte
			if err := chromedp.Run(r.ctx, chromedp.CaptureScreenshot(&png)); err != nil {
				t.Fatal(err)
			}
			savePNG(t, fmt.Sprintf("zoom-%d.png", z.pct), png)
		})
	}
}
