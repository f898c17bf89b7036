package testutil

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The environment variables that point the tests at a Claude Code binary
// and an @modelcontextprotocol/sdk package folder other than the ones
// `make deps-test` installs into build/tools/claude.
const (
	ClaudeBinEnv = "LETS_CLAUDE_BIN"
	MCPSDKDirEnv = "LETS_MCP_SDK_DIR"
)

// ClaudeToolsDir is where `make claude-tools` (part of `make deps-test`)
// installs Claude Code and the MCP SDK, relative to the repository root.
const ClaudeToolsDir = "build/tools/claude"

const claudeToolsHint = "run `make claude-tools` (`make deps-test` does), which npm-installs @anthropic-ai/claude-code and @modelcontextprotocol/sdk into " + ClaudeToolsDir

// Claude returns the path of the pinned Claude Code CLI (`claude`),
// $LETS_CLAUDE_BIN or the one in build/tools/claude. When it is missing the
// test skips loudly, or fails under LETS_REQUIRE_TOOLS=1.
func Claude(tb testing.TB) string {
	tb.Helper()
	return findTool(tb, os.Getenv, RepoRoot, os.Stderr, ClaudeBinEnv, "node_modules/.bin/claude", "Claude Code (claude)")
}

// MCPSDK returns the folder of the pinned npm package
// @modelcontextprotocol/sdk (the one holding its package.json),
// $LETS_MCP_SDK_DIR or the one in build/tools/claude. When it is missing the
// test skips loudly, or fails under LETS_REQUIRE_TOOLS=1.
func MCPSDK(tb testing.TB) string {
	tb.Helper()
	return findTool(tb, os.Getenv, RepoRoot, os.Stderr, MCPSDKDirEnv, "node_modules/@modelcontextprotocol/sdk/package.json", "the MCP TypeScript SDK (@modelcontextprotocol/sdk)")
}

func findTool(tb testing.TB, getenv func(string) string, repoRoot func() (string, error), loud io.Writer, env, rel, what string) string {
	tb.Helper()
	return findToolIn(tb, getenv, repoRoot, loud, env, ClaudeToolsDir, rel, what, claudeToolsHint)
}

// findToolIn finds rel under the tools folder dir (relative to the
// repository root), or at $env; hint says how to install it.
func findToolIn(tb testing.TB, getenv func(string) string, repoRoot func() (string, error), loud io.Writer, env, dir, rel, what, claudeToolsHint string) string {
	tb.Helper()
	if p := getenv(env); p != "" {
		if _, err := os.Stat(p); err != nil {
			missing(tb, getenv, loud, RequireToolsEnv, fmt.Sprintf("%s is not at $%s=%s (%v)", what, env, p, err), "point "+env+" at it or unset it and "+claudeToolsHint)
			return ""
		}
		return p
	}
	root, err := repoRoot()
	if err != nil {
		missing(tb, getenv, loud, RequireToolsEnv, fmt.Sprintf("%s: %v", what, err), claudeToolsHint)
		return ""
	}
	p := filepath.Join(root, filepath.FromSlash(dir), filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		missing(tb, getenv, loud, RequireToolsEnv, fmt.Sprintf("%s is not installed (looked for %s)", what, p), claudeToolsHint)
		return ""
	}
	if strings.HasSuffix(rel, "/package.json") {
		return filepath.Dir(p)
	}
	return p
}

// RepoRoot returns the repository root: the nearest folder at or above the
// working directory whose go.mod declares this module.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find the repository root: %w", err)
	}
	for i := 0; i < 64; i++ {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.Contains(string(data), "module github.com/lets-app/lets\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return "", fmt.Errorf("no go.mod of github.com/lets-app/lets at or above the working directory")
}
