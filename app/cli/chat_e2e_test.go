package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/hostapi"
	"github.com/lets-app/lets/backend/testenv/browsertest"
	"github.com/lets-app/lets/backend/testenv/claudestub"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/backend/wire"
)

// The end-to-end tests of issue #15's acceptance (the rig is in
// chat_e2e_helpers_test.go): each runs a desktop Lets, the real Claude
// Code behind its chat, and the chat window in Chromium.

// chatApproval is the hooks' approvalTimeoutS in these tests: long, so the
// card the person (or a pad) answers is the one Lets' hook shows.
const chatApproval = 60 * time.Second

// TestBrowserChatE2EStreamsWordByWord: "Chat with Claude" clicked in the
// tray opens a chat window (in the browser: this build has no native
// windows); the person types a message there; the real Claude Code's
// reply, which the stub streams one word per text delta, appears in the
// bubble word by word — several growing states, not only the final text.
// Logs the time from the stub sending the first delta to the text showing
// in the window.
func TestBrowserChatE2EStreamsWordByWord(t *testing.T) {
	claude := testutil.Claude(t) // before anything starts: skip (or fail) at once without it
	const wordDelay = 150 * time.Millisecond
	const reply = "Hello! I am Claude, running inside Lets. Ask me anything and I will answer you right here."
	handed := make(chan time.Time, 1)
	stub := claudestub.Start(t, timedSay(reply, wordDelay, handed))
	c := startChatE2E(t, chatE2EOptions{approval: chatApproval, claudeDir: filepath.Dir(claude), stub: stub})

	// The tray's "Chat with Claude".
	clickLabelWhenShown(t, c.bus, c.trayItem(t), "Chat with Claude")
	url := c.browserURL(t, "")
	page := openChatPage(t, url, "light")

	page.watchReply()
	page.say("Hi Claude, who are you?")
	var at time.Time
	select {
	case at = <-handed:
	case <-time.After(90 * time.Second):
		t.Fatal("the typed message never reached the model as a request")
	}
	page.until(`window.__e2eReply.done`, 60*time.Second)
	seen := page.reply()
	words := strings.Fields(reply)
	final := strings.Join(strings.Fields(seen.States[len(seen.States)-1]), " ")
	if final != reply {
		t.Fatalf("the bubble's final text is %q, want %q", final, reply)
	}
	// Every state grows the one before; several came before the last.
	partial := 0
	for i, s := range seen.States {
		norm := strings.Join(strings.Fields(s), " ")
		if !strings.HasPrefix(reply, norm) {
			t.Fatalf("bubble state %d %q is not a beginning of the reply", i, s)
		}
		if i > 0 && len(norm) < len(strings.Join(strings.Fields(seen.States[i-1]), " ")) {
			t.Fatalf("the bubble shrank: %q after %q", s, seen.States[i-1])
		}
		if norm != reply {
			partial++
		}
	}
	if partial < 4 {
		t.Fatalf("the bubble showed %d partial states before the whole reply (want ≥ 4 of %d words): %q", partial, len(words), seen.States)
	}
	// The stub sends the first word wordDelay after it handed out the turn.
	firstDelta := nowMS(at) + float64(wordDelay.Microseconds())/1000
	lat := seen.First - firstDelta
	// A measurement (target ≤ 50 ms), not a check: how fast depends on the
	// machine, not on this code being right.
	t.Logf("streamed %d words; the bubble showed %d partial states; stub's first text delta → text in the window (Chromium): %.1f ms", len(words), partial, lat)
	if says := page.received(`"chat.say"`); len(says) > 0 {
		t.Logf("stub's first text delta → first chat.say frame received by the window's shell: %.1f ms", nowMS(says[0].at)-firstDelta)
	}
	browsertest.Screenshot(t, page.ctx, "chat-e2e-streamed-light.png")
	if rss := vmRSS(t, c.proc.Process.Pid); rss > 0 {
		t.Logf("lets desktop RSS with one idle conversation: %.1f MiB", float64(rss)/(1<<20))
	}
	list := c.windows(t)
	for _, w := range list {
		if w.Unique == "chat" && w.ClaudePID > 0 && alive(w.ClaudePID) {
			t.Logf("its claude (pid %d) RSS: %.1f MiB", w.ClaudePID, float64(vmRSS(t, w.ClaudePID))/(1<<20))
		}
	}
}

