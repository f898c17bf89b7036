package lets

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/app/tray"
	"github.com/lets-app/lets/backend/chatdriver"
	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/conversations"
	"github.com/lets-app/lets/backend/host"
	"github.com/lets-app/lets/backend/testenv/letstest"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// Point (issue #23): the host shows every window itself. A window no
// native window took opens in the desktop browser when there is a display
// (chat or any other unique); without a browser it waits on the home page
// and serve's output says so (no key in it); a native window that opens
// is left alone. A home link goes to the browser, or to serve's output.
func TestWindowsInBrowserShowEveryWindowHostSide(t *testing.T) {
	var opened []string
	var out strings.Builder
	env := &Env{Stdout: &out, Getenv: func(string) string { return "" }, OpenURL: func(u string) error { opened = append(opened, u); return nil }}
	log := slog.New(slog.DiscardHandler)
	chat := host.WindowLaunch{Window: "w1", Unique: "chat", Title: "Chat", URL: "http://127.0.0.1:1/w/w1/?t=1"}
	graph := host.WindowLaunch{Window: "w2", Unique: "graph", Title: "Graph", URL: "http://127.0.0.1:1/w/w2/?t=2"}

	o := windowsInBrowser(false, env, log, host.Options{})
	if err := o.OnOpen(graph); err == nil || len(opened) != 0 || !strings.Contains(out.String(), "A window is waiting for you: Graph — open it from Lets' home page") || strings.Contains(out.String(), "?t=") {
		t.Fatalf("headless: %v, browser %v, printed %q", err, opened, out.String())
	}
	if shown, err := o.OnShowHomeLink("http://127.0.0.1:1/#k=abc"); err != nil || shown != "terminal" || !strings.Contains(out.String(), "http://127.0.0.1:1/#k=abc") {
		t.Fatalf("headless home link: %q %v, printed %q", shown, err, out.String())
	}

	o = windowsInBrowser(true, env, log, host.Options{})
	if err := o.OnOpen(chat); err != nil || len(opened) != 1 || opened[0] != chat.URL {
		t.Fatalf("chat window: %v, browser got %v", err, opened)
	}
	if err := o.OnOpen(graph); err != nil || len(opened) != 2 || opened[1] != graph.URL {
		t.Fatalf("a graph window opens in the browser too: %v, %v", err, opened)
	}
	if shown, err := o.OnShowHomeLink("http://127.0.0.1:1/#k=def"); err != nil || shown != "browser" || opened[2] != "http://127.0.0.1:1/#k=def" {
		t.Fatalf("home link on a desktop: %q %v, browser %v", shown, err, opened)
	}

	var native []string
	failing := true
	o = windowsInBrowser(true, env, log, host.Options{OnOpen: func(l host.WindowLaunch) error {
		native = append(native, l.Window)
		if failing {
			return errors.New("no display")
		}
		return nil
	}})
	opened = nil
	if err := o.OnOpen(graph); err != nil || len(opened) != 1 {
		t.Fatalf("a window no native window took: %v, browser %v", err, opened)
	}
	failing = false
	if err := o.OnOpen(chat); err != nil || len(opened) != 1 || len(native) != 2 {
		t.Fatalf("a native window: %v, browser %v, native %v", err, opened, native)
	}
	env.OpenURL = func(string) error { return errors.New("no browser") }
	failing = true
	if err := o.OnOpen(chat); err == nil {
		t.Fatal("with neither a native window nor a browser the window must wait on the home page (an error)")
	}
}

// Point (issue #15): the tray's "Chat with Claude" opens a new
// conversation and "Continue: …" the one it names, through the chat
// manager (here one built by newChat next to a running `lets serve`);
// the tray lists at most tray.ChatRecent conversations, newest first.
func TestTrayChatActionsOpenConversations(t *testing.T) {
	e := newTestEnv(t)
	ag := &letstest.ChatAgents{Started: make(chan *letstest.FakeAgent, 4)}
	e.Env.ChatStart = ag.Start
	stop := startProcess(t, e, &Process{Env: e.Env, Port: -1, NoPad: true, Version: "0.1.0-dev"})
	defer stop()
	ids := letstest.SeedChats(t, e.home, "Old talk")

	st, err := OpenSetup(e.Env, false)
	if err != nil {
		t.Fatal(err)
	}
	m, err := newChat(e.Env, st, config.Defaults(), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- m.Run(ctx) }()
	defer func() {
		cancel()
		<-ran
	}()
	src := &traySource{parts: trayParts{chat: m, log: st.Log, env: e.Env}}
	// Run has started once Open no longer says ErrNotRunning (for a
	// conversation that does not exist, so nothing opens).
	testutil.Eventually(t, "the chat manager runs", func() bool {
		_, err := m.Open(ctx, "no-such-conversation")
		return !errors.Is(err, chatdriver.ErrNotRunning)
	})
	src.handle(ctx, tray.Action{Kind: tray.ActionContinueChat, Chat: ids[0]})
	if m.Window(ids[0]) == "" {
		t.Fatal("Continue in the tray did not open the conversation")
	}
	a := <-ag.Started
	if a.Opts.SessionID == "" || !a.Opts.Resume {
		t.Errorf("continuing a conversation with a transcript must resume its Claude session: %+v", a.Opts)
	}
	src.handle(ctx, tray.Action{Kind: tray.ActionNewChat})
	if a = testutil.Wait(t, "Chat with Claude in the tray starts an agent", ag.Started); a.Opts.Resume {
		t.Error("a new chat resumed a session")
	}
	if list := m.List(); len(list) != 2 {
		t.Fatalf("after a new chat the list has %d conversations", len(list))
	}

	var many []conversations.Info
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for i := range 8 {
		many = append(many, conversations.Info{ID: fmt.Sprint("c", i), Title: fmt.Sprint("t", i), Updated: at.Add(-time.Duration(i) * time.Hour)})
	}
	got := trayChats(many)
	if len(got) != tray.ChatRecent || got[0].ID != "c0" || got[4].ID != "c4" || !got[0].Updated.Equal(at) {
		t.Fatalf("tray chats = %+v", got)
	}
	if err := (&traySource{}).openChat(ctx, ""); err == nil {
		t.Error("a tray without chat opened one")
	}
}
