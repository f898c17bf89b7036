package daemon_test

import (
	"testing"

	"github.com/lets-app/lets/backend/wire"
)

// seq is the agent metadata member of Lets' ordered reports.
func seq(n string) string { return `"lets_seq":"` + n + `"` }

func stateSeq(sid, state, n string) string {
	return `{"protocol":1,"type":"state","state":"` + state + `","agent":{"backend":"claude","session_id":"` + sid + `",` + seq(n) + `},"reply":true}`
}

// updateSeq sends a Lets hook report (with its order) and returns the ack.
func (h *harness) updateSeq(sid, state, n string) map[string]any {
	h.t.Helper()
	c := h.dial()
	defer c.close()
	c.send(stateSeq(sid, state, n))
	m := c.read()
	if m["type"] != "state_ack" {
		h.t.Fatalf("state answered %v", m)
	}
	return m
}

// A later hook report (PostToolUse after the person answered in Claude's
// terminal) withdraws the pending question: the waiting hook's
// subscription is closed and the session leaves waiting_for_approval at
// once. Before, the pending approval held the session waiting (§9.5).
func TestLaterReportWithdrawsPendingQuestion(t *testing.T) {
	h := start(t)
	q := h.subscribe("claude", "s", []string{"approve", "reject", "stop"}, `"request_id":"r1"`, `"one_shot":true`)
	if got := h.updateSeq("s", "waiting_for_approval", "100")["state"]; got != "waiting_for_approval" {
		t.Fatalf("state = %v", got)
	}
	ack := h.updateSeq("s", "running", "200")
	if ack["state"] != "running" {
		t.Fatalf("after the later report the state is %v, want running", ack["state"])
	}
	q.expectClosed()
	if m := h.session("claude", "s"); m["state"] != "running" {
		t.Fatalf("status shows %v", m["state"])
	}
	if md, _ := h.session("claude", "s")["metadata"].(map[string]any); md["lets_seq"] != nil {
		t.Fatalf("the order member leaked into the metadata: %v", md)
	}
}

// An older report landing after a newer one is dropped; the reply still
// comes, with the session as it is.
func TestOlderReportDoesNotOvertake(t *testing.T) {
	h := start(t)
	h.updateSeq("s", "running", "200")
	ack := h.updateSeq("s", "success", "300")
	if ack["state"] != "success" {
		t.Fatalf("state = %v", ack["state"])
	}
	if got := h.updateSeq("s", "running", "250")["state"]; got != "success" {
		t.Fatalf("an older report overtook a newer one: state %v, want success", got)
	}
}

// A question whose waiting report arrives after a later report was
// already settled: its subscription is withdrawn and the state stays.
func TestStaleQuestionIsWithdrawn(t *testing.T) {
	h := start(t)
	h.updateSeq("s", "running", "200")
	q := h.subscribe("claude", "s", []string{"approve", "reject"}, `"request_id":"r1"`, `"one_shot":true`)
	if got := h.updateSeq("s", "waiting_for_approval", "150")["state"]; got != "running" {
		t.Fatalf("state = %v, want running", got)
	}
	q.expectClosed()
}

// Reports without the order member (Python clients, Codex) keep the
// protocol's rule: a pending approval holds waiting_for_approval.
func TestPlainReportsKeepTheProtocol(t *testing.T) {
	h := start(t)
	q := h.subscribe("codex", "s", []string{"approve", "reject"}, `"request_id":"r1"`, `"one_shot":true`)
	h.update("codex", "s", "waiting_for_approval")
	if got := h.update("codex", "s", "running")["state"]; got != "waiting_for_approval" {
		t.Fatalf("state = %v, want waiting_for_approval (§9.5)", got)
	}
	q.expectSilence()
	// A Lets report for another session withdraws nothing here.
	h.updateSeq("other", "running", "1")
	q.expectSilence()
}

// A question already answered (one-shot delivered) is not closed by a
// later report; an unscoped subscription is not a question.
func TestAnsweredQuestionAndPlainSubscriptionStay(t *testing.T) {
	h := start(t)
	plain := h.subscribe("claude", "s", []string{"stop"})
	q := h.subscribe("claude", "s", []string{"approve", "reject"}, `"request_id":"r1"`, `"one_shot":true`)
	h.updateSeq("s", "waiting_for_approval", "100")
	h.press(wire.ActionApprove)
	q.expectAction("approve", "s", "r1")
	h.updateSeq("s", "running", "200")
	h.updateSeq("s", "success", "300")
	q.expectSilence()
	plain.expectSilence()
}
