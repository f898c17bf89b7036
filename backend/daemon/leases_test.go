package daemon_test

import (
	"strings"
	"testing"

	"github.com/lets-app/lets/backend/control"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/backend/wire"
)

func leaseMsg(id string, extra ...string) string {
	m := `{"protocol":1,"type":"session_lease","lease_id":"` + id + `"`
	for _, e := range extra {
		m += "," + e
	}
	return m + "}"
}

// lease opens a connection that registers a lease and returns it with the
// acknowledgement.
func (h *harness) lease(id string, extra ...string) (*client, map[string]any) {
	h.t.Helper()
	c := h.dial()
	c.send(leaseMsg(id, extra...))
	ack := c.read()
	if ack["type"] != "session_lease_ack" {
		h.t.Fatalf("lease answered %v", ack)
	}
	return c, ack
}

// waitGone waits until the session disappears (a disconnect is noticed
// asynchronously; no cross-connection ordering is promised).
func (h *harness) waitGone(backend, sid string) {
	h.t.Helper()
	testutil.Eventually(h.t, "session "+backend+"/"+sid+" is gone", func() bool { return h.session(backend, sid) == nil })
}

func sessionOf(m map[string]any) map[string]any {
	s, _ := m["session"].(map[string]any)
	return s
}

func TestCase100_101_LeaseBindsAndDiesWithItsConnection(t *testing.T) {
	h := start(t)
	owner, _ := h.lease("lease-1", `"metadata":{"label":"docs"}`)
	hook := h.dial()
	hook.send(stateMsg("codex", "s", "running", `"agent":{"backend":"codex","session_id":"s","cwd":"/w/x"}`, `"lease_id":"lease-1"`, `"reply":true`))
	ack := hook.read()
	if ack["type"] != "state_ack" || ack["state"] != "running" || ack["leased"] != true {
		t.Fatalf("case 100: ack %v", ack)
	}
	// Case 101: the owner's notification embeds the pre-update state and
	// was queued before the ack, so it is already there.
	bound := owner.read()
	if bound["type"] != "session_lease_bound" || bound["lease_id"] != "lease-1" || sessionOf(bound)["state"] != "waiting_for_reply" {
		t.Fatalf("case 101: bound %v", bound)
	}
	s := h.session("codex", "s")
	if s["leased"] != true || s["label"] != "docs" {
		t.Fatalf("status entry %v", s)
	}
	owner.close()
	h.waitGone("codex", "s")
	if got := h.selected(); got != "" {
		t.Fatalf("selection %q after the leased session went", got)
	}
}

func TestCase102_EveryLeasedStateNotifiesOwner(t *testing.T) {
	h := start(t)
	owner, _ := h.lease("L")
	h.update("codex", "s", "running", `"lease_id":"L"`)
	if m := owner.read(); sessionOf(m)["state"] != "waiting_for_reply" {
		t.Fatalf("first bound %v", m)
	}
	h.update("codex", "s", "error", `"lease_id":"L"`)
	if m := owner.read(); m["type"] != "session_lease_bound" || sessionOf(m)["state"] != "running" {
		t.Fatalf("second bound %v", m)
	}
}

func TestCase103_LeaseMetadataReappliedOnBinding(t *testing.T) {
	h := start(t)
	h.lease("L", `"metadata":{"label":"docs","cwd":"A"}`)
	h.update("codex", "s", "running", `"agent":{"backend":"codex","session_id":"s","cwd":"B"}`, `"lease_id":"L"`)
	h.update("codex", "s", "running", `"agent":{"backend":"codex","session_id":"s","label":"new"}`, `"lease_id":"L"`)
	c := h.dial()
	line := c.roundtrip(`{"protocol":1,"type":"status"}`)
	want := `"metadata":{"label":"new","cwd":"A"}`
	if !strings.Contains(line, want) {
		t.Fatalf("status %s lacks %s", line, want)
	}
}

