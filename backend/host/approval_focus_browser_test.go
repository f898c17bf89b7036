package host

import (
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/lets-app/lets/backend/testenv/browsertest"
)

// TestBrowserApprovalCardGivesTheFocusBack (issue #26: "after an approval
// card closes, focus lands in the unique's frame instead of the control
// that had it"): a person is on one of the window's own controls (the
// Chat button, the chat's box) when Claude's approval card comes; however
// the card goes — Deny with Enter, Escape, answered from elsewhere — the
// focus is back on that control, not in the unique's frame or the body.
func TestBrowserApprovalCardGivesTheFocusBack(t *testing.T) {
	th := startLIPHost(t, withActions(newFakeActions()))
	win := th.openBoundOnly(t, "board", "4321")
	ctx := browsertest.New(t, browsertest.Options{Width: 900, Height: 640, Timeout: 90 * time.Second})
	uc := watchContexts(ctx)
	c := &chromeT{t: t, th: th, ctx: ctx, win: win}
	c.run("shell page", chromedp.Navigate(win.URL), chromedp.WaitVisible(`#lets-shell[data-state="online"]`, chromedp.ByQuery))
	c.send(map[string]any{"type": "chat.open", "data": map[string]any{}})
	c.poll(`!document.getElementById("lets-chat").hidden`)

	const active = `(() => { const a = document.activeElement; if (!a || a === document.body) return "BODY"; if (a.id === "lets-unique") return "FRAME"; return a.id || a.className; })()`
	n := 0
	for _, tc := range []struct {
		name, on, focusJS string
		close             func()
	}{
		{"Deny with Enter", "lets-chat-toggle", `document.getElementById("lets-chat-toggle").focus()`, func() { c.run("Enter", chromedp.KeyEvent(kb.Enter)) }},
		{"Escape", "lets-chat-input", `document.getElementById("lets-chat-input").focus()`, func() { c.run("Escape", chromedp.KeyEvent(kb.Escape)) }},
		{"answered elsewhere", "lets-chat-toggle", `document.getElementById("lets-chat-toggle").focus()`, func() { th.report(t, rep(4321, "running")) }},
		{"answered elsewhere, in the chat's box", "lets-chat-input", `document.getElementById("lets-chat-input").focus()`, func() { th.report(t, rep(4321, "running")) }},
		{"Deny with the mouse", "lets-chat-toggle", `document.getElementById("lets-chat-toggle").focus()`, func() {
			c.run("click Deny", chromedp.Click(`dialog.prompt button[data-choice="deny"]`, chromedp.ByQuery))
		}},
		{"Allow with the mouse, the chat closed", "lets-chat-toggle", `document.getElementById("lets-chat").hidden || document.getElementById("lets-chat-toggle").click(), document.getElementById("lets-chat-toggle").focus()`, func() {
			c.run("click Allow", chromedp.WaitVisible(`dialog.prompt[open][data-armed="true"]`, chromedp.ByQuery), chromedp.Click(`dialog.prompt button[data-choice="allow"]`, chromedp.ByQuery))
		}},
	} {
		n++
		c.eval(tc.focusJS, nil)
		c.poll(fmt.Sprintf(`document.activeElement?.id === %q`, tc.on))
		th.report(t, rep(4321, "waiting_for_approval", "request_id", fmt.Sprintf("r%d", n), "tool", "Bash", "summary", "ls"))
		c.poll(`document.querySelector("dialog.prompt[open]")?.contains(document.activeElement)`)
		tc.close()
		c.poll(`document.querySelectorAll("dialog.prompt").length === 0`)
		var got string
		c.eval(active, &got)
		if got != tc.on {
			t.Errorf("%s: after the card closed the focus is on %s, want #%s (where it was)", tc.name, got, tc.on)
		}
	}

	// On a control in the unique: back on that very control.
	var origin string
	c.eval(`new URL(document.getElementById("lets-unique").src).origin`, &origin)
	const inner = `(() => { const a = document.activeElement; return !a || a === document.body ? "BODY" : a.tagName + "#" + a.id + ":" + a.textContent.trim().slice(0, 20); })()`
	c.eval(`document.getElementById("lets-chat-toggle").focus()`, nil)
	c.run("Tab into the unique", chromedp.KeyEvent(kb.Tab))
	var was string
	uc.evalIn(t, ctx, origin, inner, &was)
	if was == "BODY" {
		t.Fatal("Tab from the Chat button reached no control of the unique")
	}
	n++
	th.report(t, rep(4321, "waiting_for_approval", "request_id", fmt.Sprintf("r%d", n), "tool", "Bash", "summary", "ls"))
	c.poll(`document.querySelector("dialog.prompt[open]")?.contains(document.activeElement)`)
	c.run("Enter", chromedp.KeyEvent(kb.Enter))
	c.poll(`document.querySelectorAll("dialog.prompt").length === 0`)
	// The unique's page hears of it a moment later (through its SDK).
	uc.pollIn(t, ctx, origin, inner+` === `+jsString(was))
	var got, now string
	c.eval(active, &got)
	uc.evalIn(t, ctx, origin, inner, &now)
	if got != "FRAME" || now != was {
		t.Errorf("on the unique's %s: after the card closed the focus is on %s / %s in the unique", was, got, now)
	}
}
