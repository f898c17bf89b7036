package chatdriver

import (
	"os"
	"path/filepath"
	"sort"
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
	stub := claudestub.Start(t,
		claudestub.Say("Hello there, friend."),
		claudestub.Say("Fine, thanks."),
		claudestub.Call("Bash", map[string]any{"command": "touch allowed.txt", "description": "Create a file"}),
		claudestub.Say("I made allowed.txt."),
		claudestub.Say("You asked me about a blue kite."),
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
	// The second turn of the process (how fast its first text reaches
	// the window is BenchmarkClaudeTurnToWindow).
	sh.emit("chat.message", "shell", map[string]any{"text": "How are you?"})
	text = ""
	for f := (frame{}); dataMap(f)["done"] != true; {
		f = sh.next("chat.say", 60*time.Second, nil)
		text += dataMap(f)["text"].(string)
	}
	if text != "Fine, thanks." {
		t.Fatalf("second reply %q", text)
	}

	// 2. Bash asks on the approval card; Allow runs it.
	sh.emit("chat.message", "shell", map[string]any{"text": "Make a file please"})
	ask := sh.next("shell.ask", 60*time.Second, nil)
	if d := dataMap(ask); d["tool"] != "Bash" || d["summary"] != "touch allowed.txt" {
		t.Fatalf("card %s", ask.Data)
	}
	sh.emit("shell.answer", "shell", map[string]any{"id": dataMap(ask)["id"], "choice": "allow"})
	sh.next("chat.say", 60*time.Second, func(f frame) bool { return dataMap(f)["done"] == true })
	conv := r.m.List()[0]
	testutil.Eventually(t, "the reply to be saved", func() bool { c, _ := r.store.Get(conv.ID); return c != nil && len(c.Transcript) == 6 })
	c, _ := r.store.Get(conv.ID)
	if _, err := os.Stat(filepath.Join(c.Dir, "allowed.txt")); err != nil {
		t.Fatalf("the allowed Bash command did not run: %v", err)
	}
	if c.Transcript[5].Text != "I made allowed.txt." {
		t.Fatalf("transcript %+v", c.Transcript)
	}

	// 3. Close the window; open the conversation again.
	r.h.srv.WindowGone(win, "human")
	testutil.Eventually(t, "the driver to end", func() bool { return r.m.Window(conv.ID) == "" })
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

// BenchmarkClaudeTurnToWindow: from the stub model handing real claude a
// turn to the first chat.say of it at the window's shell (the target is
// ≤ 50 ms; ~3–30 ms on a quiet machine, most of it claude's own).
func BenchmarkClaudeTurnToWindow(b *testing.B) {
	claude := testutil.Claude(b)
	var mu sync.Mutex
	var handed time.Time
	steps := make([]claudestub.Step, b.N+1)
	for i := range steps {
		steps[i] = func(claudestub.Request) claudestub.Turn {
			mu.Lock()
			handed = time.Now()
			mu.Unlock()
			return claudestub.Turn{Text: "Fine, thanks."}
		}
	}
	stub := claudestub.Start(b, steps...)
	home := b.TempDir()
	r := newRig(b, func(o *Options) {
		o.Start = StartProcess
		o.Agent = AgentOptions{
			Claude: claude, Env: append(stub.Env(home), "PATH="+os.Getenv("PATH")),
			ExtraArgs: []string{"--strict-mcp-config"}, Grace: 3 * time.Second, PermissionPromptStdio: true,
		}
	})
	win := r.open(b, "")
	sh := dialShell(b, r.h, win)
	sh.next("talk.agent", 10*time.Second, nil)
	turn := func() time.Duration {
		sh.emit("chat.message", "shell", map[string]any{"text": "How are you?"})
		f := sh.next("chat.say", 60*time.Second, nil)
		mu.Lock()
		lat := f.at.Sub(handed)
		mu.Unlock()
		sh.next("chat.say", 30*time.Second, func(f frame) bool { return dataMap(f)["done"] == true })
		return lat
	}
	turn() // the process's first turn starts it
	lats := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		lats = append(lats, turn())
	}
	b.StopTimer()
	sort.Slice(lats, func(i, j int) bool { return lats[i] < lats[j] })
	b.ReportMetric(float64(lats[len(lats)/2].Microseconds())/1000, "ms/median-turn-to-window")
}
