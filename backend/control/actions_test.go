package control

import (
	"reflect"
	"testing"

	"github.com/lets-app/lets/backend/wire"
)

const (
	approve = wire.ActionApprove
	reject  = wire.ActionReject
	stop    = wire.ActionStop
	retry   = wire.ActionRetry
)

func oneDelivery(t *testing.T, r Result, conn int64, action wire.Action, sid, rid string) {
	t.Helper()
	d := deliveries(r)
	if len(d) != 1 || len(r.Out) != 1 {
		t.Fatalf("want exactly one action message, got %+v", r.Out)
	}
	if d[0].Conn != conn || d[0].Ev.Action != action || d[0].Ev.Agent.SessionID != sid || d[0].Ev.RequestID != rid {
		t.Fatalf("delivery = conn %d %+v, want conn %d %s %s rid %q", d[0].Conn, d[0].Ev, conn, action, sid, rid)
	}
	if !r.Delivered {
		t.Fatalf("Delivered not set")
	}
}

func noDelivery(t *testing.T, r Result) {
	t.Helper()
	if len(r.Out) != 0 || r.Delivered {
		t.Fatalf("expected nothing, got %+v", r)
	}
}

func TestCase075_OnlySelectedReceives(t *testing.T) {
	p := newPlane(t)
	update(p, 1, cx("first"), wire.StateWaitingForApproval)
	update(p, 2, cx("second"), wire.StateWaitingForApproval)
	subscribe(p, 3, 1, cx("first"), "", false, approve)
	subscribe(p, 4, 2, cx("second"), "", false, approve)
	r := p.Press(5, approve)
	oneDelivery(t, r, 1, approve, "first", "")
	if got := encode(t, r.Out[0].Msg); got != `{"protocol":1,"type":"action","action":"approve","agent":{"backend":"codex","session_id":"first"}}`+"\n" {
		t.Fatalf("encoded: %s", got)
	}
}

func TestCase076_WrongActionNotDelivered(t *testing.T) {
	p := newPlane(t)
	update(p, 1, cx("a"), wire.StateWaitingForApproval)
	subscribe(p, 2, 1, cx("a"), "", false, reject)
	noDelivery(t, p.Press(3, approve))
}

func TestCase077_AvailableFilteredByState(t *testing.T) {
	p := newPlane(t)
	update(p, 1, cx("a"), wire.StateRunning)
	subscribe(p, 2, 1, cx("a"), "", false, approve, stop)
	eqActions(t, p.Available(), stop)
}

func TestCase078_OnlySelectedSubscribersCount(t *testing.T) {
	p := newPlane(t)
	update(p, 1, cx("A"), wire.StateRunning)
	update(p, 2, cx("B"), wire.StateRunning)
	subscribe(p, 3, 1, cx("A"), "", false, stop)
	subscribe(p, 4, 2, cx("B"), "", false, retry)
	v := p.View()
	eqActions(t, v.Available, stop)
	if len(v.Indicators) != 2 || !v.Indicators[0].Selected || v.Indicators[1].Selected {
		t.Fatalf("indicators = %+v", v.Indicators)
	}
	if v.Indicators[0].Accent != "cyan" || v.Indicators[1].Accent != "magenta" || v.Indicators[0].Label != "A" {
		t.Fatalf("indicators = %+v", v.Indicators)
	}
}

func TestCase079_OneShotRequestsInOrder(t *testing.T) {
	p := newPlane(t, debounce(0))
	update(p, 1, cx("s"), wire.StateWaitingForApproval)
	subscribe(p, 2, 10, cx("s"), "first", true, approve, reject)
	subscribe(p, 2, 11, cx("s"), "second", true, approve, reject)
	oneDelivery(t, p.Press(3, approve), 10, approve, "s", "first")
	oneDelivery(t, p.Press(4, reject), 11, reject, "s", "second")
	eqActions(t, p.Available())
	noDelivery(t, p.Press(5, approve))
}

