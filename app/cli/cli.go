// Package cli is the command line of Lets: one file per `lets <name>`
// subcommand (flags, the call, the words for the terminal). The running
// process the serve and desktop commands start is app/lets.Process, with
// the parts it composes; docs/architecture.md maps them.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"

	"github.com/lets-app/lets/app/lets"
)

// Version is the Lets version; release builds set it with -ldflags.
var Version = "0.1.0-dev"

// Env is everything a command may touch of the outside world, so tests can
// run commands in-process; the running process (app/lets) shares it.
type Env = lets.Env

// command is one `lets <name>` subcommand. A command exists only when it
// works: there are no placeholders in this table.
type command struct {
	name    string
	summary string
	// usage is the argument synopsis after `lets <name>`.
	usage string
	// run parses args (flags after the command name) and does the work.
	run func(ctx context.Context, env *Env, args []string) error
	// hidden commands are internal (e.g. used by hooks) and not listed.
	hidden bool
}

// commands is the subcommand table.
func commands() []command {
	return []command{
		{name: "serve", summary: "run Lets headless (host and agent daemon, no tray)", usage: "[flags]", run: runServe},
		{name: "status", summary: "show whether Lets is running and where", usage: "[--json]", run: runStatus},
		{name: "pad", summary: "talk to the pad daemon: status, ping, state, watch, symbols, daemon", usage: "<command> [flags]", run: runPad},
		{name: "open", summary: "open a unique in a window: Lets shows it on your screen, or it waits for you on Lets' home page", usage: "<unique> [--resume last|ID] [--title T] [--json]", run: runOpen},
		{name: "windows", summary: "list the open windows", usage: "[--json]", run: runWindows},
		{name: "sessions", summary: "list saved sessions, newest first (resume one with lets open --resume)", usage: "[unique] [--json]", run: runSessions},
		{name: "close", summary: "close an open window (its unique saves its work first)", usage: "<window>", run: runClose},
		{name: "listen", summary: "print what people and uniques sent since your cursor", usage: "[--cursor NAME] [--wait 25s] [--types a,b] [--window wN] [--max N] [--json]", run: runListen},
		{name: "send", summary: "send a command to an open window", usage: "<window> <type> [json|-] [--ttl D] [--re ID] [--json]", run: runSend},
		{name: "install", summary: "install a unique from git or a folder; --update <name> refreshes one", usage: "<url|path>[#ref] | --update <name>", run: runInstall},
		{name: "uninstall", summary: "remove a unique you installed (its saved sessions stay)", usage: "<name>", run: runUninstall},
		{name: "uniques", summary: "list the uniques: built-in and installed", usage: "[--json]", run: runUniques},
		{name: "codex", summary: "run Codex with Lets: its session on the pads and phones, its approvals answered there", usage: "[--label L] [-- codex arguments]", run: runCodex},
		{name: "codex-exec", summary: "run one Codex task (codex exec) on the pads and phones: its state there, Stop ends it, its answer printed", usage: "[--label L] [--] [codex exec arguments] <prompt>", run: runCodexExec},
		{name: "setup", summary: "connect Claude Code (its MCP server, hooks and skill) or Codex (its MCP server) to Lets; --uninstall removes them", usage: "claude|codex [--uninstall] [--plugin-dir DIR]", run: runSetup},
		{name: "chat", summary: "talk with Claude in a window: a new conversation, or continue one (--list shows them)", usage: "[--folder DIR] [--conversation ID | --list | --delete ID] [--json]", run: runChat},
		{name: "mcp", summary: "the MCP server Claude Code starts (stdio); `lets setup claude` registers it", usage: "", run: runMCP},
		{name: "hook", summary: "one Claude Code hook: reports the agent's state and pending window events", usage: "<event>", run: runHook, hidden: true},
		{name: "doctor", summary: "check this machine and your Lets data folder for problems", usage: "", run: runDoctor},
		{name: "version", summary: "print the Lets version", usage: "", run: runVersion},
		{name: "help", summary: "show help for a command", usage: "[command]", run: runHelp},
		{name: "window", summary: "show one window of a unique (Lets starts it itself and tells it what to show on stdin)", usage: "", run: runWindow, hidden: true},
		{name: "desktop", summary: "start Lets with its tray (what plain `lets` runs)", usage: "[flags]", run: runDesktop, hidden: true},
	}
}

