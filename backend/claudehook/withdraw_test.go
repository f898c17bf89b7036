package claudehook_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/claudehook"
	"github.com/lets-app/lets/backend/daemon"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/backend/wire"
)

// The hook and the daemon agree on the name of the order member.
func TestSeqKeyMatchesTheDaemon(t *testing.T) {
	if claudehook.SeqKey != daemon.SeqKey {
		t.Fatalf("claudehook.SeqKey %q, daemon.SeqKey %q", claudehook.SeqKey, daemon.SeqKey)
	}
}

// withdrawBudget is how soon a question answered elsewhere must be gone
// everywhere (issue #22).
const withdrawBudget = time.Second

// The person answers in Claude's terminal; Claude's next hook of the
// session (whichever it is) withdraws the pending question: the waiting
// PermissionRequest hook returns printing nothing, the daemon no longer
// shows waiting_for_approval, and the host's last report for the session
// is not a card. Before, the pending subscription held the session at
// waiting_for_approval (§9.5) and the hook waited for its deadline.
func TestQuestionAnsweredElsewhereIsWithdrawn(t *testing.T) {
	cases := []struct {
		event string
		want  func(wire.StatusSession, bool) bool
	}{
		{claudehook.EventPostToolUse, stateIs(wire.StateRunning)},
		{claudehook.EventPostToolUseFailure, stateIs(wire.StateRunning)},
		{claudehook.EventPreToolUse, stateIs(wire.StateRunning)},
		{claudehook.EventUserPromptSubmit, stateIs(wire.StateRunning)},
		{claudehook.EventStop, func(s wire.StatusSession, found bool) bool {
			return found && (s.State == wire.StateSuccess || s.State == wire.StateWaitingForReply)
		}},
		{claudehook.EventSessionEnd, func(_ wire.StatusSession, found bool) bool { return !found }},
	}
	for _, c := range cases {
		t.Run(c.event, func(t *testing.T) {
			td := startDaemon(t)
			host := newFakeHost(t)
			o := options(td, host, nil)
			o.ApprovalTimeout = time.Hour
			o.Seq = 1000
			r := startApproval(t, o)
			waitAvailable(t, td, wire.ActionApprove, wire.ActionReject)
			host.waitReports(t, 1) // the card

			later := options(td, host, nil)
			later.Seq = 2000
			start := time.Now()
			if err := claudehook.Run(testCtx(t), later, c.event, bytes.NewReader(stdinOf(t, c.event)), &bytes.Buffer{}); err != nil {
				t.Fatal(err)
			}
			r.returnsWithin(t, withdrawBudget, "the withdrawn PermissionRequest hook to return")
			took := time.Since(start)
			if out := r.out.Bytes(); len(out) != 0 {
				t.Fatalf("the withdrawn hook printed %q", out)
			}
			td.session(t, c.want)
			waitAvailable(t, td)
			reports := host.Reports()
			if last := reports[len(reports)-1]; last.State == string(wire.StateWaitingForApproval) || last.RequestID != "" {
				t.Fatalf("the host's last report %+v still asks", last)
			}
			t.Logf("withdrawn after %v", took)
		})
	}
}

// A question settled before it was asked (the answer's hook reported
// first, on another connection): the PermissionRequest hook returns at
// once, prints nothing and puts up no card; the session stays running.
func TestQuestionSettledBeforeAskedGetsNoCard(t *testing.T) {
	td := startDaemon(t)
	host := newFakeHost(t)
	later := options(td, host, nil)
	later.Seq = 2000
	if err := claudehook.Run(testCtx(t), later, claudehook.EventPostToolUse, bytes.NewReader(stdinOf(t, claudehook.EventPostToolUse)), &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	o := options(td, host, nil)
	o.ApprovalTimeout = time.Hour
	o.Seq = 1000
	r := startApproval(t, o)
	r.returnsWithin(t, withdrawBudget, "the stale PermissionRequest hook to return")
	if out := r.out.Bytes(); len(out) != 0 {
		t.Fatalf("printed %q", out)
	}
	td.session(t, stateIs(wire.StateRunning))
	for _, rep := range host.Reports() {
		if rep.RequestID != "" {
			t.Fatalf("a card went up for a settled question: %+v", rep)
		}
	}
}

// An older report reaching the daemon after a newer one does not undo it.
func TestOlderHookReportDoesNotOvertake(t *testing.T) {
	td := startDaemon(t)
	newer := options(td, nil, nil)
	newer.Seq = 2000
	if err := claudehook.Run(testCtx(t), newer, claudehook.EventStop, bytes.NewReader(stdinOf(t, claudehook.EventStop)), &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	older := options(td, nil, nil)
	older.Seq = 1000
	if err := claudehook.Run(testCtx(t), older, claudehook.EventPreToolUse, bytes.NewReader(stdinOf(t, claudehook.EventPreToolUse)), &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	td.session(t, func(s wire.StatusSession, found bool) bool {
		return found && (s.State == wire.StateSuccess || s.State == wire.StateWaitingForReply)
	})
}

func stateIs(want wire.State) func(wire.StatusSession, bool) bool {
	return func(s wire.StatusSession, found bool) bool { return found && s.State == want }
}

// returnsWithin waits at most limit for the hook to return, without error.
func (r *running) returnsWithin(t *testing.T, limit time.Duration, what string) {
	t.Helper()
	var err error
	testutil.EventuallyWithin(t, limit, what, func() bool {
		select {
		case err = <-r.done:
			return true
		default:
			return false
		}
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
}

// Under the chat's own Claude (ChatEnv), the PermissionRequest hook the
// person's set-up installed stays out: nothing printed, nothing reported,
// no subscription, so the chat's question is the only card. Other events
// still report.
func TestChatClaudePermissionRequestStaysOut(t *testing.T) {
	fw := &fakeWire{events: make(chan wire.ActionEvent, 1)}
	host := newFakeHost(t)
	o := options(nil, host, nil)
	o.Wire = fw
	o.Chat = true
	var out bytes.Buffer
	if err := claudehook.Run(testCtx(t), o, claudehook.EventPermissionRequest, bytes.NewReader(stdinOf(t, claudehook.EventPermissionRequest)), &out); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 || len(fw.Calls()) != 0 || len(host.Reports()) != 0 {
		t.Fatalf("printed %q, wire calls %q, host reports %+v; want nothing", out.String(), fw.Calls(), host.Reports())
	}
	if err := claudehook.Run(testCtx(t), o, claudehook.EventPostToolUse, bytes.NewReader(stdinOf(t, claudehook.EventPostToolUse)), &out); err != nil {
		t.Fatal(err)
	}
	if len(fw.Calls()) != 1 {
		t.Fatalf("PostToolUse under the chat: wire calls %q, want one report", fw.Calls())
	}
}
