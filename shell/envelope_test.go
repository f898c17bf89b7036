package shell

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evanw/esbuild/pkg/api"
)

// TestEnvelopeHelpers runs src/envelope.test.ts with Node's test runner.
// esbuild strips the types, so no TypeScript compiler is needed.
func TestEnvelopeHelpers(t *testing.T) { runNodeTests(t, "envelope.test.ts") }

// TestCase034_035_039_ShellProtocol runs src/protocol.test.ts: unknown
// component types fall back to a note (34), chat.say chunks assemble in
// order (35), ui.theme refuses a bad var alone (39), plus delivery
// bookkeeping. The browser test in backend/host checks the same in Chromium.
func TestCase034_035_039_ShellProtocol(t *testing.T) { runNodeTests(t, "protocol.test.ts") }

func runNodeTests(t *testing.T, file string) {
	node, err := exec.LookPath("node")
	if err != nil {
		msg := "NODE.JS MISSING — SKIPPING the shell's TypeScript tests. `make test` installs it."
		fmt.Fprintln(os.Stderr, "!!! "+msg)
		if os.Getenv("LETS_REQUIRE_TOOLS") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	out := filepath.Join(t.TempDir(), strings.TrimSuffix(file, ".ts")+".mjs")
	res := api.Build(api.BuildOptions{
		EntryPoints: []string{filepath.Join("src", file)},
		Outfile:     out,
		Bundle:      true,
		Write:       true,
		Format:      api.FormatESModule,
		Platform:    api.PlatformNode,
		Target:      api.ES2020,
		LogLevel:    api.LogLevelSilent,
	})
	if len(res.Errors) > 0 {
		t.Fatalf("bundle test: %v", api.FormatMessages(res.Errors, api.FormatMessagesOptions{}))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--test", "--test-reporter=spec", out)
	output, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("TypeScript tests failed: %v\n%s", err, output)
	}
	if !strings.Contains(string(output), "fail 0") {
		t.Fatalf("unexpected test output:\n%s", output)
	}
	t.Logf("\n%s", output)
}

func TestFilesEmbedsBundle(t *testing.T) {
	fsys, err := Files()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"envelope.js", "shell.js", "shell.css", "sdk.js"} {
		data, err := fsys.Open(name)
		if err != nil {
			t.Fatalf("%s not embedded: %v", name, err)
		}
		_ = data.Close()
	}
}
