package frontend_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/gorilla/websocket"

	"github.com/lets-app/lets/backend/daemon"
	"github.com/lets-app/lets/backend/surface/web"
	"github.com/lets-app/lets/backend/testenv/browsertest"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/backend/visual"
	"github.com/lets-app/lets/backend/wire"
	"github.com/lets-app/lets/backend/wireclient"
	"github.com/lets-app/lets/frontend"
)

const adminToken = "pad-browser-test-admin-token"

// padRig is the real browser surface behind the real daemon, with a Wire
// client to play agents.
type padRig struct {
	srv    *web.Server
	socket string
	wire   *wireclient.Client
	ctx    context.Context
}

func (r *padRig) base() string { return "http://127.0.0.1:" + strconv.Itoa(r.srv.Port()) }

func (r *padRig) adminURL() string { return r.base() + "/#admin=" + adminToken }

// startPadRig starts web.Server (loopback, LAN configured like the
// reference e2e harness so pairing works) and the daemon rendering to it.
func startPadRig(t *testing.T, opts web.Options) *padRig {
	t.Helper()
	app, err := frontend.PadApp()
	if err != nil {
		t.Fatal(err)
	}
	opts.App = app
	if opts.AdminToken == "" {
		opts.AdminToken = adminToken
	}
	srv, err := web.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	if err := srv.Open(ctx); err != nil {
		cancel()
		t.Fatal(err)
	}
	if opts.LAN == nil {
		if err := srv.ConfigureLAN(fmt.Sprintf("http://192.168.1.10:%d", srv.Port())); err != nil {
			cancel()
			t.Fatal(err)
		}
	}
	dir, err := os.MkdirTemp("", "lp")
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	socket := filepath.Join(dir, "pad.sock")
	d, err := daemon.Listen(daemon.Options{SocketPath: socket, Surface: srv})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(testutil.EventuallyTimeout):
			t.Error("daemon did not stop")
		}
		os.RemoveAll(dir)
	})
	return &padRig{srv: srv, socket: socket, wire: wireclient.New(socket), ctx: ctx}
}

func (r *padRig) state(t *testing.T, session, label string, st wire.State) {
	t.Helper()
	err := r.wire.ReportState(r.ctx, wire.StateCommand{
		Agent:    wire.Identity{Backend: "codex", SessionID: session},
		Metadata: wire.Metadata{{Key: "label", Value: label}},
		State:    st,
	})
	if err != nil {
		t.Fatal(err)
	}
}

// threeAgents: Builder running, Reviewer waiting for approval (subscribed
// to approve and reject), Tests waiting for a reply (states that do not
// change by themselves, unlike error, which reverts after 2 s). Returns the
// Reviewer subscription.
func (r *padRig) threeAgents(t *testing.T) *wireclient.Subscription {
	t.Helper()
	r.state(t, "builder", "Builder", wire.StateRunning)
	r.state(t, "reviewer", "Reviewer", wire.StateWaitingForApproval)
	r.state(t, "tests", "Tests", wire.StateWaitingForReply)
	sub, err := r.wire.Subscribe(r.ctx, wire.SubscribeActionsCommand{
		Agent:   wire.Identity{Backend: "codex", SessionID: "reviewer"},
		Actions: []wire.Action{wire.ActionApprove, wire.ActionReject},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sub.Close() })
	return sub
}

// wsClient is a protocol client for checks next to the browser.
type wsClient struct {
	c *websocket.Conn
}

