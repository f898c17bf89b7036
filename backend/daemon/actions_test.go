package daemon_test

import (
	"slices"
	"testing"

	"github.com/lets-app/lets/backend/control"
	"github.com/lets-app/lets/backend/wire"
)

func withDebounce(d float64) harnessOpt {
	return withControl(func(c *control.Config) { c.ActionDebounce = d })
}

// expectAction reads one action and checks it.
func (c *client) expectAction(action, sid, requestID string) {
	c.t.Helper()
	m := c.read()
	agent, _ := m["agent"].(map[string]any)
	rid, hasRID := m["request_id"]
	if m["type"] != "action" || m["action"] != action || agent == nil || agent["session_id"] != sid ||
		(requestID == "" && hasRID) || (requestID != "" && rid != requestID) {
		c.t.Fatalf("got %v, want action %s for %s with request_id %q", m, action, sid, requestID)
	}
}

func TestCase075_OnlySelectedSessionsSubscriberReceives(t *testing.T) {
	h := start(t)
	h.update("codex", "first", "waiting_for_approval")
	h.update("codex", "second", "waiting_for_approval")
	a := h.subscribe("codex", "first", []string{"approve"})
	b := h.subscribe("codex", "second", []string{"approve"})
	h.press(wire.ActionApprove)
	a.expectAction("approve", "first", "")
	b.expectSilence()
}

func TestCase076_PressWithoutMatchingSubscriberDelivered(t *testing.T) {
	h := start(t)
	h.update("codex", "a", "waiting_for_approval")
	sub := h.subscribe("codex", "a", []string{"reject"})
	h.press(wire.ActionApprove)
	sub.expectSilence()
}

func TestCase077_AvailableFollowsState(t *testing.T) {
	h := start(t)
	h.update("codex", "a", "running")
	h.subscribe("codex", "a", []string{"approve", "stop"})
	h.waitAvailable(wire.ActionStop)
}

func TestCase078_AvailableForSelectedOnly(t *testing.T) {
	h := start(t)
	h.update("codex", "A", "running")
	h.update("codex", "B", "running")
	h.subscribe("codex", "A", []string{"stop"})
	h.subscribe("codex", "B", []string{"retry"})
	v := h.waitAvailable(wire.ActionStop)
	if len(v.Indicators) != 2 || !v.Indicators[0].Selected || v.Indicators[1].Selected {
		t.Fatalf("indicators %+v", v.Indicators)
	}
}

func TestCase079_OneShotRequestsEachGetOnePress(t *testing.T) {
	h := start(t, withDebounce(0))
	h.update("codex", "a", "waiting_for_approval")
	first := h.subscribe("codex", "a", []string{"approve", "reject"}, `"request_id":"first"`, `"one_shot":true`)
	second := h.subscribe("codex", "a", []string{"approve", "reject"}, `"request_id":"second"`, `"one_shot":true`)
	h.set(3)
	h.press(wire.ActionApprove)
	first.expectAction("approve", "a", "first")
	h.set(4)
	h.press(wire.ActionReject)
	second.expectAction("reject", "a", "second")
	h.waitAvailable()
	first.expectSilence()
	second.expectSilence()
}

func TestCase080_DefaultDebounceOnePressOneRecipient(t *testing.T) {
	h := start(t)
	h.update("codex", "a", "waiting_for_approval")
	first := h.subscribe("codex", "a", []string{"approve", "reject"}, `"request_id":"first"`, `"one_shot":true`)
	second := h.subscribe("codex", "a", []string{"approve", "reject"}, `"request_id":"second"`, `"one_shot":true`)
	h.press(wire.ActionApprove)
	first.expectAction("approve", "a", "first")
	second.expectSilence()
	h.waitAvailable(wire.ActionApprove, wire.ActionReject)
}

