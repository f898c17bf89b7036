package axe

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/lets-app/lets/backend/testenv/browsertest"
)

const testPage = `<!doctype html><html lang="en"><head><title>t</title>
<style>#wide{width:900px;height:10px;background:#ccc}</style></head>
<body><main><h1>Hello</h1>
<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
<p>Open the app.</p>
<p>It comes with Lets</p><button type="button">Open</button>
<p>Ask <strong>your</strong> friend.</p>
<details><summary>Details</summary><p>lets open hello --resume last failed: exit code 2</p></details>
<p data-details>raw JSON here</p>
<div id="wide"></div>
</main></body></html>`

func serve(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(testPage))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// The checker finds a real violation (an image with no text alternative is
// critical), so a clean page elsewhere means something.
func TestRunFindsAnImageWithoutAlt(t *testing.T) {
	ctx := browsertest.New(t, browsertest.Options{Width: 800, Height: 600})
	Preload(t, ctx)
	if err := chromedp.Run(ctx, chromedp.Navigate(serve(t)), chromedp.WaitVisible("h1")); err != nil {
		t.Fatal(err)
	}
	var found *Finding
	for _, f := range Run(t, ctx) {
		if f.ID == "image-alt" {
			f := f
			found = &f
		}
	}
	if found == nil || !found.Serious() {
		t.Fatalf("axe-core did not report the image without alt as serious: %+v", found)
	}
}

// Jargon counts outside Details and data-details only; the page's 900 px
// block makes it scroll sideways at 320 px.
func TestWordsAndOverflow(t *testing.T) {
	ctx := browsertest.New(t, browsertest.Options{Width: 800, Height: 600})
	if err := chromedp.Run(ctx, chromedp.Navigate(serve(t)), chromedp.WaitVisible("h1")); err != nil {
		t.Fatal(err)
	}
	if got := Words(t, ctx); len(got) != 0 {
		t.Errorf("words inside Details were counted: %q", got)
	}
	if got := Words(t, ctx, "app"); len(got) != 1 || !strings.HasPrefix(got[0], "app:") {
		t.Errorf("Words(app) = %q, want the one visible use", got)
	}
	// A phrase is read within a block, inline parts included, never
	// across a paragraph's end and the button after it.
	if got := Words(t, ctx, "ask your friend"); len(got) != 1 {
		t.Errorf("Words(ask your friend) = %q, want the phrase with <strong> in it found", got)
	}
	if got := Words(t, ctx, "lets open"); len(got) != 0 {
		t.Errorf("Words(lets open) = %q: a paragraph's end and the button after it were read as one phrase", got)
	}
	if err := chromedp.Run(ctx, ReflowAt(ReflowWidth, 600)); err != nil {
		t.Fatal(err)
	}
	over, items := Overflow(t, ctx)
	if over < 500 || len(items) == 0 || !strings.Contains(strings.Join(items, " "), "div#wide") {
		t.Errorf("Overflow at 320 px = %d %q, want about 580 px from div#wide", over, items)
	}
	if ok, why := Reachable(t, ctx, "h1"); !ok {
		t.Errorf("h1 %s", why)
	}
}

// Settle waits out a finite transition (a colour read mid-way is a mix of
// both ends: CI k4) and does not wait for an endless animation.
func TestSettleWaitsForTransitionsOnly(t *testing.T) {
	const page = `<!doctype html><html lang="en"><head><title>t</title><style>
#b{background:rgb(0,0,255);transition:background 600ms linear}
#b.on{background:rgb(255,0,0)}
@keyframes spin{to{transform:rotate(360deg)}}
#s{animation:spin 1s linear infinite;width:10px;height:10px}
</style></head><body><main><button id="b" type="button">Go</button><div id="s"></div></main></body></html>`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(page))
	}))
	t.Cleanup(srv.Close)
	ctx := browsertest.New(t, browsertest.Options{Width: 800, Height: 600})
	var running bool
	if err := chromedp.Run(ctx, chromedp.Navigate(srv.URL), chromedp.WaitVisible("#b", chromedp.ByID),
		chromedp.Evaluate(`document.getElementById('b').classList.add('on'); document.getAnimations().some((a) => a instanceof CSSTransition && a.playState === 'running')`, &running)); err != nil {
		t.Fatal(err)
	}
	if !running {
		t.Fatal("the test page's transition did not start")
	}
	Settle(t, ctx)
	var bg string
	if err := chromedp.Run(ctx, chromedp.Evaluate(`getComputedStyle(document.getElementById('b')).backgroundColor`, &bg)); err != nil {
		t.Fatal(err)
	}
	if bg != "rgb(255, 0, 0)" {
		t.Errorf("after Settle the button is %s, want the transition's end rgb(255, 0, 0)", bg)
	}
}
