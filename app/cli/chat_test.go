package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/app/lets"
	"github.com/lets-app/lets/backend/agent"
	"github.com/lets-app/lets/backend/claudehook"
	"github.com/lets-app/lets/backend/claudesetup"
	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/hostapi"
	"github.com/lets-app/lets/backend/testenv/claudestub"
	"github.com/lets-app/lets/backend/testenv/letstest"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// Point (issue #15): `lets chat --list` reads the conversations from the
// data folder (Lets need not run): newest first with title, last used,
// folder and id; --json gives the same as data; none yet says how to
// start one.
func TestChatListShowsTheConversations(t *testing.T) {
	e := newTestEnv(t)
	if code := e.run("chat", "--list"); code != 0 || !strings.Contains(e.out.String(), "No conversations with Claude yet") {
		t.Fatalf("empty list: exit %d\n%s%s", code, e.out.String(), e.err.String())
	}
	ids := letstest.SeedChats(t, e.home, "Plan the garden", "Letters to Grandma")
	e.out.Reset()
	if code := e.run("chat", "--list"); code != 0 {
		t.Fatalf("list: exit %d: %s", code, e.err.String())
	}
	out := e.out.String()
	newer, older := strings.Index(out, "Letters to Grandma"), strings.Index(out, "Plan the garden")
	if newer < 0 || older < 0 || newer > older {
		t.Fatalf("list should show both, newest first:\n%s", out)
	}
	for _, want := range []string{"folder /home/ada/Lets", "id " + ids[0], "id " + ids[1], "last used ", "1 message\n", "lets chat --conversation <id>"} {
		if !strings.Contains(out, want) {
			t.Errorf("list lacks %q:\n%s", want, out)
		}
	}
	e.out.Reset()
	if code := e.run("chat", "--list", "--json"); code != 0 {
		t.Fatalf("list --json: exit %d: %s", code, e.err.String())
	}
	var got struct {
		Conversations []hostapi.ChatInfo `json:"conversations"`
	}
	if err := json.Unmarshal([]byte(e.out.String()), &got); err != nil {
		t.Fatalf("list --json is not JSON: %v\n%s", err, e.out.String())
	}
	if len(got.Conversations) != 2 || got.Conversations[0].ID != ids[1] || got.Conversations[0].Title != "Letters to Grandma" ||
		got.Conversations[1].Dir != "/home/ada/Lets" || got.Conversations[1].Turns != 1 ||
		!got.Conversations[0].Updated.Equal(time.Date(2026, 11, 30, 19, 0, 0, 0, time.UTC)) {
		t.Fatalf("list --json = %+v", got.Conversations)
	}
}

// Point: `lets chat` without a running Lets says kindly how to start it;
// --delete without a running Lets removes the file itself; mistakes in
// the flags are usage errors.
func TestChatWithoutLetsRunningAndUsageErrors(t *testing.T) {
	e := newTestEnv(t)
	if code := e.run("chat"); code != 1 || !strings.Contains(e.err.String(), "Lets is not running. Start it first") {
		t.Fatalf("chat without Lets: exit %d\n%s", code, e.err.String())
	}
	ids := letstest.SeedChats(t, e.home, "Old talk")
	e.out.Reset()
	if code := e.run("chat", "--delete", ids[0]); code != 0 || !strings.Contains(e.out.String(), "Deleted conversation "+ids[0]) {
		t.Fatalf("delete without Lets: exit %d\n%s%s", code, e.out.String(), e.err.String())
	}
	if _, err := os.Stat(filepath.Join(e.home, "conversations", ids[0]+".json")); !os.IsNotExist(err) {
		t.Fatalf("the conversation file is still there: %v", err)
	}
	e.err.Reset()
	if code := e.run("chat", "--delete", ids[0]); code != 1 || !strings.Contains(e.err.String(), "there is no conversation") {
		t.Fatalf("delete twice: exit %d\n%s", code, e.err.String())
	}
	for _, args := range [][]string{
		{"chat", "--list", "--delete", ids[0]},
		{"chat", "--conversation", "../etc/passwd"},
		{"chat", "--delete", "conv_x"},
		{"chat", "extra"},
		{"chat", "--folder", "/tmp/garden", "--conversation", ids[0]},
		{"chat", "--folder", "/tmp/garden", "--list"},
	} {
		e.err.Reset()
		if code := e.run(args...); code != 2 {
			t.Errorf("%v: exit %d, want 2\n%s", args, code, e.err.String())
		}
	}
}

