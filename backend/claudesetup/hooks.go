// Package claudesetup knows how Lets plugs into Claude Code: the hook
// entries Lets adds to Claude Code's settings.json (and removes again
// without touching anyone else's), the `lets` skill, the plugin layout, and
// what `lets doctor` checks. It runs no programs: registering the MCP
// server through the `claude` command is the app's job.
package claudesetup

import (
	"math"
	"path/filepath"
	"strings"
	"time"
)

// Event is a Claude Code hook event.
type Event string

// The hook events Lets listens to (spec/claude-integration.md §2).
const (
	SessionStart       Event = "SessionStart"
	UserPromptSubmit   Event = "UserPromptSubmit"
	PreToolUse         Event = "PreToolUse"
	PostToolUse        Event = "PostToolUse"
	PostToolUseFailure Event = "PostToolUseFailure"
	PermissionRequest  Event = "PermissionRequest"
	Notification       Event = "Notification"
	Stop               Event = "Stop"
	StopFailure        Event = "StopFailure"
	SessionEnd         Event = "SessionEnd"
)

// Events lists the events Lets hooks, in the order they are written.
func Events() []Event {
	return []Event{SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, PostToolUseFailure,
		PermissionRequest, Notification, Stop, StopFailure, SessionEnd}
}

// toolEvent reports whether e is about one tool call; those take a tool
// name matcher ("*" for every tool).
func toolEvent(e Event) bool {
	switch e {
	case PreToolUse, PostToolUse, PostToolUseFailure, PermissionRequest:
		return true
	}
	return false
}

// Handler is one command hook: {"type": "command", "command": …, "timeout": s}.
type Handler struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	// Timeout is in seconds, as Claude Code reads it.
	Timeout int `json:"timeout,omitempty"`
}

// Group is one entry of an event's list: a matcher and its hooks.
type Group struct {
	Matcher string    `json:"matcher,omitempty"`
	Hooks   []Handler `json:"hooks"`
}

// HookSet is the "hooks" object of a settings file: event → groups.
type HookSet map[Event][]Group

// ShortTimeout is the timeout of every hook but PermissionRequest. The
// hooks themselves finish within 1 s even when Lets is down; this is only
// Claude Code's safety net.
const ShortTimeout = 5 * time.Second

// ApprovalSlack is how much longer than the approval wait Claude Code lets
// the PermissionRequest hook run, so the hook's own deadline always comes
// first and it can step aside cleanly.
const ApprovalSlack = 10 * time.Second

// Hooks returns Lets' hook entries: for every event one command hook
// "<letsPath> hook <Event>" (the path quoted for sh when it needs it),
// matcher "*" on the tool events, a short timeout, and for
// PermissionRequest approvalTimeout + ApprovalSlack.
func Hooks(letsPath string, approvalTimeout time.Duration) HookSet {
	set := HookSet{}
	for _, e := range Events() {
		timeout := ShortTimeout
		if e == PermissionRequest {
			timeout = approvalTimeout + ApprovalSlack
		}
		g := Group{Hooks: []Handler{{Type: "command", Command: Command(letsPath, e), Timeout: seconds(timeout)}}}
		if toolEvent(e) {
			g.Matcher = "*"
		}
		set[e] = []Group{g}
	}
	return set
}

func seconds(d time.Duration) int {
	s := math.Ceil(d.Seconds())
	if s < 1 {
		return 1
	}
	return int(s)
}

// Command is the hook command line for one event. It first looks whether
// the lets program is still there: once Lets is uninstalled, the hooks it
// wrote into Claude Code's settings end at once with status 0 and say
// nothing, instead of an error on every tool call ("lets: not found").
// Otherwise it execs lets, which gets the hook's stdin and gives its exit
// status to Claude Code. POSIX sh; the path is one quoted word, so spaces
// and quotes in it are safe, and no secret is on the command line.
func Command(letsPath string, e Event) string {
	p := ShellQuote(letsPath)
	return guardOpen + p + guardClose + p + " hook " + string(e)
}

// The guard around the lets program in a hook command.
const (
	guardOpen  = "[ -x "
	guardClose = " ] || exit 0; exec "
)

// ShellQuote returns s as one sh word: unchanged when it holds only
// characters sh takes literally, else in single quotes.
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool { return !shellSafe(r) }) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func shellSafe(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return true
	}
	return strings.ContainsRune("/._-+,:@%=", r)
}

// ParseLetsHook recognises a hook command of Lets, whichever lets program
// it names: one sh word whose last path element is "lets", then "hook" and
// an event name (letters only), bare (as older Lets wrote it) or behind
// Command's guard naming the same program. It returns the program as sh
// would see it.
//
// This is how Lets knows its own entries after it was moved or updated: a
// command written by an older Lets, from another path, still ends in
// " hook <Event>" and still runs a program called lets, so setup replaces
// it and uninstall removes it. Anything else — a wrapper script, extra
// arguments, a pipe — belongs to someone else and is left alone.
func ParseLetsHook(command string) (program string, event Event, ok bool) {
	cmd := strings.TrimSpace(command)
	i := strings.LastIndex(cmd, " hook ")
	if i < 0 {
		return "", "", false
	}
	ev := cmd[i+len(" hook "):]
	if ev == "" || strings.IndexFunc(ev, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') }) >= 0 {
		return "", "", false
	}
	head := strings.TrimRight(cmd[:i], " \t")
	if rest, guarded := strings.CutPrefix(head, guardOpen); guarded {
		tested, run, found := strings.Cut(rest, guardClose)
		if !found {
			return "", "", false
		}
		a, okA := shellWord(tested)
		b, okB := shellWord(run)
		if !okA || !okB || a != b {
			return "", "", false
		}
		head = run
	}
	prog, ok := shellWord(head)
	if !ok || prog == "" || filepath.Base(prog) != "lets" {
		return "", "", false
	}
	return prog, Event(ev), true
}

// shellWord unquotes s when it is exactly one sh word made of bare
// characters, '…' and "…" parts and backslash escapes; ok is false for
// anything else (spaces, operators, several words). Expansions such as
// $HOME stay as written.
func shellWord(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return "", false
			}
			b.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
					i++
				}
				b.WriteByte(s[i])
			}
			if i >= len(s) {
				return "", false
			}
		case c == '\\':
			if i+1 >= len(s) {
				return "", false
			}
			i++
			b.WriteByte(s[i])
		case strings.IndexByte(" \t\n;&|<>()`", c) >= 0:
			return "", false
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}
