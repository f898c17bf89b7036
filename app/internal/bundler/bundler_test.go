package bundler

import (
	"path/filepath"
	"strings"
	"testing"
)

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestCommittedBundlesAreFresh fails when someone changed TypeScript (or a
// static file) without running `go generate ./...` and committing dist/.
func TestCommittedBundlesAreFresh(t *testing.T) {
	root := repoRoot(t)
	for _, target := range Targets() {
		t.Run(target.Dir, func(t *testing.T) {
			fresh, err := Build(root, target)
			if err != nil {
				t.Fatal(err)
			}
			committed, err := ReadDist(root, target)
			if err != nil {
				t.Fatal(err)
			}
			if d := Diff(committed, fresh); len(d) > 0 {
				t.Fatalf("%s/dist is stale — run `go generate ./...` and commit the result:\n  %s", target.Dir, strings.Join(d, "\n  "))
			}
		})
	}
}

func TestDiffDetectsStaleMissingAndExtraFiles(t *testing.T) {
	committed := map[string][]byte{"a.js": []byte("1"), "old.js": []byte("x"), "same.css": []byte("s")}
	fresh := map[string][]byte{"a.js": []byte("2"), "new.js": []byte("y"), "same.css": []byte("s")}
	got := strings.Join(Diff(committed, fresh), "|")
	want := "a.js: differs from a fresh build|new.js: missing from the committed bundle|old.js: committed but no longer generated"
	if got != want {
		t.Fatalf("Diff = %q, want %q", got, want)
	}
	if d := Diff(fresh, fresh); len(d) != 0 {
		t.Fatalf("identical sets should not differ: %v", d)
	}
}

func TestBuildIsDeterministicAndMapped(t *testing.T) {
	root := repoRoot(t)
	for _, target := range Targets() {
		a, err := Build(root, target)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Build(root, target)
		if err != nil {
			t.Fatal(err)
		}
		if d := Diff(a, b); len(d) > 0 {
			t.Fatalf("%s: two builds differ: %v", target.Dir, d)
		}
		if target.OutFile != "" {
			// A single readable file for authors: one file, not minified,
			// headed by the banner that says where it comes from.
			code, ok := a[filepath.Base(target.OutFile)]
			if len(a) != 1 || !ok {
				t.Fatalf("%s: want only %s, got %v", target.Dir, filepath.Base(target.OutFile), keys(a))
			}
			if !strings.HasPrefix(string(code), target.Banner) || strings.Count(string(code), "\n") < 50 {
				t.Errorf("%s: %s should start with the banner and be readable", target.Dir, target.OutFile)
			}
			continue
		}
		for _, e := range target.Entries {
			js := strings.TrimSuffix(filepath.Base(e), ".ts") + ".js"
			code, ok := a[js]
			if !ok {
				t.Fatalf("%s: no %s in output %v", target.Dir, js, keys(a))
			}
			if !strings.Contains(string(code), "sourceMappingURL="+js+".map") {
				t.Errorf("%s: %s does not link its source map", target.Dir, js)
			}
			if _, ok := a[js+".map"]; !ok {
				t.Errorf("%s: no source map %s.map", target.Dir, js)
			}
			// Minified code is a few very long lines. Not "at most 3 new
			// lines": esbuild writes "\n" in a string as a template literal
			// with a real new line, so a bundle that splits lines has more.
			if lines := strings.Count(string(code), "\n") + 1; len(code)/lines < 400 {
				t.Errorf("%s: %s does not look minified (%d lines, %d bytes)", target.Dir, js, lines, len(code))
			}
		}
	}
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
