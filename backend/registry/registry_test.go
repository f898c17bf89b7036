package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/lets-app/lets/backend/manifest"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

var fixedNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func uniqueJSON(t testing.TB, name, version string, edit func(m map[string]any)) string {
	t.Helper()
	m := map[string]any{
		"lip": 1, "name": name, "version": version, "title": strings.ToUpper(name[:1]) + name[1:],
		"entry": "index.html", "domains": []any{name},
		"events": map[string]any{name + ".ping": map[string]any{"summary": "ping"}},
	}
	if edit != nil {
		edit(m)
	}
	return string(encode(t, m))
}

func uniqueFiles(t testing.TB, name, version string) map[string]string {
	return map[string]string{
		"unique.json": uniqueJSON(t, name, version, nil),
		"index.html":  "<!doctype html><title>" + name + "</title>",
		"GUIDE.md":    "# " + name + "\n\nBe kind.\n",
	}
}

// builtinFS holds one built-in unique called "hello".
func builtinFS(t testing.TB) fstest.MapFS {
	fsys := fstest.MapFS{}
	for name, text := range uniqueFiles(t, "hello", "0.1.0") {
		fsys["hello/"+name] = &fstest.MapFile{Data: []byte(text), Mode: 0o644}
	}
	return fsys
}

type logBuffer struct{ bytes.Buffer }

