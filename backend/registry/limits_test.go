package registry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lets-app/lets/backend/manifest"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// zeros reads as an endless stream of zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// addZeroBlob commits a file of n zero bytes to the repo without ever
// writing it to the work tree: git stores it compressed (a few KiB).
func (r *testRepo) addZeroBlob(t *testing.T, name string, n int64) {
	t.Helper()
	cmd := exec.Command("git", "hash-object", "-w", "--stdin")
	cmd.Dir = r.work
	cmd.Stdin = io.LimitReader(zeros{}, n)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("hash-object: %v", err)
	}
	git(t, r.work, "update-index", "--add", "--cacheinfo", "100644,"+strings.TrimSpace(string(out))+","+name)
	git(t, r.work, "commit", "-q", "-m", "add "+name)
	git(t, r.work, "push", "-q", "origin", "main")
}

// loggingGit is a git that records every command line it runs.
func loggingGit(t *testing.T) (bin, log string) {
	t.Helper()
	real := testutil.Command(t, "git")
	dir := t.TempDir()
	log = filepath.Join(dir, "git.log")
	bin = filepath.Join(dir, "git")
	script := "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '" + log + "'\nexec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, log
}

// TestInstallMeasuresTheTreeBeforeCheckout (issue #10: a 67 KiB repo
// wrote 2 GiB): a small repository whose tree holds a big file of zeros is
// refused from the git objects, and git never checks anything out.
func TestInstallMeasuresTheTreeBeforeCheckout(t *testing.T) {
	repo := newRepo(t, uniqueFiles(t, "graph", "0.1.0"))
	repo.addZeroBlob(t, "big.bin", 16<<20)
	gitBin, gitLog := loggingGit(t)
	userDir := filepath.Join(t.TempDir(), "uniques")
	r := newRegistry(t, userDir, nil)
	r.opts.Git = gitBin
	r.opts.MaxInstallBytes = 1 << 20

	for _, spec := range []string{repo.bare, repo.bare + "#main", repo.bare + "#" + git(t, repo.work, "rev-parse", "HEAD")} {
		_, err := r.Install(context.Background(), spec, nil)
		if !errors.Is(err, ErrInstallFailed) || !strings.Contains(err.Error(), "larger than 1 MiB") || !strings.Contains(err.Error(), "big.bin") || !strings.Contains(err.Error(), "nothing was written") {
			t.Fatalf("%s: %v", spec, err)
		}
	}
	log, err := os.ReadFile(gitLog)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(log)), "\n") {
		if regexp.MustCompile(`(^| )checkout( |$)`).MatchString(line) || strings.Contains(line, " clone ") && !strings.Contains(line, "--no-checkout") {
			t.Errorf("git wrote the tree: %s", line)
		}
	}
	if got := listDir(t, userDir); len(got) != 0 {
		t.Fatalf("left behind: %v", got)
	}

	// Under the limit the same repository installs, files and all.
	r.opts.MaxInstallBytes = 100 << 20
	u, err := r.Install(context.Background(), repo.bare, nil)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(u.Dir, "big.bin")); err != nil || fi.Size() != 16<<20 {
		t.Fatalf("big.bin: %v %v", fi, err)
	}
}

// TestInstallCountsEntriesBeforeCheckout: more than 20 000 files are
// refused from the git objects too.
func TestInstallCountsEntriesBeforeCheckout(t *testing.T) {
	repo := newRepo(t, uniqueFiles(t, "graph", "0.1.0"))
	blob := git(t, repo.work, "rev-parse", "HEAD:index.html")
	var lines strings.Builder
	for i := 0; i <= maxInstallEntries; i++ {
		fmt.Fprintf(&lines, "100644 %s\tmany/f%05d.txt\n", blob, i)
	}
	cmd := exec.Command("git", "update-index", "--index-info")
	cmd.Dir = repo.work
	cmd.Stdin = strings.NewReader(lines.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("update-index: %v %s", err, out)
	}
	git(t, repo.work, "commit", "-q", "-m", "many files")
	git(t, repo.work, "push", "-q", "origin", "main")

	userDir := filepath.Join(t.TempDir(), "uniques")
	r := newRegistry(t, userDir, nil)
	_, err := r.Install(context.Background(), repo.bare, nil)
	if !errors.Is(err, ErrInstallFailed) || !strings.Contains(err.Error(), "more than 20000 files") || !strings.Contains(err.Error(), "nothing was written") {
		t.Fatalf("got %v", err)
	}
	if got := listDir(t, userDir); len(got) != 0 {
		t.Fatalf("left behind: %v", got)
	}
}

// plainFolder writes a unique into a folder that is not a git repository.
func plainFolder(t *testing.T, name, version string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "my-"+name)
	for p, text := range uniqueFiles(t, name, version) {
		writeFile(t, filepath.Join(dir, p), text)
	}
	writeFile(t, filepath.Join(dir, "assets", "app.js"), "console.log('hi')\n")
	must(t, os.Symlink("assets/app.js", filepath.Join(dir, "app.js")))
	return dir
}

