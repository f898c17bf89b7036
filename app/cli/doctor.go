package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	letsapp "github.com/lets-app/lets/app/lets"
	"github.com/lets-app/lets/backend/claudefind"
	"github.com/lets-app/lets/backend/claudesetup"
	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/wire"
	"github.com/lets-app/lets/backend/wireclient"
)

// runtimePackage is a Debian package people need for Lets to run on their
// computer. Building needs more (compilers, -dev packages: the Makefile's
// RUN_APT_PACKAGES); doctor speaks to people running Lets, so it names only
// what they install themselves.
type runtimePackage struct {
	// names are the package's names across releases (Debian 13 and Ubuntu
	// 24.04 renamed some libraries with a t64 suffix); any one is enough.
	names []string
	// buildPackage is the package in the Makefile's RUN_APT_PACKAGES that
	// builds against this one (its -dev package, or itself for a program).
	buildPackage string
	// need says what does not work without it.
	need string
}

func runtimePackages() []runtimePackage {
	return []runtimePackage{
		{names: []string{"libgtk-3-0", "libgtk-3-0t64"}, buildPackage: "libgtk-3-dev", need: "native windows"},
		{names: []string{"libwebkit2gtk-4.1-0"}, buildPackage: "libwebkit2gtk-4.1-dev", need: "native windows"},
		// The binary links ALSA (for MIDI pads) and does not start without it.
		{names: []string{"libasound2", "libasound2t64"}, buildPackage: "libasound2-dev", need: "MIDI pads"},
		{names: []string{"git"}, buildPackage: "git", need: "`lets install` from a repository"},
		{names: []string{"xdg-utils"}, need: "opening the browser pad in your browser"},
	}
}

type checkLevel int

const (
	checkOK checkLevel = iota
	checkInfo
	checkWarn
	checkFail
)

func (l checkLevel) mark() string {
	switch l {
	case checkOK:
		return "ok  "
	case checkInfo:
		return "info"
	case checkWarn:
		return "warn"
	}
	return "FAIL"
}

type checkResult struct {
	level  checkLevel
	name   string
	detail string
}

// doctor runs the checks; its probes are fields so tests can replace them.
type doctor struct {
	paths config.Paths
	env   *Env
	// pkgInstalled reports whether a Debian package is installed; ok=false
	// with a nil error means dpkg is not available on this system.
	pkgInstalled func(pkg string) (installed bool, ok bool)
	timeout      time.Duration
	// claude runs `claude mcp get lets`; a zero value finds claude on the
	// PATH of env. letsPath is this lets program; "" asks the system.
	claude   claudeCLI
	letsPath string
	// codexTimeout bounds `codex --version`; 0 is doctorCodexTimeout.
	codexTimeout time.Duration
}

func runDoctor(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("doctor")
	if err := parseFlags(env, "doctor", fs, args); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	home, err := config.ResolveHome(env.Getenv)
	if err != nil {
		return err
	}
	d := &doctor{paths: config.Paths{Home: home}, env: env, pkgInstalled: dpkgInstalled, timeout: 2 * time.Second}
	results := d.run(ctx)
	failed := printChecks(env.Stdout, results)
	if failed > 0 {
		return exitError{code: 1}
	}
	return nil
}

func (d *doctor) run(ctx context.Context) []checkResult {
	var out []checkResult
	out = append(out, d.checkDataDir())
	out = append(out, d.checkConfig())
	hostRes, wireSocket := d.checkHost(ctx)
	out = append(out, hostRes)
	out = append(out, d.checkSocket(wireSocket))
	out = append(out, d.checkClaude(ctx)...)
	out = append(out, d.checkCodex(ctx)...)
	out = append(out, d.checkPackages()...)
	return out
}

func (d *doctor) checkDataDir() checkResult {
	r := checkResult{name: "data folder"}
	fi, err := os.Stat(d.paths.Home)
	switch {
	case errors.Is(err, os.ErrNotExist):
		r.level, r.detail = checkInfo, d.paths.Home+" does not exist yet; Lets creates it on first start"
		return r
	case err != nil:
		r.level, r.detail = checkFail, fmt.Sprintf("%s: %v", d.paths.Home, err)
		return r
	case !fi.IsDir():
		r.level, r.detail = checkFail, d.paths.Home+" is not a folder; move it away"
		return r
	}
	probe, err := os.CreateTemp(d.paths.Home, ".doctor-*")
	if err != nil {
		r.level, r.detail = checkFail, fmt.Sprintf("%s is not writable: %v", d.paths.Home, err)
		return r
	}
	_ = probe.Close()
	_ = os.Remove(probe.Name())
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		r.level, r.detail = checkWarn, fmt.Sprintf("%s is readable by others (mode %o); Lets makes it private (0700) on next start", d.paths.Home, perm)
		return r
	}
	r.level, r.detail = checkOK, d.paths.Home+" (private, writable)"
	return r
}

