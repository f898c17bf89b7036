package claudefind

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/lets-app/lets/backend/testenv/testutil"
)

// fakeClaude writes an executable claude into dir that prints version.
func fakeClaude(t *testing.T, dir, version string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "claude")
	script := "#!/bin/sh\necho '" + version + " (Claude Code)'\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestOwnFolderWinsOverPath(t *testing.T) {
	root := t.TempDir()
	data := filepath.Join(root, "data")
	own := fakeClaude(t, filepath.Dir(OwnBin(data)), TestedVersion)
	onPath := filepath.Join(root, "bin")
	fakeClaude(t, onPath, "9.9.9")
	f, err := Find(context.Background(), Options{DataDir: data, Getenv: env(map[string]string{"PATH": onPath, "HOME": root})})
	if err != nil {
		t.Fatal(err)
	}
	if f.Path != own || f.Source != SourceLets || f.Version != TestedVersion || f.Old != nil {
		t.Fatalf("found %+v, want Lets' own %s at version %s", f, own, TestedVersion)
	}
}

func TestShortPathStillFindsLocalBin(t *testing.T) {
	home := t.TempDir()
	want := fakeClaude(t, filepath.Join(home, ".local", "bin"), TestedVersion)
	// A tray started at login: PATH without ~/.local/bin.
	f, err := Find(context.Background(), Options{DataDir: filepath.Join(home, ".lets"), Getenv: env(map[string]string{"PATH": "/nonexistent-lets-test", "HOME": home})})
	if err != nil {
		t.Fatal(err)
	}
	if f.Path != want || f.Source != SourceUsual {
		t.Fatalf("found %+v, want %s", f, want)
	}
}

func TestNvmFolderNewestFirst(t *testing.T) {
	home := t.TempDir()
	fakeClaude(t, filepath.Join(home, ".nvm", "versions", "node", "v9.11.0", "bin"), "1.0.0")
	want := fakeClaude(t, filepath.Join(home, ".nvm", "versions", "node", "v20.1.0", "bin"), TestedVersion)
	f, err := Find(context.Background(), Options{Getenv: env(map[string]string{"PATH": "", "HOME": home})})
	if err != nil {
		t.Fatal(err)
	}
	if f.Path != want {
		t.Fatalf("found %s, want the newest node's %s", f.Path, want)
	}
}

func TestOldVersionWarns(t *testing.T) {
	dir := t.TempDir()
	fakeClaude(t, dir, "2.0.1")
	f, err := Find(context.Background(), Options{Getenv: env(map[string]string{"PATH": dir})})
	if err != nil {
		t.Fatal(err)
	}
	if f.Old == nil || f.Old.Have != "2.0.1" || f.Old.Tested != TestedVersion {
		t.Fatalf("found %+v, want an old-version warning", f)
	}
}

func TestNotFound(t *testing.T) {
	home := t.TempDir()
	_, err := Find(context.Background(), Options{DataDir: filepath.Join(home, ".lets"), Getenv: env(map[string]string{"PATH": filepath.Join(home, "none"), "HOME": home})})
	var nf *NotFoundError
	if !errors.As(err, &nf) || !errors.Is(err, ErrNotFound) || len(nf.Searched) < 3 {
		t.Fatalf("err = %v, want a NotFoundError listing where it looked", err)
	}
}

func TestVersionCachedByPathAndMtime(t *testing.T) {
	dir := t.TempDir()
	p := fakeClaude(t, dir, "2.1.400")
	var f Finder
	o := Options{Getenv: env(map[string]string{"PATH": dir})}
	if got, _ := f.Find(context.Background(), o); got.Version != "2.1.400" {
		t.Fatalf("version %q", got.Version)
	}
	// Same path, same mtime and size: the cache answers (the script is
	// not run: a version printed now would differ).
	st, _ := os.Stat(p)
	if err := os.WriteFile(p, []byte("#!/bin/sh\necho '2.1.401 (Claude Code)'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.Find(context.Background(), o); got.Version != "2.1.400" {
		t.Fatalf("version %q, want the cached 2.1.400", got.Version)
	}
	// A new file (an update): read again.
	later := st.ModTime().Add(2e9)
	if err := os.Chtimes(p, later, later); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.Find(context.Background(), o); got.Version != "2.1.401" {
		t.Fatalf("version %q, want 2.1.401 after the file changed", got.Version)
	}
}

func TestVersionBoundedByTimeout(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "claude")
	runs := filepath.Join(dir, "runs")
	if err := os.WriteFile(p, []byte("#!/bin/sh\necho run >> '"+runs+"'\nexec sleep 30\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var finder Finder
	o := Options{Getenv: env(map[string]string{"PATH": dir}), VersionTimeout: 200e6}
	f, err := finder.Find(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	var ve *VersionError
	if f.Path != p || !errors.As(f.VersionErr, &ve) || !errors.Is(f.VersionErr, context.DeadlineExceeded) {
		t.Fatalf("found %+v (%v), want the path with a timed-out version", f, f.VersionErr)
	}
	// Under load the 200 ms can pass before the script has written its
	// line (CI f1): what the first run wrote is read here, and the
	// process is gone (killed at the limit), so it writes nothing later.
	first, _ := os.ReadFile(runs)
	// Asked again, a claude that hung is not run again until it changes.
	// The second ask would allow 30 s: had it run claude, the script would
	// surely have written its line this time.
	o.VersionTimeout = 30e9
	if f, _ := finder.Find(context.Background(), o); !errors.Is(f.VersionErr, context.DeadlineExceeded) || f.Path != p {
		t.Fatalf("second ask: %+v (%v)", f, f.VersionErr)
	}
	if b, _ := os.ReadFile(runs); string(b) != string(first) {
		t.Fatalf("claude --version ran again on the second ask: the runs file went from %q to %q", first, b)
	}
}

func TestOlder(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{{"2.0.9", "2.1.0", true}, {"2.1.332", "2.1.332", false}, {"2.1.333", "2.1.332", false}, {"10.0.0", "9.9.9", false}, {"2.1", "2.1.1", true}} {
		if got := Older(c.a, c.b); got != c.want {
			t.Errorf("Older(%s, %s) = %v", c.a, c.b, got)
		}
	}
}

// TestTestedVersionIsTheMakefiles keeps TestedVersion equal to the Claude
// Code the end-to-end tests run (Makefile CLAUDE_CODE_VERSION).
func TestTestedVersionIsTheMakefiles(t *testing.T) {
	root, err := testutil.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^CLAUDE_CODE_VERSION := (\S+)$`).FindSubmatch(b)
	if m == nil || string(m[1]) != TestedVersion {
		t.Fatalf("Makefile CLAUDE_CODE_VERSION = %q, claudefind.TestedVersion = %q: keep them equal", m, TestedVersion)
	}
}

// TestSkipsWhatIsNotAProgram: a claude that is not executable, a folder
// called claude and a relative PATH entry are passed over.
func TestSkipsWhatIsNotAProgram(t *testing.T) {
	home := t.TempDir()
	notExec := filepath.Join(home, ".claude", "local", "claude")
	if err := os.MkdirAll(filepath.Dir(notExec), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(home, ".local", "bin", "claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	want := fakeClaude(t, filepath.Join(home, ".npm-global", "bin"), TestedVersion)
	f, err := Find(context.Background(), Options{SkipVersion: true, Getenv: env(map[string]string{"PATH": "relative/bin", "HOME": home})})
	if err != nil || f.Path != want {
		t.Fatalf("found %+v, %v; want %s", f, err, want)
	}
}
