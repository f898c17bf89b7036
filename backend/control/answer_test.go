package control

import (
	"errors"
	"testing"

	"github.com/lets-app/lets/backend/wire"
)

// refused checks that PressFor refused with reason and changed nothing.
func refused(t *testing.T, p *Plane, r Result, err error, reason error) {
	t.Helper()
	if !errors.Is(err, reason) {
		t.Fatalf("PressFor err = %v, want %v", err, reason)
	}
	var pe *PressError
	if !errors.As(err, &pe) || pe.Reason != reason {
		t.Fatalf("PressFor err = %#v, want a *PressError with reason %v", err, reason)
	}
	if len(r.Out) != 0 || r.Delivered || r.Changed {
		t.Fatalf("a refused PressFor returned %+v", r)
	}
	mustCheck(t, p)
}

// answered checks that PressFor delivered exactly one action event.
func answered(t *testing.T, r Result, err error, conn int64, action wire.Action, sid, rid string) {
	t.Helper()
	if err != nil {
		t.Fatalf("PressFor: %v", err)
	}
	oneDelivery(t, r, conn, action, sid, rid)
	if !r.Changed || r.Consumed {
		t.Fatalf("result flags = %+v", r)
	}
}

func TestPressFor_UnknownSession(t *testing.T) {
	p := newPlane(t)
	update(p, 1, cx("a"), wire.StateWaitingForApproval)
	subscribe(p, 2, 1, cx("a"), "r1", true, approve)
	r, err := p.PressFor(3, cx("gone"), "r1", approve)
	refused(t, p, r, err, ErrUnknownSession)
	var pe *PressError
	errors.As(err, &pe)
	if pe.Agent != cx("gone") || pe.Action != approve || pe.RequestID != "r1" {
		t.Fatalf("PressError = %+v", pe)
	}
	// A session that ended is unknown too.
	p.End(4, cx("a"))
	r, err = p.PressFor(5, cx("a"), "r1", approve)
	refused(t, p, r, err, ErrUnknownSession)
}

func TestPressFor_UnknownAction(t *testing.T) {
	p := newPlane(t)
	update(p, 1, cx("a"), wire.StateWaitingForApproval)
	subscribe(p, 2, 1, cx("a"), "", false, approve)
	r, err := p.PressFor(3, cx("a"), "", wire.Action("maybe"))
	refused(t, p, r, err, ErrUnknownAction)
}

func TestPressFor_StateMustPermit(t *testing.T) {
	p := newPlane(t)
	update(p, 1, cx("a"), wire.StateRunning)
	subscribe(p, 2, 1, cx("a"), "", false, approve, reject, stop, retry)
	for _, a := range []wire.Action{approve, reject, retry} {
		r, err := p.PressFor(3, cx("a"), "", a)
		refused(t, p, r, err, ErrNotPermitted)
	}
	r, err := p.PressFor(3, cx("a"), "", stop)
	answered(t, r, err, 1, stop, "a", "")
}

func TestPressFor_NeedsSubscriberForExactlyThatSession(t *testing.T) {
	p := newPlane(t)
	update(p, 1, cx("a"), wire.StateWaitingForApproval)
	update(p, 2, cx("b"), wire.StateWaitingForApproval)
	subscribe(p, 3, 1, cx("b"), "", false, approve, reject)
	subscribe(p, 4, 2, cx("a"), "", false, reject)
	r, err := p.PressFor(5, cx("a"), "", approve)
	refused(t, p, r, err, ErrNoSubscriber)
	// A subscriber that went away no longer counts.
	p.Disconnect(6, 2)
	r, err = p.PressFor(7, cx("a"), "", reject)
	refused(t, p, r, err, ErrNoSubscriber)
}

func TestPressFor_PreviewBlocks(t *testing.T) {
	p := newPlane(t)
	update(p, 1, cx("a"), wire.StateWaitingForApproval)
	subscribe(p, 2, 1, cx("a"), "r1", true, approve)
	p.SetPreview(3, 7, wire.PreviewCommand{PreviewID: "pv", State: wire.StateSuccess, TTL: 5})
	r, err := p.PressFor(4, cx("a"), "r1", approve)
	refused(t, p, r, err, ErrPreviewActive)
	p.EndPreview(5, 7, "pv")
	r, err = p.PressFor(6, cx("a"), "r1", approve)
	answered(t, r, err, 1, approve, "a", "r1")
}

