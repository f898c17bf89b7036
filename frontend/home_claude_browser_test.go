package frontend_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/lets-app/lets/backend/claudefind"
	"github.com/lets-app/lets/backend/claudeinstall"
	"github.com/lets-app/lets/backend/host"
	"github.com/lets-app/lets/backend/testenv/browsertest"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// homeInstallRun is one press of Install Claude Code the test drives.
type homeInstallRun struct {
	ctx      context.Context
	progress func(claudeinstall.Progress)
	result   chan error
}

// TestBrowserHomeInstallsClaude (#22): with Claude Code missing, the
// Claude card offers Install Claude Code (no terminal command); pressing
// it with the keyboard shows a progress bar that moves and a Cancel; a
// failure shows the error and Try again; Cancel ends the install (its
// request closes, so the host's context ends); a finished install makes
// the card say Claude Code is installed. Screenshot: home-install-claude.png.
func TestBrowserHomeInstallsClaude(t *testing.T) {
	var installed atomic.Bool
	runs := make(chan *homeInstallRun, 4)
	o := noClaude(t, host.Options{})
	o.Home.FindClaude = func(context.Context) (claudefind.Found, error) {
		if installed.Load() {
			return claudefind.Found{Path: "/data/claude-code/node_modules/.bin/claude", Source: claudefind.SourceLets, Version: claudefind.TestedVersion}, nil
		}
		return claudefind.Found{}, &claudefind.NotFoundError{Searched: []string{"/usr/bin"}}
	}
	o.Home.InstallClaude = func(ctx context.Context, progress func(claudeinstall.Progress)) (claudefind.Found, error) {
		r := &homeInstallRun{ctx: ctx, progress: progress, result: make(chan error, 1)}
		runs <- r
		select {
		case err := <-r.result:
			if err != nil {
				return claudefind.Found{}, err
			}
			installed.Store(true)
			return claudefind.Found{Path: "/data/claude-code/node_modules/.bin/claude", Source: claudefind.SourceLets, Version: claudefind.TestedVersion}, nil
		case <-ctx.Done():
			return claudefind.Found{}, ctx.Err()
		}
	}
	o.Home.SetupClaude = func(context.Context) host.HomeSetupResult { return host.HomeSetupResult{Done: true, Text: "Done"} }
	h := startHomeHost(t, o)
	ctx := browsertest.New(t, browsertest.Options{Width: 900, Height: 900})
	poll := func(expr string) chromedp.Action {
		return chromedp.Poll(expr, nil, chromedp.WithPollingTimeout(testutil.EventuallyTimeout))
	}
	var card string
	err := chromedp.Run(ctx,
		browsertest.Media("prefers-color-scheme", "light"),
		chromedp.Navigate(h.link(t)),
		chromedp.WaitVisible(`#install-claude`, chromedp.ByQuery),
		chromedp.Text(`#claude`, &card, chromedp.ByQuery),
	)
	if err != nil {
		t.Fatalf("the Install Claude Code button did not come up: %v", err)
	}
	if !strings.Contains(card, "Install Claude Code") || strings.Contains(card, "npm") || strings.Contains(card, "terminal") {
		t.Fatalf("the Claude card says %q", card)
	}

	// Enter on the button: progress, then a failure with Try again.
	if err := chromedp.Run(ctx, chromedp.Focus(`#install-claude`, chromedp.ByQuery), chromedp.KeyEvent("\r")); err != nil {
		t.Fatal(err)
	}
	run := testutil.Wait(t, "Install to reach the host", runs)
	run.progress(claudeinstall.Progress{Step: claudeinstall.StepDownloading, Percent: 30, Text: "Downloading Claude Code…"})
	if err := chromedp.Run(ctx,
		poll(`document.getElementById('install-claude-progress').value === 30 && !document.getElementById('install-claude-progress').hidden`),
		poll(`document.getElementById('install-claude-note').textContent.includes('Downloading')`),
		chromedp.WaitVisible(`#install-claude-cancel`, chromedp.ByQuery),
	); err != nil {
		t.Fatalf("no moving progress bar: %v", err)
	}
	browsertest.Screenshot(t, ctx, "home-install-claude.png")
	run.result <- &claudeinstall.NodeMissingError{Missing: "node", Advice: "On Ubuntu, install it in a terminal with: sudo apt install nodejs npm"}
	var note, button string
	if err := chromedp.Run(ctx,
		poll(`document.getElementById('install-claude-note').dataset.state === 'error'`),
		chromedp.Text(`#install-claude-note`, &note, chromedp.ByQuery),
		chromedp.Text(`#install-claude`, &button, chromedp.ByQuery),
	); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(note, "Node.js is missing") || !strings.Contains(note, "sudo apt install nodejs npm") || button != "Try again" {
		t.Fatalf("after a failure: note %q, button %q", note, button)
	}

	// Try again, then Cancel: the host's install context ends.
	if err := chromedp.Run(ctx, chromedp.Click(`#install-claude`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	run = testutil.Wait(t, "Try again to reach the host", runs)
	if err := chromedp.Run(ctx, chromedp.WaitVisible(`#install-claude-cancel`, chromedp.ByQuery), chromedp.Focus(`#install-claude-cancel`, chromedp.ByQuery), chromedp.KeyEvent("\r")); err != nil {
		t.Fatal(err)
	}
	testutil.Wait(t, "Cancel to end the host's install", run.ctx.Done())
	if !errors.Is(run.ctx.Err(), context.Canceled) {
		t.Fatalf("install context ended with %v", run.ctx.Err())
	}
	// Cancel hides itself: the keyboard goes back to Install (#26).
	if err := chromedp.Run(ctx,
		poll(`document.getElementById('install-claude-note').textContent.includes('Stopped installing')`),
		poll(`document.activeElement && document.activeElement.id === 'install-claude'`),
	); err != nil {
		var at string
		_ = chromedp.Run(ctx, chromedp.Evaluate(activeKey, &at))
		t.Fatalf("after Cancel: %v (the keyboard is on %q)", err, at)
	}

	// Install once more: it works, and the card says Claude Code is there.
	if err := chromedp.Run(ctx, chromedp.Focus(`#install-claude`, chromedp.ByQuery), chromedp.KeyEvent("\r")); err != nil {
		t.Fatal(err)
	}
	run = testutil.Wait(t, "Install to reach the host again", runs)
	run.progress(claudeinstall.Progress{Step: claudeinstall.StepDone, Percent: 100, Text: "Claude Code is installed."})
	run.result <- nil
	if err := chromedp.Run(ctx,
		poll(`document.getElementById('claude').dataset.state === 'partial'`),
		poll(`document.getElementById('install-claude-row').hidden`),
		poll(`document.getElementById('install-claude-note').textContent.includes('`+claudefind.TestedVersion+` is installed')`),
		// The row is gone: the keyboard goes on to Set up Claude (#26).
		poll(`document.activeElement && document.activeElement.id === 'setup-claude'`),
	); err != nil {
		var now string
		_ = chromedp.Run(ctx, chromedp.Evaluate(homeCardsText, &now))
		t.Fatalf("after the install: %v\n%s", err, now)
	}
}
