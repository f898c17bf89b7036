package chatdriver

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/lets-app/lets/backend/testenv/browsertest"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// fakeInstaller is an InstallClaude the test drives: each press of
// Install is one run the test reports progress on and ends.
type fakeInstaller struct{ runs chan *installRun }

type installRun struct {
	ctx      context.Context
	progress func(InstallProgress)
	result   chan error
}

func newFakeInstaller() *fakeInstaller { return &fakeInstaller{runs: make(chan *installRun, 4)} }

func (f *fakeInstaller) install(ctx context.Context, progress func(InstallProgress)) error {
	r := &installRun{ctx: ctx, progress: progress, result: make(chan error, 1)}
	f.runs <- r
	select {
	case err := <-r.result:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// recordStatus keeps every text the shell's status and the chat band's
// status line show, in every frame, from the first paint on.
const recordStatus = `(() => {
  const log = (window.__statusLog = []);
  const watch = () => {
    for (const id of ["status", "lets-status"]) {
      const el = document.getElementById(id);
      if (!el) continue;
      log.push(el.textContent);
      new MutationObserver(() => log.push(el.textContent)).observe(el, { childList: true, characterData: true, subtree: true });
    }
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", watch);
  else watch();
})()`

// TestBrowserChatFirstRun: the first-run screens in Chromium through a real
// host — Claude Code missing: no terminal command, an Install Claude Code
// button; "Check again" pressed with the mouse says it is still missing;
// Install shows a progress bar that moves and a Cancel; a failed install
// shows its error and Try again; Cancel stops the installer and goes back;
// a finished install moves on to the sign-in steps (the sign-in link as a
// button and as copyable text, a field for the code). Neither the band nor
// the shell ever says Claude is listening or "Connected" meanwhile.
// Screenshots light (install, progress) and dark (sign-in):
// chat-first-run-{light,installing,dark}.png.
func TestBrowserChatFirstRun(t *testing.T) {
	sa := &scriptedAuth{state: NotInstalled}
	inst := newFakeInstaller()
	r := newRig(t, func(o *Options) {
		o.Auth = sa.auth
		o.InstallClaude = inst.install
		o.Login = func(ctx context.Context) (Login, error) {
			return &fakeLogin{url: "https://claude.ai/oauth/authorize?code=true&client_id=lets-test&state=first-run", codes: make(chan string, 1), ok: make(chan bool, 1), onOK: func() {}}, nil
		}
	})
	win := r.open(t, "")
	ctx := browsertest.New(t, browsertest.Options{Width: 900, Height: 760, Timeout: 120 * time.Second})
	worlds := watchWorlds(ctx)
	if err := chromedp.Run(ctx, browsertest.Media("prefers-color-scheme", "light"), chromedp.ActionFunc(func(ctx context.Context) error {
		_, err := page.AddScriptToEvaluateOnNewDocument(recordStatus).Do(ctx)
		return err
	})); err != nil {
		t.Fatal(err)
	}
	const (
		check    = `section[data-component="lets-setup-check"] button[data-id="check"]`
		install  = `section[data-component="lets-setup-check"] button[data-id="install"]`
		cancel   = `section[data-component="lets-setup-check"] button[data-id="cancel"]`
		progress = `section[data-component="lets-setup-progress"] progress`
	)
	err := chromedp.Run(ctx,
		chromedp.Navigate(r.h.url(t, win)),
		chromedp.WaitVisible(`#lets-shell[data-state="online"]`, chromedp.ByQuery),
		chromedp.WaitVisible(install, chromedp.ByQuery),
		chromedp.WaitVisible(check, chromedp.ByQuery),
	)
	if err != nil {
		t.Fatalf("the install screen did not come up: %v", err)
	}
	var origin string
	if err := chromedp.Run(ctx, chromedp.Evaluate(`new URL(document.getElementById("lets-unique").src).origin`, &origin)); err != nil {
		t.Fatal(err)
	}
	bandSays := func(text string) {
		t.Helper()
		worlds.until(t, ctx, origin, `document.getElementById("status").textContent === `+strconv.Quote(text))
	}
	bandSays(statusMissing)
	var got map[string]any
	err = chromedp.Run(ctx, chromedp.Evaluate(`({
		note: document.querySelector('section[data-component="lets-setup-note"]').innerText,
		install: document.querySelector('section[data-component="lets-setup-check"] button[data-id="install"]').innerText,
		overflow: document.documentElement.scrollWidth > innerWidth,
		welcome: document.querySelector(".chat-intro .chat-msg.companion")?.innerText ?? "",
	})`, &got))
	if err != nil {
		t.Fatal(err)
	}
	note := got["note"].(string)
	if !strings.Contains(note, "not on this computer") || strings.Contains(note, "terminal") || strings.Contains(note, "npm") || strings.Contains(note, "PowerShell") ||
		!strings.Contains(got["install"].(string), "Install Claude Code") || got["overflow"] == true {
		t.Fatalf("install screen %v", got)
	}
	t.Logf("install screen: welcome %q", got["welcome"])
	// The steps cannot be closed away (issue #26): no × on any setup card.
	var closers int
	if err := chromedp.Run(ctx, chromedp.Evaluate(`document.querySelectorAll('section[data-component^="lets-setup"] button.dismiss, section[data-component^="lets-setup"] [data-part="dismiss"]').length`, &closers)); err != nil {
		t.Fatal(err)
	}
	if closers != 0 {
		t.Fatalf("the install screen's cards have %d × buttons: closing them would leave no way to install or check again", closers)
	}
	waitBrowser(t, ctx, `!document.querySelector(".toast")`)
	browsertest.Screenshot(t, ctx, "chat-first-run-light.png")

	// "Check again" while it is still missing.
	if err := chromedp.Run(ctx, chromedp.Click(check, chromedp.ByQuery),
		chromedp.WaitVisible(`.toast`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	var toast string
	_ = chromedp.Run(ctx, chromedp.Text(`.toast`, &toast, chromedp.ByQuery))
	if !strings.Contains(toast, "not there yet") {
		t.Fatalf("toast %q", toast)
	}

	// Install: a progress bar that moves, and Cancel.
	if err := chromedp.Run(ctx, chromedp.Click(install, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	run := testutil.Wait(t, "Install to start the installer", inst.runs)
	if err := chromedp.Run(ctx, chromedp.WaitVisible(progress, chromedp.ByQuery), chromedp.WaitVisible(cancel, chromedp.ByQuery)); err != nil {
		t.Fatalf("no progress bar and Cancel: %v", err)
	}
	bandSays(statusInstalling)
	run.progress(InstallProgress{Percent: 40, Text: "Downloading Claude Code…"})
	waitBrowser(t, ctx, `document.querySelector('`+progress+`').value === 40 && document.querySelector('section[data-component="lets-setup-progress"]').innerText.includes("Downloading")`)
	browsertest.Screenshot(t, ctx, "chat-first-run-installing.png")

	// It fails: the error in plain words, and Try again.
	run.result <- errors.New("Node.js is missing. On Ubuntu, install it in a terminal with: sudo apt install nodejs npm")
	waitBrowser(t, ctx, `(document.querySelector('section[data-component="lets-setup-note"]')?.innerText ?? "").includes("sudo apt install nodejs npm")`)
	var again string
	if err := chromedp.Run(ctx, chromedp.WaitNotPresent(progress, chromedp.ByQuery), chromedp.Text(install, &again, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(again, "Try again") {
		t.Fatalf("the button after a failure says %q, want Try again", again)
	}
	bandSays(statusFailed)

	// Try again, then Cancel: the installer's context ends, back to the start.
	if err := chromedp.Run(ctx, chromedp.Click(install, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	run = testutil.Wait(t, "Try again to start the installer", inst.runs)
	if err := chromedp.Run(ctx, chromedp.WaitVisible(cancel, chromedp.ByQuery), chromedp.Click(cancel, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	testutil.Wait(t, "Cancel to end the installer's context", run.ctx.Done())
	if err := chromedp.Run(ctx, chromedp.WaitVisible(install, chromedp.ByQuery), chromedp.WaitNotPresent(progress, chromedp.ByQuery)); err != nil {
		t.Fatalf("Cancel did not go back to the install screen: %v", err)
	}
	bandSays(statusMissing)

	// Install once more; it works, and the chat goes on to signing in.
	if err := chromedp.Run(ctx, chromedp.Click(install, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	run = testutil.Wait(t, "Install to start the installer again", inst.runs)
	run.progress(InstallProgress{Percent: 100, Text: "Claude Code is installed."})
	sa.set(LoggedOut)
	run.result <- nil
	err = chromedp.Run(ctx,
		chromedp.WaitVisible(`section[data-component="lets-signin-open"] button[data-id="open"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`section[data-component="lets-signin-code"] input`, chromedp.ByQuery),
		chromedp.WaitNotPresent(progress, chromedp.ByQuery),
	)
	if err != nil {
		t.Fatalf("the sign-in screen did not come up after the install: %v", err)
	}
	bandSays(statusSignIn)
	if err := chromedp.Run(ctx, browsertest.Media("prefers-color-scheme", "dark")); err != nil {
		t.Fatal(err)
	}
	// Nothing said Claude was there while it was missing or installing.
	var shellLog, bandLog []string
	if err := chromedp.Run(ctx, chromedp.Evaluate(`window.__statusLog`, &shellLog)); err != nil {
		t.Fatal(err)
	}
	worlds.eval(t, ctx, origin, `window.__statusLog`, &bandLog)
	for _, s := range append(shellLog, bandLog...) {
		if strings.Contains(s, "listening") || strings.TrimSpace(s) == "Connected" || strings.Contains(s, "Say hello") {
			t.Fatalf("the header said %q while Claude Code was missing (shell %q, band %q)", s, shellLog, bandLog)
		}
	}
	t.Logf("status lines: shell %q, band %q", shellLog, bandLog)
	if len(bandLog) < 4 {
		t.Fatalf("the band's status log %q is too short to trust", bandLog)
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