func TestPressFor_DebounceSharedWithSurfacePress(t *testing.T) {
	p := newPlane(t, debounce(0.25))
	update(p, 1, cx("a"), wire.StateRunning)
	subscribe(p, 2, 1, cx("a"), "", false, stop)
	// A surface press, then an answer 0.1 s later: dropped.
	oneDelivery(t, p.Press(10, stop), 1, stop, "a", "")
	r, err := p.PressFor(10.1, cx("a"), "", stop)
	refused(t, p, r, err, ErrDebounced)
	// A refusal does not open a window: exactly 0.25 s after the delivery
	// the answer goes through, and then a surface press is dropped.
	r, err = p.PressFor(10.25, cx("a"), "", stop)
	answered(t, r, err, 1, stop, "a", "")
	noDelivery(t, p.Press(10.3, stop))
}

func TestPressFor_TargetsNamedSessionWithoutChangingSelection(t *testing.T) {
	log := &earconLog{}
	p := newPlane(t, audio(log))
	update(p, 1, cx("sel"), wire.StateWaitingForApproval)
	update(p, 2, cx("card"), wire.StateWaitingForApproval)
	subscribe(p, 3, 1, cx("sel"), "rs", true, approve, reject)
	subscribe(p, 4, 2, cx("card"), "rc", true, approve, reject)
	if selectedID(p) != "sel" {
		t.Fatalf("selected %s", selectedID(p))
	}
	log.got = nil
	v0 := p.Version()
	r, err := p.PressFor(5, cx("card"), "rc", reject)
	answered(t, r, err, 2, reject, "card", "rc")
	if selectedID(p) != "sel" {
		t.Fatalf("PressFor changed the selection to %s", selectedID(p))
	}
	if p.Version() == v0 {
		t.Fatal("version did not change")
	}
	// The earcon of the delivered action, with the target's slot.
	if len(log.got) != 1 || log.got[0] != "reject/1" {
		t.Fatalf("earcons = %v", log.got)
	}
	// The selected session's subscription is untouched.
	eqActions(t, p.Available(), approve, reject)
	mustCheck(t, p)
}

func TestPressFor_RefusalPlaysNoEarcon(t *testing.T) {
	log := &earconLog{}
	p := newPlane(t, audio(log))
	update(p, 1, cx("a"), wire.StateRunning)
	log.got = nil
	if _, err := p.PressFor(2, cx("a"), "", approve); err == nil {
		t.Fatal("approve while running was delivered")
	}
	if len(log.got) != 0 {
		t.Fatalf("earcons = %v", log.got)
	}
}

func TestPressFor_PrefersMatchingRequestID(t *testing.T) {
	p := newPlane(t)
	update(p, 1, cx("a"), wire.StateWaitingForApproval)
	// Oldest first: an older request-scoped subscription (r-old) and an
	// unscoped one would win a surface press; the answer names r-new.
	subscribe(p, 2, 1, cx("a"), "r-old", false, approve, reject)
	subscribe(p, 3, 2, cx("a"), "", false, approve, reject)
	subscribe(p, 4, 3, cx("a"), "r-new", false, approve, reject)
	r, err := p.PressFor(5, cx("a"), "r-new", approve)
	answered(t, r, err, 3, approve, "a", "r-new")
	// Without a request id the choice is Press's: r-old.
	r, err = p.PressFor(6, cx("a"), "", reject)
	answered(t, r, err, 1, reject, "a", "r-old")
	// Two subscriptions with the same request id: the oldest.
	subscribe(p, 7, 4, cx("a"), "r-new", false, approve, reject)
	r, err = p.PressFor(8, cx("a"), "r-new", reject)
	answered(t, r, err, 3, reject, "a", "r-new")
}

func TestPressFor_RequestOverWhenNoSubscriptionCarriesIt(t *testing.T) {
	p := newPlane(t)
	update(p, 1, cx("a"), wire.StateWaitingForApproval)
	subscribe(p, 2, 1, cx("a"), "r1", false, approve, reject)
	subscribe(p, 3, 2, cx("a"), "", false, approve, reject)
	r, err := p.PressFor(4, cx("a"), "r-other", approve)
	refused(t, p, r, err, ErrRequestOver)
	// The request exists but does not offer the action (an unscoped
	// subscriber does): over as well.
	subscribe(p, 5, 3, cx("a"), "r2", false, reject)
	r, err = p.PressFor(6, cx("a"), "r2", approve)
	refused(t, p, r, err, ErrRequestOver)
}