func newRegistry(t *testing.T, userDir string, logs io.Writer) *Registry {
	t.Helper()
	if logs == nil {
		logs = io.Discard
	}
	r, err := OpenRegistry(RegistryOptions{
		Builtin:        builtinFS(t),
		UserDir:        userDir,
		HostVersion:    "0.1.0-dev",
		Log:            slog.New(slog.NewTextHandler(logs, nil)),
		Now:            func() time.Time { return fixedNow },
		InstallTimeout: 30 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// git runs the system git for test fixtures, isolated from the user's
// configuration.
func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=Test", "-c", "user.email=test@example.invalid", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_TERMINAL_PROMPT=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// testRepo is a work tree with a bare clone to install from.
type testRepo struct {
	work, bare string
}

func newRepo(t *testing.T, files map[string]string) *testRepo {
	t.Helper()
	testutil.Command(t, "git")
	base := t.TempDir()
	r := &testRepo{work: filepath.Join(base, "work"), bare: filepath.Join(base, "repo.git")}
	git(t, base, "init", "-q", r.work)
	r.commit(t, files, "first")
	git(t, base, "init", "-q", "--bare", r.bare)
	git(t, r.work, "remote", "add", "origin", r.bare)
	git(t, r.work, "push", "-q", "origin", "main")
	return r
}

// commit writes files (an empty text deletes), commits and pushes; it
// returns the commit id.
func (r *testRepo) commit(t *testing.T, files map[string]string, msg string) string {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(r.work, filepath.FromSlash(name))
		if text == "" {
			_ = os.Remove(p)
			continue
		}
		writeFile(t, p, text)
	}
	git(t, r.work, "add", "-A")
	git(t, r.work, "commit", "-q", "-m", msg)
	if r.bare != "" {
		if _, err := os.Stat(r.bare); err == nil {
			branch := git(t, r.work, "rev-parse", "--abbrev-ref", "HEAD")
			git(t, r.work, "push", "-q", "origin", "HEAD:"+branch)
		}
	}
	return git(t, r.work, "rev-parse", "HEAD")
}

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestInstallFromBareRepoPath(t *testing.T) {
	repo := newRepo(t, uniqueFiles(t, "graph", "0.1.0"))
	head := git(t, repo.bare, "rev-parse", "HEAD")
	userDir := filepath.Join(t.TempDir(), "uniques")
	r := newRegistry(t, userDir, nil)

	var progress []string
	u, err := r.Install(context.Background(), repo.bare, func(s string) { progress = append(progress, s) })
	if err != nil {
		t.Fatal(err)
	}
	if u.Name() != "graph" || u.Manifest.Version != "0.1.0" || u.Commit() != head || u.Builtin {
		t.Fatalf("installed %+v commit %s, want %s", u.Manifest, u.Commit(), head)
	}
	want := manifest.InstallRecord{Source: repo.bare, Commit: head, InstalledAt: fixedNow}
	if *u.Install != want {
		t.Fatalf("record %+v, want %+v", *u.Install, want)
	}
	// The record is on disk, private, and the clone's .git is gone.
	fi, err := os.Stat(filepath.Join(userDir, "graph", manifest.InstallRecordFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("record file: %v %v", fi, err)
	}
	if _, err := os.Stat(filepath.Join(userDir, "graph", ".git")); !os.IsNotExist(err) {
		t.Fatalf(".git kept: %v", err)
	}
	if got := listDir(t, userDir); len(got) != 1 || got[0] != "graph" {
		t.Fatalf("user dir holds %v; work folders must be gone", got)
	}
	all := strings.Join(progress, "\n")
	for _, want := range []string{"Fetching " + repo.bare, "Fetched commit " + head[:12], "Checking", "Installed graph 0.1.0 (commit " + head[:12] + ")."} {
		if !strings.Contains(all, want) {
			t.Errorf("progress lacks %q:\n%s", want, all)
		}
	}
	// Registered and served.
	names := []string{}
	for _, u := range r.List() {
		names = append(names, u.Name()+":"+u.Source())
	}
	if strings.Join(names, ",") != "graph:"+repo.bare+",hello:built-in" {
		t.Fatalf("list = %v", names)
	}
	f, err := u.Open("/index.html")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := u.Open("/" + manifest.InstallRecordFile); err == nil {
		t.Fatal("the install record must not be served")
	}
	guide, err := u.GuideText()
	if err != nil || !strings.Contains(guide, "Be kind.") {
		t.Fatalf("guide %q %v", guide, err)
	}

	// A second registry (another process) sees it too.
	if _, err := newRegistry(t, userDir, nil).Get("graph"); err != nil {
		t.Fatal(err)
	}
}

func TestInstallFromFileURLAndWorkTree(t *testing.T) {
	repo := newRepo(t, uniqueFiles(t, "graph", "0.1.0"))
	for _, src := range []string{"file://" + repo.bare, repo.work} {
		userDir := filepath.Join(t.TempDir(), "uniques")
		r := newRegistry(t, userDir, nil)
		u, err := r.Install(context.Background(), src, nil)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if u.Install.Source != src {
			t.Fatalf("source recorded as %q, want %q", u.Install.Source, src)
		}
	}
}

func TestInstallRelativePathIsRecordedAbsolute(t *testing.T) {
	repo := newRepo(t, uniqueFiles(t, "graph", "0.1.0"))
	t.Chdir(filepath.Dir(repo.bare))
	r := newRegistry(t, filepath.Join(t.TempDir(), "uniques"), nil)
	u, err := r.Install(context.Background(), "./repo.git", nil)
	if err != nil {
		t.Fatal(err)
	}
	if u.Install.Source != repo.bare {
		t.Fatalf("source %q", u.Install.Source)
	}
}

func TestInstallRefs(t *testing.T) {
	repo := newRepo(t, uniqueFiles(t, "graph", "0.1.0"))
	first := git(t, repo.work, "rev-parse", "HEAD")
	git(t, repo.work, "tag", "v0.1.0")
	git(t, repo.work, "push", "-q", "origin", "v0.1.0")
	second := repo.commit(t, map[string]string{"unique.json": uniqueJSON(t, "graph", "0.2.0", nil)}, "second")
	git(t, repo.work, "checkout", "-q", "-b", "dev")
	third := repo.commit(t, map[string]string{"unique.json": uniqueJSON(t, "graph", "0.3.0-dev", nil)}, "third")
	git(t, repo.work, "push", "-q", "origin", "dev")
	git(t, repo.work, "checkout", "-q", "main")

	cases := []struct {
		ref, commit, version string
	}{
		{"", second, "0.2.0"},
		{"main", second, "0.2.0"},
		{"v0.1.0", first, "0.1.0"},
		{"dev", third, "0.3.0-dev"},
		{first, first, "0.1.0"},          // full commit id
		{third[:10], third, "0.3.0-dev"}, // abbreviated commit id
	}
	for _, tc := range cases {
		r := newRegistry(t, filepath.Join(t.TempDir(), "uniques"), nil)
		spec := "file://" + repo.bare
		if tc.ref != "" {
			spec += "#" + tc.ref
		}
		u, err := r.Install(context.Background(), spec, nil)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if u.Commit() != tc.commit || u.Manifest.Version != tc.version || u.Install.Ref != tc.ref {
			t.Fatalf("%s: commit %s version %s ref %q; want %s %s", spec, u.Commit(), u.Manifest.Version, u.Install.Ref, tc.commit, tc.version)
		}
	}
	r := newRegistry(t, filepath.Join(t.TempDir(), "uniques"), nil)
	_, err := r.Install(context.Background(), repo.bare+"#no-such-branch", nil)
	if !errors.Is(err, ErrInstallFailed) || !strings.Contains(err.Error(), "no-such-branch") {
		t.Fatalf("missing ref: %v", err)
	}
}

// TestInstallInvalidLeavesNothing: a failed validation leaves nothing
// installed (LIP 1 §11), and the error names the rule.
func TestInstallInvalidLeavesNothing(t *testing.T) {
	files := uniqueFiles(t, "graph", "0.1.0")
	files["unique.json"] = uniqueJSON(t, "Graph", "0.1.0", nil)
	repo := newRepo(t, files)
	userDir := filepath.Join(t.TempDir(), "uniques")
	r := newRegistry(t, userDir, nil)
	_, err := r.Install(context.Background(), repo.bare, nil)
	var ie *manifest.InvalidError
	if !errors.As(err, &ie) || !ie.HasRule(1) || !strings.Contains(err.Error(), repo.bare) {
		t.Fatalf("got %v", err)
	}
	if got := listDir(t, userDir); len(got) != 0 {
		t.Fatalf("left behind: %v", got)
	}

	// Missing entry file: rule 2 from the files check.
	files = uniqueFiles(t, "graph", "0.1.0")
	delete(files, "index.html")
	repo = newRepo(t, files)
	_, err = r.Install(context.Background(), repo.bare, nil)
	if !errors.As(err, &ie) || !ie.HasRule(2) {
		t.Fatalf("got %v", err)
	}
	if got := listDir(t, userDir); len(got) != 0 {
		t.Fatalf("left behind: %v", got)
	}
}

func TestInstallBuiltinNameRefused(t *testing.T) {
	repo := newRepo(t, uniqueFiles(t, "hello", "9.0.0"))
	userDir := filepath.Join(t.TempDir(), "uniques")
	_, err := newRegistry(t, userDir, nil).Install(context.Background(), repo.bare, nil)
	var ie *manifest.InvalidError
	if !errors.As(err, &ie) || !ie.HasRule(1) || !strings.Contains(err.Error(), "built-in") {
		t.Fatalf("got %v", err)
	}
	if got := listDir(t, userDir); len(got) != 0 {
		t.Fatalf("left behind: %v", got)
	}
}

func TestUpdateAndRemove(t *testing.T) {
	repo := newRepo(t, uniqueFiles(t, "graph", "0.1.0"))
	userDir := filepath.Join(t.TempDir(), "uniques")
	r := newRegistry(t, userDir, nil)
	if _, err := r.Install(context.Background(), repo.bare, nil); err != nil {
		t.Fatal(err)
	}
	newCommit := repo.commit(t, map[string]string{
		"unique.json": uniqueJSON(t, "graph", "0.2.0", nil),
		"GUIDE.md":    "",
		"new.js":      "x()",
	}, "v2")
	u, err := r.Update(context.Background(), "graph", nil)
	if err != nil {
		t.Fatal(err)
	}
	if u.Manifest.Version != "0.2.0" || u.Commit() != newCommit {
		t.Fatalf("updated to %s %s", u.Manifest.Version, u.Commit())
	}
	if _, err := os.Stat(filepath.Join(userDir, "graph", "GUIDE.md")); !os.IsNotExist(err) {
		t.Fatal("files of the old version survived the update")
	}
	if got := listDir(t, userDir); len(got) != 1 {
		t.Fatalf("user dir holds %v", got)
	}
	// Installing again from the same source is an update too.
	if _, err := r.Install(context.Background(), repo.bare, nil); err != nil {
		t.Fatal(err)
	}

	if _, err := r.Update(context.Background(), "hello", nil); !errors.Is(err, ErrBuiltin) {
		t.Fatalf("update built-in: %v", err)
	}
	if err := r.Remove("hello"); !errors.Is(err, ErrBuiltin) {
		t.Fatalf("remove built-in: %v", err)
	}
	if err := r.Remove("nope"); !errors.Is(err, ErrUnknownUnique) {
		t.Fatalf("remove unknown: %v", err)
	}
	if err := r.Remove("graph"); err != nil {
		t.Fatal(err)
	}
	if got := listDir(t, userDir); len(got) != 0 {
		t.Fatalf("after remove: %v", got)
	}
	if _, err := r.Get("graph"); !errors.Is(err, ErrUnknownUnique) {
		t.Fatalf("get after remove: %v", err)
	}
}

func TestInstallConflicts(t *testing.T) {
	repo := newRepo(t, uniqueFiles(t, "graph", "0.1.0"))
	other := newRepo(t, uniqueFiles(t, "graph", "0.5.0"))
	userDir := filepath.Join(t.TempDir(), "uniques")
	r := newRegistry(t, userDir, nil)
	if _, err := r.Install(context.Background(), repo.bare, nil); err != nil {
		t.Fatal(err)
	}
	_, err := r.Install(context.Background(), other.bare, nil)
	if !errors.Is(err, ErrInstallFailed) || !strings.Contains(err.Error(), "lets uninstall graph") {
		t.Fatalf("other source: %v", err)
	}
	// The source now calls itself something else: update refuses.
	repo.commit(t, map[string]string{"unique.json": uniqueJSON(t, "graphs", "0.2.0", func(m map[string]any) {
		m["domains"] = []any{"graph"}
		m["events"] = map[string]any{"graph.ping": map[string]any{"summary": "p"}}
	})}, "rename")
	if _, err := r.Update(context.Background(), "graph", nil); err == nil || !strings.Contains(err.Error(), `now names itself "graphs"`) {
		t.Fatalf("renamed: %v", err)
	}
	u, err := r.Get("graph")
	if err != nil || u.Manifest.Version != "0.1.0" {
		t.Fatalf("the installed version must stay: %v %v", u, err)
	}
	// A hand-made folder is not replaced.
	writeFile(t, filepath.Join(userDir, "mine", "unique.json"), uniqueJSON(t, "mine", "0.1.0", nil))
	writeFile(t, filepath.Join(userDir, "mine", "index.html"), "x")
	mine := newRepo(t, uniqueFiles(t, "mine", "0.2.0"))
	if _, err := r.Install(context.Background(), mine.bare, nil); err == nil || !strings.Contains(err.Error(), "move it away") {
		t.Fatalf("hand-made: %v", err)
	}
	if u, err := r.Update(context.Background(), "mine", nil); err == nil {
		t.Fatalf("update of a hand-made folder: %v", u)
	}
}

// TestInstallRunsNoHooks: hooks from the user's git configuration or
// templates never run during an install.
func TestInstallRunsNoHooks(t *testing.T) {
	repo := newRepo(t, uniqueFiles(t, "graph", "0.1.0"))
	home := t.TempDir()
	marker := filepath.Join(home, "hook-ran")
	hooks := filepath.Join(home, "hooks")
	script := "#!/bin/sh\ntouch " + marker + "\n"
	for _, h := range []string{"post-checkout", "post-merge", "reference-transaction", "post-index-change"} {
		writeFile(t, filepath.Join(hooks, h), script)
		must(t, os.Chmod(filepath.Join(hooks, h), 0o755))
		writeFile(t, filepath.Join(home, "tmpl", "hooks", h), script)
		must(t, os.Chmod(filepath.Join(home, "tmpl", "hooks", h), 0o755))
	}
	writeFile(t, filepath.Join(home, ".gitconfig"), "[core]\n\thooksPath = "+hooks+"\n[init]\n\ttemplateDir = "+filepath.Join(home, "tmpl")+"\n")
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))

	// Prove the hook set-up works: a plain clone with this HOME runs it.
	cmd := exec.Command("git", "clone", "-q", repo.bare, filepath.Join(home, "plain"))
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("plain clone: %v %s", err, out)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the hook fixture does not work, so this test proves nothing: %v", err)
	}
	must(t, os.Remove(marker))

	r := newRegistry(t, filepath.Join(t.TempDir(), "uniques"), nil)
	for _, spec := range []string{repo.bare, repo.bare + "#main", repo.bare + "#" + git(t, repo.bare, "rev-parse", "HEAD")} {
		if _, err := r.Install(context.Background(), spec, nil); err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("%s: a hook ran during install", spec)
		}
	}
}

