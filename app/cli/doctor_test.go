package cli

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/config"
)

func TestDoctorReportsEachCheck(t *testing.T) {
	e := newTestEnv(t)
	if code := e.run("doctor"); code != 0 {
		t.Fatalf("doctor on a fresh machine should not fail: %d\n%s", code, e.out.String())
	}
	out := e.out.String()
	for _, want := range []string{"data folder", "config.json", "host", "not running", "pad socket", "packages"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor output should mention %q:\n%s", want, out)
		}
	}
}

func TestDoctorFindsProblems(t *testing.T) {
	home := t.TempDir()
	paths := config.Paths{Home: home}
	if err := os.WriteFile(paths.ConfigFile(), []byte("{oops"), 0o600); err != nil {
		t.Fatal(err)
	}
	// host.json pointing at a port nobody listens on.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close()
	if err := config.WriteHostInfo(paths, config.HostInfo{Port: port, PID: 99999, Token: "t"}); err != nil {
		t.Fatal(err)
	}
	// A socket file with no listener.
	sock := filepath.Join(t.TempDir(), "pad.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	_ = l.Close()

	e := newTestEnv(t)
	e.Env.Getenv = func(k string) string {
		return map[string]string{"LETS_HOME": home, "PAD_LATTICE_SOCKET": sock}[k]
	}
	// git is missing; ALSA is there under its Debian 13 name only.
	d := &doctor{
		paths:        paths,
		env:          e.Env,
		pkgInstalled: func(p string) (bool, bool) { return p != "git" && p != "libasound2", true },
		timeout:      500 * time.Millisecond,
	}
	results := d.run(context.Background())
	failed := printChecks(e.out, results)
	out := e.out.String()
	if failed != 1 {
		t.Errorf("want exactly one failure (host not answering), got %d:\n%s", failed, out)
	}
	if strings.Contains(out, "libasound2") || strings.Contains(out, "-dev") || strings.Contains(out, "make deps") {
		t.Errorf("doctor should accept libasound2t64 for libasound2 and name no build packages or make targets:\n%s", out)
	}
	for _, want := range []string{"config.json:1:", "does not answer", "nothing answers", "missing git (for `lets install` from a repository)", "sudo apt-get install git"} {
		if !strings.Contains(out, want) {
			t.Errorf("output should contain %q:\n%s", want, out)
		}
	}
}

func TestDoctorPingsALiveDaemon(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "pad.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		buf := make([]byte, 256)
		n, _ := c.Read(buf)
		if strings.Contains(string(buf[:n]), `"type":"ping"`) {
			_, _ = c.Write([]byte(`{"protocol":1,"type":"pong"}` + "\n"))
		}
	}()
	d := &doctor{env: &Env{Getenv: func(string) string { return "" }}, timeout: 2 * time.Second}
	r := d.checkSocket(sock)
	if r.level != checkOK {
		t.Fatalf("got %+v", r)
	}
}

// makefileList returns the packages of one `NAME := …` list in the Makefile.
func makefileList(t *testing.T, name string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(data), "\\\n", " ")
	for _, line := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(line, name+" := "); ok {
			return strings.Fields(rest)
		}
	}
	t.Fatalf("the Makefile has no %s list", name)
	return nil
}

