package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/lets-app/lets/app/lets"
	"github.com/lets-app/lets/backend/atomicfile"
	"github.com/lets-app/lets/backend/claudesetup"
	"github.com/lets-app/lets/backend/codexsetup"
)

// codexHomeEnv names Codex's own folder when it is not ~/.codex.
const codexHomeEnv = codexsetup.HomeEnv

// codexConfigFile is Codex's config.toml for this person.
func codexConfigFile(getenv func(string) string) (string, error) {
	return codexsetup.ConfigFile(getenv)
}

// codexOnPath is the codex program on PATH, or "".
func codexOnPath(getenv func(string) string) string { return codexsetup.FindCodex(getenv) }

// runSetupCodex is `lets setup codex [--uninstall]`: Lets' MCP server in
// Codex's config.toml (one marked block; everything else stays as it is),
// or out of it again.
func runSetupCodex(env *Env, uninstall bool) error {
	file, err := codexConfigFile(env.Getenv)
	if err != nil {
		return err
	}
	// Write through a link to where the config really is (dotfiles kept
	// in a repository), never over the link.
	if real, err := filepath.EvalSymlinks(file); err == nil {
		file = real
	}
	cfg, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read Codex's settings %s: %w", file, err)
	}
	mode := fs.FileMode(0o600)
	if fi, err := os.Stat(file); err == nil {
		mode = fi.Mode().Perm()
	}
	exe, err := lets.Executable(env.Getenv)
	if err != nil {
		return err
	}
	byHand := "codex mcp add lets -- " + claudesetup.ShellQuote(exe) + " mcp"
	if uninstall {
		out, changed, err := codexsetup.Uninstall(cfg)
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		if !changed {
			fmt.Fprintf(env.Stdout, "Codex does not have Lets' MCP server in %s; nothing to take out.\n", file)
			return nil
		}
		if err := atomicfile.Write(file, out, mode); err != nil {
			return fmt.Errorf("save Codex's settings %s: %w", file, err)
		}
		fmt.Fprintf(env.Stdout, "Took Lets' MCP server out of %s; the rest of it is as it was.\n", file)
		return nil
	}
	out, changed, err := codexsetup.Install(cfg, codexsetup.Server{Command: exe, Args: []string{"mcp"}})
	var taken *codexsetup.TakenError
	switch {
	case errors.As(err, &taken):
		return fmt.Errorf("Codex already has an MCP server called \"lets\" that Lets did not add (it runs %q). Take it out of %s (or run `codex mcp remove lets`), then run `lets setup codex` again", taken.Command, file)
	case errors.Is(err, codexsetup.ErrNotTOML):
		return fmt.Errorf("%s has a mistake, so Codex cannot read it either; fix it, then run `lets setup codex` again: %w", file, err)
	case err != nil:
		return fmt.Errorf("%s: %w; to add Lets by hand, run: %s", file, err, byHand)
	}
	if changed {
		if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
			return fmt.Errorf("make Codex's folder: %w", err)
		}
		if err := atomicfile.Write(file, out, mode); err != nil {
			return fmt.Errorf("save Codex's settings %s: %w", file, err)
		}
		fmt.Fprintf(env.Stdout, "Added Lets' MCP server to %s (it runs %s mcp); nothing else there changed.\n", file, exe)
	} else {
		fmt.Fprintf(env.Stdout, "Codex already has Lets' MCP server in %s; nothing changed.\n", file)
	}
	if codexOnPath(env.Getenv) == "" {
		fmt.Fprintln(env.Stdout, "Codex is not installed here yet (no `codex` on your PATH). Install it with `npm install -g @openai/codex`; it finds Lets' tools as soon as it runs.")
	}
	return nil
}

// setupCodexInProcess runs `lets setup codex [--uninstall]` for Home's
// Codex card and returns what it printed.
func setupCodexInProcess(_ context.Context, env *Env, remove bool) (string, error) {
	var buf strings.Builder
	quiet := *env
	quiet.Stdout = &buf
	err := runSetupCodex(&quiet, remove)
	return strings.TrimSpace(buf.String()), err
}
