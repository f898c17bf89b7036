package shell_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// Issue #26, "Keyboard and focus": after a toast, a card or the companion
// goes away, the focus is back where it was (the control that had it
// before it came into the passing chrome) or on a sensible next control,
// never on the page's body and never in the unique's frame. Every
// dismissal is done with the keyboard alone and read off
// document.activeElement.

// activeJS names the shell's focused element.
const activeJS = `(() => { const a = document.activeElement; if (!a) return "null"; if (a === document.body) return "BODY"; if (a.id === "lets-unique") return "FRAME"; return a.tagName.toLowerCase() + (a.id ? "#" + a.id : "") + "[" + (a.getAttribute("aria-label") || a.textContent.trim().slice(0, 30)) + "]"; })()`

func (x *win) active() string {
	x.t.Helper()
	var s string
	x.eval(activeJS, &s)
	return s
}

// key presses one key (kb.Tab, kb.Enter, …) as the keyboard does, with
// modifiers.
func (x *win) key(k string, mods ...input.Modifier) {
	x.t.Helper()
	var opts []chromedp.KeyOption
	if len(mods) > 0 {
		var m input.Modifier
		for _, x := range mods {
			m |= x
		}
		opts = append(opts, chromedp.KeyModifiers(m))
	}
	x.run(chromedp.KeyEvent(k, opts...))
}

// tabTo presses Tab (Shift+Tab with back) until the focus is on sel, at
// most max times, and returns the element that had the focus just before.
func (x *win) tabTo(sel string, back bool, max int) string {
	x.t.Helper()
	var mods []input.Modifier
	if back {
		mods = append(mods, input.ModifierShift)
	}
	before := x.active()
	var path []string
	for i := 0; i < max; i++ {
		x.key(kb.Tab, mods...)
		var on bool
		x.eval(fmt.Sprintf(`!!document.activeElement?.matches(%q)`, sel), &on)
		if on {
			return before
		}
		before = x.active()
		path = append(path, before)
	}
	x.t.Fatalf("%d Tabs never reached %s: %s", max, sel, strings.Join(path, " → "))
	return ""
}

// openChatByKeys opens the side chat with the keyboard: the Chat button,
// then Enter. The focus is in the chat's box then.
func (x *win) openChatByKeys() {
	x.t.Helper()
	x.eval(`document.querySelector("button.chat-toggle").focus()`, nil)
	x.key(kb.Enter)
	x.poll(`document.activeElement?.id === "lets-chat-input"`)
}

func (x *win) mustBeOn(when, want string) {
	x.t.Helper()
	got := x.active()
	if got != want {
		x.t.Errorf("after %s the focus is on %s, want %s (where it was before)", when, got, want)
	}
}

func toast(text, level string, ttl int) map[string]any {
	d := map[string]any{"text": text, "level": level}
	if ttl > 0 {
		d["ttl"] = ttl
	}
	return map[string]any{"type": "ui.toast", "data": d}
}