// TestBrowserChatE2EApprovalAllowAndDeny: a scripted Bash tool use that
// needs approval shows the approval card in the chat window (tool and
// command). Allow runs the command — the file exists and the next request
// the stub receives carries its tool_result; a second one, denied, sends
// the denial back to the model as an error tool_result and runs nothing.
func TestBrowserChatE2EApprovalAllowAndDeny(t *testing.T) {
	claude := testutil.Claude(t) // before anything starts: skip (or fail) at once without it
	results := make(chan claudestub.Request, 2)
	stub := claudestub.Start(t,
		claudestub.Call("Bash", map[string]any{"command": "touch made-by-claude && echo done", "description": "Make a file"}),
		requestStep(results, claudestub.Turn{Text: "I made the file for you."}),
		claudestub.Call("Bash", map[string]any{"command": "touch second-file && echo done", "description": "Make another file"}),
		requestStep(results, claudestub.Turn{Text: "Alright, I left it alone."}),
	)
	c := startChatE2E(t, chatE2EOptions{approval: chatApproval, claudeDir: filepath.Dir(claude), stub: stub})
	_, url := c.openChat(t, "")
	page := openChatPage(t, url, "dark")
	dir := c.conversations(t)[0].Dir

	for _, step := range []struct {
		ask, choice, file, command, about, answer string
	}{
		{"Please make a file called made-by-claude.", "allow", "made-by-claude", "touch made-by-claude", "Make a file", "I made the file for you."},
		{"And another one, please.", "deny", "second-file", "touch second-file", "Make another file", "Alright, I left it alone."},
	} {
		page.say(step.ask)
		page.until(cardVisible, 90*time.Second)
		// Plain words first, with Claude's own description; the tool and
		// the command one click away, under Details (issue #26).
		if card, want := page.cardText(), "Claude wants to run a command on this computer: "+step.about; !strings.Contains(card, want) {
			t.Fatalf("the approval card reads %q, want %q", card, want)
		}
		if details := page.cardDetails(); !strings.Contains(details, "Bash") || !strings.Contains(details, step.command) {
			t.Fatalf("the approval card's Details read %q, want the tool Bash and %q", details, step.command)
		}
		var cards int
		page.eval(`document.querySelectorAll('[data-choice="allow"]').length`, &cards)
		if cards != 1 {
			t.Fatalf("%s: %d approval cards on screen, want one: %q", step.choice, cards, page.cardText())
		}
		// Allow answers a pointer click only once the card is armed (a
		// click meant for what was there before must not approve).
		page.until(`document.querySelector('dialog[open][data-armed="true"]') !== null`, 30*time.Second)
		if step.choice == "allow" {
			browsertest.Screenshot(t, page.ctx, "chat-e2e-approval-dark.png")
		}
		page.click(`[data-choice="` + step.choice + `"]`)
		var req claudestub.Request
		select {
		case req = <-results:
		case <-time.After(90 * time.Second):
			t.Fatalf("%s: the model never received the Bash result", step.choice)
		}
		r := lastResult(req)
		_, statErr := os.Stat(filepath.Join(dir, step.file))
		switch step.choice {
		case "allow":
			if r.err != nil || r.isError || !strings.Contains(r.text, "done") || statErr != nil {
				t.Fatalf("allowed in the window, yet: tool_result %+v, file: %v", r, statErr)
			}
		case "deny":
			if r.err != nil || !r.isError || statErr == nil {
				t.Fatalf("denied in the window, yet: tool_result %+v, file exists %v", r, statErr == nil)
			}
			t.Logf("the model was told: %q", r.text)
		}
		page.until(`!`+cardVisible, 10*time.Second)
		page.until(fmt.Sprintf(`document.getElementById("lets-chat-log").innerText.includes(%q)`, step.answer), 60*time.Second)
	}
}