func dialPad(t *testing.T, r *padRig, credential string) *wsClient {
	t.Helper()
	h := http.Header{}
	h.Set("Origin", r.base())
	c, _, err := websocket.DefaultDialer.Dial("ws://127.0.0.1:"+strconv.Itoa(r.srv.Port())+"/ws", h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	w := &wsClient{c: c}
	w.send(t, map[string]any{"protocol": 1, "type": "authenticate", "credential": credential})
	return w
}

func (w *wsClient) send(t *testing.T, m map[string]any) {
	t.Helper()
	if err := w.c.WriteJSON(m); err != nil {
		t.Fatal(err)
	}
}

// next reads messages until one of type typ arrives.
func (w *wsClient) next(t *testing.T, typ string, match func(map[string]any) bool) map[string]any {
	t.Helper()
	deadline := time.Now().Add(testutil.EventuallyTimeout) // a limit for a message that never comes
	for time.Now().Before(deadline) {
		w.c.SetReadDeadline(deadline)
		var m map[string]any
		if err := w.c.ReadJSON(&m); err != nil {
			t.Fatalf("waiting for %s: %v", typ, err)
		}
		if os.Getenv("PAD_DEBUG") != "" {
			b, _ := json.Marshal(m)
			t.Logf("got %.300s", b)
		}
		if m["type"] == typ && (match == nil || match(m)) {
			return m
		}
	}
	t.Fatalf("no %s message", typ)
	return nil
}

// follow reads the rest of the connection in the background and keeps
// the newest message of type typ (last until one comes). Nothing else may
// read the connection after it; it ends when the connection closes.
func (w *wsClient) follow(typ string, last map[string]any) func() map[string]any {
	var mu sync.Mutex
	go func() {
		for {
			var m map[string]any
			if err := w.c.ReadJSON(&m); err != nil {
				return
			}
			if m["type"] == typ {
				mu.Lock()
				last = m
				mu.Unlock()
			}
		}
	}()
	return func() map[string]any {
		mu.Lock()
		defer mu.Unlock()
		return last
	}
}

// Browser colours of visual-protocol-1.md §6.2, written out here so the
// test does not trust the app's own table.
var specColours = map[string][3]int{
	"off": {0x11, 0x17, 0x1c}, "idle": {0x46, 0x53, 0x5c}, "activity": {0xa9, 0xd5, 0xff}, "system:overflow": {0xf0, 0xb6, 0x3f},
	"state:running:primary": {0x33, 0x89, 0xe8}, "state:running:summary": {0x24, 0x5f, 0x9d},
	"state:waiting_for_reply:primary": {0xf2, 0xf5, 0xf7}, "state:waiting_for_reply:summary": {0x8e, 0x99, 0xa2},
	"state:user_typing:primary": {0x14, 0xbc, 0xc7}, "state:user_typing:summary": {0x08, 0x7b, 0x83},
	"state:waiting_for_approval:primary": {0xf0, 0xb6, 0x3f}, "state:waiting_for_approval:summary": {0x9c, 0x76, 0x28},
	"state:success:primary": {0x55, 0xc7, 0x6a}, "state:success:summary": {0x34, 0x7d, 0x43},
	"state:error:primary": {0xef, 0x5b, 0x64}, "state:error:summary": {0x96, 0x3d, 0x43},
	"state:cancelled:primary": {0x84, 0x90, 0x9a}, "state:cancelled:summary": {0x50, 0x59, 0x60},
	"action:approve:enabled": {0x55, 0xc7, 0x6a}, "action:reject:enabled": {0xef, 0x5b, 0x64},
	"action:retry:enabled": {0x33, 0x89, 0xe8}, "action:stop:enabled": {0xef, 0x5b, 0x64},
	"accent:cyan:selected": {0, 174, 187}, "accent:magenta:selected": {200, 62, 201}, "accent:lime:selected": {112, 185, 45},
	"accent:orange:selected": {230, 126, 34}, "accent:violet:selected": {118, 86, 199}, "accent:teal:selected": {0, 155, 131},
	"accent:rose:selected": {217, 76, 118}, "accent:sky:selected": {55, 136, 216},
	"accent:cyan:unselected": {0, 84, 90}, "accent:magenta:unselected": {96, 30, 96}, "accent:lime:unselected": {54, 89, 22},
	"accent:orange:unselected": {110, 60, 16}, "accent:violet:unselected": {57, 41, 96}, "accent:teal:unselected": {0, 74, 63},
	"accent:rose:unselected": {104, 36, 57}, "accent:sky:unselected": {26, 65, 104},
}

func cssRGB(token string) string {
	c, ok := specColours[token]
	if !ok {
		c = specColours["off"]
	}
	return fmt.Sprintf("rgb(%d, %d, %d)", c[0], c[1], c[2])
}

// expectedLights maps a surface message to the computed colour of each of
// the 80 lights, keyed like the page's data-light attributes.
func expectedLights(t *testing.T, surface map[string]any) map[string]string {
	t.Helper()
	raw, _ := json.Marshal(surface["visual_frame"])
	var f struct {
		State     [][]string        `json:"state"`
		Selectors []string          `json:"selectors"`
		Statuses  []string          `json:"statuses"`
		Actions   map[string]string `json:"actions"`
		Overflow  string            `json:"overflow"`
	}
	if err := json.Unmarshal(raw, &f); err != nil || len(f.State) != 8 {
		t.Fatalf("surface frame: %v", err)
	}
	want := map[string]string{}
	for y := range 8 {
		for x := range 7 {
			want[fmt.Sprintf("grid-%d-%d", y, x)] = cssRGB(f.State[y][x])
		}
		want[fmt.Sprintf("grid-%d-7", y)] = cssRGB(f.Statuses[y])
		want[fmt.Sprintf("right-%d", y)] = cssRGB(f.Selectors[y])
	}
	top := []string{f.Actions["approve"], f.Actions["reject"], "off", "off", f.Overflow, "off", f.Actions["retry"], f.Actions["stop"]}
	for x, tok := range top {
		want[fmt.Sprintf("top-%d", x)] = cssRGB(tok)
	}
	return want
}

const readLightsJS = `(() => { const o = {}; document.querySelectorAll('[data-light]').forEach(e => { o[e.dataset.light] = getComputedStyle(e).backgroundColor; }); return o; })()`

func compareLights(t *testing.T, ctx context.Context, want map[string]string) {
	t.Helper()
	// Colours fade in over a fraction of a second: wait until they settle.
	wantJSON, _ := json.Marshal(want)
	settled := fmt.Sprintf(`(() => { const want = %s; const got = %s; return Object.keys(want).every(k => got[k] === want[k]); })()`, wantJSON, readLightsJS)
	_ = chromedp.Run(ctx, waitJS(ctx, settled))
	var got map[string]string
	if err := chromedp.Run(ctx, chromedp.Evaluate(readLightsJS, &got)); err != nil {
		t.Fatal(err)
	}
	if len(got) != 80 {
		t.Fatalf("the page has %d lights, want 80", len(got))
	}
	bad := 0
	for k, w := range want {
		if got[k] != w {
			bad++
			if bad <= 5 {
				t.Errorf("light %s is %s, want %s", k, got[k], w)
			}
		}
	}
	if bad > 0 {
		t.Fatalf("%d of 80 lights differ from the frame", bad)
	}
}

// clickScene taps the Scene button of the agent with that label.
func clickScene(t *testing.T, ctx context.Context, label string) {
	t.Helper()
	var slot string
	js := fmt.Sprintf(`[...document.querySelectorAll('button.scene')].find(b => b.getAttribute('aria-label').includes(%q)).dataset.slot`, ": "+label+",")
	if err := chromedp.Run(ctx, chromedp.Evaluate(js, &slot)); err != nil {
		t.Fatalf("no Scene for %s: %v", label, err)
	}
	if err := chromedp.Run(ctx, chromedp.Click(fmt.Sprintf(`button.scene[data-slot="%s"]`, slot), chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
}

// waitJS polls a JavaScript condition in the page (until
// testutil.EventuallyTimeout, the limit of every wait).
func waitJS(ctx context.Context, cond string) chromedp.Action {
	return chromedp.Poll(cond, nil, chromedp.WithPollingTimeout(testutil.EventuallyTimeout))
}

// TestPadAdminPageRendersTheFrame is end-to-end case (1): the loopback
// admin page opens with the admin token, hides the token from the address
// bar, and its 80 lights have exactly the colours of the frame the server
// sent. It also selects an agent with a Scene button.
func TestPadAdminPageRendersTheFrame(t *testing.T) {
	rig := startPadRig(t, web.Options{})
	rig.threeAgents(t)
	probe := dialPad(t, rig, adminToken)
	probe.next(t, "authenticated", nil)
	probe.next(t, "surface", func(m map[string]any) bool {
		return len(m["view"].(map[string]any)["sessions"].([]any)) == 3
	})

	ctx := browsertest.New(t, browsertest.Options{Width: 1280, Height: 860})
	var href string
	if err := chromedp.Run(ctx,
		browsertest.Media("prefers-color-scheme", "dark"),
		chromedp.Navigate(rig.adminURL()),
		chromedp.WaitVisible(`#pad-screen`, chromedp.ByID),
		waitJS(ctx, `document.querySelectorAll('#agent-list li').length === 3`),
		chromedp.Location(&href),
	); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(href, adminToken) {
		t.Errorf("the admin token stays in the address bar: %s", href)
	}
	// Select Tests, then the Reviewer, with their Scene buttons.
	clickScene(t, ctx, "Tests")
	probe.next(t, "surface", func(m map[string]any) bool {
		return m["view"].(map[string]any)["selected_state"] == "waiting_for_reply"
	})
	clickScene(t, ctx, "Reviewer")
	surface := probe.next(t, "surface", func(m map[string]any) bool {
		return m["view"].(map[string]any)["selected_state"] == "waiting_for_approval"
	})
	if err := chromedp.Run(ctx, waitJS(ctx, `document.querySelector('.act[data-act="approve"]').classList.contains('on')`)); err != nil {
		t.Fatal(err)
	}
	compareLights(t, ctx, expectedLights(t, surface))

	// The admin makes a pairing code: QR, PIN and LAN URL appear.
	var pin, lanURL string
	var qrWidth int
	if err := chromedp.Run(ctx,
		chromedp.Click(`#new-pairing`, chromedp.ByID),
		chromedp.WaitVisible(`#pairing`, chromedp.ByID),
		waitJS(ctx, `document.getElementById('qr').complete && document.getElementById('qr').naturalWidth > 0`),
		chromedp.Evaluate(`document.getElementById('pin-digits').textContent.replace(/\s/g, '')`, &pin),
		chromedp.Text(`#lan-url`, &lanURL, chromedp.ByID),
		chromedp.Evaluate(`document.getElementById('qr').naturalWidth`, &qrWidth),
	); err != nil {
		t.Fatal(err)
	}
	live, ok := rig.srv.CurrentPairing()
	if !ok || pin != live.PIN {
		t.Errorf("page shows PIN %q, the server's is %q", pin, live.PIN)
	}
	if want := fmt.Sprintf("http://192.168.1.10:%d", rig.srv.Port()); lanURL != want {
		t.Errorf("LAN URL %q, want %q", lanURL, want)
	}
	browsertest.Screenshot(t, ctx, "pad-admin-desktop.png")
}

// phone makes the page behave like a phone (touch, 2× pixels).
func phone(width, height int) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		if err := emulation.SetDeviceMetricsOverride(int64(width), int64(height), 2, true).Do(ctx); err != nil {
			return err
		}
		return emulation.SetTouchEmulationEnabled(true).Do(ctx)
	})
}

