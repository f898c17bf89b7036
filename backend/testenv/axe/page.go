package axe

import (
	"context"
	"fmt"
	"testing"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

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
		browsertest.Screenshot(t, ctx, "a11y-"+name+"-reflow-320.png")
	})
}
