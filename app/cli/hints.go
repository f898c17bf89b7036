package cli

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/lets-app/lets/backend/audio"
	"github.com/lets-app/lets/backend/daemon"
	"github.com/lets-app/lets/backend/surface/midi"
	"github.com/lets-app/lets/backend/surface/web"
	"github.com/lets-app/lets/backend/wireclient"
)

// The commands that start pad parts. Backend packages return typed errors
// without advice; withHint adds what to do in the words of the command
// that is running: a config.json key under `lets serve` (which reads its
// settings from there), a flag under the `lets pad` commands.
const (
	cmdServe     = "serve"
	cmdPadDaemon = "pad daemon"
	cmdPadDemo   = "pad demo"
	cmdPadShow   = "pad show"
)

// hintedError is err with advice for the running command.
type hintedError struct {
	err  error
	hint string
}

func (e *hintedError) Error() string { return fmt.Sprintf("%v (%s)", e.err, e.hint) }
func (e *hintedError) Unwrap() error { return e.err }

// withHint returns err with the advice that fits cmd, or err unchanged when
// there is nothing specific to say.
func withHint(cmd string, err error) error {
	if err == nil {
		return nil
	}
	if h := hintFor(cmd, err); h != "" {
		return &hintedError{err: err, hint: h}
	}
	return err
}

func hintFor(cmd string, err error) string {
	serve := cmd == cmdServe
	var he *hintedError
	var le *web.ListenError
	switch {
	case errors.As(err, &he):
		return "" // already advised
	case errors.Is(err, daemon.ErrForeignOwner):
		// Issue #23: another user's socket on the pad path is a trap,
		// never "another daemon of yours".
		if serve {
			return `another user of this computer may be trying to see your agents and answer their questions; Lets sent nothing there. Ask whoever looks after this computer to remove it, or give Lets a place only you can open with "wire": {"socket": "/path/to/pad.sock"} in config.json`
		}
		return "another user of this computer may be trying to see your agents and answer their questions; Lets sent nothing there. Ask whoever looks after this computer to remove it, or choose a place only you can open with --socket or PAD_LATTICE_SOCKET"
	case errors.Is(err, daemon.ErrPrivateFolder):
		return "remove that folder and start again (Lets makes it anew, open only to you)"
	case errors.Is(err, wireclient.ErrForeignSocket):
		return "another user of this computer may be trying to see your agents and answer their questions, so Lets sent nothing. Start Lets again (its pad daemon then listens in a private place), or ask whoever looks after this computer to remove that socket"
	case errors.Is(err, daemon.ErrAlreadyRunning):
		if serve {
			return `stop it first, or give Lets another socket with "wire": {"socket": "/path/to/pad.sock"} in config.json; "wire": {"enabled": false} or --no-pad runs Lets without its own pad daemon`
		}
		return "stop it first, or choose another path with --socket"
	case errors.Is(err, daemon.ErrNotSocket):
		if serve {
			return `move it away, or choose another path with "wire": {"socket": "/path/to/pad.sock"} in config.json`
		}
		return "move it away, or choose another path with --socket"
	case errors.Is(err, daemon.ErrSocketPathTooLong):
		if serve {
			return `choose a shorter "wire": {"socket"} in config.json, or a shorter PAD_LATTICE_SOCKET`
		}
		return "choose a shorter path with --socket or PAD_LATTICE_SOCKET"
	case errors.Is(err, daemon.ErrNoSocketPath):
		if serve {
			return `set "wire": {"socket"} in config.json or PAD_LATTICE_SOCKET`
		}
		return "pass --socket or set PAD_LATTICE_SOCKET"
	case errors.As(err, &le) && errors.Is(err, web.ErrPortInUse):
		if serve {
			return fmt.Sprintf(`is another program using port %d? Set "web": {"port": 0} in config.json to pick a free one, or "web": {"enabled": false} to run without the browser pad`, le.Port)
		}
		return fmt.Sprintf("is another program using port %d? Pick another with --port (0 picks a free one)", le.Port)
	case errors.Is(err, syscall.EADDRINUSE) && serve:
		// Only the host's own port is left once the browser pad's is
		// handled above.
		return `is another program using that port? Start with --port 0, or set "host_port": 0 in config.json, to pick a free one`
	case errors.Is(err, audio.ErrNoPlayer):
		switch cmd {
		case cmdServe:
			return `install one of them, or set "wire": {"audio_feedback": false} in config.json`
		case cmdPadDaemon:
			return "install one of them, or start without --audio-feedback"
		}
		return "install one of them, or start without --audio"
	case errors.Is(err, midi.ErrNoDevice):
		if cmd == cmdPadDaemon {
			return "plug the pad in, or start without --midi"
		}
		if cmd == cmdPadDemo || cmd == cmdPadShow {
			return "plug the pad in, or use --surface web"
		}
	}
	var de *midi.DeviceError
	if serve && errors.As(err, &de) {
		return `check "wire": {"midi_profile"} in config.json (see ` + "`lets pad devices`" + `), or set "wire": {"midi": false}`
	}
	return ""
}
