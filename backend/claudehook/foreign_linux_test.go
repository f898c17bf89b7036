package claudehook_test

import (
	"bytes"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/claudehook"
	"github.com/lets-app/lets/backend/testenv/otheruser"
	"github.com/lets-app/lets/backend/wire"
	"github.com/lets-app/lets/backend/wireclient"
	"github.com/lets-app/lets/backend/wireclient/wiretest"
)

// Issue #23 (High 2): another user listened on the Wire path first and
// answered the PermissionRequest hook's subscription with approve, so the
// hook printed allow. Now the hook's client refuses that socket before
// sending anything: the hook prints nothing (Claude Code asks in its own
// terminal), returns without error and says why in its log.
func TestSquattedSocketGetsNoApprovalAndNoReport(t *testing.T) {
	otheruser.RequireRoot(t)
	path := filepath.Join(otheruser.SharedDir(t), "pad.sock")
	ln := otheruser.ListenAs(t, otheruser.Nobody, otheruser.Nobody, path)
	squatter := wiretest.Serve(t, ln, wiretest.Approver(wire.Status{}, wire.StateAck{}))

	for _, event := range []string{claudehook.EventPermissionRequest, claudehook.EventPreToolUse, claudehook.EventStop} {
		t.Run(event, func(t *testing.T) {
			logs := &logBuffer{}
			host := newFakeHost(t)
			c := wireclient.New(path)
			c.Timeout = 2 * time.Second
			o := options(nil, host, logs)
			o.Wire = claudehook.WireClient{C: c}
			var out bytes.Buffer
			if err := claudehook.Run(testCtx(t), o, event, bytes.NewReader(stdinOf(t, event)), &out); err != nil {
				t.Fatalf("Run: %v", err)
			}
			if out.Len() != 0 {
				t.Fatalf("the hook printed %q; with only another user's socket it must print nothing", out.String())
			}
			if l := logs.String(); !strings.Contains(l, path) || !strings.Contains(l, strconv.Itoa(otheruser.Nobody)) {
				t.Fatalf("the log should say whose socket was refused:\n%s", l)
			}
			for _, r := range host.Reports() {
				if r.RequestID != "" {
					t.Fatalf("the host got an answerable card %+v though nothing can answer it", r)
				}
			}
		})
	}
	if n := squatter.Received(); n != 0 {
		t.Fatalf("the squatter received %d bytes: %+v", n, squatter.Lines())
	}
}
