package chatdriver

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/agent"
	"github.com/lets-app/lets/backend/hostclient"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// TestNewChatStartsFreshConversation: "New chat" (talk.new) keeps the old
// conversation in the list and starts a new one with a new Claude Code
// session in a window bound to the new agent.
func TestNewChatStartsFreshConversation(t *testing.T) {
	r := newRig(t, nil)
	win := r.open(t, "")
	a := r.agents.next(t)
	sh := dialShell(t, r.h, win)
	sh.emit("chat.message", "shell", map[string]any{"text": "first chat"})
	testutil.Wait(t, "the message to reach the agent", a.sent)
	a.emit(t, TextDelta{Text: "ok"})
	a.emit(t, Result{})
	sh.next("chat.say", 5*time.Second, func(f frame) bool { return dataMap(f)["done"] == true })
	testutil.Eventually(t, "the reply saved", func() bool { l := r.m.List(); return len(l) == 1 && l[0].Turns == 2 })
	old := r.m.List()[0]

	sh.emit("talk.new", "unique", map[string]any{"cleared": 2})
	b := r.agents.next(t)
	if b.opts.SessionID == a.opts.SessionID || b.opts.Resume {
		t.Fatalf("the new chat reuses the old session: %+v", b.opts)
	}
	testutil.Eventually(t, "the old agent to stop", func() bool { return a.closed.Load() })
	sh.next("session.close", 5*time.Second, nil)
	list := r.m.List()
	if len(list) != 2 {
		t.Fatalf("list %+v", list)
	}
	var fresh string
	for _, c := range list {
		if c.ID != old.ID {
			fresh = c.ID
		}
	}
	win2 := r.m.Window(fresh)
	if win2 == "" || win2 == win || r.m.Window(old.ID) != "" {
		t.Fatalf("windows: new %q (old window %q), old conversation %q", win2, win, r.m.Window(old.ID))
	}
	sh2 := dialShell(t, r.h, win2)
	sh2.emit("chat.message", "shell", map[string]any{"text": "second chat"})
	if blocks := testutil.Wait(t, "the message to reach the agent", b.sent); blocks[0].Text != "second chat" {
		t.Fatalf("blocks %+v", blocks)
	}
}

// TestRestartedAgentRebinds: claude crashed mid-turn and was restarted:
// the turn ends with a kind line, and the same window is bound to the new
// pid (POST /lip/bind) instead of being closed and opened again.
func TestRestartedAgentRebinds(t *testing.T) {
	r := newRig(t, nil)
	win := r.open(t, "")
	a := r.agents.next(t)
	sh := dialShell(t, r.h, win)
	sh.emit("chat.message", "shell", map[string]any{"text": "hello"})
	testutil.Wait(t, "the message to reach the agent", a.sent)
	a.emit(t, Result{IsError: true, Error: agent.ErrCodeCrashed})
	f := sh.next("chat.say", 5*time.Second, func(f frame) bool { return dataMap(f)["done"] == true })
	if !strings.Contains(dataMap(f)["text"].(string), "send your message again") {
		t.Fatalf("crash chunk %s", f.Data)
	}
	for len(r.h.opens) > 0 {
		<-r.h.opens // the first window's
	}
	a.pid = 49999 // the restarted claude
	a.emit(t, Restarted{Attempt: 1, PID: 49999})
	testutil.Eventually(t, "the window bound to the new claude", func() bool { return boundPID(t, r.h, win) == 49999 })
	if w := r.m.Window(r.m.List()[0].ID); w != win {
		t.Fatalf("the conversation moved to window %q, want it to stay in %q", w, win)
	}
	select {
	case w := <-r.h.opens:
		t.Fatalf("a window %s was opened for the restarted claude", w)
	default:
	}
	// The conversation goes on in the same window.
	sh.emit("chat.message", "shell", map[string]any{"text": "again"})
	if b := testutil.Wait(t, "the message to reach the agent", a.sent); b[0].Text != "again" {
		t.Fatalf("blocks %+v", b)
	}
}

// boundPID is the claude pid GET /lip/windows lists for window (0: none).
func boundPID(t testing.TB, h *testHost, window string) int {
	t.Helper()
	ans, err := hostclient.New(h.paths, hostclient.Options{}).Windows(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range ans.Windows {
		if w.Window == window {
			return w.ClaudePID
		}
	}
	return 0
}

// TestAgentEndedForGood: the agent gave up; the window says so.
func TestAgentEndedForGood(t *testing.T) {
	r := newRig(t, nil)
	win := r.open(t, "")
	a := r.agents.next(t)
	sh := dialShell(t, r.h, win)
	sh.next("talk.agent", 5*time.Second, nil)
	_ = a.Close()
	if f := sh.next("ui.toast", 5*time.Second, nil); !strings.Contains(dataMap(f)["text"].(string), "stopped unexpectedly") {
		t.Fatalf("toast %s", f.Data)
	}
	sh.next("entity.mood", 5*time.Second, moodIs("alert"))
}
