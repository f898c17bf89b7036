package shell_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/lets-app/lets/backend/host"
	"github.com/lets-app/lets/backend/testenv/browsertest"
	"github.com/lets-app/lets/backend/testenv/launchbook"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/uniques"
)

// Issue #21, "never in the way": a real host with the built-in uniques
// and a "wall" unique whose buttons fill the whole view, one real shell
// page per test in headless Chromium.

const rigToken = "inway-test-token-0123456789abcdefghijklmnop"

// wallFiles is a unique whose controls fill the view: a grid of buttons
// with thin gutters, each recording its clicks and focus.
var wallFiles = map[string]string{
	"unique.json": `{"lip": 1, "name": "wall", "version": "0.1.0", "title": "Wall",
  "description": "Buttons everywhere.", "entry": "index.html", "guide": "GUIDE.md",
  "domains": ["wall"], "events": {"wall.press": {"summary": "a button was pressed"}}}`,
	"GUIDE.md": "# wall\nButtons.\n",
	"index.html": `<!doctype html><html><head><meta charset="utf-8"><title>wall</title>
<link rel="stylesheet" href="style.css"><script src="app.js" defer></script></head><body></body></html>`,
	"style.css": "html, body { margin: 0; height: 100%; }\nbody { display: grid; grid-template-columns: repeat(auto-fill, minmax(90px, 1fr)); grid-auto-rows: 44px; gap: 6px; padding: 4px; box-sizing: border-box; overflow: hidden; }\nbutton { font: 13px sans-serif; }\n",
	"app.js": `window.clicks = [];
for (let i = 0; i < 240; i++) {
  const b = document.createElement("button");
  b.id = "b" + i; b.textContent = "Button " + i;
  b.addEventListener("click", () => window.clicks.push(b.id));
  document.body.append(b);
}
`,
}

// startRigHost runs a host with the built-in uniques and the wall.
func startRigHost(t *testing.T) *host.Server {
	t.Helper()
	builtin := fstest.MapFS{}
	err := fs.WalkDir(uniques.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(uniques.FS(), p)
		builtin[p] = &fstest.MapFile{Data: data, Mode: 0o644}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for p, data := range wallFiles {
		builtin["wall/"+p] = &fstest.MapFile{Data: []byte(data), Mode: 0o644}
	}
	s, err := host.Listen(host.Options{Token: rigToken, Version: "0.1.0", DataDir: t.TempDir(), Builtin: builtin, OnOpen: rigLaunches.Take})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		_ = testutil.Wait(t, "the host stops", done)
	})
	return s
}

// rigLaunches are every test host's window launches: the tests are the native
// window (issue #23: the open answer never carries the URL).
var rigLaunches = &launchbook.Book{}

func api(t *testing.T, s *host.Server, method, path string, body any) []byte {
	t.Helper()
	data, _ := json.Marshal(body)
	req, err := http.NewRequest(method, s.URL()+path, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+rigToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, out)
	}
	return out
}

// win is one window of a unique in Chromium.
type win struct {
	t      *testing.T
	s      *host.Server
	ctx    context.Context
	id     string
	origin string
	mu     sync.Mutex
	worlds map[string]string
}

// openWin opens unique in a w×h tab (CSS px at dpr) and waits until its
// shell is online and the unique's SDK is up.
func openWin(t *testing.T, s *host.Server, unique string, w, h int64, dpr float64, features ...*emulation.MediaFeature) *win {
	t.Helper()
	var o struct {
		Window string `json:"window"`
		URL    string `json:"url"`
	}
	if err := json.Unmarshal(api(t, s, "POST", "/lip/open", map[string]any{"unique": unique}), &o); err != nil {
		t.Fatal(err)
	}
	o.URL = rigLaunches.URL(t, s.URL(), o.Window)
	ctx := browsertest.New(t, browsertest.Options{Width: 1000, Height: 640, Timeout: 120 * time.Second})
	x := &win{t: t, s: s, ctx: ctx, id: o.Window, worlds: map[string]string{}}
	chromedp.ListenTarget(ctx, func(ev any) {
		if e, ok := ev.(*runtime.EventExecutionContextCreated); ok {
			var aux struct {
				IsDefault bool `json:"isDefault"`
			}
			_ = json.Unmarshal(e.Context.AuxData, &aux)
			if aux.IsDefault {
				x.mu.Lock()
				x.worlds[e.Context.Origin] = e.Context.UniqueID
				x.mu.Unlock()
			}
		}
	})
	// Every tab of the shared browser behaves as the focused one: a person's
	// window has the focus when they click in it, and without this only
	// the tab the browser activated last does (document.hasFocus(), the
	// caret, focus events), whichever test opened it.
	actions := []chromedp.Action{emulation.SetDeviceMetricsOverride(w, h, dpr, false), emulation.SetFocusEmulationEnabled(true)}
	if len(features) > 0 {
		actions = append(actions, emulation.SetEmulatedMedia().WithFeatures(features))
	}
	actions = append(actions,
		chromedp.Navigate(o.URL),
		chromedp.WaitVisible(`#lets-shell[data-state="online"]`, chromedp.ByQuery),
		chromedp.Evaluate(`new URL(document.getElementById("lets-unique").src).origin`, &x.origin),
	)
	x.run(actions...)
	x.pollU(`window.lip && document.readyState === "complete"`)
	return x
}