func (d *doctor) checkConfig() checkResult {
	r := checkResult{name: "config.json"}
	path := d.paths.ConfigFile()
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		r.level, r.detail = checkOK, "not present; using the defaults"
		return r
	}
	cfg, err := config.Load(path)
	if errors.Is(err, config.ErrNewerVersion) {
		r.level, r.detail = checkFail, err.Error()
		return r
	}
	if err != nil {
		r.level, r.detail = checkWarn, err.Error()
		return r
	}
	r.level, r.detail = checkOK, fmt.Sprintf("%s (version %d)", path, cfg.Version)
	if unknown := cfg.UnknownSettings(); len(unknown) > 0 {
		names := make([]string, len(unknown))
		for i, u := range unknown {
			names[i] = u.String()
		}
		r.level = checkWarn
		r.detail = fmt.Sprintf("%s has settings this version does not know (kept, but ignored): %s", path, strings.Join(names, ", "))
	}
	return r
}

func (d *doctor) checkHost(ctx context.Context) (checkResult, string) {
	r := checkResult{name: "host"}
	c, err := newHostClient(d.paths)
	if errors.Is(err, config.ErrHostNotRunning) {
		r.level, r.detail = checkInfo, "not running; start it with `lets` or `lets serve`"
		return r, ""
	}
	if err != nil {
		r.level, r.detail = checkFail, err.Error()
		return r, ""
	}
	st, err := c.c.StatusWithin(ctx, d.timeout)
	if err != nil {
		r.level, r.detail = checkFail, cliHostError(err).Error()
		return r, ""
	}
	r.level, r.detail = checkOK, fmt.Sprintf("Lets %s answers on %s (pid %d)", st.Version, st.URL, st.PID)
	return r, st.WireSocket
}

// checkSocket pings the Pad-Lattice daemon socket with a Wire Protocol 1
// ping, so it works against any compatible daemon of this user's.
func (d *doctor) checkSocket(path string) checkResult {
	r := checkResult{name: "pad socket"}
	if path == "" {
		path = defaultWireSocket(d.env.Getenv)
	}
	if _, err := os.Stat(path); err != nil {
		r.level, r.detail = checkInfo, path+" does not exist; the pad daemon is not running"
		return r
	}
	// Through wireclient, which checks that the socket and the daemon
	// behind it belong to this user before it sends the ping.
	ctx, cancel := context.WithTimeout(context.Background(), d.timeout)
	defer cancel()
	err := wireclient.New(path).Ping(ctx)
	switch {
	case errors.Is(err, wireclient.ErrForeignSocket):
		r.level, r.detail = checkFail, fmt.Sprintf("%v — %s", err, hintFor("pad", err))
		return r
	case errors.Is(err, wireclient.ErrDaemonNotRunning):
		r.level, r.detail = checkWarn, fmt.Sprintf("%s exists but nothing answers (%v); a crashed daemon may have left it — starting Lets replaces it", path, err)
		return r
	case err != nil:
		r.level, r.detail = checkWarn, fmt.Sprintf("%s did not answer a ping with pong (%v)", path, err)
		return r
	}
	r.level, r.detail = checkOK, path+" answers ping"
	return r
}

// defaultWireSocket resolves the Wire Protocol 1 socket path the way every
// Pad-Lattice client does.
func defaultWireSocket(getenv func(string) string) string {
	return wire.ResolveSocketPath(getenv, os.Getuid())
}

func (d *doctor) checkPackages() []checkResult {
	pkgs := runtimePackages()
	var missing, needs []string
	for _, p := range pkgs {
		found := false
		for _, name := range p.names {
			installed, ok := d.pkgInstalled(name)
			if !ok {
				return []checkResult{{level: checkInfo, name: "packages", detail: "dpkg is not available; cannot check system packages on this system"}}
			}
			if installed {
				found = true
				break
			}
		}
		if !found {
			missing = append(missing, p.names[0])
			needs = append(needs, fmt.Sprintf("%s (for %s)", p.names[0], p.need))
		}
	}
	if len(missing) > 0 {
		return []checkResult{{level: checkWarn, name: "packages", detail: fmt.Sprintf("missing %s — install with: sudo apt-get install %s", strings.Join(needs, ", "), strings.Join(missing, " "))}}
	}
	return []checkResult{{level: checkOK, name: "packages", detail: fmt.Sprintf("all %d system packages Lets uses are installed", len(pkgs))}}
}

