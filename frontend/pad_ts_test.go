package frontend

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

// TestPadLogic runs src/pad/pad.test.ts with Node's test runner: message
// parsing, the spec colours and light layout, words for screen readers,
// keyboard movement, credential choice and the PIN lock-out.
func TestPadLogic(t *testing.T) { runNodeTests(t, filepath.Join("src", "pad", "pad.test.ts")) }

func runNodeTests(t *testing.T, file string) {
	node, err := exec.LookPath("node")
	if err != nil {
		msg := "NODE.JS MISSING — SKIPPING the pad's TypeScript tests. `make test` installs it."
		fmt.Fprintln(os.Stderr, "!!! "+msg)
		if os.Getenv("LETS_REQUIRE_TOOLS") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	out := filepath.Join(t.TempDir(), strings.TrimSuffix(filepath.Base(file), ".ts")+".mjs")
	res := api.Build(api.BuildOptions{
		EntryPoints: []string{file},
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
