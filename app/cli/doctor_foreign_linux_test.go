package cli

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/testenv/otheruser"
	"github.com/lets-app/lets/backend/wire"
	"github.com/lets-app/lets/backend/wireclient/wiretest"
)

// #23: `lets doctor` pinged the pad socket with a raw connection, so a
// socket another user squats received the ping. Now it asks through
// wireclient: the squatter gets nothing and doctor says who holds it.
func TestDoctorSendsNothingToAnotherUsersSocket(t *testing.T) {
	otheruser.RequireRoot(t)
	path := filepath.Join(otheruser.SharedDir(t), "pad.sock")
	ln := otheruser.ListenAs(t, otheruser.Nobody, otheruser.Nobody, path)
	squatter := wiretest.Serve(t, ln, wiretest.Approver(wire.Status{}, wire.StateAck{}))
	e := newTestEnv(t)
	d := &doctor{env: e.Env, timeout: 2 * time.Second}
	r := d.checkSocket(path)
	if r.level != checkFail || !strings.Contains(r.detail, "another user") {
		t.Fatalf("doctor on a squatted socket: %v %q", r.level, r.detail)
	}
	if n := squatter.Received(); n != 0 {
		t.Fatalf("the other user's socket received %d bytes: %+v", n, squatter.Lines())
	}
}
