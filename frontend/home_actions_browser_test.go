package frontend_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/lets-app/lets/backend/claudefind"
	"github.com/lets-app/lets/backend/host"
	"github.com/lets-app/lets/backend/testenv/browsertest"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// noClaude is a host's view of a computer without Claude Code (no
// `claude`, an empty Claude settings folder).
func noClaude(t *testing.T, o host.Options) host.Options {
	dir := t.TempDir()
	o.Getenv = func(k string) string {
		if k == "CLAUDE_CONFIG_DIR" {
			return dir
		}
		return ""
	}
	o.Home.FindClaude = func(context.Context) (claudefind.Found, error) {
		return claudefind.Found{}, &claudefind.NotFoundError{Searched: []string{"/usr/bin"}}
	}
	return o
}

// homeCardsText is what the Phones and Claude cards say.
const homeCardsText = `[...document.querySelectorAll('.pair .card')].map(c => c.innerText).join('\n')`

// TestBrowserHomePairsAndSetsUpWithoutATray (#21 home words without a
// tray): with the desktop's actions, the Phones and Claude cards offer
// their own "Pair a phone" and "Set up Claude" buttons (labelled, by
// keyboard) and never send the person to a tray menu, which a desktop
// without a tray host does not have. Enter on Pair a phone runs the app's
// pairing once and says the page opened; Enter on Set up Claude runs the
// set-up and shows its words. Without the actions (Lets with no desktop),
// no button, and the words name the terminal commands. Light and dark.
// Before, both cards said to choose an item "in the Lets tray menu".
func TestBrowserHomePairsAndSetsUpWithoutATray(t *testing.T) {
	var pairs, setups atomic.Int32
	o := noClaude(t, host.Options{})
	o.Home.Devices = func() []host.PairedDevice { return nil }
	o.Home.PairPhone = func(context.Context) error { pairs.Add(1); return nil }
	o.Home.SetupClaude = func(context.Context) host.HomeSetupResult {
		setups.Add(1)
		return host.HomeSetupResult{Done: true, Text: "Almost there: install Claude Code, then set up again",
			Detail: "Lets added its hooks and skill, but Claude Code's `claude` command is not on your PATH"}
	}
	h := startHomeHost(t, o)
	for _, scheme := range []string{"light", "dark"} {
		t.Run(scheme, func(t *testing.T) {
			before := pairs.Load()
			ctx := browsertest.New(t, browsertest.Options{Width: 900, Height: 900})
			var cards, pairName, setupName, pairNote, setupNote string
			err := chromedp.Run(ctx,
				browsertest.Media("prefers-color-scheme", scheme),
				chromedp.Navigate(h.link(t)),
				chromedp.WaitVisible(`#pair-phone`, chromedp.ByQuery),
				chromedp.WaitVisible(`#setup-claude`, chromedp.ByQuery),
				chromedp.Evaluate(homeCardsText, &cards),
				chromedp.Evaluate(`document.getElementById('pair-phone').textContent`, &pairName),
				chromedp.Evaluate(`document.getElementById('setup-claude').textContent`, &setupName),
				chromedp.Focus(`#pair-phone`, chromedp.ByQuery),
				chromedp.KeyEvent("\r"),
				chromedp.Poll(`document.getElementById('pair-phone-note').textContent.includes('opened in your browser')`, nil, chromedp.WithPollingTimeout(testutil.EventuallyTimeout)),
				chromedp.Text(`#pair-phone-note`, &pairNote, chromedp.ByQuery),
				chromedp.Focus(`#setup-claude`, chromedp.ByQuery),
				chromedp.KeyEvent("\r"),
				chromedp.Poll(`document.getElementById('setup-claude-note').textContent.includes('Almost there')`, nil, chromedp.WithPollingTimeout(testutil.EventuallyTimeout)),
				chromedp.Text(`#setup-claude-note`, &setupNote, chromedp.ByQuery),
				chromedp.ScrollIntoView(`#devices-title`, chromedp.ByQuery),
			)
			if err != nil {
				t.Fatalf("home page with the desktop's actions: %v\ncards: %s", err, cards)
			}
			browsertest.Screenshot(t, ctx, "home-actions-"+scheme+".png")
			if strings.Contains(strings.ToLower(cards), "tray") {
				t.Errorf("the cards send the person to a tray menu:\n%s", cards)
			}
			for _, want := range []string{"Press “Pair a phone”", "press “Set up Claude” below"} {
				if !strings.Contains(cards, want) {
					t.Errorf("the cards do not say %q:\n%s", want, cards)
				}
			}
			if pairName != "Pair a phone" || setupName != "Set up Claude" {
				t.Errorf("buttons %q and %q", pairName, setupName)
			}
			if got := pairs.Load() - before; got != 1 {
				t.Errorf("Enter on Pair a phone ran the pairing %d times, want 1", got)
			}
			if !strings.Contains(setupNote, "`claude`") && !strings.Contains(setupNote, "claude command") {
				t.Errorf("the set-up note %q does not pass on what is left", setupNote)
			}
			t.Logf("pair: %s | set up: %s", pairNote, setupNote)
		})
	}
	if setups.Load() != 2 {
		t.Errorf("Set up Claude ran %d times in two page loads, want 2", setups.Load())
	}

	// Lets with no desktop: nothing to press, the terminal commands said.
	bare := startHomeHost(t, noClaude(t, host.Options{}))
	ctx := browsertest.New(t, browsertest.Options{})
	var cards string
	var buttons bool
	if err := chromedp.Run(ctx,
		chromedp.Navigate(bare.link(t)),
		chromedp.WaitVisible(`li.unique[data-unique="hello"]`, chromedp.ByQuery),
		chromedp.Evaluate(homeCardsText, &cards),
		chromedp.Evaluate(`[...document.querySelectorAll('#pair-phone, #setup-claude')].some(b => b.offsetParent !== null)`, &buttons),
	); err != nil {
		t.Fatal(err)
	}
	if buttons {
		t.Error("a Lets without the desktop's actions shows Pair a phone or Set up Claude buttons")
	}
	// The commands are one click away, behind "Details" (#26): not in
	// the words shown, in the cards all the same.
	var all string
	if err := chromedp.Run(ctx, chromedp.Evaluate(`[...document.querySelectorAll('.pair .card')].map(c => c.textContent).join('\n')`, &all)); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.ToLower(cards), "tray") || strings.Contains(cards, "lets pad pair") || strings.Contains(cards, "lets setup claude") ||
		!strings.Contains(all, "lets pad pair") || !strings.Contains(all, "lets setup claude") || !strings.Contains(cards, "Details") {
		t.Errorf("without the actions the cards say:\n%s\n(with their details: %s)", cards, all)
	}
}