func TestCase104_TakeoverThenCloseBoth(t *testing.T) {
	h := start(t)
	agent := `"agent":{"backend":"codex","session_id":"s"}`
	first, _ := h.lease("L", agent)
	second, _ := h.lease("L", agent)
	first.closeAndWait() // the daemon ran its disconnect cleanup; nothing must change
	if s := h.session("codex", "s"); s == nil || s["leased"] != true {
		t.Fatalf("after closing the displaced owner: %v", s)
	}
	second.close()
	h.waitGone("codex", "s")
}

func TestCase105_LeaseWithAgentOnEmptyDaemon(t *testing.T) {
	h := start(t)
	c := h.dial()
	c.send(leaseMsg("L", `"agent":{"backend":"codex","session_id":"s"}`))
	c.expectLine(`{"protocol":1,"type":"session_lease_ack","lease_id":"L","session":{"protocol":1,"type":"state_ack","backend":"codex","session_id":"s","state":"waiting_for_reply","slot":0,"scene":1,"accent":"cyan","selected":true,"leased":true,"label":"s"}}`)
}

func TestCase106_107_RebindingRemovesPreviousSession(t *testing.T) {
	h := start(t)
	c := h.dial()
	c.send(leaseMsg("A", `"agent":{"backend":"codex","session_id":"one"}`))
	c.read()
	c.send(leaseMsg("B", `"agent":{"backend":"codex","session_id":"two"}`))
	ack := c.read()
	if s := sessionOf(ack); s["session_id"] != "two" || s["selected"] != true {
		t.Fatalf("case 106: ack %v", ack)
	}
	if h.session("codex", "one") != nil {
		t.Fatal("case 106: one survived")
	}
	// Case 107.
	h.update("codex", "three", "running", `"lease_id":"B"`)
	bound := c.read()
	if s := sessionOf(bound); bound["type"] != "session_lease_bound" || s["session_id"] != "three" || num(s["slot"]) != 1 || s["selected"] != false {
		t.Fatalf("case 107: bound %v", bound)
	}
	if h.session("codex", "two") != nil || h.selected() != "" {
		t.Fatal("case 107: two survived or selection kept")
	}
}

func TestCase108_GhostLeaseAdoptedLater(t *testing.T) {
	h := start(t)
	ack := h.update("codex", "g", "running", `"lease_id":"ghost"`)
	if ack["leased"] != false {
		t.Fatalf("ack %v", ack)
	}
	owner, lack := h.lease("ghost")
	if s := sessionOf(lack); s == nil || s["session_id"] != "g" || s["leased"] != true {
		t.Fatalf("lease ack %v", lack)
	}
	owner.close()
	h.waitGone("codex", "g")
}

func TestCase109_TwoLeasesOneIdentity(t *testing.T) {
	h := start(t)
	agent := `"agent":{"backend":"codex","session_id":"s"}`
	a, _ := h.lease("L1", agent)
	b, _ := h.lease("L2", agent)
	a.closeAndWait()
	if s := h.session("codex", "s"); s == nil || s["leased"] != true {
		t.Fatalf("after closing one: %v", s)
	}
	b.close()
	h.waitGone("codex", "s")
}

func TestCase110_EndLeasedThenReRegister(t *testing.T) {
	h := start(t)
	c, _ := h.lease("L", `"agent":{"backend":"codex","session_id":"s"}`)
	h.end("codex", "s")
	if h.session("codex", "s") != nil {
		t.Fatal("leased session survived session_end")
	}
	c.send(leaseMsg("L"))
	c.expectLine(`{"protocol":1,"type":"session_lease_ack","lease_id":"L"}`)
}

func TestCase111_LeasedSessionNeverExpires(t *testing.T) {
	h := start(t, withControl(func(c *control.Config) { c.SessionTTL = 10 }))
	h.set(1)
	h.lease("L", `"agent":{"backend":"codex","session_id":"s"}`)
	h.update("codex", "s", "waiting_for_approval")
	h.set(12)
	if h.session("codex", "s") == nil {
		t.Fatal("leased session expired")
	}
}

