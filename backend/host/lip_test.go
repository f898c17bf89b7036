package host

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/lets-app/lets/backend/hostapi"
	"github.com/lets-app/lets/backend/lip"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// TestOpenSendDeliverAck walks the main path: open, the shell connects and
// says ready, Claude sends a declared command, the shell receives it in
// order and acks it, the unique's event reaches listen stamped by the host.
func TestOpenSendDeliverAck(t *testing.T) {
	th := startLIPHost(t)
	win := th.open(t, "board", "")
	if win.Window != "w1" || !strings.Contains(win.URL, "/w/w1/?t=") || win.Guide == "" || win.Commands["board.add"] == "" {
		t.Fatalf("open answer: %+v", win)
	}
	opened := th.waitEvent(t, "t1", "session.open", ioTimeout)
	if opened.Win != "w1" || opened.From != "host" {
		t.Fatalf("session.open = %+v", opened)
	}
	sc := th.dialShell(t, win, nil)
	sc.sendEnv("lip.ready", map[string]any{}, "shell")

	code, ans := th.send(t, []map[string]any{
		{"lip": 1, "type": "board.add", "win": "w1", "data": map[string]any{"label": "one"}},
		{"lip": 1, "type": "ui.toast", "win": "w1", "data": map[string]any{"text": "hi"}},
	})
	if code != 200 || len(ans["accepted"].([]any)) != 2 {
		t.Fatalf("send: %d %v", code, ans)
	}
	cmds := sc.commands(2, ioTimeout)
	if cmds[0].Type != "board.add" || cmds[1].Type != "ui.toast" || cmds[0].Seq != 1 || cmds[1].Seq != 2 || cmds[0].From != "claude" {
		t.Fatalf("commands %+v", cmds)
	}
	sc.ack(cmds...)

	// The unique emits (relayed by the shell); a forged from is ignored.
	sc.sendEnv("board.note", map[string]any{"text": "hello"}, "claude")
	ev := th.waitEvent(t, "t1", "board.note", ioTimeout)
	if ev.From != "unique:board#w1" || ev.Win != "w1" || ev.Seq == 0 {
		t.Fatalf("event = %+v", ev)
	}
	// A human act from the shell is stamped shell:.
	sc.sendEnv("chat.message", map[string]any{"text": "hi"}, "shell")
	ev = th.waitEvent(t, "t1", "chat.message", ioTimeout)
	if ev.From != "shell:board#w1" {
		t.Fatalf("shell event from %q", ev.From)
	}
	// The unique may not emit chat.message.
	sc.sendEnv("chat.message", map[string]any{"text": "forged"}, "unique")
	e, ok := sc.nextOfType("lip.error", ioTimeout)
	if !ok || dataOf(t, e)["code"] != "reserved_domain" {
		t.Fatalf("unique chat.message: %+v %v", e, ok)
	}
	// Acked commands are gone from the queue.
	w, _ := th.core.window("w1")
	testutil.Eventually(t, "the acked commands leave the queue", func() bool { return len(w.queuedIDs()) == 0 })
	var st hostapi.Status
	_, raw := th.call(t, "GET", "/lip/status", nil, testHostToken)
	b, _ := json.Marshal(raw)
	_ = json.Unmarshal(b, &st)
	if st.LIP != lip.Version || st.Epoch == "" || len(st.Windows) != 1 || !st.Windows[0].Connected {
		t.Fatalf("status: %s", b)
	}
}

// TestOnOpenAndWindowGone: the app hears about new windows and reports
// their end; the host then forgets the window and says why.
func TestOnOpenAndWindowGone(t *testing.T) {
	launched := make(chan WindowLaunch, 1)
	th := startLIPHost(t, func(o *Options) { o.OnOpen = func(l WindowLaunch) error { launched <- l; return nil } })
	win := th.openOnly(t, "board", "")
	l := <-launched
	// The one-time URL goes to the native window only, not to the caller.
	if l.Window != win.Window || win.Shown != ShownWindow || !strings.Contains(l.URL, "/w/w1/?t=") || l.Unique != "board" || l.Title != "Board board" {
		t.Fatalf("launch %+v, answer URL %q", l, win.URL)
	}
	win.Token = loadShellToken(t, l.URL)
	sc := th.dialShell(t, win, nil)
	th.WindowGone(win.Window, "human")
	ev := th.waitEvent(t, "g", "session.closed", ioTimeout)
	if ev.Win != win.Window || dataOf(t, ev)["reason"] != "human" {
		t.Fatalf("session.closed %+v", ev)
	}
	if err := sc.closeErr(ioTimeout); err == nil || !strings.Contains(err.Error(), "4410") {
		t.Fatalf("the shell socket should close with 4410: %v", err)
	}
	if code, _ := th.call(t, "GET", "/w/w1/shell.js?t="+win.Token, nil, ""); code != 401 {
		t.Fatalf("token of a gone window: %d", code)
	}
	if code, _ := th.call(t, "GET", "/w/w1/", nil, ""); code != 404 {
		t.Fatalf("page of a gone window: %d, want 404", code)
	}
	th.WindowGone("w99", "human") // unknown: ignored
}
