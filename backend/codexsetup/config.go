// Package codexsetup adds Lets' MCP server to Codex's config.toml and
// takes it out again, and nothing else: everything the person wrote
// (comments, other servers, their own hooks, the order and spacing of it
// all) stays byte for byte. Pure: bytes in, bytes out; the caller reads
// and writes the file.
//
// What Lets adds is one block at the end of the file, between two marker
// comments, always after one newline it adds too:
//
//	# Lets' MCP server, added by `lets setup codex` (...) …
//	[mcp_servers.lets]
//	command = "/usr/bin/lets"
//	args = ["mcp"]
//	env_vars = ["XDG_RUNTIME_DIR", "LETS_HOME"]
//	tools.close.approval_mode = "approve"
//	# End of what `lets setup codex` added.
//
// Codex hands an MCP server only a few variables of its own (HOME, LANG,
// LOGNAME, PATH, TERM, TMPDIR, USER); env_vars passes on the two `lets
// mcp` needs to find the running Lets.
package codexsetup

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// ServerName is the name Lets' MCP server has in Codex.
const ServerName = "lets"

// The marker lines around the block.
const (
	beginMarker = "# Lets' MCP server, added by `lets setup codex` (`lets setup codex --uninstall` takes it out)."
	endMarker   = "# End of what `lets setup codex` added."
)

// PassedVariables are the variables Codex must pass on to `lets mcp`.
var PassedVariables = []string{"XDG_RUNTIME_DIR", "LETS_HOME"}

// ApprovedTools are Lets' tools the block marks approval_mode = "approve".
// Codex 0.169 runs an MCP tool without asking when the server marks it
// read-only or not destructive; it asks before a destructive one (close:
// DestructiveHint), and `codex exec`, whose approval policy is always
// "never", then refuses it ("MCP tool call requires approval, but
// approval policy is never") unless the sandbox is danger-full-access.
// Closing a Lets window is Lets' own business (the unique saves first),
// as `lets setup claude` allows every Lets tool for Claude Code.
var ApprovedTools = []string{"close"}

// Server is the registration: the lets program and its arguments.
type Server struct {
	Command string   // absolute path of the lets program
	Args    []string // ["mcp"]
}

// ConfigError says the config cannot be changed safely; the file is left
// as it is.
type ConfigError struct {
	Problem string
	Err     error
}

func (e *ConfigError) Error() string {
	if e.Err != nil {
		return e.Problem + ": " + e.Err.Error()
	}
	return e.Problem
}

func (e *ConfigError) Unwrap() error { return e.Err }

// ErrNotTOML: the config is not valid TOML (Codex would refuse it too).
var ErrNotTOML = errors.New("the Codex config is not valid TOML")

// TakenError: the person has a server called lets of their own.
type TakenError struct {
	Command string // what their lets server runs ("" when not a string)
}

func (e *TakenError) Error() string {
	return fmt.Sprintf("the Codex config already has an MCP server called %q (running %q) that Lets did not add", ServerName, e.Command)
}

// block is what Install adds after its newline.
func block(s Server) string {
	args := make([]string, len(s.Args))
	for i, a := range s.Args {
		args[i] = strconv.Quote(a)
	}
	vars := make([]string, len(PassedVariables))
	for i, v := range PassedVariables {
		vars[i] = strconv.Quote(v)
	}
	approvals := ""
	for _, t := range ApprovedTools {
		approvals += "tools." + t + ".approval_mode = \"approve\"\n"
	}
	return beginMarker + "\n" +
		"[mcp_servers." + ServerName + "]\n" +
		"command = " + tomlString(s.Command) + "\n" +
		"args = [" + strings.Join(args, ", ") + "]\n" +
		"env_vars = [" + strings.Join(vars, ", ") + "]\n" +
		approvals +
		endMarker + "\n"
}

// tomlString is s as a TOML basic string (strconv.Quote's escapes are
// TOML's for everything but \x.., which it never needs for a valid UTF-8
// path without control characters; those are refused before).
func tomlString(s string) string { return strconv.Quote(s) }

