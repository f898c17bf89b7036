// Package guitest builds the Lets binary with native windows (the desktop
// build tags) for tests that run it under Xvfb. It is imported only by
// tests (app/window and app), which share one build per test process. It
// does not import backend/testenv (no product-tree package may): the
// caller hands in its tool checks.
package guitest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Tags are the build tags of a Lets binary with native windows.
const Tags = "desktop,production,webkit2_41"

// Builder builds the GUI binary at most once. Keep one per test process
// (a package variable of the test) and call Cleanup from TestMain.
type Builder struct {
	// ModuleRoot is the module's folder, relative to the test's folder.
	ModuleRoot string
	// Command finds a tool or skips the test loudly (testutil.Command).
	Command func(tb testing.TB, names ...string) string
	// Missing skips the test loudly, or fails it when tools are required
	// (testutil.Missing with testutil.RequireToolsEnv).
	Missing func(tb testing.TB, what, fix string)

	once sync.Once
	dir  string
	bin  string
	err  error
}

// Build returns the path of the GUI binary, building it on first use (the
// first build compiles the WebKitGTK bindings and takes a minute or two;
// Go's build cache makes later runs quick). Without pkg-config or the GTK
// and WebKitGTK development files the test is skipped loudly (or fails
// under LETS_REQUIRE_TOOLS=1).
func (b *Builder) Build(tb testing.TB) string {
	tb.Helper()
	b.Command(tb, "pkg-config")
	if out, err := exec.Command("pkg-config", "--exists", "webkit2gtk-4.1", "gtk+-3.0").CombinedOutput(); err != nil {
		b.Missing(tb, "the GTK 3 and WebKitGTK 4.1 development files are not installed ("+strings.TrimSpace(string(out))+")", "install the apt packages libgtk-3-dev libwebkit2gtk-4.1-dev (`make deps` does)")
	}
	b.once.Do(func() {
		b.dir, b.err = os.MkdirTemp("", "lets-gui-build-")
		if b.err != nil {
			return
		}
		b.bin = filepath.Join(b.dir, "lets")
		ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "go", "build", "-tags", Tags, "-o", b.bin, ".")
		cmd.Dir = b.ModuleRoot
		if out, err := cmd.CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go build -tags %s: %w\n%s", Tags, err, out)
		}
	})
	if b.err != nil {
		tb.Fatal(b.err)
	}
	return b.bin
}

// Cleanup removes the built binary.
func (b *Builder) Cleanup() {
	if b.dir != "" {
		_ = os.RemoveAll(b.dir)
	}
}
