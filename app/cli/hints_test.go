package cli

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"

	"github.com/lets-app/lets/backend/audio"
	"github.com/lets-app/lets/backend/daemon"
	"github.com/lets-app/lets/backend/surface/midi"
	"github.com/lets-app/lets/backend/surface/web"
)

// Issue #10: each typed backend error gets the hint of the command that is
// running: a config.json key under serve, a flag under the pad commands,
// and never a flag the command does not have.
func TestHintsFitTheCommand(t *testing.T) {
	inUse := &web.ListenError{Port: 8765, Err: fmt.Errorf("listen tcp4 127.0.0.1:8765: %w", syscall.EADDRINUSE)}
	running := &daemon.SocketError{Path: "/tmp/p.sock", Err: daemon.ErrAlreadyRunning}
	notSocket := &daemon.SocketError{Path: "/tmp/p.sock", Err: daemon.ErrNotSocket}
	tooLong := &daemon.SocketError{Path: "/tmp/" + strings.Repeat("x", 120), Err: daemon.ErrSocketPathTooLong}
	noDevice := fmt.Errorf("no supported MIDI device profile matched: %w", midi.ErrNoDevice)
	hostPort := fmt.Errorf("listen on 127.0.0.1:4000: %w", syscall.EADDRINUSE)
	for _, c := range []struct {
		cmd       string
		err       error
		want, not []string
	}{
		{cmdServe, running, []string{`"wire": {"socket"`, "config.json", "--no-pad"}, []string{"--socket"}},
		{cmdPadDaemon, running, []string{"--socket"}, []string{"config.json"}},
		{cmdServe, notSocket, []string{`"wire": {"socket"`}, []string{"--socket"}},
		{cmdPadDaemon, notSocket, []string{"--socket"}, []string{"config.json"}},
		{cmdServe, tooLong, []string{`"wire": {"socket"}`, "PAD_LATTICE_SOCKET"}, []string{"--socket"}},
		{cmdPadDaemon, tooLong, []string{"--socket", "PAD_LATTICE_SOCKET"}, []string{"config.json"}},
		{cmdServe, inUse, []string{"port 8765", `"web": {"port": 0}`}, []string{"--port"}},
		{cmdPadDaemon, inUse, []string{"port 8765", "--port"}, []string{"config.json"}},
		{cmdPadShow, inUse, []string{"--port"}, []string{"config.json"}},
		{cmdServe, hostPort, []string{"--port 0", `"host_port": 0`}, nil},
		{cmdServe, audio.ErrNoPlayer, []string{`"wire": {"audio_feedback": false}`}, []string{"--audio"}},
		{cmdPadDaemon, audio.ErrNoPlayer, []string{"--audio-feedback"}, []string{"config.json"}},
		{cmdPadDemo, audio.ErrNoPlayer, []string{"--audio"}, []string{"config.json"}},
		{cmdPadDaemon, noDevice, []string{"--midi"}, nil},
		{cmdPadDemo, noDevice, []string{"--surface web"}, nil},
		{cmdServe, &midi.DeviceError{Msg: "unknown profile"}, []string{`"wire": {"midi_profile"}`}, []string{"--profile"}},
	} {
		got := withHint(c.cmd, c.err)
		if !errors.Is(got, c.err) {
			t.Errorf("%s / %v: the hinted error must still match the original", c.cmd, c.err)
		}
		msg := got.Error()
		if !strings.HasPrefix(msg, c.err.Error()) {
			t.Errorf("%s: %q should start with the original message", c.cmd, msg)
		}
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s / %v: %q should contain %q", c.cmd, c.err, msg, w)
			}
		}
		for _, n := range c.not {
			if strings.Contains(msg, n) {
				t.Errorf("%s / %v: %q must not contain %q", c.cmd, c.err, msg, n)
			}
		}
		if again := withHint(c.cmd, got); again.Error() != msg {
			t.Errorf("a hint was added twice: %q", again)
		}
	}
	plain := errors.New("something else")
	if withHint(cmdServe, plain) != plain || withHint(cmdServe, nil) != nil {
		t.Fatal("errors without a hint must pass through unchanged")
	}
}
