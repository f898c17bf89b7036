package shell_test

import (
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
)

// runningJS lists the animations of the shell page still playing.
const runningJS = `document.getAnimations().filter(a => a.playState === "running").map(a => a.animationName || a.constructor.name)`

// TestIdleWindowHoldsStill (issue #21, idle windows cost nothing): the
// companion's idle motion runs while the person is there; after a few
// seconds with no input and no command every animation of the shell page
// is paused, the next pointer move or command lets them run again, a
// hidden window holds still at once, and with prefers-reduced-motion no
// animation plays at all (old code: the companion breathed for ever).
func TestIdleWindowHoldsStill(t *testing.T) {
	s := startRigHost(t)
	x := openWin(t, s, "hello", 1000, 640, 1)
	x.run(mouseAt(input.MouseMoved, 200, 300, input.None, 0))
	x.poll(runningJS + `.includes("lets-c-breathe")`)
	// Idle: nothing plays (the wait is the shell's own 8 s).
	x.poll(runningJS + `.length === 0 && document.getAnimations().length > 0`)
	var still string
	x.eval(`document.getElementById("lets-shell").dataset.still || ""`, &still)
	if still != "idle" {
		t.Errorf("idle shell: data-still %q", still)
	}
	// A pointer move wakes it.
	x.run(mouseAt(input.MouseMoved, 260, 320, input.None, 0))
	x.poll(runningJS + `.includes("lets-c-breathe")`)
	// So does a command.
	x.poll(runningJS + `.length === 0`)
	x.send(map[string]any{"type": "entity.mood", "data": map[string]any{"mood": "happy"}})
	x.poll(runningJS + `.includes("lets-c-bounce")`)
	// Hidden: still at once.
	x.eval(`Object.defineProperty(document, "visibilityState", {value: "hidden", configurable: true}), document.dispatchEvent(new Event("visibilitychange")), true`, nil)
	x.poll(runningJS + `.length === 0 && document.getElementById("lets-shell").dataset.still === "hidden"`)

	// Reduced motion: no animation plays at all, idle or not.
	r := openWin(t, s, "hello", 1000, 640, 1, &emulation.MediaFeature{Name: "prefers-reduced-motion", Value: "reduce"})
	r.run(mouseAt(input.MouseMoved, 200, 300, input.None, 0))
	r.settled()
	r.send(map[string]any{"type": "entity.mood", "data": map[string]any{"mood": "busy"}})
	r.poll(`document.querySelector(".lets-companion").dataset.mood === "busy"`)
	var running []string
	r.eval(`new Promise(res => requestAnimationFrame(() => res(`+runningJS+`.filter(n => n !== "CSSTransition"))))`, &running)
	if len(running) > 0 {
		t.Errorf("with reduced motion these still play: %v", running)
	}
}