func TestCase080_OneShotDisarmedAfterDelivery(t *testing.T) {
	p := newPlane(t)
	update(p, 1, cx("s"), wire.StateWaitingForApproval)
	subscribe(p, 2, 10, cx("s"), "first", true, approve, reject)
	subscribe(p, 2, 11, cx("s"), "second", true, approve, reject)
	oneDelivery(t, p.Press(3, approve), 10, approve, "s", "first")
	if sub := p.subs[10]; sub == nil || sub.actions != 0 || sub.requestID != "" || sub.oneShot {
		t.Fatalf("first subscription not disarmed: %+v", sub)
	}
	eqActions(t, p.Available(), approve, reject)
}

func TestCase081_RequestScopedFirstThenOldest(t *testing.T) {
	p := newPlane(t)
	update(p, 1, cx("s"), wire.StateWaitingForApproval)
	subscribe(p, 2, 1, cx("s"), "", false, approve)
	subscribe(p, 3, 2, cx("s"), "R1", true, approve)
	subscribe(p, 4, 3, cx("s"), "", false, approve)
	subscribe(p, 5, 4, cx("s"), "R2", false, approve)
	oneDelivery(t, p.Press(10, approve), 2, approve, "s", "R1")
	for i := 1; i <= 3; i++ {
		oneDelivery(t, p.Press(10+float64(i), approve), 4, approve, "s", "R2")
	}
}

func TestOldestSubscriptionNotOldestConnection(t *testing.T) {
	p := newPlane(t)
	update(p, 1, cx("s"), wire.StateRunning)
	subscribe(p, 2, 5, cx("s"), "", false, stop) // connection 5 subscribes first
	subscribe(p, 3, 1, cx("s"), "", false, stop)
	subscribe(p, 4, 5, cx("s"), "", false, stop) // resubscribing makes it newest
	oneDelivery(t, p.Press(10, stop), 1, stop, "s", "")
}

func TestCase082_DebounceDropsSecondPress(t *testing.T) {
	p := newPlane(t, debounce(60))
	update(p, 1, cx("a"), wire.StateRunning)
	subscribe(p, 2, 1, cx("a"), "", false, stop)
	n := len(deliveries(p.Press(3, stop))) + len(deliveries(p.Press(4, stop)))
	if n != 1 {
		t.Fatalf("%d stop actions, want 1", n)
	}
}

func TestCase083_FirstPressAlwaysAllowed(t *testing.T) {
	p := newPlane(t, debounce(60))
	update(p, 0.5, cx("a"), wire.StateRunning)
	subscribe(p, 0.5, 1, cx("a"), "", false, stop)
	oneDelivery(t, p.Press(1.0, stop), 1, stop, "a", "")
}

func TestCase084_DebouncePerIdentity(t *testing.T) {
	p := newPlane(t, debounce(60))
	update(p, 1, cx("A"), wire.StateRunning)
	update(p, 1, cx("B"), wire.StateRunning)
	subscribe(p, 1, 1, cx("A"), "", false, stop)
	subscribe(p, 1, 2, cx("B"), "", false, stop)
	oneDelivery(t, p.Press(2, stop), 1, stop, "A", "")
	p.SelectSlot(3, entry(t, p, cx("B")).Slot)
	oneDelivery(t, p.Press(4, stop), 2, stop, "B", "")
}

func TestCase085_DebounceBoundaryIsStrict(t *testing.T) {
	p := newPlane(t)
	update(p, 0, cx("a"), wire.StateRunning)
	subscribe(p, 0, 1, cx("a"), "", false, stop)
	const t0 = 1.0
	oneDelivery(t, p.Press(t0, stop), 1, stop, "a", "")
	noDelivery(t, p.Press(t0+0.2, stop))
	oneDelivery(t, p.Press(t0+0.25, stop), 1, stop, "a", "")
}

func TestDebounceOnlyRecordedOnDelivery(t *testing.T) {
	p := newPlane(t)
	update(p, 0, cx("a"), wire.StateRunning)
	noDelivery(t, p.Press(1.0, stop)) // no subscriber: gate 3 fails
	subscribe(p, 1.05, 1, cx("a"), "", false, stop)
	oneDelivery(t, p.Press(1.1, stop), 1, stop, "a", "")
	// Ending the session forgets the timestamps.
	p.End(1.15, cx("a"))
	update(p, 1.2, cx("a"), wire.StateRunning)
	subscribe(p, 1.2, 1, cx("a"), "", false, stop)
	oneDelivery(t, p.Press(1.2, stop), 1, stop, "a", "")
}

