package shell_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/lets-app/lets/backend/testenv/browsertest"
)

// installScreen is what the chat's driver shows in the chat window when
// Claude Code is not on the computer (backend/chatdriver showInstall):
// the welcome line, and in Claude's dock slot (above the docked chat's
// input) a note and the choices Install Claude Code and "Check again";
// the companion looks curious.
func installScreen() []map[string]any {
	dock := func(id, typ string, props map[string]any) map[string]any {
		props["dismissible"] = false // as the driver draws them (issue #26)
		return map[string]any{"type": "component.create", "data": map[string]any{"id": id, "type": typ, "props": props, "slot": "dock"}}
	}
	return []map[string]any{
		{"type": "talk.welcome", "data": map[string]any{"text": "Let's get Claude ready. It takes a minute or two, once."}},
		dock("lets-setup-note", "note", map[string]any{
			"title": "Claude Code is not on this computer yet",
			"text":  "Lets talks to Claude through Claude Code, Anthropic's program for working with Claude (you sign in with your Claude account afterwards). Lets can install it for you: it goes into Lets' own folder, so no password is needed.",
			"tone":  "info",
		}),
		dock("lets-setup-check", "options", map[string]any{"label": "Get Claude Code:", "items": []map[string]string{{"id": "install", "label": "Install Claude Code"}, {"id": "check", "label": "Check again", "hint": "If you installed it yourself"}}}),
		{"type": "entity.mood", "data": map[string]any{"mood": "curious"}},
	}
}

const checkAgain = `section[data-component="lets-setup-check"] button[data-id="check"]`

// TestCompanionClearOfTheChatFirstRunScreen (issue #21: "in the chat
// first-run screen Pip sits on 'Check again'"): the chat unique, its chat
// docked as the whole window, showing the install screen of a computer
// without Claude Code. At the chat window's sizes the companion rests on
// no control (Install Claude Code, Check again, the chat's input and Send,
// the band's buttons), after the screen comes up and after every kind of
// entity command; a real click on Check again presses Check again.
func TestCompanionClearOfTheChatFirstRunScreen(t *testing.T) {
	for _, size := range [][2]int64{{1024, 768}, {800, 600}, {640, 560}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			s := startRigHost(t)
			x := openWin(t, s, "chat", size[0], size[1], 1)
			x.poll(`document.querySelector('.chat[data-docked="true"], [data-docked="true"]')`)
			x.controlsKnown(1)
			x.send(installScreen()...)
			x.poll(`(() => { const b = document.querySelector(` + "`" + checkAgain + "`" + `); return b && b.getBoundingClientRect().height > 0; })()`)
			// The pointer rests in the bar, away from the screen's controls.
			x.run(mouseAt(input.MouseMoved, 200, 12, input.None, 0))
			x.settled()
			// The view as it is (a full-page screenshot resizes the page
			// for a moment, and the companion would settle again).
			var png []byte
			x.run(chromedp.CaptureScreenshot(&png))
			if err := os.WriteFile(filepath.Join(browsertest.ScreenshotDir(t), fmt.Sprintf("chat-first-run-companion-%dx%d.png", size[0], size[1])), png, 0o644); err != nil {
				t.Fatal(err)
			}
			if cs := x.cover(); len(cs) > 0 {
				t.Errorf("on the install screen the companion covers %s", names(cs))
			}
			var check [4]float64
			x.eval(`(() => { const b = document.querySelector(`+"`"+checkAgain+"`"+`).getBoundingClientRect(); return [b.left, b.top, b.width, b.height]; })()`, &check)
			for _, c := range everyEntityCommand([2]float64{check[0] + check[2]/2, check[1] + check[3]/2}) {
				x.send(c)
				x.settled()
				if cs := x.cover(); len(cs) > 0 {
					t.Errorf("after %s %v the companion covers %s", c["type"], c["data"], names(cs))
				}
			}
			// The person goes to Check again and clicks it.
			x.eval(`window.__pressed = [], document.addEventListener("click", e => { const b = e.target.closest("button"); if (b) window.__pressed.push(b.dataset.id || b.id || b.textContent.trim()); }, true), true`, nil)
			x.eval(`(() => { const b = document.querySelector(`+"`"+checkAgain+"`"+`).getBoundingClientRect(); return [b.left, b.top, b.width, b.height]; })()`, &check)
			cx, cy := check[0]+check[2]/2, check[1]+check[3]/2
			for i := 6; i >= 1; i-- {
				x.run(mouseAt(input.MouseMoved, cx-float64(i)*50, cy-float64(i)*30, input.None, 0))
			}
			x.click(cx, cy)
			var pressed []string
			x.eval(`window.__pressed`, &pressed)
			var menuOpen bool
			x.eval(`!document.getElementById("lets-companion-menu").hidden`, &menuOpen)
			if len(pressed) != 1 || pressed[0] != "check" || menuOpen {
				t.Errorf("a click on Check again at (%.0f, %.0f) pressed %v, the companion's menu open: %v", cx, cy, pressed, menuOpen)
			}
		})
	}
}
