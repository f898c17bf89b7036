package codexsetup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/pelletier/go-toml/v2"
)

// HomeEnv names Codex's own folder when it is not ~/.codex.
const HomeEnv = "CODEX_HOME"

// InstallHint is how to get Codex, for a person without it.
const InstallHint = "npm install -g @openai/codex"

// ConfigFile is Codex's config.toml for this person (CODEX_HOME, or
// ~/.codex).
func ConfigFile(getenv func(string) string) (string, error) {
	dir := getenv(HomeEnv)
	if dir == "" {
		home := getenv("HOME")
		if home == "" {
			return "", fmt.Errorf("Codex's folder is unknown: set HOME, or %s to Codex's folder", HomeEnv)
		}
		dir = filepath.Join(home, ".codex")
	}
	return filepath.Join(dir, "config.toml"), nil
}

// FindCodex is the codex program on getenv's PATH, or "".
func FindCodex(getenv func(string) string) string {
	for _, dir := range filepath.SplitList(getenv("PATH")) {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, "codex")
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// Status is what a config says of Lets' server, for `lets doctor` and the
// home page.
type Status struct {
	// File is the config.toml looked at; Exists says it is there.
	File   string
	Exists bool
	// ReadErr: the file is there but cannot be read. NotTOML: it is not
	// valid TOML (Codex refuses it too). Markers: Lets' marker comments
	// are broken (its words say what to do).
	ReadErr error
	NotTOML error
	Markers error
	// SetUp: the block `lets setup codex` adds is there. Command, Args and
	// EnvVars are what it registers.
	SetUp   bool
	Command string
	Args    []string
	EnvVars []string
	// Theirs is the command of a server called lets the person added
	// themselves ("" none).
	Theirs string
	// TheirsThere: there is such a server.
	TheirsThere bool
}

// MissingVars are the PassedVariables the block does not pass on.
func (s Status) MissingVars() []string {
	var out []string
	for _, v := range PassedVariables {
		if !slices.Contains(s.EnvVars, v) {
			out = append(out, v)
		}
	}
	return out
}

// CommandMissing says the registered program is not there any more.
func (s Status) CommandMissing() bool {
	if !s.SetUp || s.Command == "" {
		return false
	}
	_, err := os.Stat(s.Command)
	return err != nil
}

// Check reads file (symlinks followed) and says what it holds of Lets'.
// A file that is not there is no error: Codex then runs on its defaults.
func Check(file string) Status {
	st := Status{File: file}
	cfg, err := os.ReadFile(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return st
	case err != nil:
		st.Exists, st.ReadErr = true, err
		return st
	}
	st.Exists = true
	return inspect(cfg, st)
}

// inspect fills st from the config's bytes.
func inspect(cfg []byte, st Status) Status {
	if _, _, err := check(cfg); err != nil {
		st.NotTOML = err
		return st
	}
	start, end, ok, err := findBlock(cfg)
	if err != nil {
		st.Markers = err
		return st
	}
	rest := cfg
	if ok {
		var doc struct {
			Servers map[string]struct {
				Command string   `toml:"command"`
				Args    []string `toml:"args"`
				EnvVars []string `toml:"env_vars"`
			} `toml:"mcp_servers"`
		}
		if err := toml.Unmarshal(cfg[start:end], &doc); err != nil {
			st.Markers = &ConfigError{Problem: "the lines between Lets' two marker comments were changed by hand; run `lets setup codex --uninstall`, then `lets setup codex`", Err: err}
			return st
		}
		srv := doc.Servers[ServerName]
		st.SetUp, st.Command, st.Args, st.EnvVars = true, srv.Command, srv.Args, srv.EnvVars
		rest = append(append([]byte{}, cfg[:start]...), cfg[end:]...)
	}
	if has, cmd, err := check(rest); err == nil && has {
		st.TheirsThere, st.Theirs = true, cmd
	}
	return st
}