func TestCase086_DebouncePerAction(t *testing.T) {
	p := newPlane(t)
	update(p, 1, cx("s"), wire.StateWaitingForApproval)
	subscribe(p, 2, 10, cx("s"), "r1", true, approve, reject)
	subscribe(p, 2, 11, cx("s"), "r2", true, approve, reject)
	oneDelivery(t, p.Press(3, approve), 10, approve, "s", "r1")
	oneDelivery(t, p.Press(3.01, reject), 11, reject, "s", "r2")
}

func TestCase087_ActionEarcons(t *testing.T) {
	log := &earconLog{}
	p := newPlane(t, debounce(0), audio(log))
	update(p, 1, cx("s"), wire.StateWaitingForApproval)
	subscribe(p, 2, 10, cx("s"), "r", true, approve, reject)
	log.got = nil
	oneDelivery(t, p.Press(3, approve), 10, approve, "s", "r")
	noDelivery(t, p.Press(4, reject))
	if want := []string{"approve/0", "unavailable/0"}; !reflect.DeepEqual(log.got, want) {
		t.Fatalf("earcons = %v, want %v", log.got, want)
	}
	// No selection: unavailable with no slot.
	p.End(5, cx("s"))
	log.got = nil
	p.Press(6, stop)
	if want := []string{"unavailable/none"}; !reflect.DeepEqual(log.got, want) {
		t.Fatalf("earcons = %v, want %v", log.got, want)
	}
}

func TestCase088_UnscopedActionLine(t *testing.T) {
	p := newPlane(t)
	update(p, 1, cx("a"), wire.StateRunning)
	subscribe(p, 2, 1, cx("a"), "", false, stop)
	r := p.Press(3, stop)
	want := `{"protocol":1,"type":"action","action":"stop","agent":{"backend":"codex","session_id":"a"}}` + "\n"
	if got := encode(t, r.Out[0].Msg); got != want {
		t.Fatalf("line = %s, want %s", got, want)
	}
}

func TestCase089_PendingApprovalForcesState(t *testing.T) {
	p := newPlane(t)
	update(p, 1, cx("s"), wire.StateWaitingForApproval)
	subscribe(p, 2, 1, cx("s"), "req", true, approve, reject)
	r := p.Update(3, 2, wire.StateCommand{Agent: cx("s"), State: wire.StateRunning, Reply: true})
	if ack := r.Out[0].Msg.(wire.StateAck); ack.State != wire.StateWaitingForApproval {
		t.Fatalf("effective state = %s, want waiting_for_approval", ack.State)
	}
}

func TestCase090_TwoApprovalRequests(t *testing.T) {
	p := newPlane(t)
	update(p, 1, cx("s"), wire.StateWaitingForApproval)
	subscribe(p, 2, 1, cx("s"), "r1", true, approve, reject)
	subscribe(p, 3, 2, cx("s"), "r2", true, approve, reject)
	oneDelivery(t, p.Press(4, approve), 1, approve, "s", "r1")
	update(p, 5, cx("s"), wire.StateRunning)
	if st := stateOf(t, p, cx("s")); st != wire.StateWaitingForApproval {
		t.Fatalf("state = %s, want waiting_for_approval", st)
	}
	eqActions(t, p.Available(), approve, reject)
	oneDelivery(t, p.Press(6, reject), 2, reject, "s", "r2")
	update(p, 7, cx("s"), wire.StateRunning)
	if st := stateOf(t, p, cx("s")); st != wire.StateRunning {
		t.Fatalf("state = %s, want running", st)
	}
}

func TestCase091_UnscopedOrStopOnlyDoesNotForce(t *testing.T) {
	for name, sub := range map[string]wire.SubscribeActionsCommand{
		"unscoped approve":     {Agent: cx("s"), Actions: actions(approve)},
		"request-scoped stop":  {Agent: cx("s"), Actions: actions(stop), RequestID: "r", OneShot: true},
		"request-scoped retry": {Agent: cx("s"), Actions: actions(retry, stop), RequestID: "r"},
	} {
		p := newPlane(t)
		update(p, 1, cx("s"), wire.StateWaitingForApproval)
		p.Subscribe(2, 1, sub)
		update(p, 3, cx("s"), wire.StateRunning)
		if st := stateOf(t, p, cx("s")); st != wire.StateRunning {
			t.Fatalf("%s: state = %s, want running", name, st)
		}
	}
}

