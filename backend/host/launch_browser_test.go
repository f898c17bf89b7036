package host

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/gorilla/websocket"

	"github.com/lets-app/lets/backend/testenv/browsertest"
)

// TestBrowserOnlyTheShellPageAnswersThePrompt (issue #10, human acts): a
// unique asks to run code; while the prompt is open in the real shell page,
// a caller holding the host token and the open answer cannot reach the
// window's channel to answer it; the person clicking in the page can. A
// reload (F5) then shows the kind "link already used" page.
func TestBrowserOnlyTheShellPageAnswersThePrompt(t *testing.T) {
	th := startLIPHost(t)
	win := th.openOnly(t, "coder", "")
	o, _ := th.origins.get("coder")
	uo := o.url()
	ctx := browsertest.New(t, browsertest.Options{Width: 900, Height: 620, Timeout: 60 * time.Second})
	uc := watchContexts(ctx)
	if err := chromedp.Run(ctx, chromedp.Navigate(win.URL), chromedp.WaitVisible(`#lets-shell[data-state="online"]`, chromedp.ByQuery)); err != nil {
		t.Fatalf("shell page: %v", err)
	}
	uc.pollIn(t, ctx, uo, `window.lip && document.readyState === "complete"`)
	uc.evalIn(t, ctx, uo, `window.runResult = null; lip.run("shell", "echo allowed-by-a-person").then(r => window.runResult = r, e => window.runResult = {error: e.code}); 0`, nil)
	if err := chromedp.Run(ctx, chromedp.WaitVisible(`dialog.prompt[open]`, chromedp.ByQuery)); err != nil {
		t.Fatalf("prompt: %v", err)
	}

	// The API caller: its host token and the spent key from the answer.
	u, _ := url.Parse(win.URL)
	key := u.Query().Get("t")
	for _, tok := range []string{testHostToken, key} {
		c, resp, err := websocket.DefaultDialer.Dial("ws://127.0.0.1:"+strconv.Itoa(th.Port())+"/lip/ws?t="+url.QueryEscape(tok), http.Header{"Origin": {th.URL()}})
		if err == nil {
			c.Close()
			t.Fatal("an API caller reached the window's shell channel")
		}
		if resp == nil || (resp.StatusCode != 401 && resp.StatusCode != 403) {
			t.Fatalf("shell channel for the API caller: %v", resp)
		}
	}
	resp, err := http.Get(win.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusGone {
		t.Fatalf("the API caller loaded the window's page again: %d", resp.StatusCode)
	}
	var pending bool
	uc.evalIn(t, ctx, uo, `window.runResult === null`, &pending)
	if !pending {
		t.Fatal("the run was answered without the person")
	}

	// The person answers in the page (once the dialog is armed: a click in
	// its first moments is ignored, issue #11).
	if err := chromedp.Run(ctx, chromedp.WaitVisible(`dialog.prompt[data-armed="true"]`, chromedp.ByQuery), chromedp.Click(`dialog.prompt button[data-choice="once"]`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	uc.pollIn(t, ctx, uo, `window.runResult`)
	var out map[string]any
	uc.evalIn(t, ctx, uo, `window.runResult`, &out)
	if out["stdout"] != "allowed-by-a-person\n" {
		t.Fatalf("run after the person allowed it: %v", out)
	}

	// F5: the kind page, in the theme the person uses.
	for _, scheme := range []string{"light", "dark"} {
		var heading, text, details, bg string
		err := chromedp.Run(ctx,
			browsertest.Media("prefers-color-scheme", scheme),
			chromedp.Reload(),
			chromedp.WaitVisible(`#lets-link-heading`, chromedp.ByQuery),
			chromedp.Text(`#lets-link-heading`, &heading, chromedp.ByQuery),
			chromedp.Text(`main`, &text, chromedp.ByQuery),
			chromedp.Evaluate(`document.querySelector('main details').textContent`, &details),
			chromedp.Evaluate(`getComputedStyle(document.body).backgroundColor`, &bg),
		)
		if err != nil {
			t.Fatalf("reload (%s): %v", scheme, err)
		}
		// Plain words first (#26); the commands one click away in Details.
		if heading != "This window's link was already used" || !strings.Contains(text, "again, choose it in the Lets home window") ||
			!strings.Contains(details, "lets open coder") || !strings.Contains(details, "lets windows") {
			t.Fatalf("reload (%s) shows %q / %q / details %q", scheme, heading, text, details)
		}
		want := map[string]string{"light": "rgb(246, 245, 242)", "dark": "rgb(18, 19, 22)"}[scheme]
		if bg != want {
			t.Errorf("reload page background in %s: %s, want %s", scheme, bg, want)
		}
		browsertest.Screenshot(t, ctx, "window-link-used-"+scheme+".png")
	}
}
