// Package lets is the running Lets process, its composition root: one type,
// Process (Provision → Run → Cleanup), builds the host, the pads, the
// native windows, the chat manager and, on a desktop, the tray, and runs
// them under one supervisor. app/cli starts it for `lets serve` and plain
// `lets`; the pad commands (`lets pad daemon|demo|show`) share its pad
// build (BuildPads). Its errors are typed (a taken port is a
// web.ListenError or an EADDRINUSE, a busy data folder instance.IsBusy);
// which flag or config.json key to change is app/cli's to say
// (withHint). docs/architecture.md maps the parts.
package lets

import (
	"context"
	"io"
	"time"

	"github.com/lets-app/lets/backend/chatdriver"
	"github.com/lets-app/lets/backend/surface/midi"
	"github.com/lets-app/lets/backend/surface/web"
)

// Env is the person's environment: everything a command or the running
// process may touch of the outside world, so tests can run them
// in-process. app/cli knows it as cli.Env.
type Env struct {
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	// Signals delivers SIGINT/SIGTERM to long-running commands; nil in
	// tests that cancel through the context instead.
	Signals bool

	// The fields below reach devices and programs; nil (or zero) means
	// the real ones. Tests fill them in (env_seams.go has the defaults).

	// Stdin is read by interactive commands (`lets pad test-profile`).
	Stdin io.Reader
	// OpenURL opens a page in the desktop browser.
	OpenURL func(url string) error
	// MIDI lists and opens MIDI ports.
	MIDI midi.Backend
	// Sleep waits during MIDI greetings and guided tests.
	Sleep func(time.Duration)
	// AudioPlayer is the command that plays a WAV file; nil finds one of
	// pw-play, paplay, aplay, afplay or ffplay.
	AudioPlayer []string
	// LAN looks up and discovers the LAN addresses for --lan.
	LAN web.Resolver
	// ChatStart, when set, starts the agent of every "Chat with Claude"
	// conversation instead of Claude Code (tests); Lets then does not look
	// for claude or ask whether anyone is signed in.
	ChatStart chatdriver.Starter
	// UsualPadPort stands in for the browser pad's usual port
	// (config.DefaultWebPort) when it is not 0: a config asking for the
	// usual port gets this one, and it is the one that moves when taken.
	// Tests set a port they hold, so runs side by side never share 8765.
	UsualPadPort int
	// RunCodex, when set, runs the codex program for `lets codex` (path,
	// arguments, environment, the terminal) and returns its exit code.
	RunCodex func(ctx context.Context, path string, args, env []string, stdin io.Reader, stdout, stderr io.Writer) (int, error)
	// CodexExecHold is how long a finished `lets codex-exec` task keeps
	// its outcome on the pads before it leaves them; zero means the pad
	// daemon's usual terminal hold (2 s). Negative leaves the task on the
	// pads (tests that read its last state after the command returned).
	CodexExecHold time.Duration
}
