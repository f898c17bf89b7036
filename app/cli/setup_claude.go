package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/lets-app/lets/app/lets"
	"github.com/lets-app/lets/backend/claudefind"
	"github.com/lets-app/lets/backend/claudesetup"
	"github.com/lets-app/lets/backend/config"
)

// runSetup is `lets setup claude [--uninstall] [--plugin-dir DIR]`
// (spec/claude-integration.md §1).
func runSetup(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("setup")
	uninstall := fs.Bool("uninstall", false, "remove what setup added: the MCP server, the hooks and the skill")
	pluginDir := fs.String("plugin-dir", "", "write a Claude Code plugin (MCP server, hooks, skill) to `DIR` instead of changing your Claude Code settings")
	askTools := fs.Bool("ask-for-lets-tools", false, "keep Claude Code asking before each of Lets' own tools (open a window, listen, send) instead of allowing them")
	if err := parseFlags(env, "setup", fs, args); err != nil {
		return err
	}
	rest := fs.Args()
	if len(rest) == 0 {
		return &UsageError{Msg: "say what to set up: `lets setup claude` or `lets setup codex`", flags: fs}
	}
	if rest[0] != "claude" && rest[0] != "codex" {
		return &UsageError{Msg: fmt.Sprintf("Lets can set up Claude Code (`lets setup claude`) and Codex (`lets setup codex`), not %q", rest[0]), flags: fs}
	}
	// Flags may also come after "claude" or "codex".
	if err := parseFlags(env, "setup", fs, rest[1:]); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	if rest[0] == "codex" {
		if *pluginDir != "" || *askTools {
			return &UsageError{Msg: "--plugin-dir and --ask-for-lets-tools are for Claude Code; `lets setup codex` takes only --uninstall", flags: fs}
		}
		return runSetupCodex(env, *uninstall)
	}
	if *uninstall && *pluginDir != "" {
		return &UsageError{Msg: "--uninstall and --plugin-dir do not go together; to remove a plugin, delete its folder", flags: fs}
	}
	s, err := newClaudeSetup(env, env.Stdout)
	if err != nil {
		return err
	}
	s.askTools = *askTools
	switch {
	case *pluginDir != "":
		return s.writePlugin(*pluginDir)
	case *uninstall:
		return s.uninstall(ctx)
	}
	return s.install(ctx)
}

// claudeSetup connects Claude Code to one lets program. Its fields are the
// seams tests replace.
type claudeSetup struct {
	out      io.Writer
	paths    claudesetup.Paths
	letsPath string // absolute, symlinks resolved
	version  string
	approval time.Duration
	claude   claudeCLI
	// manual is set when claude is not on PATH and the person has to
	// register the MCP server themselves.
	manual bool
	// askTools keeps Claude Code asking before Lets' own MCP tools
	// (--ask-for-lets-tools); by default setup allows them (mcp__lets),
	// since in Claude Code's default mode every open, listen and send
	// would otherwise wait for a pad or the terminal.
	askTools bool
}

// newClaudeSetup reads where things are: the running lets program, Claude
// Code's folder, the approval wait of config.json.
func newClaudeSetup(env *Env, out io.Writer) (*claudeSetup, error) {
	lets, err := lets.Executable(env.Getenv)
	if err != nil {
		return nil, err
	}
	dir, err := claudesetup.Dir(env.Getenv)
	if err != nil {
		return nil, fmt.Errorf("%w; set HOME, or %s to Claude Code's settings folder", err, claudesetup.ConfigDirEnv)
	}
	approval := time.Duration(config.DefaultApprovalTimeoutS) * time.Second
	dataDir := ""
	if home, err := config.ResolveHome(env.Getenv); err == nil {
		// A broken config.json gives the defaults; `lets doctor` says why.
		cfg, _ := config.Load(config.Paths{Home: home}.ConfigFile())
		approval = cfg.Claude.ApprovalTimeout()
		dataDir = home
	}
	return &claudeSetup{
		out:      out,
		paths:    claudesetup.Paths{Dir: dir},
		letsPath: lets,
		version:  Version,
		approval: approval,
		claude:   claudeCLI{getenv: env.Getenv, dataDir: dataDir},
	}, nil
}