// TestBrowserChatE2EApprovalFromThePad: the same approval answered on a
// Wire surface — the browser pad, with the chat's Claude session
// selected — runs the command, and the card in the chat window goes away.
func TestBrowserChatE2EApprovalFromThePad(t *testing.T) {
	claude := testutil.Claude(t) // before anything starts: skip (or fail) at once without it
	results := make(chan claudestub.Request, 1)
	stub := claudestub.Start(t,
		claudestub.Call("Bash", map[string]any{"command": "touch pad-approved && echo done", "description": "Make a file"}),
		requestStep(results, claudestub.Turn{Text: "Done, thanks to your pad."}),
	)
	c := startChatE2E(t, chatE2EOptions{approval: chatApproval, claudeDir: filepath.Dir(claude), stub: stub})
	_, url := c.openChat(t, "")
	page := openChatPage(t, url, "light")
	dir := c.conversations(t)[0].Dir

	page.say("Make a file, please.")
	page.until(cardVisible, 90*time.Second)
	s := c.waitState(t, wire.StateWaitingForApproval)
	t.Logf("the Wire daemon shows the chat's session %q labelled %q in slot %d", s.SessionID, s.Label, s.Slot)
	if s.Slot < 0 {
		t.Fatalf("the waiting session has no pad slot: %+v", s)
	}
	pad := dialE2EPad(t, c.e2eHost)
	pad.selectAndWait(s.Slot, "approve")
	pad.send(map[string]any{"type": "action", "action": "approve"})
	r := lastResult(testutil.Wait(t, "the Bash result to reach the model after one Approve on the pad", results))
	if _, err := os.Stat(filepath.Join(dir, "pad-approved")); err != nil || r.isError || r.err != nil {
		t.Fatalf("approved on the pad, yet: tool_result %+v, file: %v", r, err)
	}
	page.until(`!`+cardVisible, 10*time.Second)
	page.until(`document.getElementById("lets-chat-log").innerText.includes("Done, thanks to your pad.")`, 60*time.Second)
}

// TestBrowserChatE2EStopInterrupts: Stop, pressed in the window's band
// while a long reply streams, interrupts it: the bubble stops growing
// short of the whole text, the same claude process stays alive, and the
// next message gets an answer.
func TestBrowserChatE2EStopInterrupts(t *testing.T) {
	claude := testutil.Claude(t) // before anything starts: skip (or fail) at once without it
	long := strings.TrimSpace(strings.Repeat("and then the story went on a little further ", 20))
	stub := claudestub.Start(t,
		claudestub.Fixed(claudestub.Turn{Text: long, WordDelay: 150 * time.Millisecond}),
		claudestub.Say("Still here, ready when you are."),
	)
	c := startChatE2E(t, chatE2EOptions{approval: chatApproval, claudeDir: filepath.Dir(claude), stub: stub})
	win, url := c.openChat(t, "")
	page := openChatPage(t, url, "light")
	pid := c.chatClaudePID(t, win)

	page.watchReply()
	page.say("Tell me a long story.")
	page.until(`(window.__e2eReply.states.at(-1) ?? "").split(/\s+/).length >= 6`, 90*time.Second)
	page.uniqueUntil(`!document.getElementById("stop").hidden`, 10*time.Second)
	pressed := time.Now()
	page.uniqueEval(`document.getElementById("stop").click()`, nil)
	page.uniqueUntil(`document.getElementById("stop").hidden`, 30*time.Second)
	t.Logf("Stop took %v to end the turn", time.Since(pressed).Round(time.Millisecond))
	seen := page.reply()
	stopped := seen.States[len(seen.States)-1]
	if n := len(strings.Fields(stopped)); n >= len(strings.Fields(long)) {
		t.Fatalf("the bubble shows the whole reply (%d words) although Stop was pressed", n)
	}
	t.Logf("stopped after %d of %d words: %q", len(strings.Fields(stopped)), len(strings.Fields(long)), stopped)
	if !alive(pid) {
		t.Fatalf("claude (pid %d) ended on Stop; it should stay for the next message", pid)
	}
	page.say("Are you still there?")
	page.until(`document.getElementById("lets-chat-log").innerText.includes("Still here, ready when you are.")`, 90*time.Second)
	// The next reply came after the stopped one over the same channel: a
	// word of the stopped reply still on its way would have shown first.
	seen = page.reply()
	if after := seen.States[len(seen.States)-1]; after != stopped {
		t.Fatalf("the bubble kept growing after Stop: %q → %q", stopped, after)
	}
	if got := c.chatClaudePID(t, win); got != pid {
		t.Fatalf("the chat is bound to claude pid %d after Stop, was %d: the process was restarted", got, pid)
	}
}