func TestInstallNoSubmodules(t *testing.T) {
	sub := newRepo(t, map[string]string{"x.txt": "sub"})
	files := uniqueFiles(t, "graph", "0.1.0")
	repo := newRepo(t, files)
	git(t, repo.work, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub.bare, "vendor")
	repo.commit(t, map[string]string{}, "submodule")
	r := newRegistry(t, filepath.Join(t.TempDir(), "uniques"), nil)
	u, err := r.Install(context.Background(), repo.bare, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(u.Dir, "vendor", "x.txt")); !os.IsNotExist(err) {
		t.Fatalf("submodule was fetched: %v", err)
	}
}

func TestInstallSourceChecks(t *testing.T) {
	r := newRegistry(t, filepath.Join(t.TempDir(), "uniques"), nil)
	for _, spec := range []string{
		"", "-oProxyCommand=touch /tmp/x", "ext::sh -c touch% /tmp/pwned", "fd::3", "ftp://example.com/x.git",
		filepath.Join(t.TempDir(), "missing"), "file:///x#--upload-pack=touch", "file:///x#a..b",
	} {
		_, err := r.Install(context.Background(), spec, nil)
		if !errors.Is(err, ErrInstallFailed) {
			t.Errorf("%q: %v", spec, err)
		}
	}
}

