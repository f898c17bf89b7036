package shell_test

import (
	"testing"

	"github.com/chromedp/chromedp/kb"
)

// TestSetupStepsStayReachable (issue #26, "the first-run chat cannot
// strand anyone"): the install screen's cards come with dismissible:
// false, so they have no ×, and Escape on them leaves them; Install
// Claude Code and Check again are reached with Tab from the chat's box.
// A card of Claude's without that prop still has its ×.
func TestSetupStepsStayReachable(t *testing.T) {
	s := startRigHost(t)
	x := openWin(t, s, "chat", 800, 600, 1)
	x.poll(`document.querySelector('[data-docked="true"]')`)
	x.send(installScreen()...)
	x.poll(`document.querySelector(` + "`" + checkAgain + "`" + `)`)
	var closers int
	x.eval(`document.querySelectorAll('section[data-component^="lets-setup"] button.dismiss').length`, &closers)
	if closers != 0 {
		t.Fatalf("the setup cards have %d × buttons", closers)
	}
	x.eval(`document.getElementById("lets-chat-input").focus()`, nil)
	x.tabTo(checkAgain, true, 12)
	x.key(kb.Escape)
	x.tabTo(`section[data-component="lets-setup-check"] button[data-id="install"]`, true, 4)
	x.key(kb.Escape)
	var cards int
	x.eval(`document.querySelectorAll('section[data-component^="lets-setup"]').length`, &cards)
	if cards != 2 {
		t.Fatalf("after Escape on the steps %d setup cards are left, want 2", cards)
	}
	x.send(map[string]any{"type": "component.create", "data": map[string]any{"id": "tip", "type": "note", "slot": "dock", "props": map[string]any{"title": "A tip", "text": "You can paste pictures."}}})
	x.poll(`document.querySelector('section[data-component="tip"] button.dismiss')`)
}
