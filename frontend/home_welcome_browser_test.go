package frontend_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/lets-app/lets/backend/host"
	"github.com/lets-app/lets/backend/testenv/browsertest"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// TestBrowserHomeWelcomesOnFirstRun (#21 first run shows something): the
// home link Lets makes on its first start (…#k=…&welcome=1) opens Home
// with a welcome on top: what Lets is and three ways in, each a labelled
// button reached with the keyboard. "Pair a phone" and "Set up Claude"
// move the focus to the card that explains each; "Got it" removes the
// welcome. A plain home link shows no welcome. In light and dark, with
// screenshots.
func TestBrowserHomeWelcomesOnFirstRun(t *testing.T) {
	h := startHomeHost(t, host.Options{})
	for _, scheme := range []string{"light", "dark"} {
		t.Run(scheme, func(t *testing.T) {
			ctx := browsertest.New(t, browsertest.Options{Width: 900, Height: 800})
			var lead, buttons, afterPair, afterClaude, addr string
			var gone bool
			err := chromedp.Run(ctx,
				browsertest.Media("prefers-color-scheme", scheme),
				chromedp.Navigate(h.link(t)+"&welcome=1"),
				chromedp.WaitVisible(`#welcome`, chromedp.ByQuery),
				chromedp.WaitVisible(`li.unique[data-unique="hello"]`, chromedp.ByQuery),
				chromedp.Text(`#welcome-lead`, &lead, chromedp.ByQuery),
				chromedp.Evaluate(`[...document.querySelectorAll('#welcome button')].map(b => b.getAttribute('aria-label') || b.textContent).join('|')`, &buttons),
				chromedp.Evaluate(`location.href`, &addr),
			)
			if err != nil {
				t.Fatalf("home page with the welcome: %v", err)
			}
			browsertest.Screenshot(t, ctx, "home-welcome-"+scheme+".png")
			err = chromedp.Run(ctx,
				chromedp.Focus(`#welcome-pair`, chromedp.ByQuery),
				chromedp.KeyEvent("\r"),
				chromedp.Evaluate(`document.activeElement && document.activeElement.id`, &afterPair),
				chromedp.Focus(`#welcome-claude`, chromedp.ByQuery),
				chromedp.KeyEvent("\r"),
				chromedp.Evaluate(`document.activeElement && document.activeElement.id`, &afterClaude),
				chromedp.Click(`#welcome-close`, chromedp.ByQuery),
				chromedp.Poll(`document.getElementById('welcome') === null`, &gone, chromedp.WithPollingTimeout(testutil.EventuallyTimeout)),
			)
			if err != nil {
				t.Fatalf("home page with the welcome: %v", err)
			}
			if !strings.Contains(lead, "Claude") {
				t.Errorf("the welcome says %q, not what Lets is", lead)
			}
			if buttons != "Chat with Claude|Pair a phone|Set up Claude|Got it, close the welcome" {
				t.Errorf("welcome buttons %q", buttons)
			}
			if strings.Contains(addr, "welcome") || strings.Contains(addr, "k=") {
				t.Errorf("the address still holds the link's fragment: %s", addr)
			}
			if afterPair != "devices-title" || afterClaude != "claude-title" {
				t.Errorf("Pair a phone focused %q, Set up Claude focused %q; want the Phones and Claude cards", afterPair, afterClaude)
			}
		})
	}

	ctx := browsertest.New(t, browsertest.Options{})
	var welcome bool
	if err := chromedp.Run(ctx,
		chromedp.Navigate(h.link(t)),
		chromedp.WaitVisible(`li.unique[data-unique="hello"]`, chromedp.ByQuery),
		chromedp.Evaluate(`document.getElementById('welcome') !== null`, &welcome),
	); err != nil {
		t.Fatal(err)
	}
	if welcome {
		t.Error("a home link without welcome=1 shows the welcome")
	}
}
