package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/app/lets"
	"github.com/lets-app/lets/backend/claudesetup"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// othersClaudeSettings is a ~/.claude/settings.json as people have it:
// other tools' hooks on the events Lets uses, tabs, CRLF, non-ASCII.
const othersClaudeSettings = "{\r\n" +
	"\t\"model\": \"opus\",\r\n" +
	"\t\"hooks\": {\r\n" +
	"\t\t\"PermissionRequest\": [{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"notify-send 'Claude wartet — über'\"}]}],\r\n" +
	"\t\t\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"~/.claude/done.sh <&>\", \"timeout\": 3}]}]\r\n" +
	"\t},\r\n" +
	"\t\"env\": {\"GREETING\": \"grüß dich 🚀\"}\r\n" +
	"}\r\n"

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, a)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	ca, _ := json.Marshal(x)
	cb, _ := json.Marshal(y)
	return bytes.Equal(ca, cb)
}

// testSetup is a claudeSetup for one lets path in a temporary Claude Code
// folder, with PATH as given.
func testSetup(t *testing.T, claudeDir, letsPath, path string) (*claudeSetup, *syncBuffer) {
	t.Helper()
	out := &syncBuffer{}
	return &claudeSetup{
		out:      out,
		paths:    claudesetup.Paths{Dir: claudeDir},
		letsPath: letsPath,
		version:  "test",
		approval: 120 * time.Second,
		claude:   claudeCLI{getenv: func(k string) string { return map[string]string{"PATH": path}[k] }},
	}, out
}

func TestSetupClaudeWithoutClaudeOnPathPrintsTheCommand(t *testing.T) {
	e := newTestEnv(t)
	home := e.Env.Getenv("HOME")
	if code := e.run("setup", "claude"); code != 0 {
		t.Fatalf("setup exit %d\n%s%s", code, e.out, e.err)
	}
	out := e.out.String()
	lets, err := lets.Executable(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"`claude` command is not on your PATH",
		"claude mcp add --scope user lets -- " + claudesetup.ShellQuote(lets) + " mcp",
		"hooks added to " + filepath.Join(home, ".claude", "settings.json"),
		"skill installed: " + filepath.Join(home, ".claude", "skills", "lets", "SKILL.md"),
		"Start a new Claude Code session",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output should contain %q:\n%s", want, out)
		}
	}
	settings, err := os.ReadFile(filepath.Join(home, ".claude", "settings.json"))
	if err != nil || !strings.Contains(string(settings), claudesetup.Command(lets, claudesetup.PermissionRequest)) {
		t.Fatalf("settings.json = %s, %v", settings, err)
	}
	if !strings.Contains(string(settings), `"timeout": 130`) {
		t.Errorf("the PermissionRequest hook should wait 120 s + 10 s:\n%s", settings)
	}

	e.out.Reset()
	if code := e.run("setup", "claude"); code != 0 {
		t.Fatalf("second setup exit %d", code)
	}
	if out := e.out.String(); !strings.Contains(out, "hooks already in place") || !strings.Contains(out, "skill up to date") {
		t.Errorf("a second run should change nothing:\n%s", out)
	}
	again, _ := os.ReadFile(filepath.Join(home, ".claude", "settings.json"))
	if !bytes.Equal(again, settings) {
		t.Fatal("a second run rewrote settings.json")
	}

	e.out.Reset()
	if code := e.run("setup", "--uninstall", "claude"); code != 0 {
		t.Fatalf("uninstall exit %d\n%s", code, e.out)
	}
	out = e.out.String()
	for _, want := range []string{"claude mcp remove --scope user lets", "hooks removed", "skill removed"} {
		if !strings.Contains(out, want) {
			t.Errorf("uninstall output should contain %q:\n%s", want, out)
		}
	}
	back, _ := os.ReadFile(filepath.Join(home, ".claude", "settings.json"))
	if !jsonEqual(t, back, []byte(`{}`)) {
		t.Fatalf("after uninstall settings.json = %s", back)
	}
	if _, err := os.Stat(filepath.Join(home, ".claude", "skills", "lets")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("the skill folder is still there")
	}
}

