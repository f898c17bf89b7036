package frontend_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/lets-app/lets/backend/experience"
	"github.com/lets-app/lets/backend/surface/web"
	"github.com/lets-app/lets/backend/testenv/browsertest"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/backend/wire"
)

// Demo, Show and sound on the pad, driven by the real daemon: the admin
// page's Start/Stop buttons, frames on a paired phone, the Sound toggle
// and the audio the page plays.

// audioSpy records every HTMLMediaElement.play() (its URL) and keeps the
// elements, so a test can see what was played and whether it loaded.
const audioSpy = `(() => {
  window.__played = [];
  window.__media = [];
  const play = HTMLMediaElement.prototype.play;
  HTMLMediaElement.prototype.play = function () {
    window.__played.push(this.src);
    if (!window.__media.includes(this)) window.__media.push(this);
    return play.call(this);
  };
})();`

func injectAudioSpy() chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		_, err := page.AddScriptToEvaluateOnNewDocument(audioSpy).Do(ctx)
		return err
	})
}

// wavResponses collects the status of every .wav the page fetched.
type wavResponses struct {
	mu     sync.Mutex
	status map[string]int64
}

func watchWAVs(ctx context.Context) *wavResponses {
	w := &wavResponses{status: map[string]int64{}}
	chromedp.ListenTarget(ctx, func(ev any) {
		if r, ok := ev.(*network.EventResponseReceived); ok && strings.HasSuffix(r.Response.URL, ".wav") {
			w.mu.Lock()
			w.status[r.Response.URL] = r.Response.Status
			w.mu.Unlock()
		}
	})
	return w
}

func (w *wavResponses) check(t *testing.T) {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	for u, s := range w.status {
		// 206 is a range request of the media element.
		if s != http.StatusOK && s != http.StatusPartialContent {
			t.Errorf("%s answered %d", u, s)
		}
	}
}

// oneRunningAgent: an agent that does not wait, so experiences may start.
func (r *padRig) oneRunningAgent(t *testing.T) {
	t.Helper()
	r.state(t, "builder", "Builder", wire.StateRunning)
}