func dpkgInstalled(pkg string) (bool, bool) {
	path, err := exec.LookPath("dpkg-query")
	if err != nil {
		return false, false
	}
	out, err := exec.Command(path, "-W", "-f=${Status}", pkg).Output()
	if err != nil {
		return false, true
	}
	return strings.HasSuffix(strings.TrimSpace(string(out)), "install ok installed"), true
}

// printChecks prints one line per check and a summary; it returns how many
// checks failed.
func printChecks(w io.Writer, results []checkResult) int {
	fmt.Fprintln(w, "Lets doctor — checking this machine")
	failed, warned := 0, 0
	for _, r := range results {
		fmt.Fprintf(w, "  [%s] %-12s %s\n", r.level.mark(), r.name, r.detail)
		switch r.level {
		case checkFail:
			failed++
		case checkWarn:
			warned++
		}
	}
	switch {
	case failed > 0:
		fmt.Fprintf(w, "%d problem(s) need attention (see FAIL above).\n", failed)
	case warned > 0:
		fmt.Fprintf(w, "Everything essential works; %d warning(s) above.\n", warned)
	default:
		fmt.Fprintln(w, "Everything looks good.")
	}
	return failed
}

// doctorClaudeTimeout bounds `claude mcp get lets`, which starts the MCP
// server to see that it answers.
const doctorClaudeTimeout = 20 * time.Second

// checkClaude checks what `lets setup claude` set up
// (spec/claude-integration.md §1): the hooks, the skill, the MCP
// registration, and other PermissionRequest hooks that race Lets'.
func (d *doctor) checkClaude(ctx context.Context) []checkResult {
	lets := d.letsPath
	if lets == "" {
		lets, _ = letsapp.Executable(d.env.Getenv)
	}
	dir, err := claudesetup.Dir(d.env.Getenv)
	if err != nil {
		return []checkResult{{level: checkInfo, name: "claude hooks", detail: err.Error() + "; cannot check the Claude Code set-up"}}
	}
	rep := claudesetup.Check(claudesetup.Paths{Dir: dir})
	setUp := !rep.None()
	// A broken config.json gives the defaults; the config.json check says so.
	cfg, _ := config.Load(d.paths.ConfigFile())
	return []checkResult{
		d.claudeCodeResult(ctx),
		claudeHooksResult(rep, lets),
		claudeSkillResult(claudesetup.Paths{Dir: dir}.SkillFile(), rep, setUp),
		d.claudeMCPResult(ctx, lets, setUp),
		claudeApprovalResult(rep, cfg.Claude.ApprovalTimeout()),
	}
}

// claudeCodeResult says where Claude Code is (the finder every part of
// Lets uses) and whether its version is the tested one.
func (d *doctor) claudeCodeResult(ctx context.Context) checkResult {
	r := checkResult{name: "claude code"}
	ctx, cancel := context.WithTimeout(ctx, doctorClaudeTimeout)
	defer cancel()
	f, err := claudefind.Find(ctx, claudefind.Options{DataDir: d.paths.Home, Getenv: d.env.Getenv, VersionTimeout: doctorClaudeTimeout})
	if err != nil {
		r.level, r.detail = checkInfo, "not installed; the Install Claude Code button in Chat with Claude (or on the home page) installs it into Lets' own folder, no password needed"
		return r
	}
	where := map[claudefind.Source]string{claudefind.SourceLets: "Lets' own folder", claudefind.SourcePath: "your PATH", claudefind.SourceUsual: "a usual place outside your PATH"}[f.Source]
	if note := letsapp.ClaudeVersionNote(f); note != "" {
		r.level, r.detail = checkWarn, fmt.Sprintf("%s (from %s): %s", f.Path, where, note)
		return r
	}
	r.level, r.detail = checkOK, fmt.Sprintf("%s, version %s (from %s)", f.Path, f.Version, where)
	return r
}

func claudeHooksResult(rep claudesetup.Report, lets string) checkResult {
	r := checkResult{name: "claude hooks"}
	switch {
	case rep.SettingsErr != nil:
		r.level, r.detail = checkWarn, fmt.Sprintf("%v — fix the file so Claude Code and Lets can read it, then run `lets setup claude`", rep.SettingsErr)
	case rep.None():
		r.level, r.detail = checkInfo, "Claude Code is not connected to Lets yet; run `lets setup claude` to connect it"
	case len(rep.Missing) == len(claudesetup.Events()):
		r.level, r.detail = checkWarn, fmt.Sprintf("no Lets hooks in %s, so pads and windows do not see Claude's state; run `lets setup claude`", rep.Settings)
	case len(rep.Missing) > 0:
		names := make([]string, len(rep.Missing))
		for i, e := range rep.Missing {
			names[i] = string(e)
		}
		r.level, r.detail = checkWarn, fmt.Sprintf("%s lacks the Lets hooks for %s; run `lets setup claude` to add them", rep.Settings, strings.Join(names, ", "))
	case len(rep.Broken) > 0:
		r.level, r.detail = checkWarn, fmt.Sprintf("the hooks run %s, which is not there any more; run `lets setup claude` with the lets you use now", strings.Join(rep.Broken, ", "))
	case lets != "" && (len(rep.Programs) != 1 || rep.Programs[0] != lets):
		r.level, r.detail = checkWarn, fmt.Sprintf("the hooks run %s, not this lets (%s); run `lets setup claude` to point them here", strings.Join(rep.Programs, ", "), lets)
	default:
		r.level, r.detail = checkOK, fmt.Sprintf("all %d hooks in %s run %s", len(claudesetup.Events()), rep.Settings, strings.Join(rep.Programs, ", "))
	}
	return r
}