func TestCase081_ScopedBeforeUnscopedOldestFirst(t *testing.T) {
	h := start(t)
	h.update("codex", "a", "waiting_for_approval")
	u1 := h.subscribe("codex", "a", []string{"approve"})
	r1 := h.subscribe("codex", "a", []string{"approve"}, `"request_id":"R1"`, `"one_shot":true`)
	u2 := h.subscribe("codex", "a", []string{"approve"})
	r2 := h.subscribe("codex", "a", []string{"approve"}, `"request_id":"R2"`)
	for i, want := range []struct {
		c   *client
		rid string
	}{{r1, "R1"}, {r2, "R2"}, {r2, "R2"}, {r2, "R2"}} {
		h.set(float64(10 + i))
		h.press(wire.ActionApprove)
		want.c.expectAction("approve", "a", want.rid)
	}
	u1.expectSilence()
	u2.expectSilence()
	r1.expectSilence()
}

func TestCase082_083_LongDebounceDeliversFirstOnly(t *testing.T) {
	h := start(t, withDebounce(60))
	h.update("codex", "a", "running")
	sub := h.subscribe("codex", "a", []string{"stop"})
	h.set(1.0) // case 83: a clock value below the window still delivers
	h.press(wire.ActionStop)
	h.press(wire.ActionStop)
	sub.expectAction("stop", "a", "")
	sub.expectSilence()
}

func TestCase084_DebouncePerIdentity(t *testing.T) {
	h := start(t, withDebounce(60))
	h.update("codex", "A", "running")
	h.update("codex", "B", "running")
	a := h.subscribe("codex", "A", []string{"stop"})
	b := h.subscribe("codex", "B", []string{"stop"})
	h.press(wire.ActionStop)
	h.selectSlot(slotOf(h.session("codex", "B")))
	h.press(wire.ActionStop)
	a.expectAction("stop", "A", "")
	b.expectAction("stop", "B", "")
	a.expectSilence()
}

func TestCase085_DebounceWindowIsStrict(t *testing.T) {
	h := start(t)
	h.update("codex", "a", "running")
	sub := h.subscribe("codex", "a", []string{"stop"})
	for _, at := range []float64{5, 5.2, 5.25} {
		h.set(at)
		h.press(wire.ActionStop)
	}
	sub.expectAction("stop", "a", "")
	sub.expectAction("stop", "a", "")
	sub.expectSilence()
}

func TestCase086_DebouncePerAction(t *testing.T) {
	h := start(t)
	h.update("codex", "a", "waiting_for_approval")
	x := h.subscribe("codex", "a", []string{"approve", "reject"}, `"request_id":"x"`, `"one_shot":true`)
	y := h.subscribe("codex", "a", []string{"approve", "reject"}, `"request_id":"y"`, `"one_shot":true`)
	h.set(5)
	h.press(wire.ActionApprove)
	h.set(5.01)
	h.press(wire.ActionReject)
	x.expectAction("approve", "a", "x")
	y.expectAction("reject", "a", "y")
}

func TestCase087_ActionAndUnavailableEarcons(t *testing.T) {
	e := &earcons{}
	h := start(t, withAudio(e), withDebounce(0))
	h.update("codex", "a", "waiting_for_approval")
	sub := h.subscribe("codex", "a", []string{"approve", "reject"}, `"request_id":"r"`, `"one_shot":true`)
	h.press(wire.ActionApprove)
	h.press(wire.ActionReject)
	sub.expectAction("approve", "a", "r")
	plays := e.list()
	want := []string{control.EarconApprove + "@0", control.EarconUnavailable + "@0"}
	if len(plays) < 2 || !slices.Equal(plays[len(plays)-2:], want) {
		t.Fatalf("earcons %v, want to end with %v", plays, want)
	}
}

func TestCase088_ActionLineLiteral(t *testing.T) {
	h := start(t)
	h.update("codex", "a", "running")
	sub := h.subscribe("codex", "a", []string{"stop"})
	h.press(wire.ActionStop)
	sub.expectLine(`{"protocol":1,"type":"action","action":"stop","agent":{"backend":"codex","session_id":"a"}}`)
}

func TestCase089_PendingApprovalForcesState(t *testing.T) {
	h := start(t)
	h.update("codex", "a", "waiting_for_approval")
	h.subscribe("codex", "a", []string{"approve", "reject"}, `"request_id":"r"`, `"one_shot":true`)
	if ack := h.update("codex", "a", "running"); ack["state"] != "waiting_for_approval" {
		t.Fatalf("state %v, want waiting_for_approval", ack["state"])
	}
}

