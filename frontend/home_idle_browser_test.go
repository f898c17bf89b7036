package frontend_test

import (
	"context"
	"slices"
	"testing"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/lets-app/lets/backend/host"
	"github.com/lets-app/lets/backend/testenv/browsertest"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// homeAnimationsJS lists the page's animations that can still play: the
// running ones, and any whose end lies in the infinite future.
const homeAnimationsJS = `document.getAnimations()
	.filter(a => a.playState === "running" || a.effect.getComputedTiming().endTime === Infinity)
	.map(a => (a.animationName || a.constructor.name) + " on " + (a.effect.target ? a.effect.target.className || a.effect.target.tagName : "?"))`

// timersSpyJS keeps the page's repeating timers (setInterval) so the test
// can run them at once, as if their time had come, and records every
// state the status line takes.
const timersSpyJS = `(() => {
	window.__letsIntervals = [];
	const every = window.setInterval.bind(window);
	window.setInterval = (fn, ms, ...args) => { window.__letsIntervals.push(() => fn(...args)); return every(fn, ms, ...args); };
	window.__letsStates = [];
	document.addEventListener("DOMContentLoaded", () => {
		new MutationObserver(() => window.__letsStates.push(document.getElementById("status").dataset.state))
			.observe(document.getElementById("status"), { attributes: true, attributeFilter: ["data-state"] });
	});
})()`

// TestBrowserHomeStatusDotComesToRest (issue #21, idle windows cost
// nothing): the home page's status dot breathes a few times when Lets is
// up (a finite CSS animation on .dot), then nothing on the page animates
// any more, and the page's own timers (the health check every 30 s, the
// overview every 15 s) do not set it going again while Lets stays up;
// with prefers-reduced-motion it never animates at all. (Old home.css:
// the dot breathed for ever; old home.ts: every health check flipped the
// status to "checking" and back, three more breaths every 30 s — 2.1 % of
// a core in BenchmarkIdleWindowCPU/home.)
func TestBrowserHomeStatusDotComesToRest(t *testing.T) {
	h := startHomeHost(t, host.Options{})

	ctx := browsertest.New(t, browsertest.Options{})
	var name, count string
	var still []string
	err := chromedp.Run(ctx,
		chromedp.ActionFunc(func(ctx context.Context) error {
			_, err := page.AddScriptToEvaluateOnNewDocument(timersSpyJS).Do(ctx)
			return err
		}),
		chromedp.Navigate(h.link(t)),
		chromedp.WaitVisible(`#status[data-state="ok"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`li.unique[data-unique="hello"]`, chromedp.ByQuery),
		chromedp.Evaluate(`getComputedStyle(document.querySelector("#status .dot")).animationName`, &name),
		chromedp.Evaluate(`getComputedStyle(document.querySelector("#status .dot")).animationIterationCount`, &count),
	)
	if err != nil {
		t.Fatalf("home page: %v", err)
	}
	if name != "breathe" || count == "infinite" {
		t.Errorf("the status dot's animation is %q × %q, want breathe a few times", name, count)
	}
	// Its breaths end (3 × 2.4 s) and nothing else takes over.
	var rest bool
	restJS := `document.getElementById("status").dataset.state === "ok" && (` + homeAnimationsJS + `).length === 0`
	if err := chromedp.Run(ctx, chromedp.Poll(restJS, &rest, chromedp.WithPollingTimeout(testutil.EventuallyTimeout))); err != nil {
		_ = chromedp.Run(ctx, chromedp.Evaluate(homeAnimationsJS, &still))
		t.Fatalf("the home page still animates after %v: %v (%v)", testutil.EventuallyTimeout, still, err)
	}

	// The page's timers come round (run now rather than in 15 and 30 s):
	// Lets is still up, so the dot stays at rest. The health check is done
	// when it has written the uptime again.
	var timers int
	var states []string
	err = chromedp.Run(ctx,
		chromedp.Evaluate(`window.__letsStates = []; document.getElementById("uptime").textContent = ""; window.__letsIntervals.forEach(f => f()); window.__letsIntervals.length`, &timers),
		chromedp.Poll(`document.getElementById("uptime").textContent !== ""`, nil, chromedp.WithPollingTimeout(testutil.EventuallyTimeout)),
		chromedp.Evaluate(homeAnimationsJS, &still),
		chromedp.Evaluate(`window.__letsStates`, &states),
	)
	if err != nil {
		t.Fatalf("running the home page's timers: %v", err)
	}
	if timers < 2 {
		t.Fatalf("the home page set %d repeating timers, want the health check and the overview", timers)
	}
	if len(still) > 0 || slices.Contains(states, "checking") {
		t.Errorf("the periodic checks set the page moving again: the status went through %v, animating %v", states, still)
	}

	// Reduced motion: the dot never moves.
	r := browsertest.New(t, browsertest.Options{})
	var all []string
	err = chromedp.Run(r,
		browsertest.Media("prefers-reduced-motion", "reduce"),
		chromedp.Navigate(h.link(t)),
		chromedp.WaitVisible(`#status[data-state="ok"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`li.unique[data-unique="hello"]`, chromedp.ByQuery),
		chromedp.Evaluate(`getComputedStyle(document.querySelector("#status .dot")).animationName`, &name),
		chromedp.Evaluate(`document.getAnimations().map(a => (a.animationName || a.constructor.name) + " " + a.playState)`, &all),
	)
	if err != nil {
		t.Fatalf("home page with reduced motion: %v", err)
	}
	if name != "none" || len(all) > 0 {
		t.Errorf("with reduced motion the dot's animation is %q and the page has these animations: %v", name, all)
	}
}
