// Package front is the `lets` program people and Claude Code run: a small
// front that answers `lets hook <event>` itself and hands every other
// command to the full Lets program, lets-core, installed beside it.
//
// Claude Code runs `lets hook` on every tool call it makes. The full
// program links every part of Lets (host, daemon, surfaces, schemas, MCP)
// and spends most of a hook's time just starting; this front links only
// the hook's packages, so a hook costs a few milliseconds. For any other
// command the front replaces itself with lets-core (execve: same process,
// same arguments, standard streams and signals), telling it the path of
// this front in LETS_PROGRAM so that what Lets writes for Claude Code and
// the desktop (hook commands, the MCP registration, autostart) names
// `lets`, not lets-core.
package front

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/lets-app/lets/app/hookcmd"
)

// CoreName is the file name of the full Lets program, beside the front.
const CoreName = "lets-core"

// ProgramEnv carries the front's own path (absolute, symlinks resolved) to
// lets-core.
const ProgramEnv = "LETS_PROGRAM"

// Deps are the process's parts; Main fills in the real ones.
type Deps struct {
	Stdin          io.Reader // nil: the process's standard input
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	Environ        func() []string
	// Executable is this program's path (os.Executable).
	Executable func() (string, error)
	// Exec replaces the process (syscall.Exec); it returns only on error.
	Exec func(path string, argv, env []string) error
}

// Main runs the front with the real process parts and returns the exit
// code when it does not replace itself with lets-core.
func Main(args []string) int {
	return Run(args, Deps{
		Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Environ: os.Environ,
		Executable: os.Executable, Exec: syscall.Exec,
	})
}

// Run is Main with its parts passed in. args is the whole command line,
// program name first.
func Run(args []string, d Deps) int {
	if len(args) > 1 && args[1] == "hook" {
		hookcmd.Run(context.Background(), hookcmd.IO{Stdin: d.Stdin, Stdout: d.Stdout, Stderr: d.Stderr, Getenv: d.Getenv}, args[2:])
		return 0 // a hook never fails Claude Code's tool call
	}
	self, core, err := Locate(d.Executable)
	if err != nil {
		fmt.Fprintf(d.Stderr, "lets: %v\n", err)
		return 1
	}
	argv := append([]string{args0(args)}, tail(args)...)
	err = d.Exec(core, argv, withProgram(d.Environ(), self))
	// Exec returned: lets-core could not be started.
	fmt.Fprintf(d.Stderr, "lets: could not start %s: %v\nReinstall Lets, or run `make build` again in a source checkout.\n", core, err)
	return 1
}

// Locate finds this front (absolute, symlinks resolved, so a link on PATH
// works) and lets-core beside it.
func Locate(executable func() (string, error)) (self, core string, err error) {
	exe, err := executable()
	if err != nil {
		return "", "", fmt.Errorf("cannot tell where this lets program is (%w), so cannot find %s beside it; run lets-core directly", err, CoreName)
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	if exe, err = filepath.Abs(exe); err != nil {
		return "", "", fmt.Errorf("cannot resolve the path of this lets program: %w", err)
	}
	core = filepath.Join(filepath.Dir(exe), CoreName)
	fi, err := os.Stat(core)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "", "", &MissingCoreError{Path: core}
	case err != nil:
		return "", "", fmt.Errorf("cannot look at %s: %w", core, err)
	case !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0:
		return "", "", fmt.Errorf("%s is not an executable program; reinstall Lets, or run `make build` again in a source checkout", core)
	}
	return exe, core, nil
}

// MissingCoreError: lets-core is not beside the front.
type MissingCoreError struct{ Path string }

func (e *MissingCoreError) Error() string {
	return fmt.Sprintf("the main Lets program is missing: %s should be beside this lets. Reinstall Lets, or run `make build` in a source checkout (it builds lets, lets-core and lets-window together).", e.Path)
}

func args0(args []string) string {
	if len(args) == 0 || args[0] == "" {
		return "lets"
	}
	return args[0]
}

func tail(args []string) []string {
	if len(args) < 2 {
		return nil
	}
	return args[1:]
}

// withProgram is env with ProgramEnv set to self (any earlier value
// dropped).
func withProgram(env []string, self string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, ProgramEnv+"=") {
			out = append(out, kv)
		}
	}
	return append(out, ProgramEnv+"="+self)
}
