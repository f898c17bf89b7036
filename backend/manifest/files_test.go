package manifest

import (
	"errors"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// servedTree makes a unique folder inside a parent that also holds a
// secret, so escapes have something to find.
func servedTree(t *testing.T) (root, outside string) {
	t.Helper()
	parent := t.TempDir()
	root = filepath.Join(parent, "u")
	outside = filepath.Join(parent, "secret.txt")
	writeFile(t, outside, "SECRET")
	writeFile(t, filepath.Join(root, "unique.json"), `{"name":"u"}`)
	writeFile(t, filepath.Join(root, "GUIDE.md"), "guide")
	writeFile(t, filepath.Join(root, "index.html"), "<p>hi</p>")
	writeFile(t, filepath.Join(root, "ui", "app.js"), "app()")
	writeFile(t, filepath.Join(root, ".lets-install.json"), "{}")
	writeFile(t, filepath.Join(root, ".git", "config"), "[core]")
	writeFile(t, filepath.Join(root, "ui", ".env"), "KEY=1")
	writeFile(t, filepath.Join(root, "docs", "GUIDE.md"), "a served doc")
	must(t, os.Symlink(outside, filepath.Join(root, "abs-out.txt")))
	must(t, os.Symlink("../secret.txt", filepath.Join(root, "rel-out.txt")))
	must(t, os.Symlink("../../secret.txt", filepath.Join(root, "ui", "deep-out.txt")))
	must(t, os.Symlink(parent, filepath.Join(root, "parentdir")))
	must(t, os.Symlink("ui/app.js", filepath.Join(root, "alias.js")))
	must(t, os.Symlink("unique.json", filepath.Join(root, "manifest.txt")))
	must(t, os.Symlink(".git/config", filepath.Join(root, "gitcfg.txt")))
	must(t, syscall.Mkfifo(filepath.Join(root, "fifo.html"), 0o644))
	return root, outside
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// decoded is what net/http gives as URL.Path for a raw request path.
func decoded(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse("http://127.0.0.1" + raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Path
}

func TestResolveServesFilesInside(t *testing.T) {
	root, _ := servedTree(t)
	for urlPath, want := range map[string]string{
		"/index.html":    "<p>hi</p>",
		"/ui/app.js":     "app()",
		"ui/app.js":      "app()",
		"/ui//app.js":    "app()",
		"/alias.js":      "app()", // a link that stays inside
		"/docs/GUIDE.md": "a served doc",
	} {
		p, err := ResolveFile(root, urlPath)
		if err != nil {
			t.Errorf("%s: %v", urlPath, err)
			continue
		}
		b, _ := os.ReadFile(p)
		if string(b) != want {
			t.Errorf("%s: %q", urlPath, b)
		}
		f, err := OpenFile(root, urlPath)
		if err != nil {
			t.Errorf("open %s: %v", urlPath, err)
			continue
		}
		b, _ = io.ReadAll(f)
		f.Close()
		if string(b) != want {
			t.Errorf("open %s: %q", urlPath, b)
		}
	}
}

// TestCase021_TraversalIs404 and TestCase022_SymlinkOutsideIs404: every
// refusal is the same not-found error, saying nothing about the outside.
func TestCase021_TraversalIs404(t *testing.T) {
	root, _ := servedTree(t)
	raws := []string{
		"/../unique.json", "/../secret.txt", "/%2e%2e/secret.txt", "/%2E%2E/secret.txt", "/..%2fsecret.txt",
		"/ui/..%2f..%2fsecret.txt", "/%2e%2e%2fsecret.txt", "/ui/%2e%2e/%2e%2e/secret.txt", "/./index.html",
		"/unique.json", "/UNIQUE.JSON", "/GUIDE.md", "/guide.md", "/ui/../unique.json", "/.lets-install.json",
		"/.git/config", "/ui/.env", "/", "", "/ui/", "/ui", "/index.html%00.js", "/..\\secret.txt", "/nope.html",
	}
	for _, raw := range raws {
		for _, p := range []string{raw, decoded(t, raw)} {
			checkNotFound(t, root, p)
		}
	}
}

func TestCase022_SymlinkOutsideIs404(t *testing.T) {
	root, _ := servedTree(t)
	for _, p := range []string{
		"/abs-out.txt", "/rel-out.txt", "/ui/deep-out.txt", "/parentdir/secret.txt",
		"/manifest.txt", "/gitcfg.txt", // links inside to hidden files
		"/fifo.html", // not a regular file (and opening it must not hang)
	} {
		checkNotFound(t, root, p)
	}
}

func checkNotFound(t *testing.T, root, urlPath string) {
	t.Helper()
	p, err := ResolveFile(root, urlPath)
	if err == nil {
		t.Errorf("ResolveFile(%q) = %s, want not found", urlPath, p)
		return
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ResolveFile(%q): %v is not fs.ErrNotExist", urlPath, err)
	}
	if strings.Contains(err.Error(), root) || strings.Contains(err.Error(), "secret") && !strings.Contains(urlPath, "secret") {
		t.Errorf("error leaks a path: %v", err)
	}
	f, err := OpenFile(root, urlPath)
	if err == nil {
		f.Close()
		t.Errorf("OpenFile(%q) opened a file", urlPath)
	} else if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("OpenFile(%q): %v", urlPath, err)
	}
}

func TestResolveRootMissing(t *testing.T) {
	checkNotFound(t, filepath.Join(t.TempDir(), "gone"), "/index.html")
}

func FuzzServedName(f *testing.F) {
	for _, s := range []string{"/index.html", "/../x", "/a/./b", "/.git/x", "/a//b", "/%2e%2e/x", "/UNIQUE.json", "a/../../b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		rel, ok := servedName(p)
		if !ok {
			return
		}
		if rel == "" || strings.HasPrefix(rel, "/") || strings.HasPrefix(rel, "../") || rel == ".." || strings.Contains(rel, "/../") || strings.HasSuffix(rel, "/..") {
			t.Fatalf("%q → %q escapes", p, rel)
		}
		for _, seg := range strings.Split(rel, "/") {
			if strings.HasPrefix(seg, ".") || seg == "" {
				t.Fatalf("%q → %q has a hidden or empty segment", p, rel)
			}
		}
		if strings.EqualFold(rel, "unique.json") || strings.EqualFold(rel, "guide.md") {
			t.Fatalf("%q → %q is hidden", p, rel)
		}
	})
}

func BenchmarkOpenFile(b *testing.B) {
	root := b.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "ui"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "ui", "app.js"), []byte("x"), 0o644); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		f, err := OpenFile(root, "/ui/app.js")
		if err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}