func TestCase090_TwoApprovalRequestsResolveInTurn(t *testing.T) {
	h := start(t, withDebounce(0))
	h.update("codex", "a", "waiting_for_approval")
	first := h.subscribe("codex", "a", []string{"approve", "reject"}, `"request_id":"first"`, `"one_shot":true`)
	second := h.subscribe("codex", "a", []string{"approve", "reject"}, `"request_id":"second"`, `"one_shot":true`)
	h.press(wire.ActionApprove)
	first.expectAction("approve", "a", "first")
	if ack := h.update("codex", "a", "running"); ack["state"] != "waiting_for_approval" {
		t.Fatalf("after approve: %v", ack["state"])
	}
	h.waitAvailable(wire.ActionApprove, wire.ActionReject)
	h.press(wire.ActionReject)
	second.expectAction("reject", "a", "second")
	if ack := h.update("codex", "a", "running"); ack["state"] != "running" {
		t.Fatalf("after reject: %v", ack["state"])
	}
}

func TestCase091_UnscopedOrStopOnlyNeverForce(t *testing.T) {
	for _, sub := range [][]string{
		{`"actions":["approve"]`},
		{`"actions":["stop"]`, `"request_id":"r"`},
	} {
		h := start(t)
		h.update("codex", "a", "waiting_for_approval")
		c := h.dial()
		line := `{"protocol":1,"type":"subscribe_actions","agent":{"backend":"codex","session_id":"a"}`
		for _, m := range sub {
			line += "," + m
		}
		c.send(line + "}")
		c.ping()
		if ack := h.update("codex", "a", "running"); ack["state"] != "running" {
			t.Fatalf("%v: state %v, want running", sub, ack["state"])
		}
		h.stop()
	}
}

func TestCase092_PendingSubscriberDisconnect(t *testing.T) {
	h := start(t)
	h.update("codex", "a", "waiting_for_approval")
	sub := h.subscribe("codex", "a", []string{"approve"}, `"request_id":"r"`)
	sub.close()
	h.barrier()
	if s := h.session("codex", "a"); s["state"] != "waiting_for_approval" {
		t.Fatalf("state %v right after the disconnect", s["state"])
	}
	// The disconnect cleanup runs on the owner in order after the close is
	// noticed; poll until the next update applies normally.
	for range 100 {
		if ack := h.update("codex", "a", "running"); ack["state"] == "running" {
			return
		}
	}
	t.Fatal("update never applied after the subscriber left")
}

func TestCase093_SecondSubscribeReplacesFirst(t *testing.T) {
	h := start(t)
	h.update("codex", "a", "running")
	c := h.subscribe("codex", "a", []string{"stop"})
	h.waitAvailable(wire.ActionStop)
	c.send(subscribeMsg("codex", "a", []string{"retry"}))
	c.ping()
	h.waitAvailable()
	h.press(wire.ActionStop)
	c.expectSilence()
}

func TestCase094_SubscribeCreatesSelectedSession(t *testing.T) {
	h := start(t)
	c := h.dial()
	c.send(subscribeMsg("codex", "new", []string{"approve"}))
	c.ping() // nothing before the pong: no acknowledgement
	s := h.session("codex", "new")
	if s["state"] != "waiting_for_reply" || slotOf(s) != 0 || s["selected"] != true {
		t.Fatalf("session %v", s)
	}
}

func TestCase095_SubscriberDisconnectKeepsSession(t *testing.T) {
	h := start(t)
	h.update("codex", "a", "running")
	sub := h.subscribe("codex", "a", []string{"stop"})
	h.waitAvailable(wire.ActionStop)
	sub.close()
	h.waitAvailable() // the subscription went with the connection
	if h.session("codex", "a") == nil {
		t.Fatal("session removed with its subscriber")
	}
}

func TestCase096_SessionEndDropsSubscriptions(t *testing.T) {
	h := start(t)
	h.update("codex", "a", "running")
	sub := h.subscribe("codex", "a", []string{"stop"})
	h.end("codex", "a")
	h.update("codex", "a", "running") // a new session, selected again
	h.press(wire.ActionStop)
	sub.expectSilence()
	h.waitAvailable()
}