func (s *claudeSetup) hooks() claudesetup.HookSet {
	return claudesetup.Hooks(s.letsPath, s.approval)
}

// mcpCommand is the command that registers Lets' MCP server by hand.
func (s *claudeSetup) mcpCommand() string {
	return "claude mcp add --scope user lets -- " + claudesetup.ShellQuote(s.letsPath) + " mcp"
}

// install registers the MCP server, merges the hooks and installs the
// skill; each step says what it did. A step that fails does not stop the
// others; the command then exits 1.
func (s *claudeSetup) install(ctx context.Context) error {
	fmt.Fprintf(s.out, "Connecting Claude Code to Lets (%s):\n", s.letsPath)
	s.warnIfTemporary()
	failed := false
	if !s.registerMCP(ctx) {
		failed = true
	}
	var hooksChanged, toolsChanged bool
	up, err := claudesetup.UpdateSettings(s.paths.Settings(), func(b []byte) ([]byte, bool, error) {
		out, changed, err := claudesetup.Merge(b, s.hooks())
		if err != nil {
			return nil, false, err
		}
		hooksChanged = changed
		tools := claudesetup.AllowOurTools
		if s.askTools {
			tools = claudesetup.DisallowOurTools
		}
		out, toolsChanged, err = tools(out)
		return out, hooksChanged || toolsChanged, err
	})
	kept := ""
	if up.Backup != "" {
		kept = fmt.Sprintf(" (the previous file is kept as %s)", filepath.Base(up.Backup))
	}
	switch {
	case err != nil:
		failed = true
		s.fail("could not add the hooks: %v", settingsAdvice(err))
	case !hooksChanged:
		s.ok("hooks already in place in %s", s.paths.Settings())
	default:
		s.ok("hooks added to %s%s", s.paths.Settings(), kept)
		kept = ""
	}
	switch {
	case err != nil:
	case s.askTools && toolsChanged:
		s.ok("Claude Code asks again before each of Lets' own tools%s", kept)
	case s.askTools:
		s.ok("Claude Code asks before each of Lets' own tools (as you chose)")
	case toolsChanged:
		s.ok("Lets' own tools (open a window, listen, send) run without asking each time%s; `lets setup claude --ask-for-lets-tools` undoes this", kept)
	default:
		s.ok("Lets' own tools already run without asking each time")
	}
	res, err := claudesetup.InstallSkill(s.paths)
	switch {
	case err != nil:
		failed = true
		s.fail("could not install the skill: %v", err)
	case res == claudesetup.SkillNotOurs:
		s.note("%s was not written by Lets, so it stays as it is; move it away and run `lets setup claude` again to get Lets' skill", s.paths.SkillFile())
	case res == claudesetup.SkillUnchanged:
		s.ok("skill up to date: %s", s.paths.SkillFile())
	default:
		s.ok("skill installed: %s", s.paths.SkillFile())
	}
	if failed {
		fmt.Fprintln(s.out, "Some steps did not work (see ✗ above); fix them and run `lets setup claude` again — it only adds what is missing.")
		return exitError{code: 1}
	}
	fmt.Fprintln(s.out, "Done. Start a new Claude Code session to use Lets; `lets doctor` checks this set-up any time.")
	return nil
}

// warnIfTemporary says so when this lets runs from a temporary folder
// (`go run`, an unpacked download): Claude Code would call a program that
// is soon gone.
func (s *claudeSetup) warnIfTemporary() {
	tmp, err := filepath.EvalSymlinks(os.TempDir())
	if err != nil {
		tmp = os.TempDir()
	}
	if rel, err := filepath.Rel(tmp, s.letsPath); err == nil && !strings.HasPrefix(rel, "..") {
		s.note("this lets runs from a temporary folder; Claude Code will call it there, so install lets for good and run `lets setup claude` from that copy")
	}
}