func TestInstallNeedsGit(t *testing.T) {
	repo := newRepo(t, uniqueFiles(t, "graph", "0.1.0"))
	r, err := OpenRegistry(RegistryOptions{UserDir: t.TempDir(), Git: filepath.Join(t.TempDir(), "no-git")})
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Install(context.Background(), repo.bare, nil)
	if !errors.Is(err, ErrInstallFailed) || !strings.Contains(err.Error(), "needs git") {
		t.Fatalf("got %v", err)
	}
}

func TestInstallIsBounded(t *testing.T) {
	repo := newRepo(t, uniqueFiles(t, "graph", "0.1.0"))
	userDir := filepath.Join(t.TempDir(), "uniques")
	r := newRegistry(t, userDir, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Install(ctx, repo.bare, nil); !errors.Is(err, ErrInstallFailed) || !strings.Contains(err.Error(), "too long") {
		t.Fatalf("cancelled: %v", err)
	}
	r.opts.MaxInstallBytes = 10
	if _, err := r.Install(context.Background(), repo.bare, nil); !errors.Is(err, ErrInstallFailed) || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("size cap: %v", err)
	}
	if got := listDir(t, userDir); len(got) != 0 {
		t.Fatalf("left behind: %v", got)
	}
}

func TestRegistryScan(t *testing.T) {
	userDir := t.TempDir()
	// good
	for name, text := range uniqueFiles(t, "notes", "0.1.0") {
		writeFile(t, filepath.Join(userDir, "notes", name), text)
	}
	// broken manifest
	writeFile(t, filepath.Join(userDir, "broken", "unique.json"), uniqueJSON(t, "broken", "0.1.0", func(m map[string]any) { m["lip"] = 2 }))
	// folder name differs from the manifest name
	for name, text := range uniqueFiles(t, "other", "0.1.0") {
		writeFile(t, filepath.Join(userDir, "wrongname", name), text)
	}
	// shadows a built-in
	for name, text := range uniqueFiles(t, "hello", "0.9.0") {
		writeFile(t, filepath.Join(userDir, "hello", name), text)
	}
	// leftovers and stray files are ignored
	writeFile(t, filepath.Join(userDir, ".lets-install-123", "unique.json"), "{")
	writeFile(t, filepath.Join(userDir, "README.txt"), "hi")

	var logs logBuffer
	r := newRegistry(t, userDir, &logs)
	var names []string
	for _, u := range r.List() {
		names = append(names, u.Name()+":"+u.Source())
	}
	if strings.Join(names, ",") != "hello:built-in,notes:local folder" {
		t.Fatalf("list = %v", names)
	}
	skipped := r.Skipped()
	var got []string
	for _, s := range skipped {
		got = append(got, filepath.Base(s.Dir))
	}
	// README.txt is not a folder, so not a candidate at all.
	if strings.Join(got, ",") != "broken,hello,wrongname" {
		t.Fatalf("skipped %v", got)
	}
	_, err := r.Get("broken")
	if !errors.Is(err, ErrUnknownUnique) || !strings.Contains(err.Error(), "rule 6 (lip)") {
		t.Fatalf("get broken: %v", err)
	}
	if !strings.Contains(logs.String(), "rule 1 (name)") || !strings.Contains(logs.String(), "built-in") {
		t.Fatalf("logs should explain the skips:\n%s", logs.String())
	}
	if h, _ := r.Get("hello"); !h.Builtin {
		t.Fatal("the built-in must win")
	}

	// A fix made by hand is seen on the next Get, without a reload. The
	// file's time moves on as an edit's does, whatever the file system's
	// timestamp granularity.
	fixed := filepath.Join(userDir, "broken", "unique.json")
	before, err := os.Stat(fixed)
	must(t, err)
	writeFile(t, fixed, uniqueJSON(t, "broken", "0.1.1", nil))
	must(t, os.Chtimes(fixed, time.Time{}, before.ModTime().Add(time.Second)))
	writeFile(t, filepath.Join(userDir, "broken", "index.html"), "x")
	u, err := r.Get("broken")
	if err != nil || u.Manifest.Version != "0.1.1" {
		t.Fatalf("after fix: %v %v", u, err)
	}
	// Removing the folder by hand: gone on the next List.
	must(t, os.RemoveAll(filepath.Join(userDir, "notes")))
	for _, u := range r.List() {
		if u.Name() == "notes" {
			t.Fatal("removed folder still listed")
		}
	}
	if _, err := r.Get("Bad Name"); !errors.Is(err, ErrUnknownUnique) {
		t.Fatal(err)
	}
}

