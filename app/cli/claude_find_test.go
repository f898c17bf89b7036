package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lets-app/lets/app/lets"
	"github.com/lets-app/lets/backend/agent"
	"github.com/lets-app/lets/backend/claudefind"
	"github.com/lets-app/lets/backend/config"
)

// writeClaude puts an executable claude printing version at path.
func writeClaude(t *testing.T, path, version string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("#!/bin/sh\necho '"+version+" (Claude Code)'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestEveryPartFindsClaudeInLetsOwnFolder: a claude the Install Claude
// Code button put in the data folder is what the chat, `lets setup
// claude` and `lets doctor` use, with a short PATH that has none (a tray
// started at login). Before the one finder, the chat and setup searched
// PATH and the home folder only.
func TestEveryPartFindsClaudeInLetsOwnFolder(t *testing.T) {
	root := t.TempDir()
	data := filepath.Join(root, "data")
	vars := map[string]string{"HOME": root, "PATH": filepath.Join(root, "empty"), config.HomeEnv: data}
	env := &Env{Getenv: func(k string) string { return vars[k] }}
	p := config.Paths{Home: data}

	// Nothing installed: the chat gets agent.ErrNotInstalled (its install
	// screen), doctor says how to install, setup finds nothing.
	if _, err := lets.ChatFindClaude(env, p)(); !errors.Is(err, agent.ErrNotInstalled) || !errors.Is(err, claudefind.ErrNotFound) {
		t.Fatalf("chat find with nothing installed: %v", err)
	}
	d := &doctor{paths: p, env: env}
	if r := d.claudeCodeResult(context.Background()); r.level != checkInfo || !strings.Contains(r.detail, "Install Claude Code") {
		t.Fatalf("doctor without claude: %+v", r)
	}

	own := claudefind.OwnBin(data)
	writeClaude(t, own, claudefind.TestedVersion)
	if got, err := lets.ChatFindClaude(env, p)(); err != nil || got != own {
		t.Fatalf("chat found %q, %v; want %s", got, err, own)
	}
	if got, ok := (claudeCLI{getenv: env.Getenv, dataDir: data}).find(); !ok || got != own {
		t.Fatalf("setup found %q, %v; want %s", got, ok, own)
	}
	s, err := newClaudeSetup(env, &strings.Builder{})
	if err == nil {
		if got, ok := s.claude.find(); !ok || got != own {
			t.Fatalf("lets setup claude found %q, %v; want %s", got, ok, own)
		}
	}
	if r := d.claudeCodeResult(context.Background()); r.level != checkOK || !strings.Contains(r.detail, own) || !strings.Contains(r.detail, claudefind.TestedVersion) || !strings.Contains(r.detail, "Lets' own folder") {
		t.Fatalf("doctor with Lets' claude: %+v", r)
	}

	// An older claude: doctor warns and says how to update.
	writeClaude(t, own, "2.0.0")
	if r := d.claudeCodeResult(context.Background()); r.level != checkWarn || !strings.Contains(r.detail, "older than "+claudefind.TestedVersion) {
		t.Fatalf("doctor with an old claude: %+v", r)
	}
}
