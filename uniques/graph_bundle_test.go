package uniques_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evanw/esbuild/pkg/api"
)

// graphBundleBanner heads the generated file, so nobody edits it by hand.
const graphBundleBanner = "// Generated from uniques/_graph/*.ts by TestGraphBundleIsFresh\n// (LETS_WRITE_BUNDLES=1 go test ./uniques/ -run TestGraphBundleIsFresh). Edit the TypeScript.\n"

// buildGraphBundle bundles the graph unique's TypeScript with the esbuild Go
// API, readable (not minified) so authors can learn from what ships.
func buildGraphBundle(t *testing.T) []byte {
	t.Helper()
	res := api.Build(api.BuildOptions{
		EntryPoints:   []string{filepath.Join("_graph", "main.ts")},
		Bundle:        true,
		Write:         false,
		Format:        api.FormatIIFE,
		Target:        api.ES2020,
		Platform:      api.PlatformBrowser,
		Charset:       api.CharsetUTF8,
		LegalComments: api.LegalCommentsNone,
		Banner:        map[string]string{"js": strings.TrimSuffix(graphBundleBanner, "\n")},
		LogLevel:      api.LogLevelSilent,
		Outfile:       "app.js",
	})
	if len(res.Errors) > 0 {
		t.Fatalf("bundle the graph unique: %s", strings.Join(api.FormatMessages(res.Errors, api.FormatMessagesOptions{Kind: api.ErrorMessage}), "\n"))
	}
	if len(res.OutputFiles) != 1 {
		t.Fatalf("esbuild made %d files", len(res.OutputFiles))
	}
	return res.OutputFiles[0].Contents
}

// TestGraphBundleIsFresh: uniques/graph/ui/app.js is what esbuild makes of
// uniques/_graph today. LETS_WRITE_BUNDLES=1 rewrites it.
func TestGraphBundleIsFresh(t *testing.T) {
	fresh := buildGraphBundle(t)
	target := filepath.Join("graph", "ui", "app.js")
	if os.Getenv("LETS_WRITE_BUNDLES") == "1" {
		if err := os.WriteFile(target, fresh, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s (%d bytes)", target, len(fresh))
		return
	}
	committed, err := os.ReadFile(target)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(committed, fresh) {
		t.Fatalf("%s is stale: run LETS_WRITE_BUNDLES=1 go test ./uniques/ -run TestGraphBundleIsFresh", target)
	}
}
