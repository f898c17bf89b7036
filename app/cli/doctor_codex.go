package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"time"

	letsapp "github.com/lets-app/lets/app/lets"
	"github.com/lets-app/lets/backend/codexsetup"
	"github.com/lets-app/lets/backend/textsafe"
)

// doctorCodexTimeout bounds `codex --version` (a Node program that starts
// Codex's own binary).
const doctorCodexTimeout = 10 * time.Second

// checkCodex checks what `lets setup codex` set up (issue #25): where
// Codex is and its version, and whether its config.toml has Lets' MCP
// server, pointing at this lets and passing on what `lets mcp` needs.
func (d *doctor) checkCodex(ctx context.Context) []checkResult {
	lets := d.letsPath
	if lets == "" {
		lets, _ = letsapp.Executable(d.env.Getenv)
	}
	codex := codexsetup.FindCodex(d.env.Getenv)
	return []checkResult{d.codexResult(ctx, codex), codexMCPResult(d.env.Getenv, lets, codex != "")}
}

// codexResult says where Codex is and which version it says it is.
func (d *doctor) codexResult(ctx context.Context, codex string) checkResult {
	r := checkResult{name: "codex"}
	if codex == "" {
		r.level, r.detail = checkInfo, "Codex is not installed (no `codex` on your PATH); to use it with Lets, install it with `"+codexsetup.InstallHint+"`, then run `lets setup codex`"
		return r
	}
	timeout := d.codexTimeout
	if timeout <= 0 {
		timeout = doctorCodexTimeout
	}
	version, err := codexVersion(ctx, codex, timeout)
	if err != nil {
		r.level, r.detail = checkWarn, fmt.Sprintf("%s did not say its version (%v); if Codex does not start either, install it again with `%s`", codex, err, codexsetup.InstallHint)
		return r
	}
	r.level, r.detail = checkOK, fmt.Sprintf("%s, version %s (from your PATH)", codex, version)
	return r
}

// codexVersion runs `codex --version` within timeout and returns the
// version it prints ("codex-cli 0.169.0" gives "0.169.0").
func codexVersion(ctx context.Context, codex string, timeout time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, codex, "--version")
	var out bytes.Buffer
	cmd.Stdout = &out
	// Codex's own binary may outlive the Node program that started it:
	// do not wait for it to close the output for long.
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if ctx.Err() != nil {
		return "", fmt.Errorf("it did not answer within %s", timeout)
	}
	if err != nil {
		return "", fmt.Errorf("`codex --version` failed: %w", err)
	}
	line, _, _ := strings.Cut(strings.TrimSpace(out.String()), "\n")
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return "", errors.New("`codex --version` printed nothing")
	}
	return textsafe.Line(fields[len(fields)-1], 40), nil
}

// codexMCPResult says whether Codex's config.toml has Lets' MCP server
// as `lets setup codex` writes it.
func codexMCPResult(getenv func(string) string, lets string, installed bool) checkResult {
	r := checkResult{name: "codex mcp"}
	file, err := codexsetup.ConfigFile(getenv)
	if err != nil {
		r.level, r.detail = checkInfo, err.Error()+"; cannot check Codex's set-up"
		return r
	}
	st := codexsetup.Check(file)
	again := "run `lets setup codex`"
	switch {
	case st.ReadErr != nil:
		r.level, r.detail = checkWarn, fmt.Sprintf("%s cannot be read (%v); check that it is yours and readable, then %s", file, st.ReadErr, again)
	case st.NotTOML != nil:
		r.level, r.detail = checkWarn, fmt.Sprintf("%s has a mistake, so Codex cannot read it either (%v); fix it, then %s", file, st.NotTOML, again)
	case st.Markers != nil:
		r.level, r.detail = checkWarn, fmt.Sprintf("%s: %v", file, st.Markers)
	case st.TheirsThere && !st.SetUp:
		r.level, r.detail = checkWarn, fmt.Sprintf("%s has an MCP server called \"lets\" that Lets did not add (it runs %q); take it out (or run `codex mcp remove lets`), then %s", file, st.Theirs, again)
	case !st.SetUp && installed:
		r.level, r.detail = checkInfo, "Codex is not connected to Lets yet; "+again+" to give it Lets' tools (its sessions reach the pads through `lets codex`)"
	case !st.SetUp:
		r.level, r.detail = checkInfo, "Lets' MCP server is not in "+file+"; `lets setup codex` adds it"
	case st.CommandMissing():
		r.level, r.detail = checkWarn, fmt.Sprintf("Lets' MCP server in %s runs %s, which is not there any more; %s with the lets you use now", file, st.Command, again)
	case lets != "" && st.Command != lets:
		r.level, r.detail = checkWarn, fmt.Sprintf("Lets' MCP server in %s runs %s, not this lets (%s); %s to point it here", file, st.Command, lets, again)
	case !slices.Equal(st.Args, []string{"mcp"}):
		r.level, r.detail = checkWarn, fmt.Sprintf("Lets' MCP server in %s runs %s with %q instead of \"mcp\"; %s to put it right", file, st.Command, st.Args, again)
	case len(st.MissingVars()) > 0:
		r.level, r.detail = checkWarn, fmt.Sprintf("Lets' MCP server in %s does not get %s from Codex, so `lets mcp` may not find the running Lets; %s to pass it on", file, strings.Join(st.MissingVars(), " and "), again)
	default:
		r.level, r.detail = checkOK, fmt.Sprintf("Lets' MCP server in %s runs %s mcp (with %s passed on)", file, st.Command, strings.Join(codexsetup.PassedVariables, " and "))
	}
	return r
}
