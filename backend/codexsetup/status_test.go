package codexsetup

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Check reads what `lets setup codex` left: nothing for a missing file;
// the block with its command, args and env_vars; a server of theirs; a
// broken file; and the variables a hand-edited block no longer passes.
func TestCheckReadsTheConfig(t *testing.T) {
	file := filepath.Join(t.TempDir(), "config.toml")
	if st := Check(file); st.Exists || st.SetUp || st.NotTOML != nil {
		t.Errorf("no file: %+v", st)
	}
	cfg, _, err := Install([]byte(theirs), lets)
	if err != nil {
		t.Fatal(err)
	}
	write := func(b string) Status {
		t.Helper()
		if err := os.WriteFile(file, []byte(b), 0o600); err != nil {
			t.Fatal(err)
		}
		return Check(file)
	}
	st := write(string(cfg))
	if !st.Exists || !st.SetUp || st.Command != lets.Command || !slices.Equal(st.Args, []string{"mcp"}) || len(st.MissingVars()) != 0 || st.TheirsThere {
		t.Errorf("set up: %+v", st)
	}
	if !st.CommandMissing() {
		t.Errorf("%s does not exist here, yet CommandMissing is false", lets.Command)
	}
	if st := write(strings.Replace(string(cfg), `"XDG_RUNTIME_DIR", `, "", 1)); !slices.Equal(st.MissingVars(), []string{"XDG_RUNTIME_DIR"}) {
		t.Errorf("without XDG_RUNTIME_DIR: missing %v", st.MissingVars())
	}
	if st := write("[mcp_servers.lets]\ncommand = \"npx\"\n"); st.SetUp || !st.TheirsThere || st.Theirs != "npx" {
		t.Errorf("theirs: %+v", st)
	}
	if st := write("a = \n"); st.NotTOML == nil || st.SetUp {
		t.Errorf("not TOML: %+v", st)
	}
	if st := write(beginMarker + "\n[mcp_servers.lets]\n"); st.Markers == nil {
		t.Errorf("no end marker: %+v", st)
	}
}

// ConfigFile is CODEX_HOME's config.toml, else ~/.codex's; without
// either it says what to set.
func TestConfigFile(t *testing.T) {
	env := map[string]string{"HOME": "/home/ana"}
	get := func(k string) string { return env[k] }
	if f, _ := ConfigFile(get); f != "/home/ana/.codex/config.toml" {
		t.Errorf("HOME: %s", f)
	}
	env[HomeEnv] = "/srv/codex"
	if f, _ := ConfigFile(get); f != "/srv/codex/config.toml" {
		t.Errorf("CODEX_HOME: %s", f)
	}
	if _, err := ConfigFile(func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), HomeEnv) {
		t.Errorf("neither: %v", err)
	}
}
