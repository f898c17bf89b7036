package uniques_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/lets-app/lets/backend/registry"
	"github.com/lets-app/lets/backend/testenv/browsertest"
	"github.com/lets-app/lets/uniques"
)

// fakeSDK stands in for the host's /lip/sdk.js: it records what the page
// emits and lets the test deliver commands.
const fakeSDK = `
window.__emitted = [];
window.__violations = [];
document.addEventListener("securitypolicyviolation", (e) => window.__violations.push(e.violatedDirective + " " + e.blockedURI));
const handlers = {};
window.__command = (type, data) => (handlers[type] || []).forEach((h) => h(data, {type, data}));
window.lip = {
  emit(type, data) { window.__emitted.push({type, data}); },
  on(type, h) { (handlers[type] = handlers[type] || []).push(h); },
  export(data) { window.__emitted.push({type: "hello.export", data}); },
  snapshot(data) { window.__emitted.push({type: "hello.snapshot", data}); },
  ready() { window.__ready = true; },
  context() {},
};
`

// serveHello serves the hello unique the way origin U does: through
// manifest.Unique.Open, with the SDK script first in <head> and the CSP.
func serveHello(t *testing.T) *httptest.Server {
	t.Helper()
	r, err := registry.OpenRegistry(registry.RegistryOptions{Builtin: uniques.FS(), UserDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	u, err := r.Get("hello")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'self'; base-uri 'self'; form-action 'self'; object-src 'none'")
		if req.URL.Path == "/lip/sdk.js" {
			w.Header().Set("Content-Type", "text/javascript")
			io.WriteString(w, fakeSDK)
			return
		}
		f, err := u.Open(req.URL.Path)
		if err != nil {
			http.NotFound(w, req)
			return
		}
		defer f.Close()
		data, _ := io.ReadAll(f)
		if req.URL.Path == "/"+u.Manifest.Entry {
			data = bytes.Replace(data, []byte("<head>"), []byte(`<head><script src="/lip/sdk.js"></script>`), 1)
		}
		http.ServeContent(w, req, req.URL.Path, time.Time{}, bytes.NewReader(data))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestHelloInChromium(t *testing.T) {
	srv := serveHello(t)
	for _, scheme := range []string{"light", "dark"} {
		t.Run(scheme, func(t *testing.T) {
			ctx := browsertest.New(t, browsertest.Options{Width: 640, Height: 820})
			var emitted, violations, claude, count, bg, focused string
			var ready, handoffDisabledBefore bool
			err := chromedp.Run(ctx,
				browsertest.Media("prefers-color-scheme", scheme),
				chromedp.Navigate(srv.URL+"/index.html"),
				chromedp.WaitVisible(`#wave`, chromedp.ByQuery),
				chromedp.Evaluate(`document.getElementById("handoff").disabled`, &handoffDisabledBefore),
				chromedp.Click(`#wave`, chromedp.ByQuery),
				chromedp.SendKeys(`#note`, "Hi Claude, this is a test note.", chromedp.ByQuery),
				chromedp.Click(`#send`, chromedp.ByQuery),
				chromedp.SendKeys(`#note`, "A second one.", chromedp.ByQuery),
				chromedp.Click(`#send`, chromedp.ByQuery),
				chromedp.Evaluate(`window.__command("hello.show", {text: "Hello back! Nice notes."})`, nil),
				chromedp.Text(`#claude`, &claude, chromedp.ByQuery),
				chromedp.Text(`#count`, &count, chromedp.ByQuery),
				chromedp.Evaluate(`JSON.stringify(window.__emitted.map((e) => e.type + ":" + (e.data.text || e.data.summary || "")))`, &emitted),
				chromedp.Evaluate(`window.__ready === true`, &ready),
				chromedp.Evaluate(`getComputedStyle(document.body).backgroundColor`, &bg),
				chromedp.Evaluate(`JSON.stringify(window.__violations)`, &violations),
				chromedp.Focus(`#note`, chromedp.ByQuery),
				chromedp.KeyEvent("\t"),
				chromedp.Evaluate(`document.activeElement && document.activeElement.id`, &focused),
			)
			if err != nil {
				t.Fatal(err)
			}
			browsertest.Screenshot(t, ctx, "unique-hello-"+scheme+".png")
			want := `["hello.wave:","hello.note:Hi Claude, this is a test note.","hello.snapshot:1 note: Hi Claude, this is a test note.","hello.note:A second one.","hello.snapshot:2 notes, the last: A second one."]`
			if emitted != want {
				t.Errorf("emitted %s\nwant    %s", emitted, want)
			}
			if !ready || !handoffDisabledBefore {
				t.Errorf("ready %v, handoff disabled with no notes %v", ready, handoffDisabledBefore)
			}
			if claude != "Hello back! Nice notes." || count != "2" {
				t.Errorf("claude %q count %q", claude, count)
			}
			if violations != "[]" {
				t.Errorf("CSP violations: %s", violations)
			}
			if focused != "send" {
				t.Errorf("Tab from the note should reach Send note, got %q", focused)
			}
			want = map[string]string{"light": "rgb(246, 245, 242)", "dark": "rgb(20, 19, 24)"}[scheme]
			if bg != want {
				t.Errorf("background %s, want %s", bg, want)
			}

			// Handoff, then a restore from a saved session.
			var last string
			err = chromedp.Run(ctx,
				chromedp.Click(`#handoff`, chromedp.ByQuery),
				chromedp.Evaluate(`JSON.stringify(window.__emitted[window.__emitted.length-1])`, &last),
				chromedp.Evaluate(`window.__command("hello.load", {notes: [{text: "restored", at: "2026-03-01T12:00:00Z"}, {nope: 1}]})`, nil),
				chromedp.Text(`#count`, &count, chromedp.ByQuery),
			)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(last, `"type":"hello.export"`) || !strings.Contains(last, `"summary":"2 notes`) {
				t.Errorf("export %s", last)
			}
			if count != "1" {
				t.Errorf("after load count %q", count)
			}
		})
	}
}
