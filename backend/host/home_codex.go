package host

import (
	"net/http"

	"github.com/lets-app/lets/backend/codexsetup"
)

// The home page's Codex card (issue #25): whether Codex is installed and
// whether `lets setup codex` put Lets' MCP server in its config.toml,
// with "Set up Codex" and "Remove" buttons when the app can run the
// set-up (HomeOptions.SetupCodex, the same code as the command).

// homeCodex is the Codex card's state.
type homeCodex struct {
	// CLI: `codex` is on the PATH (CLIPath).
	CLI     bool   `json:"cli"`
	CLIPath string `json:"cli_path,omitempty"`
	// SetUp: the config has the block `lets setup codex` writes; Stale:
	// it is there but no longer right (its lets program is gone, or it
	// does not pass on what `lets mcp` needs), so set up again.
	SetUp bool `json:"set_up"`
	Stale bool `json:"stale,omitempty"`
	// ConfigPath is Codex's config.toml ("" when Codex's folder is
	// unknown).
	ConfigPath string `json:"config_path"`
	// Problem says, kindly, why the config cannot be set up as it is and
	// what to do ("" none).
	Problem string `json:"problem,omitempty"`
}

// codexSetup reads Codex's state as `lets doctor` does.
func (s *Server) codexSetup() homeCodex {
	c := homeCodex{CLIPath: codexsetup.FindCodex(s.opts.Getenv)}
	c.CLI = c.CLIPath != ""
	file, err := codexsetup.ConfigFile(s.opts.Getenv)
	if err != nil {
		c.Problem = "Lets cannot tell where Codex keeps its settings (neither HOME nor CODEX_HOME is set for Lets)."
		return c
	}
	c.ConfigPath = file
	st := codexsetup.Check(file)
	switch {
	case st.ReadErr != nil:
		c.Problem = "Codex's settings file cannot be read. Check that it is yours and readable, then set up again."
	case st.NotTOML != nil:
		c.Problem = "Codex's settings file has a mistake, so Codex cannot read it either. Fix it (Details shows where it is), then set up again."
	case st.Markers != nil:
		c.Problem = "Lets' lines in Codex's settings file were changed by hand. Take out the lines between Lets' two marker comments, then set up again."
	case st.TheirsThere && !st.SetUp:
		c.Problem = "Codex's settings already have a tool server called “lets” that Lets did not add. Take it out of Codex's settings (Details shows where they are), then set up again."
	}
	c.SetUp = st.SetUp && c.Problem == ""
	c.Stale = c.SetUp && (st.CommandMissing() || len(st.MissingVars()) > 0 || len(st.Args) != 1 || st.Args[0] != "mcp")
	return c
}

// handleHomeSetupCodex runs the app's `lets setup codex` (remove:
// `--uninstall`) and passes its words on.
func (s *Server) handleHomeSetupCodex(remove bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		setup := s.opts.Home.SetupCodex
		if setup == nil {
			cmd := "lets setup codex"
			if remove {
				cmd += " --uninstall"
			}
			writeError(w, http.StatusNotFound, "not_available", "this Lets cannot set up Codex from here; run `"+cmd+"` in a terminal")
			return
		}
		if !s.homeAct.codex.TryLock() {
			writeError(w, http.StatusConflict, "busy", "Lets is already changing Codex's settings; wait a moment")
			return
		}
		defer s.homeAct.codex.Unlock()
		res := setup(r.Context(), remove)
		s.opts.Log.Info("Codex set-up from the home page", "remove", remove, "done", res.Done, "text", res.Text)
		writeJSON(w, http.StatusOK, res)
	}
}