// TestPadPhoneLayouts takes the phone screenshots (portrait and
// landscape, dark and light) of the admin page and checks that nothing
// overflows sideways and the controls are large enough to tap.
func TestPadPhoneLayouts(t *testing.T) {
	rig := startPadRig(t, web.Options{})
	rig.threeAgents(t)
	for _, c := range []struct {
		name          string
		width, height int
		scheme        string
	}{
		{"pad-phone-dark.png", 390, 844, "dark"},
		{"pad-phone-light.png", 390, 844, "light"},
		{"pad-phone-landscape.png", 844, 390, "dark"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := browsertest.New(t, browsertest.Options{Width: c.width, Height: c.height})
			var scrollW, innerW int
			var smallest float64
			if err := chromedp.Run(ctx,
				phone(c.width, c.height),
				browsertest.Media("prefers-color-scheme", c.scheme),
				chromedp.Navigate(rig.adminURL()),
				chromedp.WaitVisible(`#pad-screen`, chromedp.ByID),
				waitJS(ctx, `document.querySelectorAll('#agent-list li').length === 3`),
				chromedp.Evaluate(`document.documentElement.scrollWidth`, &scrollW),
				chromedp.Evaluate(`innerWidth`, &innerW),
				chromedp.Evaluate(`Math.min(...[...document.querySelectorAll('.act, .agent, button.scene, .top-btn')].map(b => { const r = b.getBoundingClientRect(); return Math.min(r.width, r.height); }))`, &smallest),
			); err != nil {
				t.Fatal(err)
			}
			if scrollW > innerW {
				t.Errorf("the page scrolls sideways: %d > %d", scrollW, innerW)
			}
			if smallest < 30 {
				t.Errorf("a button is only %.0f px across; fingers need more", smallest)
			}
			browsertest.Screenshot(t, ctx, c.name)
		})
	}
}

