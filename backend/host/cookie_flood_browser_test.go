package host

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/lets-app/lets/backend/testenv/browsertest"
)

// TestBrowserCookieFloodDoesNotLockOutAnotherUnique (#23, Low): cookies are
// not scoped by port, and Chromium keeps only about 180 of them for
// 127.0.0.1, so one unique that sets 400 cookies makes the browser evict
// another unique's HttpOnly lets_u_<port> cookie. The attacked unique's
// frame must still load new files of its own afterwards.
//
// Both windows are open in one browser profile (two tabs of one browser
// context), as they would be in the person's browser. The flooding unique
// is the built-in test unique "coder"; the flood runs in its own page's
// JavaScript world, exactly as its own script would.
func TestBrowserCookieFloodDoesNotLockOutAnotherUnique(t *testing.T) {
	th := startLIPHost(t)
	winA := th.openOnly(t, "board", "")
	oa, _ := th.origins.get("board")
	ua := oa.url()

	ctxA := browsertest.New(t, browsertest.Options{Width: 900, Height: 600, Timeout: 90 * time.Second})
	ucA := watchContexts(ctxA)
	if err := chromedp.Run(ctxA, chromedp.Navigate(winA.URL), chromedp.WaitVisible(`#lets-shell[data-state="online"]`, chromedp.ByQuery)); err != nil {
		t.Fatalf("open board's window: %v", err)
	}
	ucA.pollIn(t, ctxA, ua, `window.lip && document.readyState === "complete"`)
	// Before the flood the frame loads its files (the cookie path).
	var before int
	ucA.evalIn(t, ctxA, ua, `fetch("sub/a.txt", {cache: "no-store"}).then(r => r.status)`, &before)
	if before != 200 {
		t.Fatalf("board fetched its own file before the flood: %d, want 200", before)
	}

	// The attacker: a second tab of the same browser profile with coder's
	// window.
	winB := th.openOnly(t, "coder", "")
	ob, _ := th.origins.get("coder")
	ub := ob.url()
	ctxB := sameProfileTab(t, ctxA)
	ucB := watchContexts(ctxB)
	if err := chromedp.Run(ctxB, chromedp.Navigate(winB.URL), chromedp.WaitVisible(`#lets-shell[data-state="online"]`, chromedp.ByQuery)); err != nil {
		t.Fatalf("open coder's window: %v", err)
	}
	ucB.pollIn(t, ctxB, ub, `window.lip && document.readyState === "complete"`)
	var set int
	ucB.evalIn(t, ctxB, ub, `(() => {
		for (let i = 0; i < 400; i++) document.cookie = "flood" + i + "=" + "x".repeat(20) + "; path=/";
		return document.cookie.split("; ").filter(c => c.startsWith("flood")).length;
	})()`, &set)
	if set < 100 {
		t.Fatalf("the flood set only %d cookies; the test attacks nothing", set)
	}
	// The test checks itself: board's cookie is gone from the profile.
	var left int
	if err := chromedp.Run(ctxB, chromedp.ActionFunc(func(ctx context.Context) error {
		cookies, err := network.GetCookies().WithURLs([]string{ua + "/"}).Do(ctx)
		if err != nil {
			return err
		}
		for _, c := range cookies {
			if c.Name == oa.cookie {
				left++
			}
		}
		return nil
	})); err != nil {
		t.Fatalf("read the profile's cookies: %v", err)
	}
	if left != 0 {
		t.Fatalf("the flood did not evict %s; the test attacks nothing", oa.cookie)
	}

	// Board's frame fetches a file it has not loaded yet, and loads a script.
	var after int
	ucA.evalIn(t, ctxA, ua, `fetch("style.css", {cache: "no-store"}).then(r => r.status)`, &after)
	if after != 200 {
		t.Fatalf("after coder's cookie flood, board's frame fetched its own file: %d, want 200", after)
	}
	var script string
	ucA.evalIn(t, ctxA, ua, `new Promise(res => {
		const s = document.createElement("script");
		s.src = "app.js?again=" + Date.now();
		s.onload = () => res("loaded");
		s.onerror = () => res("refused");
		document.head.append(s);
	})`, &script)
	if script != "loaded" {
		t.Fatalf("after coder's cookie flood, board's frame could not load a script of its own: %s", script)
	}
}

// sameProfileTab opens another tab in the browser context of ctx's tab
// (same cookies and storage), closed when the test ends.
func sameProfileTab(t *testing.T, ctx context.Context) context.Context {
	t.Helper()
	c := chromedp.FromContext(ctx)
	exec := cdp.WithExecutor(ctx, c.Browser)
	info, err := target.GetTargetInfo().WithTargetID(c.Target.TargetID).Do(exec)
	if err != nil {
		t.Fatalf("find the tab's browser context: %v", err)
	}
	id, err := target.CreateTarget("about:blank").WithBrowserContextID(info.BrowserContextID).Do(exec)
	if err != nil {
		t.Fatalf("open a second tab: %v", err)
	}
	tab, cancel := chromedp.NewContext(ctx, chromedp.WithTargetID(id))
	t.Cleanup(func() {
		cancel()
		_ = target.CloseTarget(id).Do(exec)
	})
	return tab
}