func TestSetupClaudeKeepsOtherToolsAndUninstallRestoresThem(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".claude")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	settings := filepath.Join(dir, "settings.json")
	if err := os.WriteFile(settings, []byte(othersClaudeSettings), 0o644); err != nil {
		t.Fatal(err)
	}
	s, out := testSetup(t, dir, "/opt/Lets Apps/lets", "")
	ctx := context.Background()
	if err := s.install(ctx); err != nil {
		t.Fatalf("install: %v\n%s", err, out)
	}
	first, _ := os.ReadFile(settings)
	for _, want := range []string{"notify-send 'Claude wartet — über'", "~/.claude/done.sh <&>", "grüß dich 🚀", `"` + claudesetup.Command("/opt/Lets Apps/lets", claudesetup.Stop) + `"`} {
		if !strings.Contains(string(first), want) {
			t.Errorf("settings.json lost or lacks %q:\n%s", want, first)
		}
	}
	if bak, _ := os.ReadFile(settings + ".bak"); string(bak) != othersClaudeSettings {
		t.Errorf("settings.json.bak should hold the file as it was, got:\n%s", bak)
	}
	if fi, _ := os.Stat(settings); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %o, want the file's own 644", fi.Mode().Perm())
	}
	if err := s.install(ctx); err != nil {
		t.Fatal(err)
	}
	if second, _ := os.ReadFile(settings); !bytes.Equal(first, second) {
		t.Fatal("setup twice must change nothing")
	}
	if err := s.uninstall(ctx); err != nil {
		t.Fatalf("uninstall: %v\n%s", err, out)
	}
	back, _ := os.ReadFile(settings)
	if !jsonEqual(t, back, []byte(othersClaudeSettings)) {
		t.Fatalf("uninstall must leave exactly the other tools' settings:\n%s", back)
	}
}

func TestSetupClaudeRefusesABrokenSettingsFile(t *testing.T) {
	dir := t.TempDir()
	settings := filepath.Join(dir, "settings.json")
	text := "{\n  // my settings\n  \"model\": \"opus\"\n}\n"
	if err := os.WriteFile(settings, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	s, out := testSetup(t, dir, "/usr/local/bin/lets", "")
	err := s.install(context.Background())
	var ee exitError
	if !errors.As(err, &ee) || ee.code != 1 {
		t.Fatalf("want exit 1, got %v", err)
	}
	for _, want := range []string{"✗ could not add the hooks", settings + ":2:3", "left the file untouched", "skill installed"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output should contain %q:\n%s", want, out)
		}
	}
	if after, _ := os.ReadFile(settings); string(after) != text {
		t.Fatal("a broken settings.json was rewritten")
	}
}

