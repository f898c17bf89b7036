package control

import (
	"reflect"
	"testing"

	"github.com/lets-app/lets/backend/wire"
)

func TestCase113_TerminalHoldThenTTL(t *testing.T) {
	p := newPlane(t, ttl(10))
	update(p, 1, cx("s"), wire.StateSuccess)
	p.Tick(2.9)
	if st := stateOf(t, p, cx("s")); st != wire.StateSuccess {
		t.Fatalf("at 2.9 state = %s", st)
	}
	r := p.Tick(3.0)
	if !r.Changed {
		t.Fatalf("hold fallback should report a change")
	}
	if st := stateOf(t, p, cx("s")); st != wire.StateWaitingForReply {
		t.Fatalf("at 3.0 state = %s", st)
	}
	p.Tick(10.99)
	if !hasSession(p, cx("s")) {
		t.Fatalf("expired early")
	}
	p.Tick(11.0)
	if hasSession(p, cx("s")) {
		t.Fatalf("should expire at 11.0")
	}
}

func TestCase114_HoldPassedRendersWaitingForReply(t *testing.T) {
	p := newPlane(t)
	update(p, 1, cx("s"), wire.StateError)
	if v := p.View(); v.Centre != wire.StateError {
		t.Fatalf("centre = %s", v.Centre)
	}
	v0 := p.Version()
	p.Tick(100)
	if v := p.View(); v.Centre != wire.StateWaitingForReply {
		t.Fatalf("centre = %s, want waiting_for_reply", v.Centre)
	}
	if p.Version() == v0 {
		t.Fatalf("version should advance")
	}
	// A tick with nothing to do changes nothing.
	if r := p.Tick(101); r.Changed {
		t.Fatalf("idle tick reported a change")
	}
}

func TestCase115_TTLRemovesSelectedToo(t *testing.T) {
	p := newPlane(t, ttl(10))
	update(p, 1, cx("A"), wire.StateRunning)
	update(p, 1, cx("B"), wire.StateWaitingForReply)
	p.Tick(12)
	if p.Len() != 0 {
		t.Fatalf("%d sessions left", p.Len())
	}
	if _, ok := p.Selected(); ok {
		t.Fatalf("selection should be cleared")
	}
}

func TestTTLRefreshedByActivity(t *testing.T) {
	p := newPlane(t, ttl(10))
	update(p, 1, cx("A"), wire.StateRunning)
	subscribe(p, 8, 1, cx("A"), "", false, stop)
	p.Tick(12)
	if !hasSession(p, cx("A")) {
		t.Fatalf("subscribe should refresh last_activity_at")
	}
	p.Press(15, stop)
	p.Tick(24)
	if !hasSession(p, cx("A")) {
		t.Fatalf("delivery should refresh last_activity_at")
	}
	p.Tick(25)
	if hasSession(p, cx("A")) {
		t.Fatalf("should expire at 25")
	}
}

func TestCase116_TTLZeroDisablesExpiry(t *testing.T) {
	p := newPlane(t, ttl(0))
	update(p, 1, cx("s"), wire.StateRunning)
	p.Tick(1e12)
	if !hasSession(p, cx("s")) {
		t.Fatalf("session expired with TTL 0")
	}
}

func TestCase117_RetryOnlyDuringHold(t *testing.T) {
	p := newPlane(t)
	update(p, 1, cx("s"), wire.StateError)
	subscribe(p, 1, 1, cx("s"), "", false, retry)
	eqActions(t, p.Available(), retry)
	p.Tick(3)
	if st := stateOf(t, p, cx("s")); st != wire.StateWaitingForReply {
		t.Fatalf("state = %s", st)
	}
	eqActions(t, p.Available())
}

func setPreview(p *Plane, now float64, conn int64, id string, st wire.State, ttl float64) Result {
	return p.SetPreview(now, conn, wire.PreviewCommand{PreviewID: id, State: st, TTL: ttl})
}

