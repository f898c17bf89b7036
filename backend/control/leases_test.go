package control

import (
	"reflect"
	"testing"

	"github.com/lets-app/lets/backend/wire"
)

func lease(t testing.TB, p *Plane, now float64, conn int64, id string, agent wire.Identity, m wire.Metadata) wire.SessionLeaseAck {
	t.Helper()
	r := p.RegisterLease(now, conn, wire.SessionLeaseCommand{LeaseID: id, Agent: agent, Metadata: m})
	if len(r.Out) != 1 || r.Out[0].Conn != conn {
		t.Fatalf("session_lease must answer exactly once to the sender: %+v", r.Out)
	}
	ack, ok := r.Out[0].Msg.(wire.SessionLeaseAck)
	if !ok {
		t.Fatalf("answer is %T, want session_lease_ack", r.Out[0].Msg)
	}
	return ack
}

func TestCase100_LeaseBindsAndReleaseRemoves(t *testing.T) {
	p := newPlane(t)
	ack := lease(t, p, 1, 1, "lease-1", wire.Identity{}, meta("label", "docs"))
	if ack.Session != nil || encode(t, ack) != `{"protocol":1,"type":"session_lease_ack","lease_id":"lease-1"}`+"\n" {
		t.Fatalf("ack = %s", encode(t, ack))
	}
	r := p.Update(2, 2, wire.StateCommand{Agent: cx("s"), State: wire.StateRunning, Metadata: meta("cwd", "/w/proj"), LeaseID: "lease-1", Reply: true})
	if len(r.Out) != 2 || r.Out[1].Conn != 2 {
		t.Fatalf("out = %+v", r.Out)
	}
	sa := r.Out[1].Msg.(wire.StateAck)
	if sa.State != wire.StateRunning || !sa.Leased || sa.Label != "docs" {
		t.Fatalf("state_ack = %+v", sa)
	}
	e := entry(t, p, cx("s"))
	if !e.Leased || e.Label != "docs" {
		t.Fatalf("status entry = %+v", e)
	}
	p.Disconnect(3, 1)
	if p.Len() != 0 {
		t.Fatalf("session survives lease release")
	}
	if _, ok := p.Selected(); ok {
		t.Fatalf("selection survives")
	}
	mustCheck(t, p)
}

func TestCase101_LeaseBoundBeforeAckWithPreUpdateSnapshot(t *testing.T) {
	p := newPlane(t)
	lease(t, p, 1, 1, "lease-1", wire.Identity{}, meta("label", "docs"))
	r := p.Update(2, 2, wire.StateCommand{Agent: cx("s"), State: wire.StateRunning, LeaseID: "lease-1", Reply: true})
	if len(r.Out) != 2 {
		t.Fatalf("out = %+v", r.Out)
	}
	if r.Out[0].Conn != 1 {
		t.Fatalf("first message should go to the lease owner, got conn %d", r.Out[0].Conn)
	}
	bound := r.Out[0].Msg.(wire.SessionLeaseBound)
	want := `{"protocol":1,"type":"session_lease_bound","lease_id":"lease-1","session":{"protocol":1,"type":"state_ack","backend":"codex","session_id":"s","state":"waiting_for_reply","slot":0,"scene":1,"accent":"cyan","selected":true,"leased":true,"label":"docs"}}` + "\n"
	if got := encode(t, bound); got != want {
		t.Fatalf("bound:\n%s\nwant:\n%s", got, want)
	}
	if r.Out[1].Msg.(wire.StateAck).State != wire.StateRunning {
		t.Fatalf("ack state should be running")
	}
	// Without reply only the bound message is written.
	r = p.Update(3, 2, wire.StateCommand{Agent: cx("s"), State: wire.StateRunning, LeaseID: "lease-1"})
	if len(r.Out) != 1 || r.Out[0].Conn != 1 {
		t.Fatalf("out = %+v", r.Out)
	}
}

func TestCase102_EveryLeasedStateSendsBound(t *testing.T) {
	p := newPlane(t)
	lease(t, p, 1, 1, "L", wire.Identity{}, nil)
	p.Update(2, 2, wire.StateCommand{Agent: cx("s"), State: wire.StateRunning, LeaseID: "L"})
	r := p.Update(3, 2, wire.StateCommand{Agent: cx("s"), State: wire.StateSuccess, LeaseID: "L"})
	if len(r.Out) != 1 {
		t.Fatalf("out = %+v", r.Out)
	}
	if b := r.Out[0].Msg.(wire.SessionLeaseBound); b.Session.State != wire.StateRunning {
		t.Fatalf("embedded state = %s, want the previous state running", b.Session.State)
	}
}