// uninstall removes exactly what install added.
func (s *claudeSetup) uninstall(ctx context.Context) error {
	fmt.Fprintln(s.out, "Disconnecting Claude Code from Lets:")
	failed := false
	if !s.unregisterMCP(ctx) {
		failed = true
	}
	up, err := claudesetup.UpdateSettings(s.paths.Settings(), func(b []byte) ([]byte, bool, error) {
		out, hooks, err := claudesetup.Unmerge(b, s.hooks())
		if err != nil {
			return nil, false, err
		}
		out, tools, err := claudesetup.DisallowOurTools(out)
		return out, hooks || tools, err
	})
	switch {
	case err != nil:
		failed = true
		s.fail("could not remove the hooks: %v", settingsAdvice(err))
	case !up.Changed:
		s.ok("no Lets hooks in %s", s.paths.Settings())
	default:
		s.ok("hooks removed from %s (the previous file is kept as %s); other entries are untouched", s.paths.Settings(), filepath.Base(up.Backup))
	}
	res, err := claudesetup.RemoveSkill(s.paths)
	switch {
	case err != nil:
		failed = true
		s.fail("could not remove the skill: %v", err)
	case res == claudesetup.SkillNotOurs:
		s.note("%s was not written by Lets, so it stays", s.paths.SkillFile())
	case res == claudesetup.SkillKeptFolder:
		s.ok("skill removed; %s stays because it holds other files", s.paths.SkillDir())
	case res == claudesetup.SkillRemoved:
		s.ok("skill removed: %s", s.paths.SkillDir())
	default:
		s.ok("no Lets skill to remove")
	}
	if failed {
		fmt.Fprintln(s.out, "Some steps did not work (see ✗ above).")
		return exitError{code: 1}
	}
	fmt.Fprintln(s.out, "Done. Claude Code sessions started from now on run without Lets.")
	return nil
}

// writePlugin writes the plugin layout instead of touching Claude Code's
// settings.
func (s *claudeSetup) writePlugin(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("resolve --plugin-dir %q: %w", dir, err)
	}
	wrote, err := claudesetup.WritePlugin(abs, s.letsPath, s.version, s.approval)
	if err != nil {
		return fmt.Errorf("%w (check that you may write to %s)", err, abs)
	}
	fmt.Fprintf(s.out, "Wrote a Claude Code plugin for Lets (%s) to %s:\n", s.letsPath, abs)
	for _, p := range wrote {
		fmt.Fprintf(s.out, "  %s\n", p)
	}
	fmt.Fprintf(s.out, "Try it with `claude --plugin-dir %s`, or publish it in your plugin marketplace.\n", claudesetup.ShellQuote(abs))
	fmt.Fprintln(s.out, "Your Claude Code settings are unchanged. If you also ran `lets setup claude`, run `lets setup claude --uninstall` so the hooks do not run twice.")
	return nil
}

// registerMCP runs `claude mcp add` unless this lets is registered
// already; without claude on PATH it prints the command to run.
func (s *claudeSetup) registerMCP(ctx context.Context) bool {
	claude, ok := s.claude.find()
	if !ok {
		s.manual = true
		s.note("Claude Code's `claude` command is not on your PATH (nor in Lets' own folder or the usual places), so register the MCP server yourself:\n      %s", s.mcpCommand())
		return true
	}
	entry, found := s.claude.get(ctx, claude)
	switch {
	case found && entry.command == s.letsPath && entry.args == "mcp":
		s.ok("MCP server \"lets\" already registered")
		return true
	case found:
		if out, err := s.claude.run(ctx, claude, "mcp", "remove", "--scope", "user", "lets"); err != nil {
			s.note("could not remove the older MCP server \"lets\" (%s): %s", describeEntry(entry), firstLine(out, err))
		}
	}
	if out, err := s.claude.run(ctx, claude, "mcp", "add", "--scope", "user", "lets", "--", s.letsPath, "mcp"); err != nil {
		s.fail("could not register the MCP server: %s\n      run it yourself: %s", firstLine(out, err), s.mcpCommand())
		return false
	}
	if found {
		s.ok("MCP server \"lets\" now runs %s (was %s)", s.letsPath, describeEntry(entry))
	} else {
		s.ok("MCP server \"lets\" registered for your user")
	}
	return true
}

