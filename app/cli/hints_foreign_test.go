package cli

import (
	"errors"
	"strings"
	"testing"

	"github.com/lets-app/lets/backend/daemon"
	"github.com/lets-app/lets/backend/wireclient"
)

// Issue #23: another user's socket on the pad path is worded as what it
// is (someone who may be watching), never as "stop your other daemon",
// with the command's own way to choose a private path.
func TestHintsForAnotherUsersSocket(t *testing.T) {
	foreign := &daemon.SocketError{Path: "/tmp/pad-lattice-1000.sock", Err: daemon.ErrForeignOwner, Owner: 1001}
	folder := &daemon.SocketError{Path: "/tmp/pad-lattice-1000", Err: daemon.ErrPrivateFolder}
	client := &wireclient.ForeignPeerError{Path: "/tmp/pad-lattice-1000.sock", UID: 1001}
	for _, c := range []struct {
		cmd       string
		err       error
		want, not []string
	}{
		{cmdServe, foreign, []string{"another user", "sent nothing", `"wire": {"socket"`}, []string{"--socket", "stop it first"}},
		{cmdPadDaemon, foreign, []string{"another user", "--socket", "PAD_LATTICE_SOCKET"}, []string{"config.json", "stop it first"}},
		{cmdPadDaemon, folder, []string{"remove that folder"}, nil},
		{cmdServe, client, []string{"another user", "sent nothing"}, []string{"--socket"}},
	} {
		got := withHint(c.cmd, c.err)
		if !errors.Is(got, c.err) {
			t.Errorf("%s / %v: the hinted error must still match the original", c.cmd, c.err)
		}
		msg := got.Error()
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s / %v: %q should contain %q", c.cmd, c.err, msg, w)
			}
		}
		for _, n := range c.not {
			if strings.Contains(msg, n) {
				t.Errorf("%s / %v: %q should not contain %q", c.cmd, c.err, msg, n)
			}
		}
	}
}

// `lets pad …` against another user's socket says what happened and what
// to do, not only the client's error (padError routes it through the hint).
func TestPadCommandAgainstAForeignSocketHasTheHint(t *testing.T) {
	err := padError("/tmp/pad-lattice-1000.sock", &wireclient.ForeignPeerError{Path: "/tmp/pad-lattice-1000.sock", UID: 1001})
	if !errors.Is(err, wireclient.ErrForeignSocket) || !strings.Contains(err.Error(), "Lets sent nothing") {
		t.Fatalf("pad error: %v", err)
	}
}