// approveOnce checks e2e case (3) on an open pad page: with the Reviewer
// waiting for approval and subscribed, Approve is lit; one tap delivers
// exactly one approve action to the Reviewer.
func approveOnce(t *testing.T, ctx context.Context, sub *wireclient.Subscription, button string) {
	t.Helper()
	if err := chromedp.Run(ctx,
		waitJS(ctx, `document.querySelector('.act[data-act="approve"]').classList.contains('on')`),
		waitJS(ctx, `document.querySelector('.top-btn[data-action="approve"]').getAttribute('aria-disabled') === 'false'`),
		chromedp.Click(button, chromedp.ByQuery),
	); err != nil {
		t.Fatal(err)
	}
	if ev := testutil.Wait(t, "the tap's action", sub.Actions()); ev.Action != wire.ActionApprove || ev.Agent.SessionID != "reviewer" {
		t.Fatalf("delivered %s to %s", ev.Action, ev.Agent)
	}
	select {
	case ev, ok := <-sub.Actions():
		if ok {
			t.Fatalf("a second action arrived: %s", ev.Action)
		}
	case <-time.After(time.Second):
	}
}

// TestPadApproveTapDeliversOneAction: e2e case (3) on the admin page, with
// the big Approve button, then the Reviewer waits again and the top-rail
// Approve light does the same.
func TestPadApproveTapDeliversOneAction(t *testing.T) {
	rig := startPadRig(t, web.Options{})
	sub := rig.threeAgents(t)
	ctx := browsertest.New(t, browsertest.Options{Width: 390, Height: 844})
	if err := chromedp.Run(ctx,
		chromedp.Navigate(rig.adminURL()),
		chromedp.WaitVisible(`#pad-screen`, chromedp.ByID),
		waitJS(ctx, `document.querySelectorAll('#agent-list li').length === 3`),
	); err != nil {
		t.Fatal(err)
	}
	clickScene(t, ctx, "Reviewer")
	approveOnce(t, ctx, sub, `.act[data-act="approve"]`)
	// After the approval the Reviewer works again: Approve goes dark.
	rig.state(t, "reviewer", "Reviewer", wire.StateRunning)
	if err := chromedp.Run(ctx, waitJS(ctx, `!document.querySelector('.act[data-act="approve"]').classList.contains('on')`)); err != nil {
		t.Fatal(err)
	}
	rig.state(t, "reviewer", "Reviewer", wire.StateWaitingForApproval)
	approveOnce(t, ctx, sub, `.top-btn[data-action="approve"]`)
}