// Point: doctor tells end users what they need to run Lets (runtime
// packages, never -dev ones), and each is the runtime side of a package
// `make run` builds with: every runtime package names its build package in
// RUN_APT_PACKAGES, and every -dev package there has its runtime package in
// doctor's list. Test-only packages are not doctor's business.
func TestDoctorChecksTheRuntimeSideOfWhatMakeRunBuildsWith(t *testing.T) {
	run := makefileList(t, "RUN_APT_PACKAGES")
	test := makefileList(t, "TEST_APT_PACKAGES")
	inRun := map[string]bool{}
	for _, p := range run {
		inRun[p] = true
	}
	built := map[string]bool{}
	for _, p := range runtimePackages() {
		if len(p.names) == 0 || p.need == "" {
			t.Errorf("doctor package %+v needs a name and a reason", p)
			continue
		}
		for _, n := range p.names {
			if strings.HasSuffix(n, "-dev") {
				t.Errorf("doctor checks %s, a build package; name the library people run with", n)
			}
			if slices.Contains(test, n) {
				t.Errorf("doctor checks %s, which only the tests need", n)
			}
		}
		if p.buildPackage != "" {
			if !inRun[p.buildPackage] {
				t.Errorf("doctor's %s builds with %s, but the Makefile's RUN_APT_PACKAGES %v lacks it", p.names[0], p.buildPackage, run)
			}
			built[p.buildPackage] = true
		}
	}
	for _, p := range run {
		if strings.HasSuffix(p, "-dev") && !built[p] {
			t.Errorf("the Makefile builds with %s but doctor does not check its runtime package", p)
		}
	}
	for _, p := range []string{"g++", "python3"} {
		if !slices.Contains(run, p) && !slices.Contains(test, p) {
			t.Errorf("%s must be named explicitly in the Makefile's package lists", p)
		}
	}
}

// packageUsers says, for every Debian package the Makefile installs, a
// piece of Go source that needs it; the test finds each in the repository.
func packageUsers() map[string]string {
	return map[string]string{
		"gcc":            "gitlab.com/gomidi/midi/v2/drivers/rtmididrv", // cgo
		"g++":            "gitlab.com/gomidi/midi/v2/drivers/rtmididrv", // rtmidi is C++
		"libasound2-dev": "gitlab.com/gomidi/midi/v2/drivers/rtmididrv", // -lasound
		// Wails' cgo finds GTK 3 and WebKitGTK 4.1 with pkg-config.
		"pkg-config":            `"github.com/wailsapp/wails/v2`,
		"libgtk-3-dev":          `"github.com/wailsapp/wails/v2`,
		"libwebkit2gtk-4.1-dev": `"github.com/wailsapp/wails/v2`,
		"git":                   `testutil.Command(t, "git")`,
		"chromium":              `testutil.Command(tb, "chromium"`,
		"python3":               `testutil.Command(t, "python3")`,
		"desktop-file-utils":    `testutil.Command(t, "desktop-file-validate")`,
		"xvfb":                  `Command(tb, "Xvfb")`, // guitest.Display starts the one Xvfb of a test package
		"x11-utils":             `testutil.Command(tb, "xwininfo")`,
		"imagemagick":           `testutil.Command(tb, "import")`,
		"dbus-daemon":           `testutil.Command(tb, "dbus-run-session")`,
		"xfce4-panel":           `Command(tb, "xfce4-panel")`,   // traytest.Desktop, the real tray host (it brings xfconf)
		"dunst":                 `testutil.Command(t, "dunst")`, // app/notify: a real notification daemon
		"openbox":               `x.Command(tb, "openbox")`,     // guitest: a real window manager
		"wmctrl":                `"wmctrl", "-lx"`,              // guitest: focus and stacking checks
	}
}

// Point: nothing is installed that nothing uses. Every package of
// RUN_APT_PACKAGES and TEST_APT_PACKAGES has a user in the Go sources.
func TestMakefileInstallsOnlyPackagesSomethingUses(t *testing.T) {
	users := packageUsers()
	var sources []string
	err := filepath.WalkDir(filepath.Join("..", ".."), func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") && path != filepath.Join("..", "..")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && filepath.Base(path) != "doctor_test.go" {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			sources = append(sources, string(data))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range append(makefileList(t, "RUN_APT_PACKAGES"), makefileList(t, "TEST_APT_PACKAGES")...) {
		use, ok := users[p]
		if !ok {
			t.Errorf("the Makefile installs %s but packageUsers names nothing that uses it: remove it, or add its user", p)
			continue
		}
		found := false
		for _, src := range sources {
			if strings.Contains(src, use) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("the Makefile installs %s for %q, which no Go source contains any more", p, use)
		}
	}
}

func claudeLines(results []checkResult) map[string]checkResult {
	out := map[string]checkResult{}
	for _, r := range results {
		out[r.name] = r
	}
	return out
}