// UsageError is a mistake in how a command was called; it exits with 2.
type UsageError struct {
	Msg   string
	flags *flag.FlagSet // the command's flags, for the usage text
}

func (e *UsageError) Error() string { return e.Msg }

// exitError carries a specific exit code with a message already printed.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

// Main runs the CLI with os.Args and returns the process exit code.
func Main(args []string) int {
	env := &Env{Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Signals: true}
	return Run(context.Background(), env, args[1:])
}

// Run runs one command line (without the program name) and returns the exit
// code: 0 success, 1 failure, 2 usage error.
func Run(ctx context.Context, env *Env, args []string) int {
	if env.Signals {
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		defer stop()
	}
	name := ""
	rest := args
	if len(args) > 0 {
		name, rest = args[0], args[1:]
	}
	switch name {
	case "":
		// Plain `lets` is the desktop app: the host of `lets serve` plus
		// the tray (desktop.go).
		name = "desktop"
	case "-h", "-help", "--help":
		printTopUsage(env.Stdout, true)
		return 0
	case "-v", "-version", "--version":
		name = "version"
	}
	cmd, ok := lookup(name)
	if !ok {
		msg := fmt.Sprintf("lets: unknown command %q", name)
		if strings.HasPrefix(name, "-") {
			msg = fmt.Sprintf("lets: unknown flag %q (flags go after the command, e.g. `lets serve -h`)", name)
		}
		if s := suggest(name); s != "" {
			msg += fmt.Sprintf(" — did you mean %q?", s)
		}
		fmt.Fprintln(env.Stderr, msg)
		printTopUsage(env.Stderr, false)
		return 2
	}
	err := cmd.run(ctx, env, rest)
	return report(env, cmd, err)
}

func report(env *Env, cmd command, err error) int {
	if err == nil {
		return 0
	}
	var ue *UsageError
	var ee exitError
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(env.Stderr, "lets %s: %s\n", cmd.name, ue.Msg)
		printCommandUsage(env.Stderr, cmd, ue.flags)
		return 2
	case errors.As(err, &ee):
		return ee.code
	}
	fmt.Fprintf(env.Stderr, "lets %s: %v\n", cmd.name, err)
	return 1
}

func lookup(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// suggest returns a listed command close to a mistyped name.
func suggest(name string) string {
	if name == "" || strings.HasPrefix(name, "-") {
		return ""
	}
	best, bestD := "", 3
	for _, c := range commands() {
		if c.hidden {
			continue
		}
		if d := editDistance(name, c.name); d < bestD {
			best, bestD = c.name, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func printTopUsage(w io.Writer, banner bool) {
	if banner {
		fmt.Fprintf(w, "Lets %s — people and AI agents, working together.\n\n", Version)
	}
	fmt.Fprintln(w, "Usage:")
	fmt.Fprintln(w, "  lets             start Lets (the desktop app)")
	fmt.Fprintln(w, "  lets <command> [flags]")
	fmt.Fprintln(w, "\nCommands:")
	cmds := commands()
	sort.SliceStable(cmds, func(i, j int) bool { return cmds[i].name < cmds[j].name })
	for _, c := range cmds {
		if !c.hidden {
			fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
		}
	}
	fmt.Fprintln(w, "\nRun `lets help <command>` or `lets <command> -h` for details.")
}

func printCommandUsage(w io.Writer, cmd command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage: lets %s %s\n", cmd.name, cmd.usage)
	fmt.Fprintf(w, "  %s\n", cmd.summary)
	if fs != nil && hasFlags(fs) {
		fmt.Fprintln(w, "\nFlags:")
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// parseFlags parses args for cmd with fs, turning flag mistakes into a
// UsageError that names the bad token and `-h` into printed help.
func parseFlags(env *Env, name string, fs *flag.FlagSet, args []string) error {
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			cmd, _ := lookup(name)
			printCommandUsage(env.Stdout, cmd, fs)
			return flag.ErrHelp
		}
		msg := err.Error()
		if bad, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
			msg = "unknown flag " + bad
		}
		return &UsageError{Msg: msg, flags: fs}
	}
	return nil
}

// noArgs rejects stray positional arguments.
func noArgs(fs *flag.FlagSet) error {
	if fs.NArg() > 0 {
		return &UsageError{Msg: fmt.Sprintf("unexpected argument %q", fs.Arg(0)), flags: fs}
	}
	return nil
}