func claudeSkillResult(path string, rep claudesetup.Report, setUp bool) checkResult {
	r := checkResult{name: "claude skill"}
	switch rep.Skill {
	case claudesetup.SkillCurrent:
		r.level, r.detail = checkOK, path
	case claudesetup.SkillOutdated:
		r.level, r.detail = checkWarn, path+" is from another version of Lets; run `lets setup claude` to update it"
	case claudesetup.SkillForeign:
		r.level, r.detail = checkInfo, path+" was not written by Lets; Claude uses it as it is"
	default:
		r.level, r.detail = checkInfo, "not installed; `lets setup claude` installs it"
		if setUp {
			r.level, r.detail = checkWarn, "not installed, so Claude does not know how to work with Lets windows; run `lets setup claude`"
		}
	}
	return r
}

// claudeMCPResult asks claude whether the MCP server "lets" is registered.
func (d *doctor) claudeMCPResult(ctx context.Context, lets string, setUp bool) checkResult {
	r := checkResult{name: "claude mcp"}
	cli := d.claude
	if cli.getenv == nil {
		cli.getenv = d.env.Getenv
	}
	if cli.dataDir == "" {
		cli.dataDir = d.paths.Home
	}
	claude, ok := cli.find()
	if !ok {
		r.level, r.detail = checkInfo, "Claude Code's `claude` command is not on your PATH (nor in Lets' own folder or the usual places), so Lets cannot check its MCP server (`claude mcp get lets` shows it where claude is installed)"
		return r
	}
	ctx, cancel := context.WithTimeout(ctx, doctorClaudeTimeout)
	defer cancel()
	entry, found := cli.get(ctx, claude)
	switch {
	case !found && !setUp:
		r.level, r.detail = checkInfo, "the MCP server \"lets\" is not registered; `lets setup claude` registers it"
	case !found:
		r.level, r.detail = checkWarn, "the MCP server \"lets\" is not registered, so Claude cannot open Lets windows; run `lets setup claude`"
	case lets != "" && entry.command != lets:
		r.level, r.detail = checkWarn, fmt.Sprintf("the MCP server \"lets\" runs %s, not this lets (%s); run `lets setup claude` to point it here", describeEntry(entry), lets)
	default:
		r.level, r.detail = checkOK, "the MCP server \"lets\" runs "+describeEntry(entry)
	}
	return r
}

// claudeApprovalResult checks the approval flow: no other hook races
// Lets' PermissionRequest hook, and Claude Code lets that hook wait as long
// as config.json says.
func claudeApprovalResult(rep claudesetup.Report, wait time.Duration) checkResult {
	r := checkResult{name: "approvals", level: checkOK}
	var problems []string
	if len(rep.OtherPermissionHooks) > 0 {
		problems = append(problems, fmt.Sprintf("another PermissionRequest hook also answers Claude's permission prompts (%s); whichever answers first wins, so Approve on a pad or in a window may come too late — remove it from %s if Lets should answer",
			strings.Join(rep.OtherPermissionHooks, "; "), rep.Settings))
	}
	if t := rep.PermissionTimeout; t > 0 && t < wait+claudesetup.ApprovalSlack {
		problems = append(problems, fmt.Sprintf("Claude Code stops Lets' PermissionRequest hook after %s, but Lets waits %s for Approve (\"claude\": {\"approvalTimeoutS\"} in config.json); run `lets setup claude` to match them", t, wait))
	}
	switch {
	case len(problems) > 0:
		r.level, r.detail = checkWarn, strings.Join(problems, ". ")
	case rep.PermissionTimeout > 0:
		r.detail = fmt.Sprintf("pads, phones and windows can answer Claude's permission prompts for %s; no other hook races them", wait)
	default:
		r.detail = "no other hook answers Claude's permission prompts"
	}
	return r
}