// TestPadAdminStartsShowOnPairedPhone: the administrator starts the Show
// on the loopback page; a phone paired over the LAN receives the Show's
// frames and captions; Stop brings the live pad back on both.
func TestPadAdminStartsShowOnPairedPhone(t *testing.T) {
	rig := startLANRig(t)
	rig.oneRunningAgent(t)
	pin, _ := rig.newPairing(t)
	phoneCtx := phoneBrowser(t)
	if err := chromedp.Run(phoneCtx, browsertest.Media("prefers-color-scheme", "dark")); err != nil {
		t.Fatal(err)
	}
	pairWithPIN(t, phoneCtx, rig.relay, pin)
	if err := chromedp.Run(phoneCtx, waitJS(phoneCtx, `document.querySelectorAll('#agent-list li').length === 1`)); err != nil {
		t.Fatal(err)
	}

	admin := browsertest.New(t, browsertest.Options{Width: 1280, Height: 900})
	var stopDisabled, phoneHasControls bool
	if err := chromedp.Run(admin,
		chromedp.Navigate(rig.adminURL()),
		chromedp.WaitVisible(`#experiences`, chromedp.ByID),
		chromedp.Evaluate(`document.getElementById('exp-stop').getAttribute('aria-disabled') === 'true'`, &stopDisabled),
		chromedp.Click(`[data-exp="show"]`, chromedp.ByQuery),
	); err != nil {
		t.Fatalf("admin starts the Show: %v", err)
	}
	if !stopDisabled {
		t.Error("Stop is offered while nothing plays")
	}
	// The phone plays the Show: frames (the pad is lit by the Show, not
	// the live view), caption and progress.
	if err := chromedp.Run(phoneCtx,
		waitJS(phoneCtx, `document.body.classList.contains('show-playing') && document.getElementById('exp-caption').textContent !== ''`),
		chromedp.Evaluate(`!document.getElementById('admin').hidden`, &phoneHasControls),
	); err != nil {
		t.Fatalf("the phone does not show the Show: %v", err)
	}
	if phoneHasControls {
		t.Error("a paired phone shows the admin controls")
	}
	// Wait for a well-lit cue in Act I, then take the picture.
	if err := chromedp.Run(phoneCtx,
		chromedp.Poll(`document.getElementById('exp-detail').textContent.startsWith('Act I') && document.querySelectorAll('#device .lit').length >= 24`, nil,
			chromedp.WithPollingTimeout(testutil.EventuallyTimeout), chromedp.WithPollingInterval(20*time.Millisecond)),
	); err != nil {
		t.Fatalf("no lit Act I frame on the phone: %v", err)
	}
	browsertest.Screenshot(t, phoneCtx, "pad-show-live-phone.png")
	var lit int
	var kind string
	if err := chromedp.Run(phoneCtx,
		chromedp.Evaluate(`document.querySelectorAll('#device .lit').length`, &lit),
		chromedp.Evaluate(`document.getElementById('exp-kind').textContent`, &kind),
	); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(kind, "Show") {
		t.Errorf("banner says %q", kind)
	}
	// The admin page: Start is off, Stop is on, and says what plays.
	var now string
	var startOff bool
	if err := chromedp.Run(admin,
		waitJS(admin, `document.getElementById('exp-stop').getAttribute('aria-disabled') === 'false'`),
		chromedp.Evaluate(`[...document.querySelectorAll('[data-exp]')].every(b => b.getAttribute('aria-disabled') === 'true')`, &startOff),
		chromedp.Text(`#exp-now`, &now, chromedp.ByID),
	); err != nil {
		t.Fatal(err)
	}
	if !startOff || !strings.Contains(now, "Show is playing") {
		t.Errorf("admin while playing: start buttons off %v, %q", startOff, now)
	}
	browsertest.Screenshot(t, admin, "pad-admin-show.png")
	// Stop: both go back to the live pad.
	if err := chromedp.Run(admin, chromedp.Click(`#exp-stop`, chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	for name, ctx := range map[string]context.Context{"phone": phoneCtx, "admin": admin} {
		if err := chromedp.Run(ctx,
			waitJS(ctx, `!document.body.classList.contains('show-playing') && document.getElementById('experience').hidden && document.querySelectorAll('#agent-list li').length === 1`),
		); err != nil {
			t.Errorf("%s after Stop: %v", name, err)
		}
	}
	if err := chromedp.Run(admin, waitJS(admin, `document.getElementById('exp-now').textContent === 'Nothing is playing.'`)); err != nil {
		t.Error(err)
	}
}

// TestPadSoundToggle: the Sound toggle is a labelled button reached with
// the keyboard, off by default and remembered; when on, the page plays the
// Demo's earcons and the Show's soundtrack from the server's messages, all
// of which load (no 404).
func TestPadSoundToggle(t *testing.T) {
	rig := startPadRig(t, web.Options{})
	rig.oneRunningAgent(t)
	ctx := browsertest.New(t, browsertest.Options{Width: 1280, Height: 900})
	wavs := watchWAVs(ctx)
	if err := chromedp.Run(ctx,
		network.Enable(),
		injectAudioSpy(),
		browsertest.Media("prefers-reduced-motion", "reduce"), // visuals only: sound still plays
		chromedp.Navigate(rig.adminURL()),
		chromedp.WaitVisible(`#pad-screen`, chromedp.ByID),
		chromedp.WaitVisible(`#sound`, chromedp.ByID),
	); err != nil {
		t.Fatal(err)
	}
	// Labelled: in the accessibility tree it is a button named "Sound",
	// a toggle that is not pressed.
	var sound []*cdp.Node
	var ax []*accessibility.Node
	if err := chromedp.Run(ctx,
		chromedp.Nodes(`#sound`, &sound, chromedp.ByID),
		chromedp.ActionFunc(func(c context.Context) error {
			var err error
			ax, err = accessibility.GetPartialAXTree().WithBackendNodeID(sound[0].BackendNodeID).WithFetchRelatives(false).Do(c)
			return err
		}),
	); err != nil {
		t.Fatal(err)
	}
	if len(ax) == 0 {
		t.Fatal("the Sound toggle is not in the accessibility tree")
	}
	role, name, pressed := axString(ax[0].Role), axString(ax[0].Name), ""
	for _, p := range ax[0].Properties {
		if p.Name == accessibility.PropertyNamePressed {
			pressed = axString(p.Value)
		}
	}
	if role != "button" || name != "Sound" || pressed != "false" {
		t.Errorf("Sound toggle: role %q, name %q, pressed %q; want a button named Sound, not pressed (off by default)", role, name, pressed)
	}
	// Keyboard: the first Tab stop of the page; Space turns it on.
	var focused, stored string
	var played []string
	if err := chromedp.Run(ctx,
		chromedp.Evaluate(`document.activeElement && document.activeElement.blur(); ''`, nil),
		chromedp.KeyEvent(kb.Tab),
		chromedp.Evaluate(`document.activeElement.id`, &focused),
	); err != nil {
		t.Fatal(err)
	}
	if focused != "sound" {
		t.Fatalf("first Tab stop is #%s, want the Sound toggle", focused)
	}
	if err := chromedp.Run(ctx,
		chromedp.KeyEvent(" "),
		waitJS(ctx, `document.getElementById('sound').getAttribute('aria-pressed') === 'true'`),
		chromedp.Evaluate(`localStorage.getItem('lets-pad-sound')`, &stored),
		chromedp.Evaluate(`window.__played`, &played),
	); err != nil {
		t.Fatalf("Space on the Sound toggle: %v", err)
	}
	if stored != "on" || len(played) != 1 || !strings.HasSuffix(played[0], "/experiences/audio/earcon-session_selected-none.wav") {
		t.Fatalf("after Sound on: stored %q, played %q", stored, played)
	}
	// The Demo's first stage sounds (approval, no slot); selecting the
	// Reviewer (Scene 2) plays session_selected in slot 1.
	if err := chromedp.Run(ctx,
		chromedp.Click(`[data-exp="demo"]`, chromedp.ByQuery),
		waitJS(ctx, `window.__played.some(u => u.endsWith('/earcon-approval-none.wav'))`),
	); err != nil {
		var state string
		_ = chromedp.Run(ctx, chromedp.Evaluate(`JSON.stringify([window.__played, document.getElementById('exp-kind').textContent, document.getElementById('exp-now').textContent])`, &state))
		t.Fatalf("Demo earcon: %v (%s)", err, state)
	}
	clickScene(t, ctx, "Reviewer")
	if err := chromedp.Run(ctx, waitJS(ctx, `window.__played.some(u => u.endsWith('/earcon-session_selected-1.wav'))`)); err != nil {
		t.Fatalf("Demo earcon for the selection: %v", err)
	}
	// Stop the Demo, start the Show: the soundtrack plays after the lead-in.
	if err := chromedp.Run(ctx,
		chromedp.Click(`#exp-stop`, chromedp.ByID),
		waitJS(ctx, `document.getElementById('exp-stop').getAttribute('aria-disabled') === 'true'`),
		chromedp.Click(`[data-exp="show"]`, chromedp.ByQuery),
		waitJS(ctx, `window.__played.some(u => u.endsWith('/experiences/audio/lets-show-v1.wav'))`),
		waitJS(ctx, `window.__media.some(m => m.src.endsWith('lets-show-v1.wav') && !m.paused)`),
	); err != nil {
		t.Fatalf("Show soundtrack: %v", err)
	}
	// Every element that played loaded its file.
	if err := chromedp.Run(ctx,
		waitJS(ctx, `window.__media.every(m => m.error === null && m.readyState >= 1)`),
	); err != nil {
		var state string
		_ = chromedp.Run(ctx, chromedp.Evaluate(`JSON.stringify(window.__media.map(m => [m.src, m.readyState, m.error && m.error.code]))`, &state))
		t.Fatalf("audio did not load: %v %s", err, state)
	}
	var duration float64
	if err := chromedp.Run(ctx, chromedp.Evaluate(`window.__media.find(m => m.src.endsWith('lets-show-v1.wav')).duration`, &duration)); err != nil {
		t.Fatal(err)
	}
	if duration < 67 {
		t.Errorf("soundtrack lasts %.1f s, shorter than the Show", duration)
	}
	if err := chromedp.Run(ctx,
		browsertest.Media("prefers-color-scheme", "dark"),
		chromedp.Poll(`document.querySelectorAll('#device .lit').length >= 20`, nil, chromedp.WithPollingTimeout(testutil.EventuallyTimeout), chromedp.WithPollingInterval(20*time.Millisecond)),
	); err != nil {
		t.Fatalf("no lit frame: %v", err)
	}
	browsertest.Screenshot(t, ctx, "pad-admin-show-sound-on.png")
	// Stop: the music stops.
	if err := chromedp.Run(ctx,
		chromedp.Click(`#exp-stop`, chromedp.ByID),
		waitJS(ctx, `window.__media.filter(m => m.src.endsWith('lets-show-v1.wav')).every(m => m.paused)`),
	); err != nil {
		t.Fatalf("soundtrack after Stop: %v", err)
	}
	wavs.check(t)
	// Remembered across a reload; Enter turns it off again.
	if err := chromedp.Run(ctx,
		chromedp.Reload(),
		chromedp.WaitVisible(`#sound`, chromedp.ByID),
		waitJS(ctx, `document.getElementById('sound').getAttribute('aria-pressed') === 'true'`),
		chromedp.Focus(`#sound`, chromedp.ByID),
		chromedp.KeyEvent(kb.Enter),
		waitJS(ctx, `document.getElementById('sound').getAttribute('aria-pressed') === 'false'`),
		chromedp.Evaluate(`localStorage.getItem('lets-pad-sound')`, &stored),
	); err != nil {
		t.Fatalf("reload and Sound off: %v", err)
	}
	if stored != "off" {
		t.Errorf("stored %q after Sound off", stored)
	}
	// With Sound off a Demo plays nothing: once the page shows the Demo's
	// first stage, it has handled the message whose earcon (approval) it
	// plays with Sound on.
	demo, _, err := experience.LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	first := ""
	for _, st := range demo.Stages {
		if st.ID == demo.InitialStage {
			first = st.Prompt.Title
		}
	}
	if err := chromedp.Run(ctx,
		chromedp.Click(`[data-exp="demo"]`, chromedp.ByQuery),
		waitJS(ctx, fmt.Sprintf(`!document.getElementById('experience').hidden && document.getElementById('exp-caption').textContent === %q`, first)),
		chromedp.Evaluate(`window.__played`, &played),
	); err != nil {
		t.Fatal(err)
	}
	if len(played) != 0 {
		t.Errorf("Sound off, but played %q", played)
	}
}

// axString is an accessibility value as plain text.
func axString(v *accessibility.Value) string {
	if v == nil {
		return ""
	}
	return strings.Trim(string(v.Value), `"`)
}
