package uniques_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/lets-app/lets/backend/testenv/browsertest"
)

// TestBrowserChatScript is the recorded conversation of issue #14, through
// a real host and Claude's privileged API: the human asks (typing in the
// docked chat), Claude shows it is thinking, streams an answer in chunks
// and offers options, the human picks one, Claude answers the pick, the
// human presses Send to Claude (the handoff is saved and the window
// closes), and Claude reopens the chat with resume "last": the whole
// conversation is back. The script it played is logged at the end.
func TestBrowserChatScript(t *testing.T) {
	h := startChatHost(t)
	win := h.open(t, "")
	ctx := browsertest.New(t, browsertest.Options{Width: 900, Height: 720, Timeout: 150 * time.Second})
	f := watchChatFrames(ctx)
	if err := chromedp.Run(ctx, browsertest.Media("prefers-color-scheme", "light")); err != nil {
		t.Fatal(err)
	}
	origin := openChatPage(t, ctx, f, win.URL)

	// The human asks.
	const question = "Can you help me pick a name for my new cat? She is grey and very curious."
	if err := chromedp.Run(ctx, chromedp.SendKeys(`#lets-chat-input`, question+"\r", chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	asked := h.waitFor(t, "chat.message", func(d map[string]any) bool { return d["text"] == question })
	h.waitFor(t, "talk.snapshot", func(d map[string]any) bool { return len(d["messages"].([]any)) == 1 })

	// Claude: an honest mood, the typing dots, then a streamed answer.
	h.send(t, win.Window, "entity.mood", map[string]any{"mood": "thinking"}, "")
	h.send(t, win.Window, "chat.typing", map[string]any{"on": true}, "")
	shellUntil(t, ctx, `!document.querySelector(".chat-typing").hidden`)
	chunks := []string{"What a lovely cat! ", "For a grey, curious one I like names that sound soft ", "and a little adventurous. Here are three — pick the one you like best:"}
	for i, c := range chunks {
		data := map[string]any{"text": c, "seq": i + 1}
		if i == len(chunks)-1 {
			data["done"] = true
		}
		h.send(t, win.Window, "chat.say", data, asked.ID)
		if i == 0 {
			shellUntil(t, ctx, `document.querySelector("#lets-chat-log .chat-bubble[data-done='false']")`)
		}
	}
	shellUntil(t, ctx, `document.querySelector("#lets-chat-log .chat-bubble[data-done='true']") && document.querySelector(".chat-typing").hidden`)
	h.send(t, win.Window, "component.create", map[string]any{
		"id": "names", "type": "options", "slot": "dock",
		"props": map[string]any{"label": "A name for her", "items": []map[string]any{
			{"id": "miso", "label": "Miso", "hint": "soft and warm"},
			{"id": "pixel", "label": "Pixel", "hint": "small and bright"},
			{"id": "juniper", "label": "Juniper", "hint": "a little wild"},
		}},
	}, "")
	h.send(t, win.Window, "entity.mood", map[string]any{"mood": "curious"}, "")
	answer := h.waitFor(t, "talk.snapshot", func(d map[string]any) bool { return len(d["messages"].([]any)) == 2 })
	if got := answer.data(t)["messages"].([]any)[1].(map[string]any)["text"]; got != strings.Join(chunks, "") {
		t.Errorf("Claude's turn saved as %q", got)
	}
	// The options sit inside the chat, just above the input.
	shellUntil(t, ctx, `document.querySelector("#lets-chat #lets-dock .c-option[data-id='pixel']")`)
	inside := shellEval[bool](t, ctx, `(() => {
		const o = document.querySelector("#lets-dock").getBoundingClientRect();
		const f = document.querySelector("#lets-chat .chat-form").getBoundingClientRect();
		return o.bottom <= f.top + 1 && o.top > document.getElementById("lets-unique").getBoundingClientRect().bottom;
	})()`)
	if !inside {
		t.Error("the options are not between the conversation and the input")
	}
	browsertest.Screenshot(t, ctx, "chat-unique-light.png")

	// The human picks with a real click.
	if err := chromedp.Run(ctx, chromedp.Click(`#lets-dock .c-option[data-id='pixel']`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	pick := h.waitFor(t, "component.action", nil)
	if d := pick.data(t); d["id"] != "names" || d["action"] != "select" || d["value"] != "pixel" {
		t.Errorf("pick %s", pick.Data)
	}
	shellUntil(t, ctx, `document.querySelector("#lets-chat-log .chat-msg.me.choice")?.innerText === "Chose: Pixel"`)
	h.waitFor(t, "talk.snapshot", func(d map[string]any) bool { return len(d["messages"].([]any)) == 3 })

	// Claude answers the pick and tidies up.
	h.send(t, win.Window, "component.remove", map[string]any{"id": "names"}, "")
	h.send(t, win.Window, "chat.say", map[string]any{"text": "**Pixel** it is! Small, bright and always exploring — it suits her.", "done": true}, pick.ID)
	h.send(t, win.Window, "entity.mood", map[string]any{"mood": "happy"}, "")
	h.waitFor(t, "talk.snapshot", func(d map[string]any) bool { return len(d["messages"].([]any)) == 4 })
	shellUntil(t, ctx, `!document.querySelector("#lets-dock .component")`)
	before := shellEval[[]string](t, ctx, chatTexts)
	want := []string{question, strings.Join(chunks, ""), "Chose: Pixel", "Pixel it is! Small, bright and always exploring — it suits her."}
	if strings.Join(before, "|") != strings.Join(want, "|") {
		t.Errorf("the chat shows %q\nwant %q", before, want)
	}

	// The human hands the conversation over, with the keyboard only:
	// Shift+Tab from the input walks back into the band to Send to Claude.
	f.until(t, ctx, origin, `!document.getElementById("handoff").disabled`)
	if err := chromedp.Run(ctx, chromedp.Focus(`#lets-chat-input`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	var path []string
	for i := 0; i < 8; i++ {
		if err := chromedp.Run(ctx, chromedp.KeyEvent("\t", chromedp.KeyModifiers(input.ModifierShift))); err != nil {
			t.Fatal(err)
		}
		var here string
		f.eval(t, ctx, origin, `document.hasFocus() ? "band:" + (document.activeElement.id || document.activeElement.tagName) : ""`, &here)
		if here == "" {
			here = shellEval[string](t, ctx, `(() => { const a = document.activeElement; return a.id || a.className || a.tagName; })()`)
		}
		path = append(path, here)
		if here == "band:handoff" {
			break
		}
	}
	if path[len(path)-1] != "band:handoff" {
		t.Fatalf("Shift+Tab from the input never reached Send to Claude: %v", path)
	}
	t.Logf("Shift+Tab from the input: %v", path)
	if err := chromedp.Run(ctx, chromedp.KeyEvent("\r")); err != nil {
		t.Fatal(err)
	}
	ev := h.waitFor(t, "talk.export", nil)
	id := checkChatExport(t, h, ev, []string{"human", "claude", "human", "claude"}, "You (picked): Chose: Pixel")
	shellUntil(t, ctx, `document.querySelector("#lets-shell > .closed")?.textContent.startsWith("Sent to Claude")`)

	// Later Claude reopens it: the conversation comes back as it was sent.
	again := h.open(t, "last")
	if again.Session == nil || again.Session.ID != id {
		t.Fatalf("resume last gave session %+v, want %s", again.Session, id)
	}
	ctx2 := browsertest.New(t, browsertest.Options{Width: 900, Height: 720, Timeout: 90 * time.Second})
	f2 := watchChatFrames(ctx2)
	origin2 := openChatPage(t, ctx2, f2, again.URL)
	shellUntil(t, ctx2, `document.querySelectorAll("#lets-chat-log > .chat-msg[data-restored='true']").length === 4`)
	after := shellEval[[]string](t, ctx2, chatTexts)
	if strings.Join(after, "|") != strings.Join(want, "|") {
		t.Errorf("restored %q\nwant %q", after, want)
	}
	if n := shellEval[int](t, ctx2, `document.querySelectorAll(".chat-suggest .chat-chip").length`); n != 0 {
		t.Errorf("%d starter chips over a restored conversation", n)
	}
	f2.until(t, ctx2, origin2, `document.getElementById("status").textContent === "Your conversation is back · 4 messages"`)
	h.note("human: sees the conversation again (%d turns)", len(after))

	// The conversation goes on where it stopped: the next turn is saved on
	// top of the restored ones.
	if err := chromedp.Run(ctx2, chromedp.SendKeys(`#lets-chat-input`, "Thanks! What does she need on day one?\r", chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	h.waitFor(t, "chat.message", func(d map[string]any) bool { return d["text"] == "Thanks! What does she need on day one?" })
	h.waitFor(t, "talk.snapshot", func(d map[string]any) bool { return len(d["messages"].([]any)) == 5 })

	// A very long conversation still hands over in one envelope: the
	// oldest turns are left out and counted.
	long := make([]map[string]any, 200)
	for i := range long {
		role := []string{"human", "claude"}[i%2]
		long[i] = map[string]any{"role": role, "text": fmt.Sprintf("turn %d: %s", i, strings.Repeat("a long line of text ", 55)), "at": ""}
	}
	h.send(t, again.Window, "talk.load", map[string]any{"messages": long}, "")
	f2.until(t, ctx2, origin2, `document.getElementById("status").textContent === "Your conversation is back · 200 messages"`)
	f2.eval(t, ctx2, origin2, `document.getElementById("handoff").click()`, nil)
	big := h.waitFor(t, "talk.export", nil)
	bd := big.data(t)
	kept := bd["messages"].([]any)
	dropped, _ := bd["dropped"].(float64)
	if len(big.Data) > 200000 || dropped == 0 || len(kept)+int(dropped) != 200 || !strings.HasPrefix(kept[len(kept)-1].(map[string]any)["text"].(string), "turn 199:") {
		t.Errorf("long export: %d bytes, %d turns kept, %v dropped", len(big.Data), len(kept), bd["dropped"])
	}
	if !strings.HasPrefix(bd["summary"].(string), "200 messages") {
		t.Errorf("long export summary %q", bd["summary"])
	}
	h.waitFor(t, "session.saved", nil)
	t.Logf("a 200-turn, %d KB conversation hands over as %d KB: %d turns kept, %v left out", len(fmt.Sprint(long))/1024, len(big.Data)/1024, len(kept), dropped)

	t.Logf("the script, as played:\n  %s", strings.Join(h.script, "\n  "))
}