func TestCase113_TerminalHoldThenTTL(t *testing.T) {
	h := start(t, withControl(func(c *control.Config) { c.SessionTTL = 10 }))
	h.set(1)
	h.update("codex", "s", "success")
	for _, step := range []struct {
		at    float64
		state any
	}{{2.9, "success"}, {3.0, "waiting_for_reply"}, {10.9, "waiting_for_reply"}, {11.0, nil}} {
		h.set(step.at)
		s := h.session("codex", "s")
		var got any
		if s != nil {
			got = s["state"]
		}
		if got != step.state {
			t.Fatalf("at %v: state %v, want %v", step.at, got, step.state)
		}
	}
}

func TestCase114_TickerRendersHoldFallback(t *testing.T) {
	h := start(t)
	h.update("codex", "s", "success")
	h.waitCentre(wire.StateSuccess)
	h.set(10) // past the hold; no message follows: the ticker must act
	h.waitCentre(wire.StateWaitingForReply)
}

func TestCase115_TTLRemovesSelectedToo(t *testing.T) {
	h := start(t, withControl(func(c *control.Config) { c.SessionTTL = 10 }))
	h.set(1)
	h.update("codex", "A", "running")
	h.update("codex", "B", "waiting_for_reply")
	h.set(12)
	if n := len(h.sessions()); n != 0 {
		t.Fatalf("%d sessions left", n)
	}
	if h.selected() != "" {
		t.Fatal("selection survived")
	}
}

func TestCase116_TTLZeroNeverExpires(t *testing.T) {
	h := start(t, withControl(func(c *control.Config) { c.SessionTTL = 0 }))
	h.update("codex", "s", "running")
	h.set(9e9) // ~285 years: about the longest a time.Duration reaches
	if h.session("codex", "s") == nil {
		t.Fatal("session expired with TTL 0")
	}
	if st := h.status(); num(st["session_ttl"]) != 0 {
		t.Fatalf("session_ttl %v", st["session_ttl"])
	}
}

func TestCase117_RetryOnlyDuringHold(t *testing.T) {
	h := start(t)
	h.update("codex", "s", "error")
	h.subscribe("codex", "s", []string{"retry"})
	h.waitAvailable(wire.ActionRetry)
	h.advance(2)
	h.waitView("hold over", func(v control.View) bool {
		return v.Centre == wire.StateWaitingForReply && len(v.Available) == 0
	})
}

func previewMsg(id, state, ttl string) string {
	return `{"protocol":1,"type":"preview","preview_id":"` + id + `","state":"` + state + `","ttl":` + ttl + `}`
}

func TestCase118_PreviewOverridesViewUntilExpiry(t *testing.T) {
	h := start(t)
	h.update("codex", "s", "running")
	h.subscribe("codex", "s", []string{"stop"})
	h.waitAvailable(wire.ActionStop)
	x := h.dial()
	x.send(previewMsg("p", "success", "2"))
	if m := x.read(); m["type"] != "preview_ack" {
		t.Fatalf("preview %v", m)
	}
	h.waitView("preview", func(v control.View) bool {
		return v.Centre == wire.StateSuccess && v.PreviewActive && len(v.Available) == 0
	})
	if s := h.session("codex", "s"); s["state"] != "running" {
		t.Fatalf("real state %v", s["state"])
	}
	y := h.dial()
	y.send(previewMsg("q", "error", "2"))
	y.expectError(wire.CodePreviewConflict, wire.TextPreviewOwnedByOther)
	h.advance(2)
	h.waitView("preview expired", func(v control.View) bool {
		return v.Centre == wire.StateRunning && !v.PreviewActive && len(v.Available) == 1
	})
}