// TestBrowserChatE2EOpensTheGraph: a scripted mcp__lets__open {unique:
// "graph"} from the chat opens the graph unique without asking the person
// first (Lets' own tools are allowed for the chat): a new window appears in
// GET /lip/windows bound to the chat's claude process.
func TestBrowserChatE2EOpensTheGraph(t *testing.T) {
	claude := testutil.Claude(t) // before anything starts: skip (or fail) at once without it
	results := make(chan claudestub.Request, 1)
	stub := claudestub.Start(t,
		claudestub.Call("mcp__lets__open", map[string]any{"unique": "graph"}),
		requestStep(results, claudestub.Turn{Text: "Your graph is open."}),
	)
	c := startChatE2E(t, chatE2EOptions{approval: chatApproval, claudeDir: filepath.Dir(claude), stub: stub})
	win, url := c.openChat(t, "")
	page := openChatPage(t, url, "light")
	pid := c.chatClaudePID(t, win)

	page.say("Show me a graph, please.")
	var graph e2eWindowInfo
	testutil.EventuallyWithin(t, 90*time.Second, "a graph window opens", func() bool {
		for _, w := range c.windows(t) {
			if w.Unique == "graph" {
				graph = w
			}
		}
		var card bool
		page.eval(cardVisible, &card)
		if card && graph.Window == "" {
			t.Fatalf("the chat asked before using Lets' own open tool: %q", page.cardText())
		}
		return graph.Window != ""
	})
	if graph.ClaudePID != pid {
		t.Fatalf("the graph window %s is bound to claude pid %d, want the chat's %d", graph.Window, graph.ClaudePID, pid)
	}
	var req claudestub.Request
	select {
	case req = <-results:
	case <-time.After(60 * time.Second):
		t.Fatal("the open tool's result never reached the model")
	}
	if r := lastResult(req); r.err != nil || r.isError || !strings.Contains(r.text, graph.Window) {
		t.Fatalf("the open tool's result the model saw: %+v", r)
	}
	page.until(`document.getElementById("lets-chat-log").innerText.includes("Your graph is open.")`, 60*time.Second)
	t.Logf("graph window %s bound to the chat's claude %d, nobody asked", graph.Window, pid)
}

