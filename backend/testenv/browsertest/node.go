package browsertest

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evanw/esbuild/pkg/api"

	"github.com/lets-app/lets/backend/testenv/testutil"
)

// RunNodeTests bundles a TypeScript test file (which uses node:test) with
// esbuild — stripping types, so no TypeScript compiler is needed — and runs
// it with Node's test runner, failing the Go test when any case fails.
// Without Node the test skips loudly, or fails under LETS_REQUIRE_TOOLS=1.
func RunNodeTests(t *testing.T, file string) {
	t.Helper()
	node := testutil.Command(t, "node")
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
		t.Fatalf("bundle %s: %v", file, api.FormatMessages(res.Errors, api.FormatMessagesOptions{}))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	output, err := exec.CommandContext(ctx, node, "--test", "--test-reporter=spec", out).CombinedOutput()
	if err != nil {
		t.Fatalf("TypeScript tests in %s failed: %v\n%s", file, err, output)
	}
	if !strings.Contains(string(output), "fail 0") {
		t.Fatalf("unexpected test output from %s:\n%s", file, output)
	}
	t.Logf("\n%s", output)
}