// fakeClaude writes a `claude` script that logs its arguments and keeps
// one MCP registration in a file, like `claude mcp add/get/remove`.
func fakeClaude(t *testing.T) (binDir string, calls func() []string) {
	t.Helper()
	testutil.Command(t, "sh")
	binDir = t.TempDir()
	state := filepath.Join(binDir, "registered")
	log := filepath.Join(binDir, "calls.log")
	script := `#!/bin/sh
printf '%s\n' "$*" >> '` + log + `'
state='` + state + `'
case "$1 $2" in
"mcp get")
	if [ -f "$state" ]; then
		printf 'lets:\n  Scope: User config (available in all your projects)\n  Status: ✓ Connected\n  Type: stdio\n  Command: %s\n  Args: mcp\n  Environment:\n\nTo remove this server, run: claude mcp remove "lets" -s user\n' "$(cat "$state")"
		exit 0
	fi
	echo "No MCP server found with name: lets" >&2
	exit 1;;
"mcp add")
	if [ -f "$state" ]; then echo "MCP server lets already exists in user config" >&2; exit 1; fi
	printf '%s' "$7" > "$state"
	echo "Added stdio MCP server lets with command: $7 $8 to user config";;
"mcp remove")
	if [ ! -f "$state" ]; then echo "No MCP server found" >&2; exit 1; fi
	rm -f "$state";;
esac
`
	if err := os.WriteFile(filepath.Join(binDir, "claude"), []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	return binDir, func() []string {
		data, _ := os.ReadFile(log)
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		if len(lines) == 1 && lines[0] == "" {
			return nil
		}
		_ = os.Remove(log)
		return lines
	}
}

func TestSetupClaudeRegistersTheMCPServerThroughClaude(t *testing.T) {
	bin, calls := fakeClaude(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	path := "/nonexistent-dir:relative/dir:" + bin

	s, out := testSetup(t, dir, "/opt/Lets Apps/lets", path)
	if err := s.install(ctx); err != nil {
		t.Fatalf("install: %v\n%s", err, out)
	}
	want := []string{"mcp get lets", "mcp add --scope user lets -- /opt/Lets Apps/lets mcp"}
	if got := calls(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("claude calls:\n got %q\nwant %q", got, want)
	}
	if !strings.Contains(out.String(), `MCP server "lets" registered for your user`) {
		t.Errorf("output:\n%s", out)
	}

	out.Reset()
	if err := s.install(ctx); err != nil {
		t.Fatal(err)
	}
	if got := calls(); strings.Join(got, "|") != "mcp get lets" {
		t.Fatalf("a second setup should only look: %q", got)
	}
	if !strings.Contains(out.String(), `already registered`) {
		t.Errorf("output:\n%s", out)
	}

	// Lets moved: the old registration is replaced.
	moved, out := testSetup(t, dir, "/usr/local/bin/lets", path)
	if err := moved.install(ctx); err != nil {
		t.Fatalf("install after a move: %v\n%s", err, out)
	}
	want = []string{"mcp get lets", "mcp remove --scope user lets", "mcp add --scope user lets -- /usr/local/bin/lets mcp"}
	if got := calls(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("claude calls after a move:\n got %q\nwant %q", got, want)
	}
	if !strings.Contains(out.String(), "now runs /usr/local/bin/lets (was /opt/Lets Apps/lets mcp)") {
		t.Errorf("output:\n%s", out)
	}

	out.Reset()
	if err := moved.uninstall(ctx); err != nil {
		t.Fatalf("uninstall: %v\n%s", err, out)
	}
	if got := calls(); strings.Join(got, "|") != "mcp get lets|mcp remove --scope user lets" {
		t.Fatalf("uninstall calls: %q", got)
	}
	out.Reset()
	if err := moved.uninstall(ctx); err != nil {
		t.Fatal(err)
	}
	if got := calls(); strings.Join(got, "|") != "mcp get lets" {
		t.Fatalf("a second uninstall should only look: %q", got)
	}
	if !strings.Contains(out.String(), `no MCP server "lets" registered`) {
		t.Errorf("output:\n%s", out)
	}
}

func TestSetupClaudeLeavesSomeoneElsesLetsServer(t *testing.T) {
	bin, calls := fakeClaude(t)
	if err := os.WriteFile(filepath.Join(bin, "registered"), []byte("/usr/bin/node"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, out := testSetup(t, t.TempDir(), "/usr/local/bin/lets", bin)
	if err := s.uninstall(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := calls(); strings.Join(got, "|") != "mcp get lets" {
		t.Fatalf("calls: %q", got)
	}
	if !strings.Contains(out.String(), "runs /usr/bin/node mcp, which is not Lets, so it stays") {
		t.Errorf("output:\n%s", out)
	}
}

func TestSetupClaudePluginDir(t *testing.T) {
	e := newTestEnv(t)
	dir := filepath.Join(t.TempDir(), "my plugin")
	if code := e.run("setup", "claude", "--plugin-dir", dir); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, e.out, e.err)
	}
	for _, rel := range claudesetup.PluginFiles() {
		if _, err := os.Stat(filepath.Join(dir, rel)); err != nil {
			t.Errorf("plugin file %s: %v", rel, err)
		}
	}
	if !strings.Contains(e.out.String(), "claude --plugin-dir '"+dir+"'") {
		t.Errorf("output should say how to try it:\n%s", e.out)
	}
	if _, err := os.Stat(filepath.Join(e.Env.Getenv("HOME"), ".claude")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("--plugin-dir must not touch ~/.claude")
	}
}

func TestSetupUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"setup"},
		{"setup", "cursor"},
		{"setup", "claude", "extra"},
		{"setup", "claude", "--uninstall", "--plugin-dir", "x"},
		{"setup", "claude", "--nope"},
	} {
		e := newTestEnv(t)
		if code := e.run(args...); code != 2 {
			t.Errorf("%q: exit %d, want 2\n%s", args, code, e.err)
		}
	}
}

func TestParseMCPGet(t *testing.T) {
	out := "lets:\n  Scope: User config (available in all your projects)\n  Status: ✓ Connected\n  Type: stdio\n  Command: /home/ada/My Apps/lets\n  Args: mcp\n  Environment:\n"
	if e := parseMCPGet(out); e.command != "/home/ada/My Apps/lets" || e.args != "mcp" {
		t.Fatalf("got %+v", e)
	}
	if e := parseMCPGet("something else"); e.command != "" {
		t.Fatalf("got %+v", e)
	}
}

