package shell_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/lets-app/lets/backend/testenv/axe"
	"github.com/lets-app/lets/backend/testenv/browsertest"
)

// Issue #26, "Contrast, structure, zoom": at 200 % the toasts leave the
// chat's heading alone; at 320 CSS px wide (1280 px at 400 %) the top bar
// keeps the Chat button on screen and the shell's chrome does not scroll
// sideways; the companion and its speech bubble never cover Claude's reply.

func (x *win) shot(name string) {
	x.t.Helper()
	var png []byte
	x.run(chromedp.CaptureScreenshot(&png))
	if err := os.WriteFile(filepath.Join(browsertest.ScreenshotDir(x.t), name), png, 0o644); err != nil {
		x.t.Fatal(err)
	}
}

func (x *win) reachable(sels ...string) {
	x.t.Helper()
	for _, sel := range sels {
		if ok, why := axe.Reachable(x.t, x.ctx, sel); !ok {
			x.t.Errorf("%s %s", sel, why)
		}
	}
}

func (x *win) noSideways(when string) {
	x.t.Helper()
	if over, items := axe.Overflow(x.t, x.ctx); over > 0 || len(items) > 0 {
		x.t.Errorf("%s the shell scrolls sideways by %d px: %s", when, over, strings.Join(items, ", "))
	}
}

// TestShellReflowsAt320 (WCAG 1.4.10): the window of a unique at 320 CSS
// px wide, the chat closed and open, with toasts; and the chat window
// (the docked chat) at the same width.
func TestShellReflowsAt320(t *testing.T) {
	s := startRigHost(t)
	t.Run("hello", func(t *testing.T) {
		x := openWin(t, s, "hello", axe.ReflowWidth, 560, 1)
		x.run(axe.ReflowAt(axe.ReflowWidth, 560))
		x.settled()
		x.noSideways("with the chat closed")
		x.reachable("#lets-chat-toggle")
		x.shot("shell-reflow-320-closed.png")
		x.eval(`document.getElementById("lets-chat-toggle").click()`, nil)
		x.poll(`!document.getElementById("lets-chat").hidden`)
		x.send(toast("Saved your picture in the folder you chose.", "info", 60000))
		x.poll(`document.querySelector(".toast")`)
		x.settled()
		x.noSideways("with the chat open and a toast")
		x.reachable("#lets-chat-toggle", "#lets-chat-input", "#lets-chat button.send", "#lets-chat .chat-head button", ".toast button")
		x.shot("shell-reflow-320-chat.png")
	})
	t.Run("chat", func(t *testing.T) {
		x := openWin(t, s, "chat", axe.ReflowWidth, 560, 1)
		x.run(axe.ReflowAt(axe.ReflowWidth, 560))
		x.poll(`document.querySelector('[data-docked="true"]')`)
		x.send(installScreen()...)
		x.poll(`document.querySelector(` + "`" + checkAgain + "`" + `)`)
		x.settled()
		x.noSideways("on the first-run screen")
		x.reachable("#lets-chat-input", "#lets-chat button.send", checkAgain)
		x.shot("shell-reflow-320-first-run.png")
	})
}

// TestToastsLeaveTheChatHeadingAlone: at 200 % zoom (a 1000×640 window)
// with the side chat open, toasts do not cover the chat's header (its
// heading and close button).
func TestToastsLeaveTheChatHeadingAlone(t *testing.T) {
	s := startRigHost(t)
	for _, m := range axe.Modes {
		if m.Zoom != 200 {
			continue
		}
		x := openWin(t, s, "hello", 1000, 640, 1)
		x.run(m.Apply(1000, 640))
		x.eval(`document.getElementById("lets-chat-toggle").click()`, nil)
		x.poll(`!document.getElementById("lets-chat").hidden`)
		x.send(toast("Saved your picture.", "info", 60000), toast("The picture could not be sent to Claude: it is too large.", "error", 0))
		x.poll(`document.querySelectorAll(".toast").length === 2`)
		x.settled()
		var hits []string
		x.eval(`(() => {
  const h = document.querySelector("#lets-chat .chat-head").getBoundingClientRect();
  const out = [];
  for (const t of document.querySelectorAll(".toast")) {
    const r = t.getBoundingClientRect();
    if (r.left < h.right && r.right > h.left && r.top < h.bottom && r.bottom > h.top) out.push(t.textContent.trim().slice(0, 30) + " at " + [r.left, r.top, r.right, r.bottom].map(Math.round));
  }
  return out;
})()`, &hits)
		if len(hits) > 0 {
			t.Errorf("%s: toasts cover the chat's heading: %s", m.Name, strings.Join(hits, "; "))
		}
		x.reachable("#lets-chat .chat-head button", "#lets-chat-input", "#lets-chat button.send")
		x.shot(fmt.Sprintf("shell-toasts-%s.png", m.Name))
	}
}