func errOf(t *testing.T, r Result) wire.ErrorMessage {
	t.Helper()
	if len(r.Out) != 1 {
		t.Fatalf("want one message, got %+v", r.Out)
	}
	e, ok := r.Out[0].Msg.(wire.ErrorMessage)
	if !ok {
		t.Fatalf("want error, got %T", r.Out[0].Msg)
	}
	return e
}

func TestCase118_PreviewOverridesViewOnly(t *testing.T) {
	p := newPlane(t)
	update(p, 1, cx("s"), wire.StateRunning)
	subscribe(p, 1, 1, cx("s"), "", false, stop)
	before := p.Status().Sessions[0]
	r := setPreview(p, 2, 20, "p", wire.StateSuccess, 1.7)
	if got := encode(t, r.Out[0].Msg); got != `{"protocol":1,"type":"preview_ack","preview_id":"p","state":"success"}`+"\n" {
		t.Fatalf("ack = %s", got)
	}
	if st := stateOf(t, p, cx("s")); st != wire.StateRunning {
		t.Fatalf("real state changed to %s", st)
	}
	v := p.View()
	if v.Centre != wire.StateSuccess || len(v.Available) != 0 || !v.PreviewActive {
		t.Fatalf("view = %+v", v)
	}
	noDelivery(t, p.Press(2.5, stop))
	if e := errOf(t, setPreview(p, 2.6, 21, "q", wire.StateError, 5)); e.Code != wire.CodePreviewConflict || e.Text != wire.TextPreviewOwnedByOther {
		t.Fatalf("conflict = %+v", e)
	}
	after := p.Status().Sessions[0]
	if !reflect.DeepEqual(before, after) {
		t.Fatalf("preview mutated the session: %+v → %+v", before, after)
	}
	if s := p.sessions[cx("s")]; s.lastActivity != 1 {
		t.Fatalf("preview touched the TTL clock")
	}
	p.Tick(3.7)
	if p.PreviewActive() {
		t.Fatalf("preview should expire at 3.7")
	}
	eqActions(t, p.Available(), stop)
}

func TestCase119_PreviewEndRestores(t *testing.T) {
	p := newPlane(t)
	update(p, 1, cx("s"), wire.StateRunning)
	subscribe(p, 1, 1, cx("s"), "", false, stop)
	setPreview(p, 2, 5, "p", wire.StateWaitingForApproval, 5)
	if v := p.View(); v.Centre != wire.StateWaitingForApproval || len(v.Available) != 0 {
		t.Fatalf("view = %+v", v)
	}
	if !p.Status().PreviewActive || stateOf(t, p, cx("s")) != wire.StateRunning {
		t.Fatalf("status during preview wrong")
	}
	r := p.EndPreview(3, 5, "p")
	if got := encode(t, r.Out[0].Msg); got != `{"protocol":1,"type":"preview_end_ack","preview_id":"p"}`+"\n" {
		t.Fatalf("end ack = %s", got)
	}
	if v := p.View(); v.Centre != wire.StateRunning {
		t.Fatalf("centre = %s", v.Centre)
	}
	eqActions(t, p.Available(), stop)
}

func TestCase120_PreviewExpiryAndOwnerDisconnect(t *testing.T) {
	p := newPlane(t)
	update(p, 0.5, cx("s"), wire.StateRunning)
	setPreview(p, 1.0, 5, "p", wire.StateSuccess, 1.0)
	p.Tick(2.1)
	if p.Status().PreviewActive {
		t.Fatalf("preview should have expired")
	}
	setPreview(p, 3, 6, "q", wire.StateError, 10)
	p.Disconnect(4, 6)
	if p.Status().PreviewActive || p.View().Centre != wire.StateRunning {
		t.Fatalf("owner disconnect should clear the preview")
	}
}

