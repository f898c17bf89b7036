package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/runner"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// runUniqueCmd runs one of the commands of uniques.go the way Run does,
// whether or not the lead has put it in the command table yet.
func runUniqueCmd(e *testEnv, name string, args ...string) int {
	fns := map[string]func(context.Context, *Env, []string) error{
		"install": runInstall, "uninstall": runUninstall, "uniques": runUniques,
	}
	cmd, ok := lookup(name)
	if !ok {
		cmd = command{name: name, run: fns[name]}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return report(e.Env, cmd, cmd.run(ctx, e.Env, args))
}

// gitRepo makes a bare repository holding files, for installs that never
// leave the machine.
func gitRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	testutil.Command(t, "git")
	base := t.TempDir()
	work, bare := filepath.Join(base, "work"), filepath.Join(base, "repo.git")
	gitCmd := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=T", "-c", "user.email=t@example.invalid", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	gitCmd(base, "init", "-q", work)
	for name, text := range files {
		p := filepath.Join(work, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitCmd(work, "add", "-A")
	gitCmd(work, "commit", "-q", "-m", "first")
	gitCmd(base, "clone", "-q", "--bare", work, bare)
	return bare
}

func sketchFiles(name, version string) map[string]string {
	manifest := `{"lip":1,"name":"` + name + `","version":"` + version + `","title":"Sketch — talk in drawings","entry":"index.html","domains":["sketch"],"events":{"sketch.stroke":{"summary":"The person drew a stroke"}}}`
	return map[string]string{"unique.json": manifest, "index.html": "<!doctype html><title>Graph</title>", "GUIDE.md": "Draw with the human."}
}

func TestInstallListUninstall(t *testing.T) {
	e := newTestEnv(t)
	repo := gitRepo(t, sketchFiles("sketch", "0.1.0"))

	if code := runUniqueCmd(e, "install", repo+"#main"); code != 0 {
		t.Fatalf("install exit %d\n%s\n%s", code, e.out, e.err)
	}
	out := e.out.String()
	for _, want := range []string{"Fetching " + repo + " (main)", "Checking unique.json", "Installed sketch 0.1.0 (commit ", "sketch — Sketch — talk in drawings", "Ask Claude to open \"sketch\""} {
		if !strings.Contains(out, want) {
			t.Errorf("install output lacks %q:\n%s", want, out)
		}
	}
	rec, err := os.ReadFile(filepath.Join(e.home, "uniques", "sketch", ".lets-install.json"))
	if err != nil || !strings.Contains(string(rec), `"source": "`+repo+`"`) || !strings.Contains(string(rec), `"ref": "main"`) {
		t.Fatalf("record: %s %v", rec, err)
	}

	e.out = &syncBuffer{}
	e.Stdout = e.out
	if code := runUniqueCmd(e, "uniques"); code != 0 {
		t.Fatalf("uniques exit %d: %s", code, e.err)
	}
	table := e.out.String()
	if !strings.Contains(table, "NAME") || !strings.Contains(table, "hello") || !strings.Contains(table, "built-in") ||
		!strings.Contains(table, "sketch") || !strings.Contains(table, repo+"#main @") {
		t.Fatalf("table:\n%s", table)
	}

	e.out = &syncBuffer{}
	e.Stdout = e.out
	if code := runUniqueCmd(e, "uniques", "--json"); code != 0 {
		t.Fatalf("uniques --json exit %d", code)
	}
	var rows []uniqueListing
	if err := json.Unmarshal([]byte(e.out.String()), &rows); err != nil {
		t.Fatalf("%v\n%s", err, e.out)
	}
	byName := map[string]uniqueListing{}
	for _, r := range rows {
		byName[r.Name] = r
	}
	sk, hello := byName["sketch"], byName["hello"]
	if sk.Source != repo || sk.Ref != "main" || len(sk.Commit) != 40 || sk.InstalledAt == nil || sk.Builtin ||
		!hello.Builtin || hello.Source != "built-in" {
		t.Fatalf("rows %+v", rows)
	}

	// Sessions are user data: uninstall keeps them and says where.
	if err := os.MkdirAll(filepath.Join(e.home, "sessions", "sketch"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.home, "sessions", "sketch", "ss_1.json"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	e.out = &syncBuffer{}
	e.Stdout = e.out
	if code := runUniqueCmd(e, "uninstall", "sketch"); code != 0 {
		t.Fatalf("uninstall exit %d: %s", code, e.err)
	}
	if !strings.Contains(e.out.String(), "Uninstalled sketch.") || !strings.Contains(e.out.String(), "saved sessions are kept") {
		t.Fatalf("uninstall output:\n%s", e.out)
	}
	if _, err := os.Stat(filepath.Join(e.home, "uniques", "sketch")); !os.IsNotExist(err) {
		t.Fatal("folder still there")
	}
}

func TestInstallUpdate(t *testing.T) {
	e := newTestEnv(t)
	repo := gitRepo(t, sketchFiles("sketch", "0.1.0"))
	if code := runUniqueCmd(e, "install", repo); code != 0 {
		t.Fatalf("install: %s", e.err)
	}
	// The source moves on: push a new version from a fresh clone.
	work := filepath.Join(t.TempDir(), "w")
	git := func(dir string, args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "user.name=T", "-c", "user.email=t@example.invalid", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git(filepath.Dir(work), "clone", "-q", repo, work)
	if err := os.WriteFile(filepath.Join(work, "unique.json"), []byte(sketchFiles("sketch", "0.2.0")["unique.json"]), 0o644); err != nil {
		t.Fatal(err)
	}
	git(work, "commit", "-qam", "v2")
	git(work, "push", "-q", "origin", "HEAD")

	e.out = &syncBuffer{}
	e.Stdout = e.out
	if code := runUniqueCmd(e, "install", "--update", "sketch"); code != 0 {
		t.Fatalf("update exit %d: %s", code, e.err)
	}
	if !strings.Contains(e.out.String(), "Updated sketch from 0.1.0 to 0.2.0.") {
		t.Fatalf("update output:\n%s", e.out)
	}
	if code := runUniqueCmd(e, "install", "--update", "hello"); code != 1 || !strings.Contains(e.err.String(), "ships with Lets") {
		t.Fatalf("update built-in: %d %s", code, e.err)
	}
}

func TestInstallInvalidExplainsAndLeavesNothing(t *testing.T) {
	e := newTestEnv(t)
	files := sketchFiles("Sketch", "0.1.0")
	repo := gitRepo(t, files)
	if code := runUniqueCmd(e, "install", repo); code != 1 {
		t.Fatalf("exit %d", code)
	}
	msg := e.err.String()
	if !strings.Contains(msg, "Could not install "+repo) || !strings.Contains(msg, `  - rule 1 (name): "Sketch" must match`) || !strings.Contains(msg, "Nothing was installed") {
		t.Fatalf("stderr:\n%s", msg)
	}
	entries, _ := os.ReadDir(filepath.Join(e.home, "uniques"))
	if len(entries) != 0 {
		t.Fatalf("left behind: %v", entries)
	}
}

func TestUninstallIsKind(t *testing.T) {
	e := newTestEnv(t)
	if code := runUniqueCmd(e, "uninstall", "hello"); code != 1 || !strings.Contains(e.err.String(), "hello comes with Lets, so it cannot be uninstalled") {
		t.Fatalf("built-in: %d %s", code, e.err)
	}
	if code := runUniqueCmd(e, "uninstall", "nope"); code != 1 || !strings.Contains(e.err.String(), `No unique called "nope" is installed`) {
		t.Fatalf("unknown: %d %s", code, e.err)
	}
}

func TestUniquesCommandUsage(t *testing.T) {
	e := newTestEnv(t)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"install"}, "say what to install"},
		{[]string{"install", "a", "b"}, `unexpected argument "b"`},
		{[]string{"install", "--update"}, "say which unique to update"},
		{[]string{"uninstall"}, "say which unique to uninstall"},
		{[]string{"uniques", "extra"}, `unexpected argument "extra"`},
		{[]string{"uniques", "--nope"}, "unknown flag -nope"},
	}
	for _, c := range cases {
		e.err = &syncBuffer{}
		e.Stderr = e.err
		if code := runUniqueCmd(e, c.args[0], c.args[1:]...); code != 2 || !strings.Contains(e.err.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q", c.args, code, e.err)
		}
	}
	// A source that is not there fails with a plain message and exit 1.
	e.err = &syncBuffer{}
	e.Stderr = e.err
	if code := runUniqueCmd(e, "install", filepath.Join(t.TempDir(), "missing")); code != 1 || !strings.Contains(e.err.String(), "there is no folder") {
		t.Fatalf("missing source: %d %s", code, e.err)
	}
}

func TestUniquesListsBrokenFoldersOnStderr(t *testing.T) {
	e := newTestEnv(t)
	dir := filepath.Join(e.home, "uniques", "broken")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "unique.json"), []byte(`{"lip":2}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if code := runUniqueCmd(e, "uniques"); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(e.err.String(), "Not loaded: "+dir) || !strings.Contains(e.err.String(), "rule 6 (lip)") {
		t.Fatalf("stderr:\n%s", e.err)
	}
}

// TestInstallPlainFolder (issue #10): `lets install <folder>` works for a
// folder that is not a git repository, as its usage says.
func TestInstallPlainFolder(t *testing.T) {
	e := newTestEnv(t)
	dir := filepath.Join(t.TempDir(), "sketch-src")
	for name, text := range sketchFiles("sketch", "0.1.0") {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code := runUniqueCmd(e, "install", dir); code != 0 {
		t.Fatalf("install exit %d\n%s\n%s", code, e.out, e.err)
	}
	if out := e.out.String(); !strings.Contains(out, "Copying the folder "+dir) || !strings.Contains(out, "Installed sketch 0.1.0 (a copy of the folder") || !strings.Contains(out, "files sha256 ") {
		t.Fatalf("install printed %q", out)
	}
	e.out.Reset()
	if code := runUniqueCmd(e, "uniques"); code != 0 || !strings.Contains(e.out.String(), dir) {
		t.Fatalf("uniques: %d %q", code, e.out.String())
	}
}

// #23 (low): `lets uninstall` with no Lets running takes the same steps as
// the API's DELETE: the unique's remembered port and its "Always" answers
// are forgotten, so a unique installed later under the same name gets a
// new origin (empty browser storage) and is asked again. Before, the CLI
// removed only the folder.
func TestUninstallWithoutLetsForgetsPortAndAnswers(t *testing.T) {
	e := newTestEnv(t)
	repo := gitRepo(t, sketchFiles("sketch", "0.1.0"))
	if code := runUniqueCmd(e, "install", repo); code != 0 {
		t.Fatalf("install: %s", e.err)
	}
	state := filepath.Join(e.home, "state")
	if err := os.MkdirAll(state, 0o700); err != nil {
		t.Fatal(err)
	}
	ports := `{"uniques":{"sketch":40123,"hello":40124},"sources":{"sketch":"` + repo + `","hello":"built-in"}}`
	if err := os.WriteFile(filepath.Join(state, "ports.json"), []byte(ports), 0o600); err != nil {
		t.Fatal(err)
	}
	perms := runner.OpenPermissions(filepath.Join(e.home, "permissions.json"))
	if err := perms.Allow("sketch", "c0ffee", "shell", time.Now()); err != nil {
		t.Fatal(err)
	}
	if code := runUniqueCmd(e, "uninstall", "sketch"); code != 0 {
		t.Fatalf("uninstall exit %d: %s", code, e.err)
	}
	b, err := os.ReadFile(filepath.Join(state, "ports.json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "sketch") || !strings.Contains(string(b), "40124") {
		t.Fatalf("ports.json after uninstall:\n%s", b)
	}
	if perms.Allowed("sketch", "c0ffee", "shell") {
		t.Fatal("the removed unique's Always answer is still there")
	}
}