func TestCase119_PreviewEndRestoresView(t *testing.T) {
	h := start(t)
	h.update("codex", "s", "running")
	h.subscribe("codex", "s", []string{"stop"})
	c := h.dial()
	c.send(previewMsg("p", "waiting_for_approval", "5"))
	c.read()
	h.waitView("preview", func(v control.View) bool {
		return v.Centre == wire.StateWaitingForApproval && len(v.Available) == 0
	})
	if st := h.status(); st["preview_active"] != true {
		t.Fatal("preview_active false")
	}
	if s := h.session("codex", "s"); s["state"] != "running" {
		t.Fatalf("state changed to %v", s["state"])
	}
	c.send(`{"protocol":1,"type":"preview_end","preview_id":"p"}`)
	c.expectLine(`{"protocol":1,"type":"preview_end_ack","preview_id":"p"}`)
	h.waitView("real view", func(v control.View) bool {
		return v.Centre == wire.StateRunning && len(v.Available) == 1 && v.Available[0] == wire.ActionStop
	})
}

func TestCase120_PreviewExpiryAndOwnerDisconnect(t *testing.T) {
	h := start(t)
	h.update("codex", "s", "running")
	c := h.dial()
	h.set(1.0)
	c.send(previewMsg("p", "success", "1.0"))
	c.read()
	h.set(2.1)
	h.waitView("preview expired", func(v control.View) bool { return !v.PreviewActive })
	if h.status()["preview_active"] != false {
		t.Fatal("preview_active still true")
	}
	c.send(previewMsg("p2", "error", "5"))
	c.read()
	h.waitCentre(wire.StateError)
	c.close()
	h.waitView("owner gone", func(v control.View) bool { return !v.PreviewActive && v.Centre == wire.StateRunning })
}

func TestCase121_PreviewOwnership(t *testing.T) {
	h := start(t)
	a := h.dial()
	a.send(previewMsg("p", "success", "5"))
	a.read()
	a.send(previewMsg("p", "error", "5"))
	a.expectLine(`{"protocol":1,"type":"preview_ack","preview_id":"p","state":"error"}`)
	a.send(previewMsg("other", "error", "5"))
	a.expectError(wire.CodePreviewConflict, wire.TextPreviewDifferentOwned)
	b := h.dial()
	b.send(previewMsg("p", "error", "5"))
	b.expectError(wire.CodePreviewConflict, wire.TextPreviewOwnedByOther)
	b.send(`{"protocol":1,"type":"preview_end","preview_id":"p"}`)
	b.expectError(wire.CodePreviewNotOwned, wire.TextPreviewNotOwned)
}

func TestCase122_PreviewEndAfterExpiry(t *testing.T) {
	h := start(t)
	c := h.dial()
	c.send(previewMsg("p", "success", "1"))
	c.read()
	h.advance(1)
	c.send(`{"protocol":1,"type":"preview_end","preview_id":"p"}`)
	c.expectError(wire.CodePreviewNotOwned, wire.TextPreviewNotOwned)
}

func TestCase123_PreviewWithoutSessions(t *testing.T) {
	h := start(t)
	c := h.dial()
	c.send(previewMsg("p", "running", "5"))
	c.expectLine(`{"protocol":1,"type":"preview_ack","preview_id":"p","state":"running"}`)
	h.waitCentre(wire.StateRunning)
	if h.status()["preview_active"] != true {
		t.Fatal("preview_active false")
	}
}

// What `pad-lattice symbols` does (case 124 is the client side): seven
// previews on one connection with one id, then preview_end.
func TestSymbolsSequenceAgainstDaemon(t *testing.T) {
	h := start(t)
	c := h.dial()
	for _, st := range wire.States() {
		c.send(previewMsg("5d41402abc4b2a76", string(st), "1.7"))
		c.expectLine(`{"protocol":1,"type":"preview_ack","preview_id":"5d41402abc4b2a76","state":"` + string(st) + `"}`)
		h.advance(0.7)
	}
	c.send(`{"protocol":1,"type":"preview_end","preview_id":"5d41402abc4b2a76"}`)
	c.expectLine(`{"protocol":1,"type":"preview_end_ack","preview_id":"5d41402abc4b2a76"}`)
}
