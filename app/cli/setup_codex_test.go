package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// codexEnv is a test env whose Codex folder is CODEX_HOME (a temp dir)
// and whose PATH has a codex program when withCodex.
func codexEnv(t *testing.T, withCodex bool) (*testEnv, string) {
	t.Helper()
	e := newTestEnv(t)
	codexHome := t.TempDir()
	bin := t.TempDir()
	if withCodex {
		if err := os.WriteFile(filepath.Join(bin, "codex"), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	base := e.Env.Getenv
	e.Env.Getenv = func(k string) string {
		switch k {
		case codexHomeEnv:
			return codexHome
		case "PATH":
			return bin
		}
		return base(k)
	}
	return e, filepath.Join(codexHome, "config.toml")
}

// Issue #25: `lets setup codex` adds Lets' MCP server to Codex's
// config.toml and keeps the rest byte for byte; twice changes nothing;
// --uninstall takes out exactly what it added; the file stays 0600.
func TestSetupCodexAddsAndTakesOut(t *testing.T) {
	e, file := codexEnv(t, true)
	theirs := "# mine\nmodel = \"gpt-5-codex\"\n\n[mcp_servers.docs]\ncommand = \"npx\"\n"
	if err := os.WriteFile(file, []byte(theirs), 0o600); err != nil {
		t.Fatal(err)
	}
	if code := e.run("setup", "codex"); code != 0 {
		t.Fatalf("exit %d: %s", code, e.err.String())
	}
	b, _ := os.ReadFile(file)
	if !strings.HasPrefix(string(b), theirs+"\n") || !strings.Contains(string(b), "[mcp_servers.lets]") || !strings.Contains(string(b), `args = ["mcp"]`) || !strings.Contains(string(b), `env_vars = ["XDG_RUNTIME_DIR", "LETS_HOME"]`) {
		t.Errorf("config after setup:\n%s", b)
	}
	if !strings.Contains(e.out.String(), "Added Lets' MCP server to "+file) || strings.Contains(e.out.String(), "not installed") {
		t.Errorf("setup said: %s", e.out.String())
	}
	e.out.Reset()
	if code := e.run("setup", "codex"); code != 0 || !strings.Contains(e.out.String(), "nothing changed") {
		t.Errorf("second setup: exit %d, %s", code, e.out.String())
	}
	if again, _ := os.ReadFile(file); string(again) != string(b) {
		t.Error("a second setup changed the file")
	}
	if code := e.run("setup", "codex", "--uninstall"); code != 0 {
		t.Fatalf("uninstall: exit %d: %s", code, e.err.String())
	}
	if back, _ := os.ReadFile(file); string(back) != theirs {
		t.Errorf("after uninstall:\n%q\nwant\n%q", back, theirs)
	}
	if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %o", fi.Mode().Perm())
	}
}

// Without Codex on PATH it still registers, and says how to install
// Codex; a broken config and a lets server of theirs are refused with
// what to do, and the file is left alone.
func TestSetupCodexTellsWhatToDo(t *testing.T) {
	e, file := codexEnv(t, false)
	if code := e.run("setup", "codex"); code != 0 {
		t.Fatalf("exit %d: %s", code, e.err.String())
	}
	if !strings.Contains(e.out.String(), "npm install -g @openai/codex") {
		t.Errorf("without codex: %s", e.out.String())
	}
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("a new config: %v %v", fi, err)
	}
	for _, c := range []struct{ cfg, want string }{
		{"model = \n", "has a mistake"},
		{"[mcp_servers.lets]\ncommand = \"/opt/other/lets\"\n", "codex mcp remove lets"},
	} {
		if err := os.WriteFile(file, []byte(c.cfg), 0o600); err != nil {
			t.Fatal(err)
		}
		e.err.Reset()
		if code := e.run("setup", "codex"); code != 1 || !strings.Contains(e.err.String(), c.want) {
			t.Errorf("%q: exit %d, stderr %s; want it to say %q", c.cfg, code, e.err.String(), c.want)
		}
		if b, _ := os.ReadFile(file); string(b) != c.cfg {
			t.Errorf("%q: the file changed to %q", c.cfg, b)
		}
	}
	if code := e.run("setup", "codex", "--plugin-dir", t.TempDir()); code != 2 {
		t.Errorf("--plugin-dir with codex: exit %d, want a usage error", code)
	}
}