// TestInstallPlainFolder (issue #10: `lets install <folder>` works for a
// plain folder, as its usage says): the folder is copied, checked and
// moved into place like a clone; --update copies it again.
func TestInstallPlainFolder(t *testing.T) {
	dir := plainFolder(t, "graph", "0.1.0")
	userDir := filepath.Join(t.TempDir(), "uniques")
	r := newRegistry(t, userDir, nil)
	var progress []string
	u, err := r.Install(context.Background(), dir, func(s string) { progress = append(progress, s) })
	if err != nil {
		t.Fatal(err)
	}
	if u.Name() != "graph" || u.Install.Source != dir || u.Install.Ref != "" || !u.Install.Folder || !sha256RE.MatchString(u.Commit()) {
		t.Fatalf("installed %s from %+v", u.Name(), u.Install)
	}
	if !strings.Contains(strings.Join(progress, "\n"), "Copying the folder "+dir) {
		t.Errorf("progress: %v", progress)
	}
	// A copy, not a link: the files are in the user folder, the link kept.
	if fi, err := os.Lstat(u.Dir); err != nil || !fi.IsDir() || u.Dir != filepath.Join(userDir, "graph") {
		t.Fatalf("installed folder %s: %v %v", u.Dir, fi, err)
	}
	if target, err := os.Readlink(filepath.Join(u.Dir, "app.js")); err != nil || target != "assets/app.js" {
		t.Fatalf("link: %q %v", target, err)
	}
	f, err := u.Open("/app.js")
	if err != nil {
		t.Fatalf("the linked file is not served: %v", err)
	}
	f.Close()
	if got := listDir(t, userDir); len(got) != 1 {
		t.Fatalf("user dir holds %v", got)
	}
	first := u.Commit()

	// Changed in place, then updated from the same folder.
	writeFile(t, filepath.Join(dir, "unique.json"), uniqueJSON(t, "graph", "0.2.0", nil))
	u, err = r.Update(context.Background(), "graph", nil)
	if err != nil {
		t.Fatal(err)
	}
	if u.Manifest.Version != "0.2.0" || u.Commit() == first || !sha256RE.MatchString(u.Commit()) {
		t.Fatalf("update: %s %s (was %s)", u.Manifest.Version, u.Commit(), first)
	}
	// A plain folder has no refs.
	if _, err := r.Install(context.Background(), dir+"#main", nil); !errors.Is(err, ErrInstallFailed) || !strings.Contains(err.Error(), "plain folder") {
		t.Fatalf("#ref on a folder: %v", err)
	}
}

// TestInstallPlainFolderRefusals: the copy keeps the limits of a git
// install and refuses links that leave the folder; nothing is left behind.
func TestInstallPlainFolderRefusals(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret.txt")
	writeFile(t, outside, "not yours\n")
	cases := map[string]struct {
		edit func(dir string)
		max  int64
		want string
	}{
		"absolute link": {edit: func(dir string) { must(t, os.Symlink(outside, filepath.Join(dir, "s.txt"))) }, want: "must be relative"},
		"link up":       {edit: func(dir string) { must(t, os.Symlink("../../x", filepath.Join(dir, "assets", "s.txt"))) }, want: `uses ".."`},
		"dot-dot trick": {edit: func(dir string) { must(t, os.Symlink("assets/..", filepath.Join(dir, "up"))) }, want: `uses ".."`},
		"too large":     {edit: func(dir string) { writeFile(t, filepath.Join(dir, "big.txt"), strings.Repeat("x", 4096)) }, max: 2048, want: "nothing was copied"},
		"too many files": {edit: func(dir string) {
			many := filepath.Join(dir, "many")
			must(t, os.Mkdir(many, 0o755))
			for i := 0; i <= maxInstallEntries; i++ {
				must(t, os.WriteFile(filepath.Join(many, fmt.Sprintf("f%05d", i)), nil, 0o644))
			}
		}, want: "more than 20000 files and folders (nothing was copied)"},
		"invalid unique": {edit: func(dir string) {
			writeFile(t, filepath.Join(dir, "unique.json"), uniqueJSON(t, "graph", "0.1.0", func(m map[string]any) { m["lip"] = 2 }))
		}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			dir := plainFolder(t, "graph", "0.1.0")
			tc.edit(dir)
			userDir := filepath.Join(t.TempDir(), "uniques")
			r := newRegistry(t, userDir, nil)
			if tc.max > 0 {
				r.opts.MaxInstallBytes = tc.max
			}
			_, err := r.Install(context.Background(), dir, nil)
			var ie *manifest.InvalidError
			switch {
			case tc.want == "" && !errors.As(err, &ie):
				t.Fatalf("got %v, want an invalid manifest", err)
			case tc.want != "" && (!errors.Is(err, ErrInstallFailed) || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("got %v, want %q", err, tc.want)
			}
			if got := listDir(t, userDir); len(got) != 0 {
				t.Fatalf("left behind: %v", got)
			}
		})
	}
}