// unregisterMCP removes the MCP server "lets" when it runs a lets program.
func (s *claudeSetup) unregisterMCP(ctx context.Context) bool {
	claude, ok := s.claude.find()
	if !ok {
		s.note("Claude Code's `claude` command is not on your PATH; if the MCP server \"lets\" is registered, remove it with:\n      claude mcp remove --scope user lets")
		return true
	}
	entry, found := s.claude.get(ctx, claude)
	switch {
	case !found:
		s.ok("no MCP server \"lets\" registered")
		return true
	case entry.command != s.letsPath && filepath.Base(entry.command) != "lets":
		s.note("the MCP server \"lets\" runs %s, which is not Lets, so it stays", describeEntry(entry))
		return true
	}
	if out, err := s.claude.run(ctx, claude, "mcp", "remove", "--scope", "user", "lets"); err != nil {
		s.fail("could not remove the MCP server: %s\n      run it yourself: claude mcp remove --scope user lets", firstLine(out, err))
		return false
	}
	s.ok("MCP server \"lets\" removed")
	return true
}

func (s *claudeSetup) ok(format string, args ...any) {
	fmt.Fprintf(s.out, "  ✓ "+format+"\n", args...)
}

func (s *claudeSetup) note(format string, args ...any) {
	fmt.Fprintf(s.out, "  • "+format+"\n", args...)
}

func (s *claudeSetup) fail(format string, args ...any) {
	fmt.Fprintf(s.out, "  ✗ "+format+"\n", args...)
}

// settingsAdvice adds what to do to an error about settings.json.
func settingsAdvice(err error) error {
	if errors.Is(err, claudesetup.ErrInvalidSettings) {
		return fmt.Errorf("%w — Lets left the file untouched; fix it and run `lets setup claude` again", err)
	}
	return err
}

func describeEntry(e mcpEntry) string {
	if e.command == "" {
		return "an unknown command"
	}
	return strings.TrimSpace(e.command + " " + e.args)
}

func firstLine(out string, err error) string {
	for _, line := range strings.Split(out, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			return line
		}
	}
	return err.Error()
}

// claudeCLI finds and runs Claude Code's `claude` command.
type claudeCLI struct {
	getenv func(string) string
	// dataDir is Lets' data folder, where the Install Claude Code button
	// puts claude; "" leaves it out.
	dataDir string
	// environ is the environment claude runs with; nil is this process's.
	environ []string
}

// claudeTimeout bounds one `claude mcp …` call (`mcp get` starts the
// server to check its health).
const claudeTimeout = 60 * time.Second

// find looks for claude where every part of Lets does (claudefind): in
// Lets' own folder, on $PATH as the environment gives it, then where
// Claude Code's installers put it (a tray started at login often has a
// shorter PATH than a terminal).
func (c claudeCLI) find() (string, bool) {
	f, err := claudefind.Find(context.Background(), claudefind.Options{DataDir: c.dataDir, Getenv: c.getenv, SkipVersion: true})
	return f.Path, err == nil
}

func (c claudeCLI) run(ctx context.Context, path string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, claudeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.WaitDelay = 2 * time.Second
	cmd.Env = c.environ
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// mcpEntry is what `claude mcp get lets` says about the server.
type mcpEntry struct {
	command string
	args    string
}

// get asks claude for the MCP server "lets"; found is false when claude
// says there is none (or cannot say).
func (c claudeCLI) get(ctx context.Context, claude string) (mcpEntry, bool) {
	out, err := c.run(ctx, claude, "mcp", "get", "lets")
	if err != nil {
		return mcpEntry{}, false
	}
	return parseMCPGet(out), true
}

// parseMCPGet reads the "Command:" and "Args:" lines of `claude mcp get`.
func parseMCPGet(out string) mcpEntry {
	var e mcpEntry
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if v, ok := strings.CutPrefix(line, "Command:"); ok && e.command == "" {
			e.command = strings.TrimSpace(v)
		}
		if v, ok := strings.CutPrefix(line, "Args:"); ok && e.args == "" {
			e.args = strings.TrimSpace(v)
		}
	}
	return e
}

// setupClaudeInProcess runs `lets setup claude` for the tray: it returns
// what the command printed, whether the MCP server is left for the person
// to register (claude is not on PATH), and the error.
func setupClaudeInProcess(ctx context.Context, env *Env) (out string, manual bool, err error) {
	var buf strings.Builder
	s, err := newClaudeSetup(env, &buf)
	if err != nil {
		return "", false, err
	}
	err = s.install(ctx)
	return strings.TrimSpace(buf.String()), s.manual, err
}
