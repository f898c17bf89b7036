package shell_test

import (
	"fmt"
	"strings"
	"testing"
)

// replyCoverJS lists where the companion or its speech bubble (when drawn)
// covers the part in view of one of Claude's replies in the chat.
const replyCoverJS = `(() => {
  const log = document.getElementById("lets-chat-log").getBoundingClientRect();
  const parts = [];
  const body = document.querySelector(".lets-companion-body").getBoundingClientRect();
  parts.push(["the companion", body]);
  const bubble = document.querySelector(".lets-companion-bubble");
  if (!bubble.hidden && getComputedStyle(bubble).display !== "none") parts.push(["its bubble", bubble.getBoundingClientRect()]);
  const out = [];
  for (const m of document.querySelectorAll("#lets-chat-log .chat-msg.chat-bubble")) {
    const r = m.getBoundingClientRect();
    const v = {left: Math.max(r.left, log.left), top: Math.max(r.top, log.top), right: Math.min(r.right, log.right), bottom: Math.min(r.bottom, log.bottom)};
    if (v.right <= v.left || v.bottom <= v.top) continue;
    for (const [name, p] of parts) {
      if (p.left < v.right - 0.5 && p.right > v.left + 0.5 && p.top < v.bottom - 0.5 && p.bottom > v.top + 0.5) out.push(name + " at " + [p.left, p.top, p.right, p.bottom].map(Math.round) + " over the reply at " + [v.left, v.top, v.right, v.bottom].map(Math.round));
    }
  }
  return out;
})()`

// TestCompanionKeepsOffClaudesReply (issue #26: "Pip and its speech
// bubble never cover Claude's reply"): a long reply in the side chat and
// in the docked chat, at several window sizes (down to 320 CSS px, and
// 200 % zoom of a 1000×640 window); then the companion says something.
// Neither the companion nor its bubble lies over the reply's part in view.
func TestCompanionKeepsOffClaudesReply(t *testing.T) {
	var paras []string
	for i := 1; i <= 10; i++ {
		paras = append(paras, fmt.Sprintf("Step %d: this part of the answer is long enough to wrap over several lines of the chat, so the reply fills the whole log.", i))
	}
	long := strings.Join(paras, "\n\n")
	s := startRigHost(t)
	for _, c := range []struct {
		unique string
		w, h   int64
		dpr    float64
	}{{"hello", 1000, 640, 1}, {"hello", 800, 600, 1}, {"hello", 500, 320, 2}, {"hello", 320, 560, 1}, {"chat", 900, 640, 1}, {"chat", 320, 560, 1}} {
		t.Run(fmt.Sprintf("%s-%dx%d", c.unique, c.w, c.h), func(t *testing.T) {
			x := openWin(t, s, c.unique, c.w, c.h, c.dpr)
			if c.unique == "chat" {
				x.poll(`document.querySelector('[data-docked="true"]')`)
			}
			x.controlsKnown(0)
			x.send(map[string]any{"type": "chat.say", "data": map[string]any{"text": long, "done": true}})
			x.poll(`document.querySelector('#lets-chat-log .chat-msg.chat-bubble[data-done="true"]')`)
			x.settled()
			var hits []string
			x.eval(replyCoverJS, &hits)
			if len(hits) > 0 {
				t.Errorf("after the reply: %s", strings.Join(hits, "; "))
			}
			x.send(map[string]any{"type": "entity.say", "data": map[string]any{"text": "I wrote it all down for you, step by step.", "ttl": 60000}})
			x.poll(`!document.querySelector(".lets-companion-bubble").hidden`)
			x.settled()
			x.eval(replyCoverJS, &hits)
			if len(hits) > 0 {
				t.Errorf("while the companion speaks: %s", strings.Join(hits, "; "))
			}
			x.shot(fmt.Sprintf("pip-reply-%s-%dx%d.png", c.unique, c.w, c.h))
		})
	}
}