func TestClaudeIsFoundWhereItsInstallersPutIt(t *testing.T) {
	home := t.TempDir()
	local := filepath.Join(home, ".claude", "local")
	if err := os.MkdirAll(local, 0o700); err != nil {
		t.Fatal(err)
	}
	cli := claudeCLI{getenv: func(k string) string { return map[string]string{"HOME": home, "PATH": "/nonexistent"}[k] }}
	if _, ok := cli.find(); ok {
		t.Fatal("found a claude that is not there")
	}
	if err := os.WriteFile(filepath.Join(local, "claude"), []byte("#!/bin/sh\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok := cli.find(); ok {
		t.Fatal("a file that is not executable is not a program")
	}
	if err := os.Chmod(filepath.Join(local, "claude"), 0o700); err != nil {
		t.Fatal(err)
	}
	if p, ok := cli.find(); !ok || p != filepath.Join(local, "claude") {
		t.Fatalf("find = %q, %v", p, ok)
	}
}

// Point: the tray's "Set up Claude…" runs the same set-up in-process and
// says how it went in one line with the details in the tooltip.
func TestTraySetUpRunsInProcessAndSaysHowItWent(t *testing.T) {
	e := newTestEnv(t)
	out, manual, err := setupClaudeInProcess(context.Background(), e.Env)
	if err != nil || !manual {
		t.Fatalf("in-process setup = %v, manual %v\n%s", err, manual, out)
	}
	if !strings.Contains(out, "hooks added to") {
		t.Fatalf("output:\n%s", out)
	}
	if n := lets.ClaudeTrayNote(out, manual, err); !strings.Contains(n.Text, "install Claude Code") || !strings.Contains(n.Tooltip, "not on your PATH") {
		t.Errorf("note without claude = %+v", n)
	}
	if n := lets.ClaudeTrayNote("…", false, nil); n.Text != "Claude is connected to Lets" {
		t.Errorf("note on success = %+v", n)
	}
	failed := "Connecting…\n  ✓ skill installed\n  ✗ could not add the hooks: settings.json:2:3: invalid character '/'\n"
	n := lets.ClaudeTrayNote(failed, false, exitError{code: 1})
	if n.Text != "Claude set-up did not fully work" || !strings.HasPrefix(n.Tooltip, "could not add the hooks: settings.json:2:3") || !strings.Contains(n.Tooltip, "lets setup claude") {
		t.Errorf("note on failure = %+v", n)
	}
}

// Point: the real Claude Code CLI (the pinned one of `make claude-tools`)
// takes the registration: setup adds the MCP server to a private HOME,
// doctor reads it back through `claude mcp get lets`, a second setup only
// looks, uninstall removes it.
func TestSetupClaudeWithTheRealClaudeCLI(t *testing.T) {
	claude := testutil.Claude(t)
	home := t.TempDir()
	lets := filepath.Join(home, "My Apps", "lets")
	if err := os.MkdirAll(filepath.Dir(lets), 0o700); err != nil {
		t.Fatal(err)
	}
	// A lets that ends at once: claude's health check of it fails, which
	// `claude mcp get` reports without failing.
	if err := os.WriteFile(lets, []byte("#!/bin/sh\nexit 0\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	var environ []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, claudesetup.ConfigDirEnv+"=") && !strings.HasPrefix(kv, "ANTHROPIC_") {
			environ = append(environ, kv)
		}
	}
	environ = append(environ, "HOME="+home)
	path := filepath.Dir(claude)
	s, out := testSetup(t, filepath.Join(home, ".claude"), lets, path)
	s.claude.environ = environ
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := s.install(ctx); err != nil {
		t.Fatalf("install: %v\n%s", err, out)
	}
	if !strings.Contains(out.String(), `MCP server "lets" registered for your user`) {
		t.Fatalf("output:\n%s", out)
	}
	userConfig, err := os.ReadFile(filepath.Join(home, ".claude.json"))
	if err != nil || !strings.Contains(string(userConfig), lets) {
		t.Fatalf("~/.claude.json = %s, %v", userConfig, err)
	}

	vars := map[string]string{"HOME": home, "PATH": path}
	d := &doctor{env: &Env{Getenv: func(k string) string { return vars[k] }}, letsPath: lets, claude: s.claude, timeout: time.Second}
	if r := claudeLines(d.checkClaude(ctx))["claude mcp"]; r.level != checkOK || !strings.Contains(r.detail, lets+" mcp") {
		t.Errorf("doctor: %+v", r)
	}

	out.Reset()
	if err := s.install(ctx); err != nil || !strings.Contains(out.String(), "already registered") {
		t.Fatalf("second install: %v\n%s", err, out)
	}
	out.Reset()
	if err := s.uninstall(ctx); err != nil || !strings.Contains(out.String(), `MCP server "lets" removed`) {
		t.Fatalf("uninstall: %v\n%s", err, out)
	}
	if userConfig, _ := os.ReadFile(filepath.Join(home, ".claude.json")); strings.Contains(string(userConfig), lets) {
		t.Fatalf("~/.claude.json still names lets:\n%s", userConfig)
	}
}

// Point: the real Claude Code CLI accepts the plugin layout of
// --plugin-dir (`claude plugin validate`) and sees its hooks, MCP server
// and skill.
func TestSetupClaudePluginPassesClaudesValidation(t *testing.T) {
	claude := testutil.Claude(t)
	e := newTestEnv(t)
	home := e.Env.Getenv("HOME")
	dir := filepath.Join(t.TempDir(), "lets-plugin")
	if code := e.run("setup", "claude", "--plugin-dir", dir); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, e.out, e.err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, claude, "plugin", "validate", dir)
	cmd.Dir = home
	var environ []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, claudesetup.ConfigDirEnv+"=") {
			environ = append(environ, kv)
		}
	}
	cmd.Env = append(environ, "HOME="+home)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("claude plugin validate: %v\n%s", err, out)
	}
	for _, want := range []string{"PermissionRequest * command", "mcpServers: lets stdio", "skills: lets"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("claude plugin validate should list %q:\n%s", want, out)
		}
	}
}

