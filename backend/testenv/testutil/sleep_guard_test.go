package testutil

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

var updateSleeps = flag.Bool("update-sleeps", false, "rewrite testdata/sleep-allowlist.txt from the tree (only ever to shrink it)")

// sleepsInTests finds every time.Sleep call in the module's test files,
// keyed "path:Func", outside the clock package and outside benchmarks: a
// test waits with Eventually or moves a fake clock; a sleep is a guess at
// how slow the machine is.
func sleepsInTests(t *testing.T, root string) map[string]int {
	t.Helper()
	found := map[string]int{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if name := d.Name(); rel != "." && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "build" || rel == filepath.Join("backend", "clock")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil || strings.HasPrefix(fn.Name.Name, "Benchmark") {
				continue
			}
			name := fn.Name.Name
			if fn.Recv != nil && len(fn.Recv.List) == 1 {
				name = fmt.Sprintf("%s.%s", types(fn.Recv.List[0].Type), name)
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok || sel.Sel.Name != "Sleep" {
					return true
				}
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == "time" {
					found[filepath.ToSlash(rel)+":"+name]++
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

func types(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return types(x.X)
	case *ast.Ident:
		return x.Name
	case *ast.IndexExpr:
		return types(x.X)
	}
	return "?"
}

func readAllowlist(t *testing.T, path string) map[string]int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	allowed := map[string]int{}
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var key string
		var n int
		if _, err := fmt.Sscanf(line, "%s %d", &key, &n); err != nil {
			t.Fatalf("%s: bad line %q: %v", path, line, err)
		}
		allowed[key] = n
	}
	return allowed
}

// TestNoNewSleepsInTests fails when a test sleeps where it did not before:
// the allowlist holds the sleeps older tests still have, and may only
// shrink (run with -update-sleeps after removing some).
func TestNoNewSleepsInTests(t *testing.T) {
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	found := sleepsInTests(t, root)
	listPath := filepath.Join("testdata", "sleep-allowlist.txt")
	if *updateSleeps {
		old := readAllowlist(t, listPath)
		keys := make([]string, 0, len(found))
		for k, n := range found {
			if n > old[k] {
				t.Fatalf("%s sleeps %d times, the allowlist allows %d: wait with testutil.Eventually or a fake clock instead", k, n, old[k])
			}
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b strings.Builder
		b.WriteString("# Tests that still call time.Sleep, and how often (path:Func count).\n")
		b.WriteString("# This list only shrinks: new tests wait with testutil.Eventually or a\n")
		b.WriteString("# fake clock (backend/clock). Regenerate after removing sleeps with\n")
		b.WriteString("#   go test ./backend/testenv/testutil -run TestNoNewSleepsInTests -update-sleeps\n")
		for _, k := range keys {
			fmt.Fprintf(&b, "%s %d\n", k, found[k])
		}
		if err := os.WriteFile(listPath, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	allowed := readAllowlist(t, listPath)
	for k, n := range found {
		if n > allowed[k] {
			t.Errorf("%s calls time.Sleep %d times (allowed %d): wait with testutil.Eventually, or move a fake clock (backend/clock), instead of sleeping", k, n, allowed[k])
		}
	}
	for k, n := range allowed {
		if found[k] < n {
			t.Errorf("%s now sleeps %d times, fewer than the allowlist's %d: shrink the list with -update-sleeps", k, found[k], n)
		}
	}
}

// TestSleepGuardSeesSleeps checks the guard on a small tree of its own.
func TestSleepGuardSeesSleeps(t *testing.T) {
	dir := t.TempDir()
	src := "package x\n\nimport (\n\t\"testing\"\n\t\"time\"\n)\n\n" +
		"func TestA(t *testing.T) { time.Sleep(time.Millisecond); time.Sleep(1) }\n" +
		"func BenchmarkB(b *testing.B) { time.Sleep(1) }\n" +
		"func helper() { go func() { time.Sleep(1) }() }\n"
	if err := os.WriteFile(filepath.Join(dir, "x_test.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	clockDir := filepath.Join(dir, "backend", "clock")
	if err := os.MkdirAll(clockDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(clockDir, "c_test.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	got := sleepsInTests(t, dir)
	want := map[string]int{"x_test.go:TestA": 2, "x_test.go:helper": 1}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("found %v, want %v", got, want)
	}
}