func TestRegistryCleansOldLeftovers(t *testing.T) {
	userDir := t.TempDir()
	old := filepath.Join(userDir, ".lets-install-old")
	fresh := filepath.Join(userDir, ".lets-install-fresh")
	writeFile(t, filepath.Join(old, "x"), "x")
	writeFile(t, filepath.Join(fresh, "x"), "x")
	past := fixedNow.Add(-2 * time.Hour)
	must(t, os.Chtimes(old, past, past))
	must(t, os.Chtimes(fresh, fixedNow, fixedNow))
	newRegistry(t, userDir, nil)
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Fatal("an old leftover should be removed")
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Fatal("a recent work folder may belong to a running install")
	}
}

func TestBrokenBuiltinIsAnError(t *testing.T) {
	fsys := builtinFS(t)
	fsys["hello/unique.json"] = &fstest.MapFile{Data: []byte(uniqueJSON(t, "Hello", "0.1.0", nil))}
	_, err := OpenRegistry(RegistryOptions{Builtin: fsys, UserDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "bug in this build") {
		t.Fatalf("got %v", err)
	}
}

func TestBuiltinServing(t *testing.T) {
	r := newRegistry(t, t.TempDir(), nil)
	u, err := r.Get("hello")
	if err != nil {
		t.Fatal(err)
	}
	f, err := u.Open("/index.html")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := f.(io.Seeker); !ok {
		t.Fatal("served files must seek (http.ServeContent)")
	}
	f.Close()
	for _, p := range []string{"/unique.json", "/GUIDE.md", "/../hello/index.html", "/", "/nope"} {
		if _, err := u.Open(p); err == nil {
			t.Errorf("%s served", p)
		}
	}
	raw, err := u.ReadFile("unique.json")
	if err != nil || !json.Valid(raw) {
		t.Fatalf("host read: %v", err)
	}
	if _, err := u.ReadFile("../x"); err == nil {
		t.Fatal("host read outside")
	}
}

// BenchmarkRegistryGet is the host's per-request lookup of a user unique
// (a stat of unique.json when nothing changed).
func BenchmarkRegistryGet(b *testing.B) {
	userDir := b.TempDir()
	for name, text := range uniqueFiles(b, "notes", "0.1.0") {
		writeFile(b, filepath.Join(userDir, "notes", name), text)
	}
	r, err := OpenRegistry(RegistryOptions{UserDir: userDir})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := r.Get("notes"); err != nil {
			b.Fatal(err)
		}
	}
}
