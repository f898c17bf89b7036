package front_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lets-app/lets/app/front"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

type execCall struct {
	path       string
	argv, env  []string
	called     bool
	returnsErr error
}

// install lays out a front and, when core, an executable lets-core beside
// it, and returns the front's path.
func install(t *testing.T, core bool) string {
	t.Helper()
	dir := t.TempDir()
	self := filepath.Join(dir, "lets")
	if err := os.WriteFile(self, []byte("front"), 0o755); err != nil {
		t.Fatal(err)
	}
	if core {
		if err := os.WriteFile(filepath.Join(dir, front.CoreName), []byte("core"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return self
}

func deps(self string, call *execCall, stdin string, env map[string]string) (front.Deps, *bytes.Buffer, *bytes.Buffer) {
	var out, errOut bytes.Buffer
	environ := []string{"PATH=/usr/bin", "LANG=C.UTF-8"}
	for k, v := range env {
		environ = append(environ, k+"="+v)
	}
	return front.Deps{
		Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errOut,
		Getenv:     func(k string) string { return env[k] },
		Environ:    func() []string { return environ },
		Executable: func() (string, error) { return self, nil },
		Exec: func(path string, argv, env []string) error {
			call.path, call.argv, call.env, call.called = path, argv, env, true
			if call.returnsErr != nil {
				return call.returnsErr
			}
			return errors.New("exec returned") // a real exec does not return
		},
	}, &out, &errOut
}

// Every command but `hook` goes to lets-core beside the front, with the
// same arguments and environment, plus the front's own path.
func TestOtherCommandsGoToLetsCore(t *testing.T) {
	self := install(t, true)
	var call execCall
	d, _, _ := deps(self, &call, "", map[string]string{front.ProgramEnv: "/somewhere/else/lets"})
	front.Run([]string{"lets", "open", "graph", "--json"}, d)
	if !call.called {
		t.Fatal("lets open was not handed to lets-core")
	}
	if want := filepath.Join(filepath.Dir(self), front.CoreName); call.path != want {
		t.Errorf("exec %q, want %q", call.path, want)
	}
	if want := []string{"lets", "open", "graph", "--json"}; !slices.Equal(call.argv, want) {
		t.Errorf("argv %q, want %q", call.argv, want)
	}
	var programs []string
	for _, kv := range call.env {
		if v, ok := strings.CutPrefix(kv, front.ProgramEnv+"="); ok {
			programs = append(programs, v)
		}
	}
	if !slices.Equal(programs, []string{self}) {
		t.Errorf("%s in lets-core's environment: %q, want only %q", front.ProgramEnv, programs, self)
	}
	if !slices.Contains(call.env, "LANG=C.UTF-8") || !slices.Contains(call.env, "PATH=/usr/bin") {
		t.Errorf("the rest of the environment was not passed on: %q", call.env)
	}

	// Plain `lets` (the desktop app) too.
	call = execCall{}
	front.Run([]string{"lets"}, d)
	if !call.called || !slices.Equal(call.argv, []string{"lets"}) {
		t.Errorf("plain lets: exec %v %q", call.called, call.argv)
	}
}

// `lets hook` runs in the front: lets-core is not started, even when it is
// missing, and a hook that cannot reach Lets prints nothing and exits 0.
func TestHookRunsInTheFront(t *testing.T) {
	for _, core := range []bool{true, false} {
		self := install(t, core)
		var call execCall
		home := t.TempDir()
		env := map[string]string{"HOME": home, "LETS_HOME": filepath.Join(home, "lets"), "PAD_LATTICE_SOCKET": filepath.Join(home, "none.sock")}
		d, out, _ := deps(self, &call, `{"session_id":"s1","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash"}`, env)
		if code := front.Run([]string{"lets", "hook", "PreToolUse"}, d); code != 0 {
			t.Errorf("core beside %v: exit %d, want 0", core, code)
		}
		if call.called {
			t.Errorf("core beside %v: the hook started lets-core", core)
		}
		if out.Len() != 0 {
			t.Errorf("core beside %v: the hook printed %q with Lets not running", core, out)
		}
	}
	// A malformed entry still exits 0 and says why on stderr.
	self := install(t, true)
	var call execCall
	d, out, errOut := deps(self, &call, "", map[string]string{})
	if code := front.Run([]string{"lets", "hook"}, d); code != 0 || out.Len() != 0 || !strings.Contains(errOut.String(), "hook event name") {
		t.Errorf("lets hook without an event: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// Without lets-core the front says what is missing and what to do.
func TestMissingLetsCoreSaysWhatToDo(t *testing.T) {
	self := install(t, false)
	var call execCall
	d, _, errOut := deps(self, &call, "", nil)
	if code := front.Run([]string{"lets", "status"}, d); code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if call.called {
		t.Error("exec was called without a lets-core")
	}
	msg := errOut.String()
	for _, want := range []string{front.CoreName, "Reinstall Lets", "make build"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q does not mention %q", msg, want)
		}
	}
	var missing *front.MissingCoreError
	if _, _, err := front.Locate(func() (string, error) { return self, nil }); !errors.As(err, &missing) {
		t.Errorf("Locate: %v, want a *MissingCoreError", err)
	}

	// A lets-core that is not executable, or a folder, is refused too.
	dir := filepath.Dir(self)
	if err := os.WriteFile(filepath.Join(dir, front.CoreName), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := front.Locate(func() (string, error) { return self, nil }); err == nil || !strings.Contains(err.Error(), "not an executable") {
		t.Errorf("Locate with a 0644 lets-core: %v", err)
	}
}

// A failed exec is reported, not swallowed.
func TestExecFailureIsReported(t *testing.T) {
	self := install(t, true)
	call := execCall{returnsErr: errors.New("exec format error")}
	d, _, errOut := deps(self, &call, "", nil)
	if code := front.Run([]string{"lets", "status"}, d); code != 1 || !strings.Contains(errOut.String(), "exec format error") || !strings.Contains(errOut.String(), "could not start") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

// A symlink to the front (a link on PATH, /usr/local/bin/lets → the real
// one) finds lets-core beside the real file, and lets-core is told the
// real path.
func TestSymlinkedFrontFindsLetsCore(t *testing.T) {
	self := install(t, true)
	link := filepath.Join(t.TempDir(), "lets")
	if err := os.Symlink(self, link); err != nil {
		t.Fatal(err)
	}
	got, core, err := front.Locate(func() (string, error) { return link, nil })
	realSelf, _ := filepath.EvalSymlinks(self)
	if err != nil || got != realSelf || core != filepath.Join(filepath.Dir(realSelf), front.CoreName) {
		t.Errorf("Locate(link) = %q, %q, %v; want %q and lets-core beside it", got, core, err, realSelf)
	}
}

// The front exists to start fast: it must not link the full program or
// its heavy parts (the host, the daemon, JSON Schema, MCP).
func TestFrontStaysSmall(t *testing.T) {
	gobin := testutil.Command(t, "go")
	root, err := testutil.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(gobin, "list", "-deps", "./app/front/lets")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	linked := strings.Fields(string(out))
	for _, heavy := range []string{
		"github.com/lets-app/lets/app",
		"github.com/lets-app/lets/app/cli",
		"github.com/lets-app/lets/backend/host",
		"github.com/lets-app/lets/backend/daemon",
		"github.com/lets-app/lets/backend/manifest",
		"github.com/santhosh-tekuri/jsonschema/v6",
		"github.com/modelcontextprotocol/go-sdk/mcp",
		"gitlab.com/gomidi/midi/v2",
		"html/template",
	} {
		if slices.Contains(linked, heavy) {
			t.Errorf("the lets front links %s; keep it to what a hook needs (see package app/front)", heavy)
		}
	}
	if n := len(linked); n > 260 {
		t.Errorf("the lets front links %d packages; a hook needs far fewer", n)
	}
}