// Point (issue #15): `lets serve` builds and runs the chat manager: the
// host's status lists the chat service; `lets chat` opens a new
// conversation through the running Lets (POST /app/chat) in a chat window;
// its agent gets
// `lets mcp` and Lets' hooks (0600 files under state/), asks before tools
// (can_use_tool on stdio), the permission mode of config.json, the
// working folder ~/Lets (0700) and an environment that reaches this Lets
// and labels the session "Chat"; --list and --delete go through it too.
func TestServeRunsChatWithClaude(t *testing.T) {
	e := newTestEnv(t)
	if err := os.WriteFile(filepath.Join(e.home, "config.json"), []byte(`{"web": {"port": 0}, "claude": {"permissionMode": "acceptEdits", "approvalTimeoutS": 30}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	ag := &letstest.ChatAgents{Started: make(chan *letstest.FakeAgent, 4)}
	e.Env.ChatStart = ag.Start
	e.Env.OpenURL = func(u string) error { t.Errorf("a headless Lets opened %s in the browser", u); return nil }
	stop := startServe(t, e, "--no-pad")
	defer stop()

	e.out.Reset()
	if code := e.run("status", "--json"); code != 0 || !strings.Contains(e.out.String(), `"chat"`) {
		t.Fatalf("status should list the chat service: exit %d\n%s%s", code, e.out.String(), e.err.String())
	}
	e.out.Reset()
	if code := e.run("chat"); code != 0 {
		t.Fatalf("lets chat: exit %d\n%s%s", code, e.out.String(), e.err.String())
	}
	// Headless: the chat window waits for the person on the home page,
	// and neither `lets chat` nor serve prints a link to it (issue #23).
	if out := e.out.String(); !strings.Contains(out, "A new conversation with Claude is in window w") || !strings.Contains(out, "It is waiting for you on Lets' home page: http://127.0.0.1:") || strings.Contains(out, "/w/") {
		t.Fatalf("lets chat said:\n%s", out)
	}
	a := testutil.Wait(t, "an agent starts for the new conversation", ag.Started)
	o := a.Opts
	if !slices.Equal(o.ExtraArgs, []string{"--allowedTools", "mcp__lets"}) {
		t.Errorf("extra claude arguments %q: Lets' own tools should not ask", o.ExtraArgs)
	}
	if !o.PermissionPromptStdio || o.PermissionMode != "acceptEdits" || o.RestartLimit < 1 {
		t.Errorf("agent options: prompt on stdio %v, mode %q, restarts %d", o.PermissionPromptStdio, o.PermissionMode, o.RestartLimit)
	}
	wantDir := filepath.Join(e.Env.Getenv("HOME"), "Lets")
	if fi, err := os.Stat(wantDir); o.Dir != wantDir || err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("working folder %q (want %q), %v", o.Dir, wantDir, err)
	}
	exe, _ := lets.Executable(e.Env.Getenv)
	for _, f := range []string{o.MCPConfig, o.Settings} {
		if filepath.Dir(f) != filepath.Join(e.home, "state") {
			t.Errorf("%s is not under the data folder's state/", f)
		}
		if fi, err := os.Stat(f); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, want mode 0600", f, err)
		}
	}
	var mcp struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	data, _ := os.ReadFile(o.MCPConfig)
	if err := json.Unmarshal(data, &mcp); err != nil || mcp.MCPServers["lets"].Command != exe || !slices.Equal(mcp.MCPServers["lets"].Args, []string{"mcp"}) {
		t.Errorf("MCP config %s: %v", data, err)
	}
	data, _ = os.ReadFile(o.Settings)
	// Every hook but PermissionRequest: the chat asks its own permission
	// questions, in the window and on the pads at once.
	hooks := claudesetup.Hooks(exe, 30*time.Second)
	delete(hooks, claudesetup.Event(claudehook.EventPermissionRequest))
	want, _, _ := claudesetup.Merge([]byte("{}"), hooks)
	if string(data) != string(want) || strings.Contains(string(data), "PermissionRequest") {
		t.Errorf("settings:\n%s\nwant the hooks but PermissionRequest:\n%s", data, want)
	}
	for _, kv := range []string{"LETS_HOME=" + e.home, "HOME=" + e.Env.Getenv("HOME"), "LETS_CLAUDE_LABEL=Chat"} {
		if !slices.Contains(o.Env, kv) {
			t.Errorf("claude's environment lacks %s", kv)
		}
	}

	// The conversation is listed, then deleted through the running Lets.
	e.out.Reset()
	if code := e.run("chat", "--list", "--json"); code != 0 {
		t.Fatalf("list: exit %d: %s", code, e.err.String())
	}
	var got struct {
		Conversations []hostapi.ChatInfo `json:"conversations"`
	}
	if err := json.Unmarshal([]byte(e.out.String()), &got); err != nil || len(got.Conversations) != 1 {
		t.Fatalf("list after lets chat: %v\n%s", err, e.out.String())
	}
	id := got.Conversations[0].ID
	e.out.Reset()
	if code := e.run("chat", "--delete", id); code != 0 {
		t.Fatalf("delete: exit %d\n%s", code, e.err.String())
	}
	testutil.Wait(t, "deleting an open conversation stops its agent", a.Done())
	if _, err := os.Stat(filepath.Join(e.home, "conversations", id+".json")); !os.IsNotExist(err) {
		t.Errorf("the conversation file is still there: %v", err)
	}
	e.err.Reset()
	if code := e.run("chat", "--conversation", id); code != 1 || !strings.Contains(e.err.String(), "there is no conversation") {
		t.Errorf("continue a deleted conversation: exit %d\n%s", code, e.err.String())
	}
	if code := stop(); code != 0 {
		t.Fatalf("serve stopped with %d\n%s", code, e.err.String())
	}
}

// TestClaudeChatFilesWorkWithRealClaude: the --mcp-config and --settings
// files newChat writes (here for a built lets) give the real Claude Code
// CLI, run as the chat runs it (backend/agent, stream-json, can_use_tool
// on stdio) against claudestub, the lets MCP server (connected, its tools
// offered to the model) and Lets' hooks (the session shows on the Wire
// daemon of a running `lets serve`, with the environment newChat gives
// claude).
func TestClaudeChatFilesWorkWithRealClaude(t *testing.T) {
	claude := testutil.Claude(t)
	stub := claudestub.Start(t, claudestub.Say("Hello from the stub."))
	h := startE2EHost(t, e2eConfig(30*time.Second))
	w := watchClaudeStates(t, h)
	mcpFile, settingsFile, err := lets.WriteChatClaudeFiles(config.Paths{Home: h.letsHome}, h.bin, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{}
	for _, kv := range append(append([]string{}, h.env...), stub.Env(h.home)...) {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	vars["PATH"] = filepath.Dir(claude) + string(os.PathListSeparator) + vars["PATH"]
	env := &Env{Getenv: func(k string) string { return vars[k] }}
	dir := filepath.Join(h.home, lets.ChatFolder)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p, err := agent.Start(ctx, agent.Options{
		Claude: claude, Dir: dir, MCPConfig: mcpFile, Settings: settingsFile, Env: lets.ChatClaudeEnv(env),
		PermissionPromptStdio: true, Grace: lets.ChatStopGrace,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := p.Send(ctx, []agent.Block{{Type: "text", Text: "Hello!"}}); err != nil {
		t.Fatal(err)
	}
	var init *agent.Init
	var result *agent.Result
	for result == nil {
		select {
		case ev := <-p.Events():
			switch e := ev.(type) {
			case agent.Init:
				init = &e
			case agent.Result:
				result = &e
			}
		case <-ctx.Done():
			t.Fatal("no result from claude within 2 minutes")
		}
	}
	if init == nil || !slices.Contains(init.MCPServers, agent.MCPServer{Name: "lets", Status: "connected"}) {
		t.Fatalf("claude's init does not list the lets MCP server as connected: %+v", init)
	}
	if result.IsError {
		t.Fatalf("the turn failed: %+v", result)
	}
	reqs := stub.MainRequests()
	// Claude Code 2.1.332 defers MCP tools behind ToolSearch: the lets
	// tools are named to the model, not sent as tool definitions.
	if len(reqs) == 0 {
		t.Fatal("claude sent the stub no request")
	}
	if raw, _ := json.Marshal(reqs[0]); !strings.Contains(string(raw), "mcp__lets__open") {
		t.Fatalf("the model was not told about the lets tools:\n%.2000s", raw)
	}
	testutil.Eventually(t, "the hooks in "+settingsFile+" report to the Wire daemon", func() bool { return len(w.seen()) > 0 })
	_, labels := w.sessions()
	if !labels["Chat"] || labels["Lets"] {
		t.Errorf("the chat's session is labelled %v on the pads, want Chat", labels)
	}
	t.Logf("Wire session states %v, labels %v", w.seen(), labels)
}
