package shell_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// uniqueActiveJS names the unique page's focused element, and whether it
// is a control with something to do (enabled, shown).
const uniqueActiveJS = `(() => { const a = document.activeElement; if (!a || a === document.body || a === document.documentElement) return "EMPTY"; if (a.disabled || a.closest("[hidden]") || !a.getClientRects().length) return "DEAD " + a.tagName; return a.tagName.toLowerCase() + (a.id ? "#" + a.id : ""); })()`

// tabRound presses Tab n times from the chat's box and returns where the
// focus was after each press, in the shell or (for the frame) in the
// unique's page. (The page's body shows once a round, where the focus
// leaves the last control for the window's own chrome and comes back.)
func (x *win) tabRound(n int) []string {
	x.t.Helper()
	x.eval(`document.getElementById("lets-chat-input").focus()`, nil)
	var path []string
	for i := 0; i < n; i++ {
		x.key(kb.Tab)
		a := x.active()
		if a == "FRAME" {
			var u string
			x.evalU(uniqueActiveJS, &u)
			a = "FRAME:" + u
		}
		path = append(path, a)
	}
	return path
}

// TestTabNeverStopsOnTheEmptyBand (issue #26: "the chat band's frame is
// not an empty Tab stop while its buttons are disabled"): in the chat
// window before the first message, the band's New chat and Send to
// Claude are disabled and Stop is hidden; a full round of Tab never lands
// in the band's frame with nothing focused, nor on a disabled control.
// Once there is a message the band's buttons work and Tab reaches them.
func TestTabNeverStopsOnTheEmptyBand(t *testing.T) {
	s := startRigHost(t)
	x := openWin(t, s, "chat", 900, 640, 1)
	x.poll(`document.querySelector('[data-docked="true"]')`)
	x.pollU(`document.getElementById("new").disabled && document.getElementById("handoff").disabled`)
	// The shell has heard where the unique's controls are.
	x.controlsKnown(1)
	path := x.tabRound(12)
	for _, p := range path {
		if strings.HasPrefix(p, "FRAME") {
			t.Errorf("with the band's buttons disabled, Tab landed on %s: %s", p, strings.Join(path, " → "))
			break
		}
	}

	// A first message: the band's buttons have something to do.
	x.eval(`document.getElementById("lets-chat-input").focus()`, nil)
	x.run(chromedp.KeyEvent("Hello"), chromedp.KeyEvent(kb.Enter))
	x.pollU(`!document.getElementById("new").disabled`)
	x.poll(`document.getElementById("lets-unique").tabIndex === 0`)
	path = x.tabRound(12)
	reached := false
	for _, p := range path {
		if p == "FRAME:button#new" {
			reached = true
		}
		if p == "FRAME:EMPTY" || strings.HasPrefix(p, "FRAME:DEAD") {
			t.Errorf("Tab landed on %s: %s", p, strings.Join(path, " → "))
			break
		}
	}
	if !reached {
		t.Errorf("Tab never reached the band's New chat: %s", strings.Join(path, " → "))
	}
}
