package chatdriver

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/agent"
	"github.com/lets-app/lets/backend/testenv/claudestub"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// TestClaudeChatEndToEnd drives the real Claude Code CLI (testutil.Claude)
// against claudestub's scripted Messages API through a real host and a
// fake shell: a streamed reply (first token to the window measured), a
// Bash tool use asked on the approval card (can_use_tool: no hooks here)
// and allowed, the transcript saved; then the window closes, the
// conversation is opened again, talk.load puts it back and the next
// request claude sends carries the earlier turns (--resume).
func TestClaudeChatEndToEnd(t *testing.T) {
	claude := testutil.Claude(t)
	var mu sync.Mutex
	var handed time.Time
	say := func(text string) claudestub.Step {
		return func(claudestub.Request) claudestub.Turn {
			mu.Lock()
			handed = time.Now()
			mu.Unlock()
			return claudestub.Turn{Text: text}
		}
	}
	stub := claudestub.Start(t,
		claudestub.Say("Hello there, friend."),
		say("Fine, thanks."),
		claudestub.Call("Bash", map[string]any{"command": "touch allowed.txt", "description": "Create a file"}),
		claudestub.Say("I made allowed.txt."),
		say("You asked me about a blue kite."),
	)
	home := t.TempDir()
	r := newRig(t, func(o *Options) {
		o.Start = StartProcess
		o.Agent = AgentOptions{
			Claude: claude, Env: append(stub.Env(home), "PATH="+os.Getenv("PATH")),
			ExtraArgs: []string{"--strict-mcp-config"}, Grace: 3 * time.Second, PermissionPromptStdio: true,
		}
	})
	win := r.open(t, "")
	sh := dialShell(t, r.h, win)
	sh.next("talk.agent", 10*time.Second, nil)

	// 1. A streamed reply.
	re := sh.emit("chat.message", "shell", map[string]any{"text": "Hi! Remember the blue kite."})
	first := sh.next("chat.say", 60*time.Second, nil)
	if first.Re != re {
		t.Fatalf("first chunk re %s, want %s", first.Re, re)
	}
	text := dataMap(first)["text"].(string)
	for dataMap(first)["done"] != true {
		first = sh.next("chat.say", 30*time.Second, nil)
		text += dataMap(first)["text"].(string)
	}
	if text != "Hello there, friend." {
		t.Fatalf("reply %q", text)
	}
	sh.next("entity.mood", 10*time.Second, moodIs("proud"))
	// The second turn of the process: the stub hands out the turn, the
	// first text reaches the window.
	sh.emit("chat.message", "shell", map[string]any{"text": "How are you?"})
	f := sh.next("chat.say", 60*time.Second, nil)
	mu.Lock()
	lat := f.at.Sub(handed)
	mu.Unlock()
	t.Logf("real claude: stub hands out the turn → first chat.say at the shell: %v", lat)
	// The target is ≤ 50 ms (issue #15; ~3–30 ms here when the machine is
	// quiet). On a loaded shared machine node alone can take longer, so
	// only a gross regression fails the test; BenchmarkDeltaToWindow
	// measures Lets' own part.
	switch {
	case lat > 500*time.Millisecond:
		t.Errorf("first token took %v (target ≤ 50 ms)", lat)
	case lat > 50*time.Millisecond:
		t.Logf("over the 50 ms target this time (%v): is the machine busy?", lat)
	}
	sh.next("chat.say", 30*time.Second, func(f frame) bool { return dataMap(f)["done"] == true })

	// 2. Bash asks on the approval card; Allow runs it.
	sh.emit("chat.message", "shell", map[string]any{"text": "Make a file please"})
	ask := sh.next("shell.ask", 60*time.Second, nil)
	if d := dataMap(ask); d["tool"] != "Bash" || d["summary"] != "touch allowed.txt" {
		t.Fatalf("card %s", ask.Data)
	}
	sh.emit("shell.answer", "shell", map[string]any{"id": dataMap(ask)["id"], "choice": "allow"})
	sh.next("chat.say", 60*time.Second, func(f frame) bool { return dataMap(f)["done"] == true })
	conv := r.m.List()[0]
	waitFor(t, "the reply to be saved", func() bool { c, _ := r.store.Get(conv.ID); return c != nil && len(c.Transcript) == 6 })
	c, _ := r.store.Get(conv.ID)
	if _, err := os.Stat(filepath.Join(c.Dir, "allowed.txt")); err != nil {
		t.Fatalf("the allowed Bash command did not run: %v", err)
	}
	if c.Transcript[5].Text != "I made allowed.txt." {
		t.Fatalf("transcript %+v", c.Transcript)
	}

	// 3. Close the window; open the conversation again.
	r.h.srv.WindowGone(win, "human")
	waitFor(t, "the driver to end", func() bool { return r.m.Window(conv.ID) == "" })
	win2 := r.open(t, conv.ID)
	sh2 := dialShell(t, r.h, win2)
	if f := sh2.next("talk.load", 10*time.Second, nil); !strings.Contains(string(f.Data), "blue kite") {
		t.Fatalf("talk.load %s", f.Data)
	}
	sh2.emit("chat.message", "shell", map[string]any{"text": "What did I ask you to remember?"})
	sh2.next("chat.say", 60*time.Second, func(f frame) bool { return dataMap(f)["done"] == true })
	reqs := stub.MainRequests()
	last := reqs[len(reqs)-1]
	found := false
	for _, m := range last.Messages {
		for _, b := range m.Blocks() {
			if strings.Contains(b.Text, "Remember the blue kite") {
				found = true
			}
		}
	}
	if !found {
		t.Fatalf("the resumed request does not carry the earlier turns (%d messages)", len(last.Messages))
	}
	if rss, err := agent.VmRSS(os.Getpid()); err == nil {
		t.Logf("test process (host + driver + fake shell) RSS: %.1f MiB", float64(rss)/1024)
	}
}