func TestCase121_PreviewOwnership(t *testing.T) {
	p := newPlane(t)
	setPreview(p, 1, 5, "p", wire.StateSuccess, 2)
	r := setPreview(p, 2, 5, "p", wire.StateError, 2)
	if a := r.Out[0].Msg.(wire.PreviewAck); a.State != wire.StateError {
		t.Fatalf("refresh ack = %+v", a)
	}
	p.Tick(3.5) // the refresh moved the expiry to 4
	if !p.PreviewActive() || p.View().Centre != wire.StateError {
		t.Fatalf("refresh should update state and expiry")
	}
	if e := errOf(t, setPreview(p, 3.6, 5, "other", wire.StateSuccess, 2)); e.Code != wire.CodePreviewConflict || e.Text != wire.TextPreviewDifferentOwned {
		t.Fatalf("same conn other id = %+v", e)
	}
	if e := errOf(t, setPreview(p, 3.6, 6, "p", wire.StateSuccess, 2)); e.Code != wire.CodePreviewConflict || e.Text != wire.TextPreviewOwnedByOther {
		t.Fatalf("other conn = %+v", e)
	}
	if e := errOf(t, p.EndPreview(3.6, 6, "p")); e.Code != wire.CodePreviewNotOwned || e.Text != wire.TextPreviewNotOwned {
		t.Fatalf("other conn end = %+v", e)
	}
	if e := errOf(t, p.EndPreview(3.6, 5, "other")); e.Code != wire.CodePreviewNotOwned {
		t.Fatalf("wrong id end = %+v", e)
	}
	if !p.PreviewActive() {
		t.Fatalf("errors must not clear the preview")
	}
}

func TestCase122_EndAfterExpiryNotOwned(t *testing.T) {
	p := newPlane(t)
	setPreview(p, 1, 5, "p", wire.StateSuccess, 1)
	p.Tick(2)
	if e := errOf(t, p.EndPreview(2.1, 5, "p")); e.Code != wire.CodePreviewNotOwned {
		t.Fatalf("end after expiry = %+v", e)
	}
}

func TestCase054_PreviewEndOnFreshPlane(t *testing.T) {
	p := newPlane(t)
	want := `{"protocol":1,"type":"error","code":"preview_not_owned","error":"surface preview is not owned by this client"}` + "\n"
	if got := encode(t, p.EndPreview(1, 1, "nope").Out[0].Msg); got != want {
		t.Fatalf("got %s", got)
	}
}

func TestCase123_PreviewWithoutSessions(t *testing.T) {
	p := newPlane(t)
	r := setPreview(p, 1, 5, "p", wire.StateRunning, 5)
	if _, ok := r.Out[0].Msg.(wire.PreviewAck); !ok {
		t.Fatalf("want preview_ack, got %T", r.Out[0].Msg)
	}
	if v := p.View(); v.Centre != wire.StateRunning || !p.Status().PreviewActive || v.ActivityMotion {
		t.Fatalf("view = %+v", v)
	}
}

func TestCase124_SymbolsSequence(t *testing.T) {
	p := newPlane(t)
	now := 1.0
	for _, st := range wire.States() {
		r := setPreview(p, now, 3, "5d41402abc4b2a76", st, 0.5+1.0)
		if a, ok := r.Out[0].Msg.(wire.PreviewAck); !ok || a.State != st {
			t.Fatalf("preview %s: %+v", st, r.Out)
		}
		if p.View().Centre != st {
			t.Fatalf("centre = %s, want %s", p.View().Centre, st)
		}
		now += 0.5
		p.Tick(now)
	}
	if _, ok := p.EndPreview(now, 3, "5d41402abc4b2a76").Out[0].Msg.(wire.PreviewEndAck); !ok {
		t.Fatalf("preview_end not acknowledged")
	}
}

func TestPreviewRejectsBadInput(t *testing.T) {
	p := newPlane(t)
	if e := errOf(t, setPreview(p, 1, 1, "", wire.StateRunning, 1)); e.Text != wire.TextPreviewID {
		t.Fatalf("empty id = %+v", e)
	}
	for _, bad := range []float64{0, -1, 30.0001} {
		if e := errOf(t, setPreview(p, 1, 1, "p", wire.StateRunning, bad)); e.Text != wire.TextTTL {
			t.Fatalf("ttl %v = %+v", bad, e)
		}
	}
	if _, ok := setPreview(p, 1, 1, "p", wire.StateRunning, 30).Out[0].Msg.(wire.PreviewAck); !ok {
		t.Fatalf("ttl 30 should be accepted")
	}
}
