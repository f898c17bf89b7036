package testutil

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var markFlakyCall = regexp.MustCompile(`testutil\.MarkFlaky\(\s*[a-zA-Z_]+\s*,\s*("(?:[^"\\]|\\.)*"|` + "`[^`]*`" + `)?`)

// TestFlakyMarksAreListed lists every test marked flaky, with its reason,
// and fails on a mark whose reason is not written where it is called.
func TestFlakyMarksAreListed(t *testing.T) {
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	marks := 0
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "node_modules" || n == "build") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") || strings.HasSuffix(path, "flaky_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range markFlakyCall.FindAllStringSubmatch(string(b), -1) {
			rel, _ := filepath.Rel(root, path)
			if m[1] == "" || len(strings.Trim(m[1], "\"`")) < 10 {
				t.Errorf("%s: MarkFlaky without a written reason: say what fails and why, in the call", rel)
				continue
			}
			marks++
			t.Logf("flaky: %s: %s", rel, m[1])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d tests marked flaky", marks)
}

func TestMarkFlakyNeedsAReasonAndLetsTheTestRun(t *testing.T) {
	r := runTB(t, func(tb testing.TB) { MarkFlaky(tb, "") })
	if r.failed == "" {
		t.Fatal("a mark without a reason did not fail")
	}
}