func TestPressFor_DisarmsOneShot(t *testing.T) {
	p := newPlane(t)
	update(p, 1, cx("a"), wire.StateWaitingForApproval)
	subscribe(p, 2, 1, cx("a"), "r1", true, approve, reject, stop)
	eqActions(t, p.Answerable(cx("a"), "r1"), approve, reject)
	r, err := p.PressFor(3, cx("a"), "r1", approve)
	answered(t, r, err, 1, approve, "a", "r1")
	// Disarmed: the same request is over for every action, the surface
	// lights nothing, and it no longer counts as a pending approval.
	for _, a := range []wire.Action{approve, reject} {
		r, err = p.PressFor(10, cx("a"), "r1", a)
		refused(t, p, r, err, ErrRequestOver)
	}
	r, err = p.PressFor(10, cx("a"), "", reject)
	refused(t, p, r, err, ErrNoSubscriber)
	eqActions(t, p.Available())
	eqActions(t, p.Answerable(cx("a"), "r1"))
	update(p, 11, cx("a"), wire.StateRunning)
	if st := stateOf(t, p, cx("a")); st != wire.StateRunning {
		t.Fatalf("state after the answer = %s, want running (no pending approval)", st)
	}
}

func TestPressFor_KeepsNonOneShot(t *testing.T) {
	p := newPlane(t, debounce(0.25))
	update(p, 1, cx("a"), wire.StateWaitingForApproval)
	subscribe(p, 2, 1, cx("a"), "r1", false, approve)
	r, err := p.PressFor(3, cx("a"), "r1", approve)
	answered(t, r, err, 1, approve, "a", "r1")
	r, err = p.PressFor(4, cx("a"), "r1", approve)
	answered(t, r, err, 1, approve, "a", "r1")
}

func TestPressFor_DeliveredDuringExperience(t *testing.T) {
	p := newPlane(t)
	update(p, 1, cx("a"), wire.StateRunning)
	subscribe(p, 2, 1, cx("a"), "", false, stop)
	if got, err := p.StartExperience(3, wire.ExperienceDemo); err != nil || got != ExperienceStarted {
		t.Fatalf("StartExperience = %v, %v", got, err)
	}
	// A surface press is the experience's; a named answer is the agent's.
	if r := p.Press(4, stop); !r.Consumed || len(r.Out) != 0 {
		t.Fatalf("surface press during the demo = %+v", r)
	}
	r, err := p.PressFor(5, cx("a"), "", stop)
	answered(t, r, err, 1, stop, "a", "")
	if p.Experience() != wire.ExperienceDemo {
		t.Fatalf("experience = %q, want the demo still running", p.Experience())
	}
}

func TestPressFor_TouchesTarget(t *testing.T) {
	p := newPlane(t, ttl(100))
	update(p, 1, cx("a"), wire.StateWaitingForApproval)
	subscribe(p, 2, 1, cx("a"), "r1", true, approve)
	if _, err := p.PressFor(90, cx("a"), "r1", approve); err != nil {
		t.Fatal(err)
	}
	// Touched at 90: still there at 150 (would have expired at 101).
	p.Tick(150)
	if !hasSession(p, cx("a")) {
		t.Fatal("the answered session expired: PressFor did not touch it")
	}
}

func TestPressFor_AnswerableFollowsGates(t *testing.T) {
	p := newPlane(t)
	eqActions(t, p.Answerable(cx("a"), ""))
	update(p, 1, cx("a"), wire.StateWaitingForApproval)
	eqActions(t, p.Answerable(cx("a"), ""))
	subscribe(p, 2, 1, cx("a"), "r1", true, approve, reject, stop)
	eqActions(t, p.Answerable(cx("a"), ""), approve, reject)
	eqActions(t, p.Answerable(cx("a"), "r1"), approve, reject)
	eqActions(t, p.Answerable(cx("a"), "r2"))
	p.SetPreview(3, 7, wire.PreviewCommand{PreviewID: "pv", State: wire.StateSuccess, TTL: 5})
	eqActions(t, p.Answerable(cx("a"), "r1"))
}