func TestCase092_PendingSubscriberDisconnects(t *testing.T) {
	p := newPlane(t)
	update(p, 1, cx("s"), wire.StateRunning)
	subscribe(p, 2, 1, cx("s"), "r", true, approve, reject)
	update(p, 3, cx("s"), wire.StateRunning)
	if st := stateOf(t, p, cx("s")); st != wire.StateWaitingForApproval {
		t.Fatalf("forced state = %s", st)
	}
	p.Disconnect(4, 1)
	if st := stateOf(t, p, cx("s")); st != wire.StateWaitingForApproval {
		t.Fatalf("state changed on disconnect: %s", st)
	}
	update(p, 5, cx("s"), wire.StateRunning)
	if st := stateOf(t, p, cx("s")); st != wire.StateRunning {
		t.Fatalf("next update = %s, want running", st)
	}
}

func TestCase093_ResubscribeReplaces(t *testing.T) {
	p := newPlane(t)
	update(p, 1, cx("s"), wire.StateRunning)
	subscribe(p, 2, 1, cx("s"), "", false, stop)
	eqActions(t, p.Available(), stop)
	subscribe(p, 3, 1, cx("s"), "", false, retry)
	eqActions(t, p.Available())
	noDelivery(t, p.Press(4, stop))
	// A replacement for another identity moves the subscription.
	subscribe(p, 5, 1, cx("other"), "", false, stop)
	if len(p.subs) != 1 || p.subs[1].agent != cx("other") || len(p.byAgent[cx("s")]) != 0 {
		t.Fatalf("subscription not moved: %+v", p.subs[1])
	}
}

func TestCase094_SubscribeCreatesSession(t *testing.T) {
	p := newPlane(t)
	r := subscribe(p, 1, 1, cx("new"), "", false, stop)
	if len(r.Out) != 0 {
		t.Fatalf("subscribe must not answer: %+v", r.Out)
	}
	e := entry(t, p, cx("new"))
	if e.State != wire.StateWaitingForReply || e.Slot != 0 || !e.Selected {
		t.Fatalf("entry = %+v", e)
	}
	// Default agent when none is given (case 49).
	subscribe(p, 2, 2, wire.Identity{}, "", false, stop)
	if !hasSession(p, wire.DefaultIdentity()) {
		t.Fatalf("subscribe without agent should use local/default")
	}
}

func TestCase095_SubscriberDisconnectKeepsSession(t *testing.T) {
	p := newPlane(t)
	update(p, 1, cx("s"), wire.StateRunning)
	subscribe(p, 2, 1, cx("s"), "", false, stop)
	p.Disconnect(3, 1)
	if !hasSession(p, cx("s")) {
		t.Fatalf("session removed by subscriber disconnect")
	}
	eqActions(t, p.Available())
	mustCheck(t, p)
}

func TestCase096_SessionEndDeletesSubscriptions(t *testing.T) {
	p := newPlane(t)
	update(p, 1, cx("s"), wire.StateRunning)
	subscribe(p, 2, 1, cx("s"), "", false, stop)
	subscribe(p, 2, 2, cx("s"), "", false, stop)
	p.End(3, cx("s"))
	if len(p.subs) != 0 {
		t.Fatalf("subscriptions survive session_end: %d", len(p.subs))
	}
	update(p, 4, cx("s"), wire.StateRunning)
	eqActions(t, p.Available())
	noDelivery(t, p.Press(5, stop))
}

func TestCase050_DuplicateActionsCollapse(t *testing.T) {
	p := newPlane(t)
	update(p, 1, cx("s"), wire.StateRunning)
	subscribe(p, 2, 1, cx("s"), "", false, stop, stop)
	eqActions(t, p.Available(), stop)
	oneDelivery(t, p.Press(3, stop), 1, stop, "s", "")
}
