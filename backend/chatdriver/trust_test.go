package chatdriver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/testenv/claudestub"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/backend/trust"
)

// withTrust gives the rig a trust store in the host's data folder and
// the default folder the conversations store uses.
func withTrust(h *testHost, o *Options) *trust.Store {
	st := trust.New(trust.Options{File: trust.File(h.paths)})
	o.Trust = &FolderTrust{Store: st, DefaultDir: filepath.Join(h.paths.Home, "Lets")}
	return st
}

// ownSettings writes a folder's own Claude settings into dir: a hook in
// .claude/settings.json (enabling the project's MCP servers) and in
// settings.local.json, and an MCP server in .mcp.json; each touches its
// file in marks when it runs.
func ownSettings(t testing.TB, dir, marks string) (projectHook, localHook, mcpServer string) {
	t.Helper()
	projectHook = filepath.Join(marks, "project-hook-ran")
	localHook = filepath.Join(marks, "local-hook-ran")
	mcpServer = filepath.Join(marks, "project-mcp-ran")
	hook := func(file string) map[string]any {
		group := []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "touch '" + file + "'"}}}}
		return map[string]any{"SessionStart": group, "UserPromptSubmit": group}
	}
	for name, v := range map[string]any{
		".claude/settings.json":       map[string]any{"hooks": hook(projectHook), "enableAllProjectMcpServers": true},
		".claude/settings.local.json": map[string]any{"hooks": hook(localHook)},
		".mcp.json": map[string]any{"mcpServers": map[string]any{
			"helper": map[string]any{"command": "/bin/sh", "args": []string{"-c", "touch '" + mcpServer + "'"}},
		}},
	} {
		b, _ := json.Marshal(v)
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return projectHook, localHook, mcpServer
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

func (r *rig) openIn(t testing.TB, folder string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	win, _, err := r.m.OpenNew(ctx, folder)
	if err != nil {
		t.Fatalf("open a chat in %s: %v", folder, err)
	}
	return win
}

func isComponent(id string) func(frame) bool {
	return func(f frame) bool { return dataMap(f)["id"] == id }
}

func pressTrust(sh *fakeShell, which string) {
	sh.emit("component.action", "shell", map[string]any{"id": idTrustChoice, "action": "select", "value": which})
}

// TestTrustQuestionOnlyForFoldersWithTheirOwnSettings (fake agents): the
// default folder and a folder without settings of its own never ask, and
// their Claude starts without folder settings; a folder with them asks
// once; Not now keeps them off (also for New chat in that window); a
// unique cannot answer; Trust remembers the folder and starts Claude again
// (resuming the conversation) with them.
func TestTrustQuestionOnlyForFoldersWithTheirOwnSettings(t *testing.T) {
	h := startHost(t)
	var st *trust.Store
	r := newRigOn(t, h, func(o *Options) { st = withTrust(h, o) })
	projects := t.TempDir()
	plain := filepath.Join(projects, "plain")
	if err := os.MkdirAll(plain, 0o755); err != nil {
		t.Fatal(err)
	}
	own := filepath.Join(projects, "downloaded")
	ownSettings(t, own, t.TempDir())
	// The default folder with settings of its own (written there by
	// someone) still never asks.
	ownSettings(t, filepath.Join(h.paths.Home, "Lets"), t.TempDir())

	for _, folder := range []string{"", plain} {
		win := r.openIn(t, folder)
		a := r.agents.next(t)
		if !a.opts.OnlyLetsSettings {
			t.Fatalf("folder %q: Claude starts with the folder's own settings", folder)
		}
		sh := dialShell(t, r.h, win)
		sh.next("talk.agent", 10*time.Second, nil)
		// A turn, so the loop ran whatever the start queued.
		sh.emit("chat.message", "shell", map[string]any{"text": "hi"})
		testutil.Wait(t, "the turn", a.sent)
		a.emit(t, Result{Text: "Hello."})
		sh.next("chat.say", 10*time.Second, func(f frame) bool { return dataMap(f)["done"] == true })
		for len(sh.frames) > 0 {
			if f := <-sh.frames; f.Type == "component.create" {
				t.Fatalf("folder %q asked: %s", folder, f.Data)
			}
		}
	}

	win := r.openIn(t, own)
	a := r.agents.next(t)
	if !a.opts.OnlyLetsSettings {
		t.Fatal("an untrusted folder's Claude starts with its own settings")
	}
	sh := dialShell(t, r.h, win)
	q := sh.next("component.create", 10*time.Second, isComponent(idTrustChoice))
	if p := dataMap(q)["props"].(map[string]any); p["label"] != TrustQuestion {
		t.Fatalf("the question: %s", q.Data)
	}
	// A unique pressing Trust is not the person.
	sh.emit("component.action", "unique", map[string]any{"id": idTrustChoice, "action": "select", "value": "trust"})
	pressTrust(sh, "later")
	sh.next("component.remove", 10*time.Second, isComponent(idTrustChoice))
	if ok, _ := st.Trusted(own); ok {
		t.Fatal("the folder is trusted although only a unique and Not now answered")
	}
	select {
	case x := <-r.agents.started:
		t.Fatalf("Claude started again (only-Lets %v) without Trust", x.opts.OnlyLetsSettings)
	default:
	}
	// New chat in the same window does not ask again.
	sh.emit("chat.message", "shell", map[string]any{"text": "hi"})
	testutil.Wait(t, "the turn", a.sent)
	a.emit(t, Result{Text: "Hello."})
	for len(r.h.opens) > 0 {
		<-r.h.opens
	}
	sh.emit("talk.new", "unique", map[string]any{"cleared": 2})
	b := r.agents.next(t)
	if !b.opts.OnlyLetsSettings {
		t.Fatal("New chat after Not now starts with the folder's settings")
	}
	sh2 := dialShell(t, r.h, testutil.Wait(t, "the new chat's window", r.h.opens))
	sh2.next("talk.agent", 10*time.Second, nil)
	sh2.emit("chat.message", "shell", map[string]any{"text": "hi"})
	testutil.Wait(t, "the turn", b.sent)
	b.emit(t, Result{Text: "Hello."})
	sh2.next("chat.say", 10*time.Second, func(f frame) bool { return dataMap(f)["done"] == true })
	for len(sh2.frames) > 0 {
		if f := <-sh2.frames; f.Type == "component.create" {
			t.Fatalf("asked again after Not now: %s", f.Data)
		}
	}

	// Another window in that folder asks; Trust restarts Claude with the
	// folder's settings, resuming the conversation.
	win = r.openIn(t, own)
	c := r.agents.next(t)
	sh3 := dialShell(t, r.h, win)
	sh3.next("component.create", 10*time.Second, isComponent(idTrustChoice))
	sh3.emit("chat.message", "shell", map[string]any{"text": "hi"})
	testutil.Wait(t, "the turn", c.sent)
	c.emit(t, Result{Text: "Hello."})
	pressTrust(sh3, "trust")
	d := r.agents.next(t)
	if d.opts.OnlyLetsSettings || !d.opts.Resume || d.opts.SessionID != c.opts.SessionID {
		t.Fatalf("after Trust: only-Lets %v, resume %v (session %s, was %s)", d.opts.OnlyLetsSettings, d.opts.Resume, d.opts.SessionID, c.opts.SessionID)
	}
	testutil.Eventually(t, "the old Claude to stop", c.closed.Load)
	sh3.next("ui.toast", 10*time.Second, func(f frame) bool { return strings.Contains(string(f.Data), "trusted now") })
	if ok, _ := st.Trusted(own); !ok {
		t.Fatal("Trust did not remember the folder")
	}
	// A trusted folder starts with its settings and does not ask.
	r.openIn(t, own)
	if e := r.agents.next(t); e.opts.OnlyLetsSettings {
		t.Fatal("a trusted folder's Claude starts without its settings")
	}
}

// TestClaudeUntrustedFolderRunsNothingUntilTrusted (issue #22): the real
// Claude Code against the stub, in a folder whose own settings run
// programs (hooks, an MCP server). The window asks; after the person says
// "hi" none of them ran; after Trust, Claude starts again and the
// folder's hook runs.
func TestClaudeUntrustedFolderRunsNothingUntilTrusted(t *testing.T) {
	claude := testutil.Claude(t)
	stub := claudestub.Start(t, claudestub.Say("Hello."), claudestub.Say("Hello again."), claudestub.Say("Hello, second folder."))
	home := t.TempDir()
	h := startHost(t)
	r := newRigOn(t, h, func(o *Options) {
		withTrust(h, o)
		o.Start = StartProcess
		o.Agent = AgentOptions{
			Claude: claude, Env: append(stub.Env(home), "PATH="+os.Getenv("PATH")),
			Grace: 3 * time.Second, PermissionPromptStdio: true,
		}
	})
	folder := filepath.Join(home, "downloaded-project")
	marks := t.TempDir()
	projectHook, localHook, mcpServer := ownSettings(t, folder, marks)

	win := r.openIn(t, folder)
	sh := dialShell(t, r.h, win)
	sh.next("component.create", 30*time.Second, isComponent(idTrustChoice))
	say := func(text string) string {
		sh.emit("chat.message", "shell", map[string]any{"text": text})
		reply := ""
		for f := (frame{}); dataMap(f)["done"] != true; {
			f = sh.next("chat.say", 90*time.Second, nil)
			reply += dataMap(f)["text"].(string)
		}
		return reply
	}
	if got := say("hi"); got != "Hello." {
		t.Fatalf("reply %q", got)
	}
	for _, f := range []string{projectHook, localHook, mcpServer} {
		if fileExists(f) {
			t.Errorf("%s: the untrusted folder's settings ran a program", filepath.Base(f))
		}
	}
	if t.Failed() {
		t.FailNow()
	}

	pressTrust(sh, "trust")
	sh.next("ui.toast", 60*time.Second, func(f frame) bool { return strings.Contains(string(f.Data), "trusted now") })
	if got := say("hi again"); got != "Hello again." {
		t.Fatalf("reply after Trust %q", got)
	}
	if !fileExists(projectHook) || !fileExists(localHook) {
		t.Fatalf("after Trust the folder's hooks did not run (settings.json %v, settings.local.json %v)", fileExists(projectHook), fileExists(localHook))
	}
	testutil.Eventually(t, "the trusted folder's MCP server to start", func() bool { return fileExists(mcpServer) })

	// Trust pressed before anything was said: the new Claude starts the
	// same (still empty) conversation with the folder's settings.
	second := filepath.Join(home, "second-project")
	marks2 := t.TempDir()
	hook2, _, _ := ownSettings(t, second, marks2)
	sh = dialShell(t, r.h, r.openIn(t, second))
	sh.next("component.create", 30*time.Second, isComponent(idTrustChoice))
	pressTrust(sh, "trust")
	sh.next("ui.toast", 60*time.Second, func(f frame) bool { return strings.Contains(string(f.Data), "trusted now") })
	if got := say("hi"); got != "Hello, second folder." {
		t.Fatalf("reply in the second folder %q", got)
	}
	if !fileExists(hook2) {
		t.Fatal("the second folder, trusted before the first message, did not run its hook")
	}
}
