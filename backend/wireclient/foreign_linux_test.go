package wireclient

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lets-app/lets/backend/testenv/otheruser"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/backend/wire"
	"github.com/lets-app/lets/backend/wireclient/wiretest"
)

// Issue #23 (High 2): another local user who listens on the Wire path
// first must get nothing from Lets' clients: not a hook's report, not a
// subscription it could answer with approve.

// squat listens on path as nobody and answers every subscription with
// approve, as the attacker did.
func squat(t *testing.T, path string) *wiretest.Server {
	t.Helper()
	ln := otheruser.ListenAs(t, otheruser.Nobody, otheruser.Nobody, path)
	return wiretest.Serve(t, ln, wiretest.Approver(sampleStatus(), sampleAck()))
}

// everyCall runs each kind of request a Lets client makes.
func everyCall(c *Client) map[string]func(context.Context) error {
	id := wire.Identity{Backend: "claude", SessionID: "s1"}
	return map[string]func(context.Context) error{
		"ping":   c.Ping,
		"status": func(ctx context.Context) error { _, err := c.Status(ctx); return err },
		"state": func(ctx context.Context) error {
			return c.ReportState(ctx, wire.StateCommand{Agent: id, State: wire.StateRunning})
		},
		"state with reply": func(ctx context.Context) error {
			_, err := c.ReportStateReply(ctx, wire.StateCommand{Agent: id, State: wire.StateWaitingForApproval})
			return err
		},
		"session_end": func(ctx context.Context) error { return c.EndSession(ctx, id) },
		"subscribe_actions": func(ctx context.Context) error {
			s, err := c.Subscribe(ctx, wire.SubscribeActionsCommand{Agent: id, Actions: []wire.Action{wire.ActionApprove, wire.ActionReject}, RequestID: NewID(), OneShot: true})
			if err == nil {
				defer s.Close()
				if ev, rerr := s.Receive(ctx); rerr == nil {
					return errors.New("received " + string(ev.Action) + " from the squatter")
				}
			}
			return err
		},
		"session_lease": func(ctx context.Context) error {
			l, _, err := c.Lease(ctx, wire.SessionLeaseCommand{LeaseID: NewID(), Agent: id})
			if err == nil {
				l.Close()
			}
			return err
		},
		"preview": func(ctx context.Context) error {
			p, err := c.OpenPreview(ctx)
			if err == nil {
				p.Close()
			}
			return err
		},
	}
}

func wantForeign(t *testing.T, what string, err error, path string, listener bool) {
	t.Helper()
	var fe *ForeignPeerError
	if !errors.As(err, &fe) || !errors.Is(err, ErrForeignSocket) {
		t.Fatalf("%s: err = %v, want a *ForeignPeerError", what, err)
	}
	if fe.Path != path || fe.UID != otheruser.Nobody || fe.Listener != listener {
		t.Fatalf("%s: %+v, want path %s, uid %d, listener %v", what, *fe, path, otheruser.Nobody, listener)
	}
	if msg := err.Error(); !strings.Contains(msg, path) || !strings.Contains(msg, strconv.Itoa(otheruser.Nobody)) || !strings.Contains(msg, "sent it nothing") {
		t.Fatalf("%s: message %q should name the socket and its owner and say nothing was sent", what, msg)
	}
}

func TestSquattedSocketGetsNoByte(t *testing.T) {
	otheruser.RequireRoot(t)
	dir := otheruser.SharedDir(t)
	// Both a path of the person's choosing and the protocol's default
	// name: with no private daemon to move to, the client stays on the
	// default path and refuses it.
	for _, name := range []string{"pad.sock", "pad-lattice-" + strconv.Itoa(os.Geteuid()) + ".sock"} {
		path := filepath.Join(dir, name)
		srv := squat(t, path)
		for what, call := range everyCall(fast(path)) {
			wantForeign(t, name+" "+what, call(testCtx(t)), path, false)
		}
		if n := srv.Received(); n != 0 {
			t.Fatalf("%s: the squatter received %d bytes: %+v", name, n, srv.Lines())
		}
	}
}

// The socket file is ours (root moved it to us) but the process answering
// on it is another user's: SO_PEERCRED refuses it before a byte goes out.
func TestForeignListenerBehindOurFileGetsNoByte(t *testing.T) {
	otheruser.RequireRoot(t)
	path := filepath.Join(otheruser.SharedDir(t), "pad.sock")
	srv := squat(t, path)
	if err := os.Lchown(path, os.Geteuid(), os.Getegid()); err != nil {
		t.Fatal(err)
	}
	for what, call := range everyCall(fast(path)) {
		wantForeign(t, what, call(testCtx(t)), path, true)
	}
	testutil.Eventually(t, "the squatter saw every connection", func() bool { return srv.Accepted() == len(everyCall(fast(path))) })
	if n := srv.Received(); n != 0 {
		t.Fatalf("the squatter received %d bytes: %+v", n, srv.Lines())
	}
}

// The daemon moved to its private folder because the default path was
// taken: a client given the default path finds it there, and the squatter
// still gets nothing.
func TestClientFindsTheDaemonInItsPrivateFolder(t *testing.T) {
	otheruser.RequireRoot(t)
	dir := otheruser.SharedDir(t)
	spec := filepath.Join(dir, "pad-lattice-"+strconv.Itoa(os.Geteuid())+".sock")
	squatter := squat(t, spec)
	priv := wire.PrivateSocketPath(spec)
	if err := os.Mkdir(filepath.Dir(priv), 0o700); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", priv)
	if err != nil {
		t.Fatal(err)
	}
	own := wiretest.Serve(t, ln, wiretest.Canned(sampleStatus(), sampleAck()))
	if err := fast(spec).Ping(testCtx(t)); err != nil {
		t.Fatalf("ping through the default path: %v", err)
	}
	if len(own.Lines()) != 1 || squatter.Received() != 0 {
		t.Fatalf("own daemon got %+v, squatter %d bytes", own.Lines(), squatter.Received())
	}
	// A folder open to others is not private: the client does not use it.
	if err := os.Chmod(filepath.Dir(priv), 0o755); err != nil {
		t.Fatal(err)
	}
	wantForeign(t, "ping with an open folder", fast(spec).Ping(testCtx(t)), spec, false)
}
