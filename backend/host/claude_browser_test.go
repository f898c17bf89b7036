package host

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/lets-app/lets/backend/testenv/browsertest"
	"github.com/lets-app/lets/backend/wire"
)

// TestBrowserClaudeCard drives a window bound to a Claude session in
// Chromium: the companion turns alert and the approval card shows; a
// report that the approval was answered elsewhere takes the card down
// (shell.dismiss) and focus leaves the removed card; a second card is
// allowed with the keyboard and reaches ClaudeActions as approve.
func TestBrowserClaudeCard(t *testing.T) {
	acts := newFakeActions()
	th := startLIPHost(t, withActions(acts))
	win := th.openBoundOnly(t, "board", "4321")
	ctx := browsertest.New(t, browsertest.Options{Width: 900, Height: 640, Timeout: 90 * time.Second})
	c := &chromeT{t: t, th: th, ctx: ctx, win: win}
	c.run("shell page", chromedp.Navigate(win.URL), chromedp.WaitVisible(`#lets-shell[data-state="online"]`, chromedp.ByQuery))

	th.report(t, rep(4321, "waiting_for_approval", "request_id", "r1", "tool", "Bash", "summary", "rm -rf build", "about", "Clean the build folder"))
	c.run("card", chromedp.WaitVisible(`dialog.prompt.k-approval[open]`, chromedp.ByQuery))
	c.poll(`document.querySelector(".lets-companion").dataset.mood === "alert"`)
	var q, raw string
	c.eval(`document.getElementById("prompt-q").textContent`, &q)
	c.eval(`document.querySelector("dialog.prompt details dd:last-child").textContent`, &raw)
	if q != "Claude wants to run a command in project: Clean the build folder" || raw != "rm -rf build" {
		t.Fatalf("card %q, details %q", q, raw)
	}

	// A pad answered: the next report says running.
	th.report(t, rep(4321, "running"))
	c.poll(`document.querySelectorAll("dialog.prompt").length === 0`)
	c.poll(`document.querySelector(".lets-companion").dataset.mood === "thinking"`)
	var inDialog bool
	c.eval(`!!document.activeElement?.closest("dialog")`, &inDialog)
	if inDialog {
		t.Fatal("focus stayed in the removed card")
	}

	th.report(t, rep(4321, "waiting_for_approval", "request_id", "r2", "tool", "Edit", "summary", "notes.md"))
	c.run("second card", chromedp.WaitVisible(`dialog.prompt.k-approval[open]`, chromedp.ByQuery))
	c.run("allow by keyboard", chromedp.KeyEvent("\t"), chromedp.KeyEvent("\r"))
	if got := acts.next(t); got.requestID != "r2" || got.action != wire.ActionApprove {
		t.Fatalf("allow: %+v", got)
	}
	c.poll(`document.querySelectorAll("dialog.prompt").length === 0`)
}

// TestBrowserClaudeCardGivesTheKeysBack: the person was typing in the chat
// when an approval card came; they answer it with the mouse, and what they
// type next goes into the chat's box again, without a click there first.
// (Chromium's dialog close put the focus back on the box but left the
// caret in the removed card, so keys went nowhere.)
func TestBrowserClaudeCardGivesTheKeysBack(t *testing.T) {
	acts := newFakeActions()
	th := startLIPHost(t, withActions(acts))
	win := th.openBoundOnly(t, "board", "4321")
	ctx := browsertest.New(t, browsertest.Options{Width: 900, Height: 640, Timeout: 90 * time.Second})
	c := &chromeT{t: t, th: th, ctx: ctx, win: win}
	c.run("shell page", chromedp.Navigate(win.URL), chromedp.WaitVisible(`#lets-shell[data-state="online"]`, chromedp.ByQuery))
	c.send(map[string]any{"type": "chat.open", "data": map[string]any{}})
	c.run("type in the chat", chromedp.Click(`#lets-chat-input`, chromedp.ByQuery), chromedp.KeyEvent("Hi "))

	th.report(t, rep(4321, "waiting_for_approval", "request_id", "r1", "tool", "Bash", "summary", "ls"))
	c.run("allow with the mouse",
		chromedp.WaitVisible(`dialog.prompt.k-approval[open][data-armed="true"]`, chromedp.ByQuery),
		chromedp.Click(`dialog.prompt button[data-choice="allow"]`, chromedp.ByQuery))
	if got := acts.next(t); got.requestID != "r1" || got.action != wire.ActionApprove {
		t.Fatalf("allow: %+v", got)
	}
	c.poll(`document.querySelectorAll("dialog.prompt").length === 0 && document.activeElement?.id === "lets-chat-input"`)
	c.run("type on", chromedp.KeyEvent("there"))
	var box string
	c.eval(`document.getElementById("lets-chat-input").value`, &box)
	if box != "Hi there" {
		t.Fatalf("the chat's box holds %q after the card closed, want %q: the keys went elsewhere", box, "Hi there")
	}
}