func TestCase103_LeaseMetadataReapplied(t *testing.T) {
	p := newPlane(t)
	lease(t, p, 1, 1, "L", wire.Identity{}, meta("label", "docs", "cwd", "A"))
	p.Update(2, 2, wire.StateCommand{Agent: cx("s"), State: wire.StateRunning, LeaseID: "L", Metadata: meta("cwd", "B")})
	p.Update(3, 2, wire.StateCommand{Agent: cx("s"), State: wire.StateRunning, LeaseID: "L", Metadata: meta("label", "new")})
	if got := entry(t, p, cx("s")).Metadata; !got.Equal(meta("label", "new", "cwd", "A")) {
		t.Fatalf("metadata = %v", got)
	}
}

func TestCase104_LeaseTakeover(t *testing.T) {
	p := newPlane(t)
	lease(t, p, 1, 10, "L", cx("s"), nil)
	lease(t, p, 2, 11, "L", cx("s"), nil)
	p.Disconnect(3, 10)
	if e := entry(t, p, cx("s")); !e.Leased {
		t.Fatalf("session should stay leased after the displaced owner closes")
	}
	p.Disconnect(4, 11)
	if hasSession(p, cx("s")) {
		t.Fatalf("session should be removed when the owner closes")
	}
	mustCheck(t, p)
}

func TestCase105_LeaseWithAgentOnEmptyDaemon(t *testing.T) {
	p := newPlane(t)
	ack := lease(t, p, 1, 1, "L", cx("s"), nil)
	want := `{"protocol":1,"type":"session_lease_ack","lease_id":"L","session":{"protocol":1,"type":"state_ack","backend":"codex","session_id":"s","state":"waiting_for_reply","slot":0,"scene":1,"accent":"cyan","selected":true,"leased":true,"label":"s"}}` + "\n"
	if got := encode(t, ack); got != want {
		t.Fatalf("ack:\n%s\nwant:\n%s", got, want)
	}
}

func TestCase106_SecondLeaseReleasesFirst(t *testing.T) {
	p := newPlane(t)
	lease(t, p, 1, 1, "A", cx("one"), nil)
	lease(t, p, 2, 1, "B", cx("two"), nil)
	if hasSession(p, cx("one")) {
		t.Fatalf("one should be removed")
	}
	if got := selectedID(p); got != "two" {
		t.Fatalf("selected = %s, want two", got)
	}
}

func TestCase107_StateRebindsLease(t *testing.T) {
	p := newPlane(t)
	lease(t, p, 1, 1, "A", cx("one"), nil)
	lease(t, p, 2, 1, "B", cx("two"), nil)
	r := p.Update(3, 2, wire.StateCommand{Agent: cx("three"), State: wire.StateRunning, LeaseID: "B"})
	if len(r.Out) != 1 || r.Out[0].Conn != 1 {
		t.Fatalf("out = %+v", r.Out)
	}
	b := r.Out[0].Msg.(wire.SessionLeaseBound)
	if b.Session.SessionID != "three" || b.Session.Slot != 1 || b.Session.Selected || !b.Session.Leased {
		t.Fatalf("bound = %+v", b.Session)
	}
	if hasSession(p, cx("two")) {
		t.Fatalf("two should be removed")
	}
	if _, ok := p.Selected(); ok {
		t.Fatalf("selection should be null")
	}
	mustCheck(t, p)
}

func TestCase108_GhostLeaseAdoptedLater(t *testing.T) {
	p := newPlane(t)
	r := p.Update(1, 2, wire.StateCommand{Agent: cx("s"), State: wire.StateRunning, LeaseID: "ghost", Reply: true})
	if len(r.Out) != 1 || r.Out[0].Conn != 2 {
		t.Fatalf("only the state_ack expected: %+v", r.Out)
	}
	if r.Out[0].Msg.(wire.StateAck).Leased {
		t.Fatalf("unowned lease must not make the session leased")
	}
	ack := lease(t, p, 2, 5, "ghost", wire.Identity{}, nil)
	if ack.Session == nil || !ack.Session.Leased || ack.Session.SessionID != "s" {
		t.Fatalf("ack = %+v", ack)
	}
	p.Disconnect(3, 5)
	if hasSession(p, cx("s")) {
		t.Fatalf("session should be removed on release")
	}
}

