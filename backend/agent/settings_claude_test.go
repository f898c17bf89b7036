package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/lets-app/lets/backend/testenv/claudestub"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// hostileFolder fills dir with a project's own Claude settings that run
// programs: hooks in .claude/settings.json and settings.local.json, and an
// MCP server in .mcp.json (enabled by the project's settings). Each one
// touches its file in marks when it runs; the returned paths are those
// files.
func hostileFolder(tb testing.TB, dir, marks string) (projectHook, localHook, mcpServer string) {
	tb.Helper()
	projectHook = filepath.Join(marks, "project-hook-ran")
	localHook = filepath.Join(marks, "local-hook-ran")
	mcpServer = filepath.Join(marks, "project-mcp-ran")
	hook := func(file string) map[string]any {
		cmd := map[string]any{"type": "command", "command": "touch '" + file + "'"}
		group := []any{map[string]any{"hooks": []any{cmd}}}
		return map[string]any{"SessionStart": group, "UserPromptSubmit": group}
	}
	write := func(name string, v any) {
		b, err := json.Marshal(v)
		if err != nil {
			tb.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	write(".claude/settings.json", map[string]any{"hooks": hook(projectHook), "enableAllProjectMcpServers": true})
	write(".claude/settings.local.json", map[string]any{"hooks": hook(localHook)})
	write(".mcp.json", map[string]any{"mcpServers": map[string]any{
		"helper": map[string]any{"command": "/bin/sh", "args": []string{"-c", "touch '" + mcpServer + "'"}},
	}})
	return projectHook, localHook, mcpServer
}

// letsHookSettings is a --settings JSON whose UserPromptSubmit hook (Lets'
// own kind of hook) touches file.
func letsHookSettings(tb testing.TB, file string) string {
	tb.Helper()
	b, err := json.Marshal(map[string]any{"hooks": map[string]any{"UserPromptSubmit": []any{
		map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "touch '" + file + "'"}}},
	}}})
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func TestArgsOnlyLetsSettings(t *testing.T) {
	o := Options{SessionID: "s", MCPConfig: "/m.json", Settings: "/s.json"}
	if a := Args(o, false); slices.Contains(a, "--setting-sources") || slices.Contains(a, "--strict-mcp-config") {
		t.Fatalf("a trusted folder's claude is restricted: %q", a)
	}
	o.OnlyLetsSettings = true
	a := Args(o, false)
	i := slices.Index(a, "--setting-sources")
	if i < 0 || i+1 >= len(a) || a[i+1] != "user" || !slices.Contains(a, "--strict-mcp-config") {
		t.Fatalf("an untrusted folder's claude: %q; want --setting-sources user and --strict-mcp-config", a)
	}
	if !slices.Contains(a, "--settings") || !slices.Contains(a, "--mcp-config") {
		t.Fatalf("Lets' own settings and MCP servers must stay: %q", a)
	}
	o.ExtraArgs = []string{"--strict-mcp-config"}
	n := 0
	for _, x := range Args(o, true) {
		if x == "--strict-mcp-config" {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("--strict-mcp-config %d times, want once", n)
	}
}

// TestClaudeOnlyLetsSettings: the real Claude Code in a folder whose own
// settings run programs. With OnlyLetsSettings none of them runs while
// Lets' own hook (--settings) still does; without it (the old start) the
// folder's hooks run as soon as the person says something.
func TestClaudeOnlyLetsSettings(t *testing.T) {
	for _, only := range []bool{true, false} {
		name := "untrusted"
		if !only {
			name = "trusted"
		}
		t.Run(name, func(t *testing.T) {
			stub := claudestub.Start(t, claudestub.Say("Hello."))
			o := realOptions(t, stub)
			o.ExtraArgs = nil // the folder's .mcp.json must be the only thing keeping its server out
			marks := t.TempDir()
			projectHook, localHook, mcpServer := hostileFolder(t, o.Dir, marks)
			letsHook := filepath.Join(marks, "lets-hook-ran")
			o.Settings = letsHookSettings(t, letsHook)
			o.OnlyLetsSettings = only
			p := startReal(t, o)
			send(t, p, "hi")
			if r := next[Result](t, p, claudeWait); r.IsError {
				t.Fatalf("result %+v", r)
			}
			if !exists(letsHook) {
				t.Fatal("Lets' own hook (--settings) did not run")
			}
			if only {
				for _, f := range []string{projectHook, localHook, mcpServer} {
					if exists(f) {
						t.Errorf("%s: the untrusted folder's settings ran a program", filepath.Base(f))
					}
				}
				return
			}
			// What an untrusted folder would do without the restriction.
			if !exists(projectHook) || !exists(localHook) {
				t.Errorf("the trusted folder's hooks did not run (project %v, local %v)", exists(projectHook), exists(localHook))
			}
			testutil.Eventually(t, "the trusted folder's MCP server to start", func() bool { return exists(mcpServer) })
		})
	}
}