func (x *win) run(actions ...chromedp.Action) {
	x.t.Helper()
	if err := chromedp.Run(x.ctx, actions...); err != nil {
		x.t.Fatal(err)
	}
}

// eval runs expr in the shell page.
func (x *win) eval(expr string, out any) {
	x.t.Helper()
	x.run(chromedp.Evaluate(expr, out, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
}

// poll waits until expr is true in the shell page.
func (x *win) poll(expr string) {
	x.t.Helper()
	if err := chromedp.Run(x.ctx, chromedp.Poll("!!("+expr+")", nil, chromedp.WithPollingTimeout(testutil.EventuallyTimeout))); err != nil {
		var state any
		_ = chromedp.Run(x.ctx, chromedp.Evaluate(`({...document.querySelector(".lets-companion").dataset})`, &state))
		x.t.Fatalf("in the shell, %s never became true: %v (companion %v)", expr, err, state)
	}
}

// evalU runs expr in the unique's page.
func (x *win) evalU(expr string, out any) {
	x.t.Helper()
	var id string
	testutil.Eventually(x.t, "the unique's JavaScript world exists", func() bool {
		x.mu.Lock()
		defer x.mu.Unlock()
		id = x.worlds[x.origin]
		return id != ""
	})
	x.run(chromedp.ActionFunc(func(ctx context.Context) error {
		res, exc, err := runtime.Evaluate(expr).WithUniqueContextID(id).WithAwaitPromise(true).WithReturnByValue(true).Do(ctx)
		if err != nil {
			return err
		}
		if exc != nil {
			return fmt.Errorf("%s: %s", exc.Text, exc.Exception.Description)
		}
		if out != nil && res != nil {
			return json.Unmarshal(res.Value, out)
		}
		return nil
	}))
}

func (x *win) pollU(expr string) {
	x.t.Helper()
	testutil.Eventually(x.t, "in the unique, "+expr, func() bool {
		var ok bool
		x.evalU("!!("+expr+")", &ok)
		return ok
	})
}

// send posts commands to the window as Claude does.
func (x *win) send(cmds ...map[string]any) {
	x.t.Helper()
	batch := make([]map[string]any, len(cmds))
	for i, c := range cmds {
		batch[i] = map[string]any{"lip": 1, "win": x.id, "type": c["type"], "data": c["data"]}
	}
	var res struct {
		Rejected []json.RawMessage `json:"rejected"`
	}
	if err := json.Unmarshal(api(x.t, x.s, "POST", "/lip/send", batch), &res); err != nil || len(res.Rejected) > 0 {
		x.t.Fatalf("send: %v %s", err, res.Rejected)
	}
}

// frameAt turns a point of the unique's page into a point of the window.
func (x *win) frameAt(px, py float64) (float64, float64) {
	x.t.Helper()
	var r []float64
	x.eval(`(() => { const f = document.getElementById("lets-unique").getBoundingClientRect(); return [f.left, f.top]; })()`, &r)
	return r[0] + px, r[1] + py
}

// rectU is the box of sel in the unique, in window coordinates.
func (x *win) rectU(sel string) [4]float64 {
	x.t.Helper()
	var r [4]float64
	x.evalU(fmt.Sprintf(`(() => { const b = document.querySelector(%q).getBoundingClientRect(); return [b.left, b.top, b.width, b.height]; })()`, sel), &r)
	r[0], r[1] = x.frameAt(r[0], r[1])
	return r
}

func mouseAt(typ input.MouseType, px, py float64, button input.MouseButton, buttons int64) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		p := input.DispatchMouseEvent(typ, px, py).WithButton(button).WithButtons(buttons)
		if typ != input.MouseMoved {
			p = p.WithClickCount(1)
		}
		return p.Do(ctx)
	})
}

// click is a real left click at (px, py), hit-tested by the browser.
func (x *win) click(px, py float64) {
	x.t.Helper()
	x.run(mouseAt(input.MouseMoved, px, py, input.None, 0), mouseAt(input.MousePressed, px, py, input.Left, 1), mouseAt(input.MouseReleased, px, py, input.Left, 0))
}

// settled waits until the companion has finished what the last change
// started: every finite animation or transition of the page has ended (a
// reply sliding in moves what the companion keeps clear of, and under
// load that outlasted two frames: CI f2, f3), two frames passed (a settle
// waits for the next one), the companion neither glides nor fades, and it
// stands where it stood two frames before.
func (x *win) settled() {
	x.t.Helper()
	const still = `new Promise(res => {
  const c = document.querySelector(".lets-companion");
  const body = () => { const r = c.querySelector(".lets-companion-body").getBoundingClientRect(); return r.left + "," + r.top; };
  const busy = () => !!(c.dataset.moving || c.dataset.fading) || document.getAnimations().some(a => a.playState === "running" && a.effect && a.effect.getComputedTiming().iterations !== Infinity);
  if (busy()) return res(false);
  const at = body();
  requestAnimationFrame(() => requestAnimationFrame(() => res(!busy() && body() === at)));
})`
	testutil.Eventually(x.t, "the companion and the page are still", func() bool {
		var ok bool
		x.eval(still, &ok)
		return ok
	})
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// controlsKnown waits until the companion keeps clear of more than n
// controls (the unique's SDK has reported its own).
func (x *win) controlsKnown(n int) {
	x.t.Helper()
	x.poll(fmt.Sprintf(`+document.querySelector(".lets-companion").dataset.controls > %d || !("controls" in document.querySelector(".lets-companion").dataset)`, n))
}
