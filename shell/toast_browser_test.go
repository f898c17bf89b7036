package shell_test

import (
	"testing"

	"github.com/chromedp/chromedp/kb"
)

// toastSel finds the toast whose text is text.
func toastSel(text string) string {
	return `[...document.querySelectorAll(".toast")].find(e => e.querySelector(".toast-text").textContent === ` + mustJSON(text) + `)`
}

// TestToastsWaitForTheReader (issue #26: "toasts vanish while a keyboard
// user is on them: only hover pauses them; error toasts last 4 s"). The
// toasts' own timers are the clock: a toast sent after another one with
// the same time to live has timed out only once the first one's time is
// up as well.
//   - A toast with the focus on it holds: one sent later with the same
//     time to live goes, the focused one stays; once the focus leaves,
//     it goes by itself, and the focus is not lost to the body.
//   - An error toast stays until dismissed (whatever time to live it was
//     sent with) and is announced at once (role=alert); an info toast
//     sent with it goes. Escape on it closes it.
func TestToastsWaitForTheReader(t *testing.T) {
	s := startRigHost(t)
	x := openWin(t, s, "hello", 1000, 640, 1)
	x.openChatByKeys()

	t.Run("focused", func(t *testing.T) {
		x.t = t
		x.send(toast("Read me", "info", 4000))
		x.poll(toastSel("Read me"))
		before := x.tabTo(".toast button", true, 10)
		x.send(toast("Later", "info", 4000))
		x.poll(toastSel("Later"))
		x.poll(`!` + toastSel("Later"))
		var there bool
		x.eval(`!!`+toastSel("Read me"), &there)
		if !there {
			t.Fatal("the focused toast timed out under the keyboard user")
		}
		// Focus goes back to the chat (Tab from the toast's ×); the toast
		// then runs out by itself.
		x.key(kb.Tab)
		x.poll(`!` + toastSel("Read me"))
		if a := x.active(); a == "BODY" || a == "FRAME" || a == "null" {
			t.Errorf("after the toast went the focus is on %s (it was on %s before the toast)", a, before)
		}
	})

	t.Run("error", func(t *testing.T) {
		x.t = t
		x.send(toast("The picture could not be saved.", "error", 1000), toast("Saving…", "info", 1000))
		x.poll(toastSel("Saving…"))
		var role string
		x.eval(toastSel("The picture could not be saved.")+`?.getAttribute("role")`, &role)
		if role != "alert" {
			t.Errorf("the error toast has role %q, want alert", role)
		}
		x.poll(`!` + toastSel("Saving…"))
		var there bool
		x.eval(`!!`+toastSel("The picture could not be saved."), &there)
		if !there {
			t.Fatal("the error toast went by itself before anyone could read it")
		}
		before := x.tabTo(".toast button", true, 10)
		x.key(kb.Escape)
		x.poll(`!document.querySelector(".toast")`)
		x.mustBeOn("Escape on the error toast", before)
	})
}
