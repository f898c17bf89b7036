package testutil

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Point: the Claude tools are found in build/tools/claude under the
// repository root, where `make claude-tools` puts them; the SDK finder
// returns the package folder.
func TestClaudeToolsAreFoundUnderTheRepository(t *testing.T) {
	root := t.TempDir()
	bin := filepath.Join(root, "build", "tools", "claude", "node_modules", ".bin", "claude")
	sdk := filepath.Join(root, "build", "tools", "claude", "node_modules", "@modelcontextprotocol", "sdk")
	for _, p := range []string{filepath.Join(bin), filepath.Join(sdk, "package.json")} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rootFn := func() (string, error) { return root, nil }
	var loud strings.Builder
	var got string
	failed, skipped := run(t, func(tb testing.TB) {
		got = findTool(tb, envOf(nil), rootFn, &loud, ClaudeBinEnv, "node_modules/.bin/claude", "Claude Code (claude)")
	})
	if failed != "" || skipped != "" || got != bin {
		t.Fatalf("claude: got %q (failed %q, skipped %q), want %q", got, failed, skipped, bin)
	}
	failed, skipped = run(t, func(tb testing.TB) {
		got = findTool(tb, envOf(nil), rootFn, &loud, MCPSDKDirEnv, "node_modules/@modelcontextprotocol/sdk/package.json", "the MCP SDK")
	})
	if failed != "" || skipped != "" || got != sdk {
		t.Fatalf("sdk: got %q (failed %q, skipped %q), want %q", got, failed, skipped, sdk)
	}
	// The environment variable wins.
	failed, skipped = run(t, func(tb testing.TB) {
		got = findTool(tb, envOf(map[string]string{ClaudeBinEnv: sdk}), rootFn, &loud, ClaudeBinEnv, "node_modules/.bin/claude", "Claude Code (claude)")
	})
	if failed != "" || skipped != "" || got != sdk {
		t.Fatalf("with %s set: got %q (failed %q, skipped %q)", ClaudeBinEnv, got, failed, skipped)
	}
}

// Point: a missing Claude Code skips loudly with the make target that
// installs it, and fails under LETS_REQUIRE_TOOLS=1.
func TestClaudeToolsMissingSkipsOrFails(t *testing.T) {
	rootFn := func() (string, error) { return t.TempDir(), nil }
	var loud strings.Builder
	failed, skipped := run(t, func(tb testing.TB) {
		findTool(tb, envOf(nil), rootFn, &loud, ClaudeBinEnv, "node_modules/.bin/claude", "Claude Code (claude)")
		tb.Fatal("findTool returned although claude is missing")
	})
	if failed != "" || !strings.Contains(skipped, "Claude Code (claude) is not installed") || !strings.Contains(skipped, "make claude-tools") {
		t.Fatalf("want a skip naming the fix: failed=%q skipped=%q", failed, skipped)
	}
	if !strings.Contains(loud.String(), "!!! SKIPPING") {
		t.Errorf("the skip should be loud: %q", loud.String())
	}
	failed, skipped = run(t, func(tb testing.TB) {
		findTool(tb, envOf(map[string]string{RequireToolsEnv: "1", MCPSDKDirEnv: filepath.Join(t.TempDir(), "nowhere")}), rootFn, &loud, MCPSDKDirEnv, "node_modules/@modelcontextprotocol/sdk/package.json", "the MCP SDK")
	})
	if skipped != "" || !strings.Contains(failed, MCPSDKDirEnv) || !strings.Contains(failed, RequireToolsEnv+"=1") {
		t.Fatalf("want a failure under %s=1 naming %s: failed=%q skipped=%q", RequireToolsEnv, MCPSDKDirEnv, failed, skipped)
	}
}

// Point: the repository root is found from a package folder.
func TestRepoRootFindsThisModule(t *testing.T) {
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "Makefile")); err != nil {
		t.Fatalf("RepoRoot %s has no Makefile: %v", root, err)
	}
}

// Point: make claude-tools is part of make deps-test and pins both
// packages to the versions the tests were written against.
func TestMakeInstallsPinnedClaudeTools(t *testing.T) {
	mk := readRepoFile(t, "Makefile")
	if !strings.Contains(recipe(t, mk, "deps-test"), "claude-tools") {
		t.Error("make deps-test should run make claude-tools")
	}
	for _, want := range []string{"CLAUDE_TOOLS := $(TOOLS)/claude", "@anthropic-ai/claude-code@$(CLAUDE_CODE_VERSION)", "@modelcontextprotocol/sdk@$(MCP_SDK_VERSION)", "CLAUDE_CODE_VERSION := 2.1.332", "MCP_SDK_VERSION := 1.32.2"} {
		if !strings.Contains(mk, want) {
			t.Errorf("the Makefile should say %q", want)
		}
	}
	if ClaudeToolsDir != "build/tools/claude" {
		t.Errorf("ClaudeToolsDir %q must match the Makefile's CLAUDE_TOOLS", ClaudeToolsDir)
	}
}
