package chatdriver

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/lets-app/lets/backend/testenv/browsertest"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// TestBrowserChatFirstRun: the first-run screens in Chromium through a real
// host — Claude Code missing (the install command in a code box with its
// copy button, "Check again" pressed with the mouse says it is still
// missing), then installed but signed out (the sign-in link as a button
// and as copyable text, a field for the code). Screenshots light (install)
// and dark (sign-in): chat-first-run-{light,dark}.png.
func TestBrowserChatFirstRun(t *testing.T) {
	sa := &scriptedAuth{state: NotInstalled}
	r := newRig(t, func(o *Options) {
		o.Auth = sa.auth
		o.Login = func(ctx context.Context) (Login, error) {
			return &fakeLogin{url: "https://claude.ai/oauth/authorize?code=true&client_id=lets-test&state=first-run", codes: make(chan string, 1), ok: make(chan bool, 1), onOK: func() {}}, nil
		}
	})
	win := r.open(t, "")
	ctx := browsertest.New(t, browsertest.Options{Width: 900, Height: 760, Timeout: 120 * time.Second})
	if err := chromedp.Run(ctx, browsertest.Media("prefers-color-scheme", "light")); err != nil {
		t.Fatal(err)
	}
	const install = `section[data-component="lets-setup-command"]`
	err := chromedp.Run(ctx,
		chromedp.Navigate(r.h.url(t, win)),
		chromedp.WaitVisible(`#lets-shell[data-state="online"]`, chromedp.ByQuery),
		chromedp.WaitVisible(install, chromedp.ByQuery),
		chromedp.WaitVisible(`section[data-component="lets-setup-check"] button[data-id="check"]`, chromedp.ByQuery),
	)
	if err != nil {
		t.Fatalf("the install screen did not come up: %v", err)
	}
	var got map[string]any
	err = chromedp.Run(ctx, chromedp.Evaluate(`({
		code: document.querySelector('section[data-component="lets-setup-command"]').innerText,
		note: document.querySelector('section[data-component="lets-setup-note"]').innerText,
		copy: !!document.querySelector('section[data-component="lets-setup-command"] button'),
		overflow: document.documentElement.scrollWidth > innerWidth,
		welcome: document.querySelector(".chat-intro .chat-msg.companion")?.innerText ?? "",
	})`, &got))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got["code"].(string), InstallCommand) || got["copy"] != true || !strings.Contains(got["note"].(string), "not on this computer") || got["overflow"] == true {
		t.Fatalf("install screen %v", got)
	}
	t.Logf("install screen: welcome %q", got["welcome"])
	browsertest.Screenshot(t, ctx, "chat-first-run-light.png")

	// "Check again" while it is still missing.
	if err := chromedp.Run(ctx, chromedp.Click(`section[data-component="lets-setup-check"] button[data-id="check"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.toast`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	var toast string
	_ = chromedp.Run(ctx, chromedp.Text(`.toast`, &toast, chromedp.ByQuery))
	if !strings.Contains(toast, "not there yet") {
		t.Fatalf("toast %q", toast)
	}

	// Installed now, but signed out: the same window shows the sign-in steps.
	sa.set(LoggedOut)
	if err := chromedp.Run(ctx, browsertest.Media("prefers-color-scheme", "dark")); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Run(ctx, chromedp.Click(`section[data-component="lets-setup-check"] button[data-id="check"]`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	err = chromedp.Run(ctx,
		chromedp.WaitVisible(`section[data-component="lets-signin-open"] button[data-id="open"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`section[data-component="lets-signin-code"] input`, chromedp.ByQuery),
		chromedp.WaitNotPresent(install, chromedp.ByQuery),
	)
	if err != nil {
		t.Fatalf("the sign-in screen did not come up: %v", err)
	}
	// Let the toast go before the picture.
	waitBrowser(t, ctx, `!document.querySelector(".toast")`)
	browsertest.Screenshot(t, ctx, "chat-first-run-dark.png")
	var link string
	err = chromedp.Run(ctx, chromedp.Click(`section[data-component="lets-signin-open"] button[data-id="link"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`section[data-component="lets-signin-link"]`, chromedp.ByQuery),
		chromedp.Text(`section[data-component="lets-signin-link"]`, &link, chromedp.ByQuery))
	if err != nil {
		t.Fatalf("the link to copy: %v", err)
	}
	if !strings.Contains(link, "https://claude.ai/oauth/authorize") {
		t.Fatalf("sign-in link %q", link)
	}
}

// waitBrowser waits until expr, evaluated in the page, is true.
func waitBrowser(t *testing.T, ctx context.Context, expr string) {
	t.Helper()
	testutil.Eventually(t, "in the page, "+expr, func() bool {
		var ok bool
		return chromedp.Run(ctx, chromedp.Evaluate(expr, &ok)) == nil && ok
	})
}
