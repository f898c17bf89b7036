package axe

import (
	"context"
	"fmt"
	"testing"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/lets-app/lets/backend/testenv/browsertest"
)

// PageOptions tune PersonPage.
type PageOptions struct {
	// Explained are the findings the page keeps, rule id → why (Check).
	Explained map[string]string
	// Ready is a selector visible once the page is shown ("h1" if empty).
	Ready string
	// Words are banned words beyond Jargon.
	Words []string
	// Open, when set, reaches the page in a fresh tab instead of
	// navigating to the address (e.g. a page that needs a click first).
	Open func(t *testing.T, ctx context.Context)
	// BypassCSP lets axe-core run in a page whose Content-Security-Policy
	// sandbox disables scripts (axe's timers never fire there). What the
	// page shows is the same.
	BypassCSP bool
}

// PersonPage checks a small person-facing page (a link page, an error
// page) the way issue #26 asks, each in a fresh tab: in light, dark and at
// 200 % zoom axe-core finds nothing serious or unexplained, the page has
// one visible main heading and a main region, does not scroll sideways
// and shows no developer words outside Details; at 320 CSS px it does not
// scroll sideways and every link, button and Details toggle can be
// scrolled to, uncovered. Subtests are named after the modes.
func PersonPage(t *testing.T, name, url string, o PageOptions) {
	t.Helper()
	ready := o.Ready
	if ready == "" {
		ready = "h1"
	}
	open := func(t *testing.T, ctx context.Context) {
		t.Helper()
		if o.BypassCSP {
			if err := chromedp.Run(ctx, page.SetBypassCSP(true)); err != nil {
				t.Fatal(err)
			}
		}
		if o.Open != nil {
			o.Open(t, ctx)
		} else if err := chromedp.Run(ctx, chromedp.Navigate(url)); err != nil {
			t.Fatalf("open %s: %v", url, err)
		}
		if err := chromedp.Run(ctx, chromedp.WaitVisible(ready, chromedp.ByQuery)); err != nil {
			t.Fatalf("%s: %s never showed: %v", name, ready, err)
		}
	}
	for _, m := range Modes {
		t.Run(m.Name, func(t *testing.T) {
			ctx := browsertest.New(t, browsertest.Options{Width: 1024, Height: 720})
			Preload(t, ctx)
			if err := chromedp.Run(ctx, m.Apply(1024, 720)); err != nil {
				t.Fatal(err)
			}
			open(t, ctx)
			Check(t, ctx, name+" ("+m.Name+")", o.Explained)
			var s struct {
				H1   int `json:"h1"`
				Main int `json:"main"`
			}
			if err := chromedp.Run(ctx, chromedp.Evaluate(`({h1: [...document.querySelectorAll('h1')].filter(h => h.getClientRects().length > 0).length, main: document.querySelectorAll('main, [role=main]').length})`, &s)); err != nil {
				t.Fatal(err)
			}
			if s.H1 != 1 || s.Main != 1 {
				t.Errorf("%s: %d visible main headings and %d main regions, want one of each", name, s.H1, s.Main)
			}
			if over, items := Overflow(t, ctx); over > 0 {
				t.Errorf("%s: scrolls sideways by %d px: %v", name, over, items)
			}
			if w := Words(t, ctx, o.Words...); len(w) > 0 {
				t.Errorf("%s: developer words outside Details: %v", name, w)
			}
			browsertest.Screenshot(t, ctx, "a11y-"+name+"-"+m.Name+".png")
		})
	}
	t.Run("reflow-320", func(t *testing.T) {
		ctx := browsertest.New(t, browsertest.Options{Width: 800, Height: 700})
		if err := chromedp.Run(ctx, ReflowAt(ReflowWidth, 640)); err != nil {
			t.Fatal(err)
		}
		open(t, ctx)
		if over, items := Overflow(t, ctx); over > 0 {
			t.Errorf("%s: at %d px it scrolls sideways by %d px: %v", name, ReflowWidth, over, items)
		}
		var n int
		if err := chromedp.Run(ctx, chromedp.Evaluate(`(() => {
  let i = 0;
  for (const e of document.querySelectorAll('a[href], button, input, select, textarea, summary, [tabindex]:not([tabindex="-1"])')) {
    if (e.getClientRects().length === 0) continue;
    e.setAttribute('data-axe-reach', String(i++));
  }
  return i;
})()`, &n)); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			sel := fmt.Sprintf(`[data-axe-reach="%d"]`, i)
			if ok, why := Reachable(t, ctx, sel); !ok {
				t.Errorf("%s: at %d px control %d %s", name, ReflowWidth, i, why)
			}
		}
		if n == 0 {
			return
		}
		// Keyboard: Tab reaches every control, each with a ring of 3:1.
		if err := chromedp.Run(ctx, chromedp.Evaluate(`document.activeElement && document.activeElement.blur()`, nil)); err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for range n + 2 {
			var at string
			if err := chromedp.Run(ctx, chromedp.KeyEvent(kb.Tab), chromedp.Evaluate(`document.activeElement.getAttribute('data-axe-reach') || ''`, &at)); err != nil {
				t.Fatal(err)
			}
			if at == "" {
				continue
			}
			seen[at] = true
			if ratio, what := FocusRing(t, ctx); ratio < 3 {
				t.Errorf("%s: focus ring of %s measures %.2f:1, want at least 3:1", name, what, ratio)
			}
		}
		if len(seen) != n {
			t.Errorf("%s: Tab reached %d of the %d controls", name, len(seen), n)
		}
		browsertest.Screenshot(t, ctx, "a11y-"+name+"-reflow-320.png")
	})
}

// FocusRing measures the focused element's focus ring against what is
// behind it (the first opaque background up its ancestors: the outline
// sits outside the element): the contrast ratio (WCAG 1.4.11 wants 3:1)
// and what was measured. 0 when nothing is focused or it shows no ring.
func FocusRing(tb testing.TB, ctx context.Context) (float64, string) {
	tb.Helper()
	var r struct {
		Ratio float64 `json:"ratio"`
		What  string  `json:"what"`
	}
	Settle(tb, ctx) // a focus ring may fade in
	if err := chromedp.Run(ctx, chromedp.Evaluate(focusRingJS, &r)); err != nil {
		tb.Fatalf("measure the focus ring: %v", err)
	}
	return r.Ratio, r.What
}

const focusRingJS = `(() => {
  const e = document.activeElement;
  if (!e || e === document.body) return {ratio: 0, what: "nothing focused"};
  const cs = getComputedStyle(e);
  const what = e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + " " + (e.getAttribute("aria-label") || e.textContent.trim()).slice(0, 40);
  const ring = cs.outlineStyle !== "none" && parseFloat(cs.outlineWidth) >= 2 ? cs.outlineColor
    : (cs.boxShadow && cs.boxShadow !== "none" ? cs.borderColor : "");
  if (!ring) return {ratio: 0, what: what + ": no outline"};
  const rgb = (s) => { const m = s.match(/[\d.]+/g).map(Number); return {r: m[0], g: m[1], b: m[2], a: m.length > 3 ? m[3] : 1}; };
  let p = e.parentElement, bg = null;
  for (; p; p = p.parentElement) { const c = rgb(getComputedStyle(p).backgroundColor); if (c.a >= 0.99) { bg = c; break; } }
  if (!bg) bg = matchMedia("(prefers-color-scheme: dark)").matches ? {r: 0, g: 0, b: 0} : {r: 255, g: 255, b: 255};
  const lum = (c) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); }; return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b); };
  const a = lum(rgb(ring)), b = lum(bg);
  return {ratio: (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05), what: what + " ring " + ring};
})()`