// findBlock returns where the block Lets added starts (the newline
// Install put before it; the marker itself when the file begins with it)
// and ends, or ok false when there is none. Broken markers are an error:
// Lets does not guess which lines are its own.
func findBlock(cfg []byte) (start, end int, ok bool, err error) {
	handEdit := func(what string) error {
		return &ConfigError{Problem: what + " in the Codex config; take out the lines between Lets' two marker comments by hand"}
	}
	b := bytes.Index(cfg, []byte(beginMarker+"\n"))
	if b < 0 {
		if bytes.Contains(cfg, []byte(endMarker)) {
			return 0, 0, false, handEdit("the end of what `lets setup codex` added is there, but not its start,")
		}
		return 0, 0, false, nil
	}
	if b > 0 && cfg[b-1] != '\n' {
		return 0, 0, false, handEdit("what `lets setup codex` added does not start on a line of its own")
	}
	if bytes.Contains(cfg[b+len(beginMarker):], []byte(beginMarker)) {
		return 0, 0, false, handEdit("what `lets setup codex` added is there twice")
	}
	start = b
	if b > 0 {
		start = b - 1
	}
	switch e := bytes.Index(cfg[b:], []byte(endMarker+"\n")); {
	case e >= 0:
		return start, b + e + len(endMarker) + 1, true, nil
	case bytes.HasSuffix(cfg, []byte("\n"+endMarker)):
		return start, len(cfg), true, nil // the last newline went
	}
	return 0, 0, false, handEdit("the start of what `lets setup codex` added is there, but not its end,")
}

// check parses cfg and says whether it has a lets server (and what it
// runs).
func check(cfg []byte) (has bool, command string, err error) {
	var doc map[string]any
	if err := toml.Unmarshal(cfg, &doc); err != nil {
		return false, "", &ConfigError{Problem: ErrNotTOML.Error(), Err: errors.Join(ErrNotTOML, err)}
	}
	servers, _ := doc["mcp_servers"].(map[string]any)
	s, ok := servers[ServerName]
	if !ok {
		return false, "", nil
	}
	if m, ok := s.(map[string]any); ok {
		command, _ = m["command"].(string)
	}
	return true, command, nil
}

// Install returns cfg with Lets' server in it. changed is false when it
// was there already, just so. A config that is not TOML, or that has a
// server called lets the person added, is an error and stays as it is.
func Install(cfg []byte, s Server) (out []byte, changed bool, err error) {
	if s.Command == "" || strings.ContainsFunc(s.Command, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return nil, false, &ConfigError{Problem: fmt.Sprintf("the lets program's path %q cannot go in a Codex config", s.Command)}
	}
	if _, _, err := check(cfg); err != nil {
		return nil, false, err
	}
	start, end, ok, err := findBlock(cfg)
	if err != nil {
		return nil, false, err
	}
	want := "\n" + block(s)
	var rest []byte
	if ok {
		if string(cfg[start:end]) == want || start == 0 && string(cfg[:end]) == want[1:] {
			return cfg, false, nil
		}
		rest = append(append([]byte{}, cfg[:start]...), cfg[end:]...)
	} else {
		rest = cfg
	}
	if has, cmd, _ := check(rest); has {
		return nil, false, &TakenError{Command: cmd}
	}
	if ok {
		// Put the new block where the old one was.
		out = append(append(append([]byte{}, cfg[:start]...), want...), cfg[end:]...)
	} else {
		out = append(append([]byte{}, cfg...), want...)
	}
	if has, cmd, err := check(out); err != nil || !has || cmd != s.Command {
		// An inline mcp_servers table cannot take another server.
		return nil, false, &ConfigError{Problem: "Lets' server cannot be added to this Codex config as it is written (is mcp_servers an inline table?); add it with `codex mcp add`", Err: err}
	}
	return out, true, nil
}

// Uninstall returns cfg without what Install added (changed false when
// there was nothing).
func Uninstall(cfg []byte) (out []byte, changed bool, err error) {
	start, end, ok, err := findBlock(cfg)
	if err != nil || !ok {
		return cfg, false, err
	}
	return append(append([]byte{}, cfg[:start]...), cfg[end:]...), true, nil
}

// Installed says whether cfg has the block Lets adds, and for which
// program.
func Installed(cfg []byte) (command string, ok bool) {
	start, end, ok, err := findBlock(cfg)
	if err != nil || !ok {
		return "", false
	}
	var doc struct {
		Servers map[string]struct {
			Command string `toml:"command"`
		} `toml:"mcp_servers"`
	}
	if err := toml.Unmarshal(cfg[start:end], &doc); err != nil {
		return "", false
	}
	return doc.Servers[ServerName].Command, true
}