func TestFocusReturnsAfterEachDismissal(t *testing.T) {
	s := startRigHost(t)
	x := openWin(t, s, "hello", 1000, 640, 1)
	x.openChatByKeys()

	t.Run("toast closed with Enter on ×", func(t *testing.T) {
		x.t = t
		x.send(toast("Saved your picture.", "info", 60000))
		x.poll(`document.querySelector(".toast")`)
		before := x.tabTo(".toast button", true, 10)
		x.key(kb.Enter)
		x.poll(`!document.querySelector(".toast")`)
		x.mustBeOn("closing a toast", before)
	})

	t.Run("toast closed with Escape", func(t *testing.T) {
		x.t = t
		x.send(toast("Saved your picture.", "info", 60000))
		x.poll(`document.querySelector(".toast")`)
		before := x.tabTo(".toast button", true, 10)
		x.key(kb.Escape)
		x.poll(`!document.querySelector(".toast")`)
		x.mustBeOn("Escape on a toast", before)
		if !x.chatOpen() {
			t.Error("Escape on a toast closed the chat too")
		}
	})

	t.Run("toast that gives way to newer ones while focused", func(t *testing.T) {
		x.t = t
		x.send(toast("One", "info", 60000))
		x.poll(`document.querySelectorAll(".toast").length === 1`)
		x.tabTo(".toast button", true, 10)
		// Three more: the stack holds three, and the focused one is not
		// the one to go.
		x.send(toast("Two", "info", 60000), toast("Three", "info", 60000), toast("Four", "info", 60000))
		x.poll(`document.querySelectorAll(".toast").length === 3 && [...document.querySelectorAll(".toast-text")].map(e => e.textContent).join() === "One,Three,Four"`)
		x.mustBeOn("three newer toasts", `button[Dismiss this message]`)
		x.key(kb.Enter)
		x.poll(`document.querySelectorAll(".toast").length === 2`)
		// The origin was the chat's close button (Shift+Tab came from it).
		if a := x.active(); a == "BODY" || a == "FRAME" || a == "null" {
			t.Errorf("after closing the focused toast the focus is on %s", a)
		}
		x.eval(`document.querySelectorAll(".toast button").forEach(b => b.click())`, nil)
		x.poll(`!document.querySelector(".toast")`)
	})

	t.Run("card closed with Enter on ×", func(t *testing.T) {
		x.t = t
		x.eval(`document.getElementById("lets-chat-input").focus()`, nil)
		x.send(map[string]any{"type": "component.create", "data": map[string]any{"id": "tip", "type": "note", "slot": "float", "props": map[string]any{"title": "A tip", "text": "Drag a picture here."}}})
		x.poll(`document.querySelector('[data-component="tip"] button.dismiss')`)
		before := x.tabTo(`[data-component="tip"] button.dismiss`, true, 10)
		x.key(kb.Enter)
		x.poll(`!document.querySelector('[data-component="tip"]')`)
		x.mustBeOn("closing a card", before)
	})

	t.Run("card taken down by Claude while focused", func(t *testing.T) {
		x.t = t
		x.eval(`document.getElementById("lets-chat-input").focus()`, nil)
		x.send(map[string]any{"type": "component.create", "data": map[string]any{"id": "pick", "type": "options", "slot": "float", "props": map[string]any{"label": "Pick", "items": []any{map[string]any{"id": "a", "label": "A"}, map[string]any{"id": "b", "label": "B"}}}}})
		x.poll(`document.querySelector('[data-component="pick"] button[data-id="b"]')`)
		before := x.tabTo(`[data-component="pick"] button[data-id="b"]`, true, 12)
		x.send(map[string]any{"type": "component.remove", "data": map[string]any{"id": "pick"}})
		x.poll(`!document.querySelector('[data-component="pick"]')`)
		x.mustBeOn("Claude took the card away", before)
	})

	t.Run("Hide for now", func(t *testing.T) {
		x.t = t
		x.eval(`document.getElementById("lets-chat-input").focus()`, nil)
		before := x.active()
		x.key(" ", input.ModifierCtrl)
		x.poll(`!document.getElementById("lets-companion-menu").hidden && document.getElementById("lets-companion-menu").contains(document.activeElement)`)
		x.key(kb.End)
		x.poll(`document.activeElement?.classList.contains("lets-companion-dismiss")`)
		x.key(kb.Enter)
		x.poll(`document.querySelector(".lets-companion").dataset.hidden === "true"`)
		x.mustBeOn(`"Hide for now"`, before)
		// Ctrl+Space brings the companion back; Escape closes its menu.
		x.key(" ", input.ModifierCtrl)
		x.poll(`!document.getElementById("lets-companion-menu").hidden`)
		x.key(kb.Escape)
		x.poll(`document.getElementById("lets-companion-menu").hidden`)
	})
}

func (x *win) chatOpen() bool {
	x.t.Helper()
	var open bool
	x.eval(`!document.getElementById("lets-chat").hidden`, &open)
	return open
}