// TestBrowserChatE2EResumesAfterRestart: a conversation, then Lets quits
// and starts again with the same home; `lets chat --conversation <id>`
// reopens it, the window shows the earlier turns, and the next request
// the stub receives carries them (claude --resume).
func TestBrowserChatE2EResumesAfterRestart(t *testing.T) {
	claude := testutil.Claude(t) // before anything starts: skip (or fail) at once without it
	resumed := make(chan claudestub.Request, 1)
	stub := claudestub.Start(t,
		claudestub.Say("Noted: a blue kite."),
		requestStep(resumed, claudestub.Turn{Text: "You asked me to remember a blue kite."}),
	)
	c := startChatE2E(t, chatE2EOptions{approval: chatApproval, claudeDir: filepath.Dir(claude), stub: stub})
	firstWin, url := c.openChat(t, "")
	page := openChatPage(t, url, "light")
	page.say("Please remember the blue kite.")
	page.until(`document.getElementById("lets-chat-log").innerText.includes("Noted: a blue kite.")`, 90*time.Second)
	var conv hostapi.ChatInfo
	testutil.Eventually(t, "the conversation is saved with both turns", func() bool {
		list := c.conversations(t)
		if len(list) == 1 {
			conv = list[0]
		}
		return conv.Turns >= 2
	})

	oldPID := c.chatClaudePID(t, firstWin)
	c.quit(t)
	testutil.Eventually(t, fmt.Sprintf("claude (pid %d) ends after Lets quit", oldPID), func() bool { return !alive(oldPID) })
	c.start(t)
	win, url := c.openChat(t, conv.ID)
	page.load(url)
	page.until(`document.getElementById("lets-chat-log").innerText.includes("Please remember the blue kite.") && document.getElementById("lets-chat-log").innerText.includes("Noted: a blue kite.")`, 30*time.Second)
	pid := c.chatClaudePID(t, win)
	page.say("What did I ask you to remember?")
	var req claudestub.Request
	select {
	case req = <-resumed:
	case <-time.After(90 * time.Second):
		t.Fatal("the message after the restart never reached the model")
	}
	text := requestText(req)
	for _, want := range []string{"Please remember the blue kite.", "Noted: a blue kite.", "What did I ask you to remember?"} {
		if !strings.Contains(text, want) {
			t.Fatalf("the request after the restart lacks %q (%d messages):\n%s", want, len(req.Messages), text)
		}
	}
	page.until(`document.getElementById("lets-chat-log").innerText.includes("You asked me to remember a blue kite.")`, 60*time.Second)
	t.Logf("resumed conversation %s in window %s with claude pid %d; the request carried %d messages", conv.ID, win, pid, len(req.Messages))
}

// TestBrowserChatE2EFirstRunScreens: through the real desktop Lets, with
// no claude anywhere the chat window offers Install Claude Code; once a
// claude that is not signed in appears on PATH ({"loggedIn":false}, exit
// 1), "Check again" shows the sign-in screen.
func TestBrowserChatE2EFirstRunScreens(t *testing.T) {
	later := filepath.Join(t.TempDir(), "claude-later")
	if err := os.MkdirAll(later, 0o755); err != nil {
		t.Fatal(err)
	}
	c := startChatE2E(t, chatE2EOptions{approval: chatApproval, claudeDir: later})
	_, url := c.openChat(t, "")
	page := openChatPage(t, url, "light")
	page.until(`!!document.querySelector('section[data-component="lets-setup-check"] button[data-id="install"]')`, 30*time.Second)
	var code string
	page.eval(`document.querySelector('section[data-component="lets-setup-check"]').innerText`, &code)
	if !strings.Contains(code, "Install Claude Code") {
		t.Fatalf("the install screen shows %q, want the Install Claude Code button", code)
	}

	fake := "#!/bin/sh\n" +
		"case \"$1 $2\" in\n" +
		"'auth status') echo '{\"loggedIn\": false, \"authMethod\": \"none\", \"apiProvider\": \"firstParty\"}'; exit 1 ;;\n" +
		"'auth login') echo 'Browser did not open? Use the url below to sign in:'; echo 'https://claude.ai/oauth/authorize?code=true&client_id=lets-e2e&state=s1'; echo 'Paste code here if prompted >'; read code; exit 1 ;;\n" +
		"esac\n" +
		"echo 'not signed in' >&2; exit 1\n"
	if err := os.WriteFile(filepath.Join(later, "claude"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	page.click(`section[data-component="lets-setup-check"] button[data-id="check"]`)
	page.until(`!!document.querySelector('section[data-component="lets-signin-code"] input') || !!document.querySelector('section[data-component="lets-signin-open"]')`, 30*time.Second)
	page.until(`!document.querySelector('section[data-component="lets-setup-check"] button[data-id="install"]')`, 10*time.Second)
}
