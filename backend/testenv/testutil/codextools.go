package testutil

import (
	"os"
	"path/filepath"
	"testing"
)

// CodexBinEnv points the tests at a Codex CLI other than the one
// `make codex-tools` installs into build/tools/codex.
const CodexBinEnv = "LETS_CODEX_BIN"

// CodexToolsDir is where `make codex-tools` (part of `make deps-test`)
// installs the Codex CLI, relative to the repository root.
const CodexToolsDir = "build/tools/codex"

const codexToolsHint = "run `make codex-tools` (`make deps-test` does), which npm-installs @openai/codex into " + CodexToolsDir

// Codex returns the path of the pinned Codex CLI (`codex`), $LETS_CODEX_BIN
// or the one in build/tools/codex. When it is missing the test skips
// loudly, or fails under LETS_REQUIRE_TOOLS=1.
func Codex(tb testing.TB) string {
	tb.Helper()
	return findToolIn(tb, os.Getenv, RepoRoot, os.Stderr, CodexBinEnv, CodexToolsDir, "node_modules/.bin/codex", "the Codex CLI (codex)", codexToolsHint)
}

// CodexHome returns a fresh, empty folder for CODEX_HOME, removed when the
// test ends. It is not under TMPDIR: Codex's sandbox helper refuses a
// CODEX_HOME inside the temporary folder. It lives under the repository's
// build/ folder (ignored by git), which the tests' user owns.
func CodexHome(tb testing.TB) string {
	tb.Helper()
	root, err := RepoRoot()
	if err != nil {
		tb.Fatalf("a CODEX_HOME for the test: %v", err)
	}
	base := filepath.Join(root, "build", "codex-homes")
	if err := os.MkdirAll(base, 0o700); err != nil {
		tb.Fatalf("a CODEX_HOME for the test: %v", err)
	}
	dir, err := os.MkdirTemp(base, "home-")
	if err != nil {
		tb.Fatalf("a CODEX_HOME for the test: %v", err)
	}
	tb.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}
