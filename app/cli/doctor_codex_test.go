package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	letsapp "github.com/lets-app/lets/app/lets"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// codexDoctor is a doctor for e's environment (its PATH and CODEX_HOME)
// that checks Codex only.
func codexDoctor(t *testing.T, e *testEnv) (*doctor, string) {
	t.Helper()
	lets, err := letsapp.Executable(e.Env.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	return &doctor{env: e.Env, letsPath: lets}, lets
}

// codexChecks runs the Codex checks and returns them by name.
func codexChecks(t *testing.T, d *doctor) map[string]checkResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out := map[string]checkResult{}
	for _, r := range d.checkCodex(ctx) {
		out[r.name] = r
	}
	if len(out) != 2 {
		t.Fatalf("want the checks codex and codex mcp, got %+v", out)
	}
	return out
}

// wantCheck fails unless r has level and says every one of words.
func wantCheck(t *testing.T, what string, r checkResult, level checkLevel, words ...string) {
	t.Helper()
	if r.level != level {
		t.Errorf("%s: [%s] %s, want [%s]", what, r.level.mark(), r.detail, level.mark())
	}
	for _, w := range words {
		if !strings.Contains(r.detail, w) {
			t.Errorf("%s: %q does not say %q", what, r.detail, w)
		}
	}
}

// Issue #25: without Codex, doctor says how to install it and that
// `lets setup codex` connects it; nothing is a problem.
func TestDoctorCodexNotInstalled(t *testing.T) {
	e, _ := codexEnv(t, false)
	d, _ := codexDoctor(t, e)
	got := codexChecks(t, d)
	wantCheck(t, "codex", got["codex"], checkInfo, "not installed", "npm install -g @openai/codex", "lets setup codex")
	wantCheck(t, "codex mcp", got["codex mcp"], checkInfo, "`lets setup codex` adds it")
}

// Codex on PATH: its version, and the config as `lets setup codex` left
// it is ok; each way the config can go wrong is a warning that says what
// to do.
func TestDoctorCodexSetUpAndWhatGoesWrong(t *testing.T) {
	e, file := codexEnv(t, true)
	codex := filepath.Join(filepath.SplitList(e.Env.Getenv("PATH"))[0], "codex")
	if err := os.WriteFile(codex, []byte("#!/bin/sh\necho 'codex-cli 9.8.7'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	d, lets := codexDoctor(t, e)
	got := codexChecks(t, d)
	wantCheck(t, "codex", got["codex"], checkOK, codex, "version 9.8.7")
	wantCheck(t, "codex mcp before setup", got["codex mcp"], checkInfo, "not connected to Lets yet", "run `lets setup codex`")

	if code := e.run("setup", "codex"); code != 0 {
		t.Fatalf("setup: exit %d: %s", code, e.err.String())
	}
	good, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	wantCheck(t, "codex mcp after setup", codexChecks(t, d)["codex mcp"], checkOK, file, lets+" mcp", "XDG_RUNTIME_DIR and LETS_HOME")

	cases := []struct {
		name   string
		config string
		words  []string
	}{
		{"not TOML", string(good) + "oops = \n", []string{"has a mistake", "fix it, then run `lets setup codex`"}},
		{"another lets", strings.Replace(string(good), lets, "/opt/other/lets", 1), []string{"/opt/other/lets", "not there any more", "run `lets setup codex`"}},
		{"not this lets", strings.Replace(string(good), lets, codex, 1), []string{"runs " + codex + ", not this lets", "run `lets setup codex` to point it here"}},
		{"no env_vars", strings.Replace(string(good), `env_vars = ["XDG_RUNTIME_DIR", "LETS_HOME"]`, `env_vars = ["XDG_RUNTIME_DIR"]`, 1), []string{"does not get LETS_HOME", "run `lets setup codex`"}},
		{"other args", strings.Replace(string(good), `args = ["mcp"]`, `args = ["serve"]`, 1), []string{`"serve"`, "run `lets setup codex`"}},
		{"their own lets", "[mcp_servers.lets]\ncommand = \"npx\"\n", []string{"Lets did not add", "codex mcp remove lets"}},
		{"broken markers", strings.Replace(string(good), "# End of what `lets setup codex` added.", "", 1), []string{"by hand"}},
	}
	for _, c := range cases {
		if err := os.WriteFile(file, []byte(c.config), 0o600); err != nil {
			t.Fatal(err)
		}
		wantCheck(t, c.name, codexChecks(t, d)["codex mcp"], checkWarn, c.words...)
	}

	if os.Geteuid() != 0 {
		if err := os.WriteFile(file, good, 0o000); err != nil {
			t.Fatal(err)
		}
		wantCheck(t, "unreadable", codexChecks(t, d)["codex mcp"], checkWarn, "cannot be read", "readable")
	}
}

// A codex that does not answer is given up on within the timeout, with
// a warning that says what to do.
func TestDoctorCodexVersionTimesOut(t *testing.T) {
	e, _ := codexEnv(t, true)
	codex := filepath.Join(filepath.SplitList(e.Env.Getenv("PATH"))[0], "codex")
	if err := os.WriteFile(codex, []byte("#!/bin/sh\nexec sleep 60\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	d, _ := codexDoctor(t, e)
	d.codexTimeout = 300 * time.Millisecond
	start := time.Now()
	got := codexChecks(t, d)
	wantCheck(t, "codex", got["codex"], checkWarn, "did not answer within 300ms", "npm install -g @openai/codex")
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the version check took %s despite its 300ms timeout", took)
	}
}

// The real, pinned Codex CLI: `lets doctor` names it and its version.
func TestDoctorCodexRealVersion(t *testing.T) {
	real := testutil.Codex(t)
	e, _ := codexEnv(t, false)
	bin := filepath.SplitList(e.Env.Getenv("PATH"))[0]
	if err := os.Symlink(real, filepath.Join(bin, "codex")); err != nil {
		t.Fatal(err)
	}
	base := e.Env.Getenv
	e.Env.Getenv = func(k string) string {
		if k == "PATH" {
			// node, for the codex script.
			return bin + string(os.PathListSeparator) + os.Getenv("PATH")
		}
		return base(k)
	}
	if code := e.run("doctor"); code != 0 {
		t.Logf("doctor exit %d (other checks may fail here)", code)
	}
	out := e.out.String()
	var line string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "] codex ") && !strings.Contains(l, "] codex mcp") {
			line = l
		}
	}
	if !strings.Contains(line, "[ok  ]") || !strings.Contains(line, "version 0.169.0") {
		t.Errorf("doctor's codex line %q, want ok with version 0.169.0:\n%s", line, out)
	}
	if !strings.Contains(out, "] codex mcp ") || !strings.Contains(out, "not connected to Lets yet; run `lets setup codex`") {
		t.Errorf("doctor should say Codex is not connected yet:\n%s", out)
	}
}