func TestSetupClaudeWarnsAboutALetsInATemporaryFolder(t *testing.T) {
	s, out := testSetup(t, t.TempDir(), filepath.Join(os.TempDir(), "go-build1", "exe", "lets"), "")
	if err := s.install(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "runs from a temporary folder") {
		t.Errorf("output should warn about the temporary folder:\n%s", out)
	}
	s, out = testSetup(t, t.TempDir(), "/usr/local/bin/lets", "")
	if err := s.install(context.Background()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "temporary folder") {
		t.Errorf("no warning for an installed lets:\n%s", out)
	}
}

// #22: `lets setup claude` allows Lets' own MCP tools (mcp__lets), so in
// Claude Code's default mode an open, listen or send does not wait for a
// pad or the terminal; --ask-for-lets-tools takes the rule out again, and
// --uninstall removes it with the hooks.
func TestSetupClaudeAllowsLetsOwnToolsUnlessAsked(t *testing.T) {
	e := newTestEnv(t)
	home := e.Env.Getenv("HOME")
	settingsPath := filepath.Join(home, ".claude", "settings.json")
	allowed := func() bool {
		b, err := os.ReadFile(settingsPath)
		if err != nil {
			t.Fatal(err)
		}
		var v struct {
			Permissions struct {
				Allow []string `json:"allow"`
			} `json:"permissions"`
		}
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		return slices.Contains(v.Permissions.Allow, "mcp__lets")
	}
	if code := e.run("setup", "claude"); code != 0 {
		t.Fatalf("setup exit %d\n%s%s", code, e.out, e.err)
	}
	if !allowed() || !strings.Contains(e.out.String(), "Lets' own tools (open a window, listen, send) run without asking") {
		t.Fatalf("setup did not allow Lets' tools:\n%s", e.out)
	}
	e.out.Reset()
	if code := e.run("setup", "claude", "--ask-for-lets-tools"); code != 0 {
		t.Fatalf("setup --ask-for-lets-tools exit %d\n%s%s", code, e.out, e.err)
	}
	if allowed() || !strings.Contains(e.out.String(), "asks again before each of Lets' own tools") || !strings.Contains(e.out.String(), "hooks already in place") {
		t.Fatalf("the opt-out did not take the rule out:\n%s", e.out)
	}
	if code := e.run("setup", "claude"); code != 0 || !allowed() {
		t.Fatalf("setup again: exit %d, allowed %v", code, allowed())
	}
	if code := e.run("setup", "--uninstall", "claude"); code != 0 {
		t.Fatalf("uninstall exit %d", code)
	}
	if back, _ := os.ReadFile(settingsPath); !jsonEqual(t, back, []byte(`{}`)) {
		t.Fatalf("after uninstall settings.json = %s", back)
	}
}