// Point: doctor checks what `lets setup claude` set up: the hooks point
// at this lets, the skill, the MCP registration (through claude), and
// another tool's PermissionRequest hook that races Lets'.
func TestDoctorChecksTheClaudeSetUp(t *testing.T) {
	bin, _ := fakeClaude(t)
	home := t.TempDir()
	lets := filepath.Join(t.TempDir(), "lets")
	if err := os.WriteFile(lets, []byte("#!/bin/sh\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"HOME": home, "PATH": bin}
	env := &Env{Getenv: func(k string) string { return vars[k] }}
	d := &doctor{env: env, letsPath: lets, timeout: time.Second}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	got := claudeLines(d.checkClaude(ctx))
	for _, name := range []string{"claude hooks", "claude skill", "claude mcp"} {
		if got[name].level != checkInfo {
			t.Errorf("not set up: %s should be info, got %+v", name, got[name])
		}
	}
	if !strings.Contains(got["claude hooks"].detail, "run `lets setup claude`") {
		t.Errorf("hooks: %+v", got["claude hooks"])
	}

	s, out := testSetup(t, filepath.Join(home, ".claude"), lets, bin)
	if err := s.install(ctx); err != nil {
		t.Fatalf("setup: %v\n%s", err, out)
	}
	got = claudeLines(d.checkClaude(ctx))
	for _, name := range []string{"claude hooks", "claude skill", "claude mcp", "approvals"} {
		if got[name].level != checkOK {
			t.Errorf("after setup %s should be ok, got %+v", name, got[name])
		}
	}
	if !strings.Contains(got["claude mcp"].detail, lets+" mcp") {
		t.Errorf("mcp: %+v", got["claude mcp"])
	}

	// Another tool answers permission prompts too.
	settings := filepath.Join(home, ".claude", "settings.json")
	data, _ := os.ReadFile(settings)
	racing := strings.Replace(string(data), `"PermissionRequest": [`, `"PermissionRequest": [{"hooks": [{"type": "command", "command": "auto-approve"}]},`, 1)
	if err := os.WriteFile(settings, []byte(racing), 0o600); err != nil {
		t.Fatal(err)
	}
	got = claudeLines(d.checkClaude(ctx))
	if r := got["approvals"]; r.level != checkWarn || !strings.Contains(r.detail, "auto-approve") || !strings.Contains(r.detail, "remove it from "+settings) {
		t.Errorf("approvals: %+v", r)
	}

	// The approval wait grew in config.json after setup: Claude Code would
	// stop the hook first.
	if err := os.MkdirAll(filepath.Join(home, "lets"), 0o700); err != nil {
		t.Fatal(err)
	}
	d.paths = config.Paths{Home: filepath.Join(home, "lets")}
	if err := os.WriteFile(d.paths.ConfigFile(), []byte(`{"claude": {"approvalTimeoutS": 600}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	got = claudeLines(d.checkClaude(ctx))
	if r := got["approvals"]; r.level != checkWarn || !strings.Contains(r.detail, "after 2m10s, but Lets waits 10m0s") {
		t.Errorf("approvals with a longer wait: %+v", r)
	}
	d.paths = config.Paths{}

	// Another lets: the hooks and the MCP server point elsewhere.
	other := &doctor{env: env, letsPath: "/usr/local/bin/lets", timeout: time.Second}
	got = claudeLines(other.checkClaude(ctx))
	if r := got["claude hooks"]; r.level != checkWarn || !strings.Contains(r.detail, "not this lets (/usr/local/bin/lets)") {
		t.Errorf("hooks: %+v", r)
	}
	if r := got["claude mcp"]; r.level != checkWarn || !strings.Contains(r.detail, "not this lets") {
		t.Errorf("mcp: %+v", r)
	}

	// The lets the hooks run is gone.
	if err := os.Remove(lets); err != nil {
		t.Fatal(err)
	}
	got = claudeLines(d.checkClaude(ctx))
	if r := got["claude hooks"]; r.level != checkWarn || !strings.Contains(r.detail, "not there any more") {
		t.Errorf("hooks: %+v", r)
	}
}