// staticPad serves the pad app alone on 127.0.0.2 (a loopback address the
// page does not treat as this computer), to look at the pairing screens
// without a pad server.
func staticPad(t *testing.T) string {
	t.Helper()
	app, err := frontend.PadApp()
	if err != nil {
		t.Fatal(err)
	}
	testutil.LoopbackAlias(t, "127.0.0.2")
	ln, err := net.Listen("tcp4", "127.0.0.2:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.FileServer(http.FS(app)), ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

// TestPadPairingScreen: a phone without a credential sees the PIN form at
// once; the field keeps digits only and groups them; a stored lock-out
// disables the form with a countdown.
func TestPadPairingScreen(t *testing.T) {
	base := staticPad(t)
	for _, scheme := range []string{"dark", "light"} {
		t.Run(scheme, func(t *testing.T) {
			ctx := browsertest.New(t, browsertest.Options{Width: 390, Height: 844})
			var value, title string
			var focused bool
			if err := chromedp.Run(ctx,
				phone(390, 844),
				browsertest.Media("prefers-color-scheme", scheme),
				chromedp.Navigate(base+"/"),
				chromedp.WaitVisible(`#pin-form`, chromedp.ByID),
				chromedp.Evaluate(`document.activeElement === document.getElementById('pin')`, &focused),
				chromedp.SendKeys(`#pin`, "04a29", chromedp.ByID),
				chromedp.Value(`#pin`, &value, chromedp.ByID),
				chromedp.Text(`#pair-title`, &title, chromedp.ByID),
			); err != nil {
				t.Fatal(err)
			}
			if !focused {
				t.Error("the PIN field should have the focus")
			}
			if value != "042 9" || title != "Pair this phone" {
				t.Errorf("PIN field %q, title %q", value, title)
			}
			browsertest.Screenshot(t, ctx, "pad-pair-phone-"+scheme+".png")
		})
	}
	t.Run("locked", func(t *testing.T) {
		ctx := browsertest.New(t, browsertest.Options{Width: 390, Height: 844})
		var disabled bool
		var button, detail string
		if err := chromedp.Run(ctx,
			phone(390, 844),
			chromedp.Navigate(base+"/"),
			chromedp.WaitVisible(`#pin-form`, chromedp.ByID),
			chromedp.Evaluate(`(() => { const n = Date.now(); localStorage.setItem('lets-pad-pin-failures', JSON.stringify([n-4000, n-3000, n-2000, n-1000, n])); })()`, nil),
			chromedp.Reload(),
			chromedp.WaitVisible(`#pin-form`, chromedp.ByID),
			waitJS(ctx, `document.getElementById('pin').disabled`),
			chromedp.Evaluate(`document.getElementById('pin').disabled`, &disabled),
			chromedp.Text(`#pin-submit`, &button, chromedp.ByID),
			chromedp.Text(`#pair-detail`, &detail, chromedp.ByID),
		); err != nil {
			t.Fatal(err)
		}
		if !disabled || !strings.HasPrefix(button, "Wait ") || !strings.Contains(detail, "Try again in") {
			t.Errorf("locked form: disabled %v, button %q, detail %q", disabled, button, detail)
		}
		browsertest.Screenshot(t, ctx, "pad-pair-locked-phone.png")
	})
}

// TestPadKeyboard: the pad is one Tab stop; arrow keys move between its
// buttons with a visible focus ring; Enter on a Scene selects that agent,
// and the change is announced for screen readers; Enter on Approve sends it.
func TestPadKeyboard(t *testing.T) {
	rig := startPadRig(t, web.Options{})
	sub := rig.threeAgents(t)
	ctx := browsertest.New(t, browsertest.Options{Width: 1280, Height: 860})
	if err := chromedp.Run(ctx,
		chromedp.Navigate(rig.adminURL()),
		chromedp.WaitVisible(`#pad-screen`, chromedp.ByID),
		waitJS(ctx, `document.querySelectorAll('#agent-list li').length === 3`),
	); err != nil {
		t.Fatal(err)
	}
	// Select an agent that is not the Reviewer first, by mouse.
	clickScene(t, ctx, "Builder")
	if err := chromedp.Run(ctx, waitJS(ctx, `document.getElementById('now-title').textContent.startsWith('Builder')`)); err != nil {
		t.Fatal(err)
	}
	var reviewerSlot string
	if err := chromedp.Run(ctx, chromedp.Evaluate(`[...document.querySelectorAll('button.scene')].find(b => b.getAttribute('aria-label').includes(': Reviewer,')).dataset.slot`, &reviewerSlot)); err != nil {
		t.Fatal(err)
	}
	slot, _ := strconv.Atoi(reviewerSlot)
	// The pad is a single Tab stop (roving tabindex).
	var tabStops string
	if err := chromedp.Run(ctx,
		chromedp.Evaluate(`String([...document.querySelectorAll('#device button')].filter(b => b.tabIndex === 0).length)`, &tabStops),
	); err != nil {
		t.Fatal(err)
	}
	if tabStops != "1" {
		t.Errorf("%s pad buttons are Tab stops, want 1 (arrow keys move inside)", tabStops)
	}
	// Focus Approve, go down to Scene 1 and on to the Reviewer's Scene.
	actions := []chromedp.Action{
		chromedp.Focus(`.top-btn[data-action="approve"]`, chromedp.ByQuery),
		chromedp.KeyEvent(kb.ArrowDown), // from the top rail to the Scenes
	}
	for range slot {
		actions = append(actions, chromedp.KeyEvent(kb.ArrowDown))
	}
	var focused, outline string
	actions = append(actions,
		chromedp.Evaluate(`document.activeElement.dataset.slot || ''`, &focused),
		chromedp.Evaluate(`getComputedStyle(document.activeElement).outlineStyle`, &outline),
		chromedp.KeyEvent(kb.Enter),
		waitJS(ctx, `document.getElementById('now-title').textContent.startsWith('Reviewer')`),
		waitJS(ctx, `document.getElementById('live').textContent.includes('Reviewer selected')`),
	)
	if err := chromedp.Run(ctx, actions...); err != nil {
		t.Fatalf("keyboard selection: %v", err)
	}
	if focused != reviewerSlot {
		t.Errorf("arrow keys reached Scene %q, want %q", focused, reviewerSlot)
	}
	if outline == "none" {
		t.Error("the focused pad button has no visible focus ring")
	}
	// Up to the top rail (Stop), Home to Approve, Enter.
	if err := chromedp.Run(ctx,
		chromedp.KeyEvent(kb.End),
		chromedp.KeyEvent(kb.Home),
		chromedp.KeyEvent(kb.Enter),
	); err != nil {
		t.Fatal(err)
	}
	if ev := testutil.Wait(t, "the action of Enter on Approve", sub.Actions()); ev.Action != wire.ActionApprove {
		t.Fatalf("Enter on Approve sent %s", ev.Action)
	}
}

// TestPadReducedMotion: with prefers-reduced-motion nothing animates (no
// fades, no pressed-button scaling, no blinking status dot).
func TestPadReducedMotion(t *testing.T) {
	base := staticPad(t)
	ctx := browsertest.New(t, browsertest.Options{Width: 390, Height: 844})
	var padFade, dotAnim, pressTransform, normalFade string
	if err := chromedp.Run(ctx,
		chromedp.Navigate(base+"/"),
		chromedp.WaitVisible(`#pin-form`, chromedp.ByID),
		chromedp.Evaluate(`document.body.classList.add('ready'); getComputedStyle(document.querySelector('.pad')).transitionDuration`, &normalFade),
		browsertest.Media("prefers-reduced-motion", "reduce"),
		chromedp.Evaluate(`getComputedStyle(document.querySelector('.pad')).transitionDuration`, &padFade),
		chromedp.Evaluate(`getComputedStyle(document.querySelector('.pair-icon.spin i')).animationName`, &dotAnim),
		chromedp.Evaluate(`(() => { const b = document.querySelector('.act'); b.classList.add('pressed'); return getComputedStyle(b).transform; })()`, &pressTransform),
	); err != nil {
		t.Fatal(err)
	}
	if normalFade == "0s" {
		t.Errorf("without the preference lights should fade (got %s)", normalFade)
	}
	if padFade != "0s" || dotAnim != "none" || pressTransform != "none" {
		t.Errorf("reduced motion: pad fade %s, animation %s, press transform %s", padFade, dotAnim, pressTransform)
	}
}

func strp(s string) *string { return &s }
func intp(i int) *int       { return &i }

// TestPadShowsExperiences: experience_state and performance_frame (sent
// here straight through the server's surface API, to pin exact values; the
// daemon-driven Show is TestPadAdminStartsShowOnPairedPhone) appear as a
// banner and as the 80 Show colours; going idle brings the live pad back.
func TestPadShowsExperiences(t *testing.T) {
	rig := startPadRig(t, web.Options{})
	rig.threeAgents(t)
	probe := dialPad(t, rig, adminToken)
	probe.next(t, "authenticated", nil)
	live := probe.next(t, "surface", func(m map[string]any) bool {
		return len(m["view"].(map[string]any)["sessions"].([]any)) == 3
	})
	ctx := browsertest.New(t, browsertest.Options{Width: 390, Height: 844})
	if err := chromedp.Run(ctx,
		phone(390, 844),
		browsertest.Media("prefers-color-scheme", "dark"),
		chromedp.Navigate(rig.adminURL()),
		waitJS(ctx, `document.querySelectorAll('#agent-list li').length === 3`),
	); err != nil {
		t.Fatal(err)
	}
	// A Demo step: caption and detail.
	demo := "demo"
	if err := rig.srv.SetExperience(visual.ExperienceView{Status: visual.ExperiencePlaying, Kind: &demo, Title: strp("Three Agents, One Surface"),
		CueIndex: intp(1), Caption: strp("Approve the review."), Detail: strp("Approving lets Reviewer finish."), Tempo: 1}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Run(ctx, waitJS(ctx, `!document.getElementById('experience').hidden && document.getElementById('exp-caption').textContent === 'Approve the review.'`)); err != nil {
		t.Fatalf("demo banner: %v", err)
	}
	// A Show cue: every light takes the frame's colour.
	show := "show"
	var f visual.ShowFrame
	want := map[string]string{}
	colour := func(x, y int) [3]uint8 { return [3]uint8{uint8(20 + 25*x), uint8(10 + 30*y), uint8(200 - 20*x)} }
	for y := range 8 {
		for x := range 8 {
			c := colour(x, y)
			f.Grid[y][x] = visual.ShowColor{Fallback: "idle", RGB: c}
			want[fmt.Sprintf("grid-%d-%d", y, x)] = fmt.Sprintf("rgb(%d, %d, %d)", c[0], c[1], c[2])
		}
		top, right := colour(y, 0), colour(0, y)
		f.Top[y] = visual.ShowColor{Fallback: "idle", RGB: top}
		f.Right[y] = visual.ShowColor{Fallback: "idle", RGB: right}
		want[fmt.Sprintf("top-%d", y)] = fmt.Sprintf("rgb(%d, %d, %d)", top[0], top[1], top[2])
		want[fmt.Sprintf("right-%d", y)] = fmt.Sprintf("rgb(%d, %d, %d)", right[0], right[1], right[2])
	}
	if err := rig.srv.RenderShowFrame(&f); err != nil {
		t.Fatal(err)
	}
	if err := rig.srv.SetExperience(visual.ExperienceView{Status: visual.ExperiencePlaying, Kind: &show, Title: strp("A Spark Becomes a Constellation"),
		CueIndex: intp(3), Caption: strp("An Idea"), Detail: strp("Act I - An Idea"), ElapsedMS: 12900, DurationMS: intp(43100), Tempo: 1}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Run(ctx, waitJS(ctx, `document.getElementById('exp-caption').textContent === 'An Idea' && document.body.classList.contains('show-playing')`)); err != nil {
		t.Fatalf("show banner: %v", err)
	}
	compareLights(t, ctx, want)
	var approveOff bool
	if err := chromedp.Run(ctx, chromedp.Evaluate(`document.querySelector('.act[data-act="approve"]').getAttribute('aria-disabled') === 'true'`, &approveOff)); err != nil || !approveOff {
		t.Errorf("during a Show the action buttons must be off (%v)", err)
	}
	browsertest.Screenshot(t, ctx, "pad-show-phone.png")
	// Stopped: the live pad is back.
	if err := rig.srv.SetExperience(visual.ExperienceView{Status: visual.ExperienceIdle, Kind: &show, Reason: strp("stopped"), Tempo: 1}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Run(ctx, waitJS(ctx, `document.getElementById('experience').hidden && !document.body.classList.contains('show-playing')`)); err != nil {
		t.Fatal(err)
	}
	// The page must show the daemon's current frame again. That is the
	// newest surface the probe gets (it gets every broadcast the page gets),
	// not necessarily the first one: the Reviewer's subscription may light
	// Approve and Reject after it. So wait until the page shows the newest
	// one the probe has, whenever it came.
	newest := probe.follow("surface", live)
	lightsAre := func(want map[string]string) bool {
		var got map[string]string
		if err := chromedp.Run(ctx, chromedp.Evaluate(readLightsJS, &got)); err != nil {
			t.Fatal(err)
		}
		for k, v := range want {
			if got[k] != v {
				return false
			}
		}
		return true
	}
	if !testutil.Poll(testutil.EventuallyTimeout, func() bool { return lightsAre(expectedLights(t, newest())) }) {
		compareLights(t, ctx, expectedLights(t, newest()))
	}
}

// TestPadAdminDisconnectAll: "Disconnect all phones" asks first, then sends
// revoke_remote, and the page confirms what happened.
func TestPadAdminDisconnectAll(t *testing.T) {
	rig := startPadRig(t, web.Options{})
	ctx := browsertest.New(t, browsertest.Options{Width: 1280, Height: 860})
	chromedp.ListenTarget(ctx, func(ev any) {
		if _, ok := ev.(*page.EventJavascriptDialogOpening); ok {
			go chromedp.Run(ctx, page.HandleJavaScriptDialog(true))
		}
	})
	var note string
	if err := chromedp.Run(ctx,
		chromedp.Navigate(rig.adminURL()),
		chromedp.WaitVisible(`#admin`, chromedp.ByID),
		chromedp.Click(`#revoke-all`, chromedp.ByID),
		waitJS(ctx, `document.getElementById('admin-note').textContent.includes('Every phone was disconnected')`),
		chromedp.Text(`#admin-note`, &note, chromedp.ByID),
	); err != nil {
		t.Fatalf("disconnect all: %v", err)
	}
}