func TestCase109_TwoLeasesOneIdentity(t *testing.T) {
	p := newPlane(t)
	lease(t, p, 1, 1, "L1", cx("s"), nil)
	lease(t, p, 2, 2, "L2", cx("s"), nil)
	p.Disconnect(3, 1)
	if e := entry(t, p, cx("s")); !e.Leased {
		t.Fatalf("still leased expected")
	}
	p.Disconnect(4, 2)
	if hasSession(p, cx("s")) {
		t.Fatalf("session should be removed")
	}
}

func TestCase110_SessionEndForgetsBinding(t *testing.T) {
	p := newPlane(t)
	lease(t, p, 1, 1, "L", cx("s"), nil)
	p.End(2, cx("s"))
	if hasSession(p, cx("s")) {
		t.Fatalf("session_end must remove a leased session")
	}
	ack := lease(t, p, 3, 1, "L", wire.Identity{}, nil)
	if ack.Session != nil {
		t.Fatalf("ack should have no session: %+v", ack)
	}
	// The owner is still registered: a later state rebinds and notifies it.
	r := p.Update(4, 2, wire.StateCommand{Agent: cx("s"), State: wire.StateRunning, LeaseID: "L"})
	if len(r.Out) != 1 || r.Out[0].Conn != 1 {
		t.Fatalf("rebinding should notify the owner: %+v", r.Out)
	}
}

func TestCase111_LeasedSessionsDoNotExpire(t *testing.T) {
	p := newPlane(t, ttl(10))
	lease(t, p, 1, 1, "L", cx("s"), nil)
	update(p, 1, cx("s"), wire.StateWaitingForApproval)
	p.Tick(12)
	if !hasSession(p, cx("s")) {
		t.Fatalf("leased session expired")
	}
	// Once the lease connection is gone the session goes at once.
	p.Disconnect(13, 1)
	if hasSession(p, cx("s")) {
		t.Fatalf("session should be removed on release")
	}
}

func TestLeaseWithoutAgentMergesMetadataAndRefreshesActivity(t *testing.T) {
	p := newPlane(t, ttl(10))
	lease(t, p, 1, 1, "L", cx("s"), meta("cwd", "/a"))
	p.Disconnect(2, 99) // unrelated
	// Displace the owner so the session is no longer leased, then re-register.
	lease(t, p, 3, 2, "L", wire.Identity{}, nil)
	seen := p.sessions[cx("s")].lastSeen
	ack := lease(t, p, 5, 2, "L", wire.Identity{}, meta("label", "x"))
	if ack.Session == nil || ack.Session.Label != "x" {
		t.Fatalf("ack = %+v", ack)
	}
	s := p.sessions[cx("s")]
	if s.lastActivity != 5 || s.lastSeen != seen {
		t.Fatalf("lastActivity %v lastSeen %d (was %d)", s.lastActivity, s.lastSeen, seen)
	}
	if !s.metadata.Equal(meta("cwd", "/a", "label", "x")) {
		t.Fatalf("metadata = %v", s.metadata)
	}
}

func TestRegisterLeaseRejectsEmptyID(t *testing.T) {
	p := newPlane(t)
	r := p.RegisterLease(1, 1, wire.SessionLeaseCommand{})
	if len(r.Out) != 1 || r.Out[0].Msg.(wire.ErrorMessage).Text != wire.TextLeaseID {
		t.Fatalf("out = %+v", r.Out)
	}
}

func TestDisconnectOrder(t *testing.T) {
	// §9.12: subscription, lease, preview — all go on one disconnect.
	p := newPlane(t)
	lease(t, p, 1, 1, "L", cx("s"), nil)
	subscribe(p, 1, 1, cx("s"), "", false, stop)
	p.SetPreview(1, 1, wire.PreviewCommand{PreviewID: "p", State: wire.StateSuccess, TTL: 5})
	r := p.Disconnect(2, 1)
	if !r.Changed || len(r.Out) != 0 || p.Len() != 0 || p.PreviewActive() || len(p.subs) != 0 {
		t.Fatalf("disconnect left state behind: %+v len %d", r, p.Len())
	}
	if !reflect.DeepEqual(p.clientLeases, map[int64]string{}) || len(p.leaseClients) != 0 {
		t.Fatalf("lease tables not empty")
	}
}
