package web

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/lets-app/lets/backend/control"
	"github.com/lets-app/lets/backend/wire"
)

func TestCase023_LoopbackWithoutCredential(t *testing.T) {
	e := newEnv(t, envOptions{})
	c := e.dial(dialOptions{})
	c.send(map[string]any{"type": "authenticate"})
	c.expectError(CodeForbidden, "invalid or expired credential")
	c.expectClose(1000, "")
	// null is "no credential" as well.
	c = e.dial(dialOptions{})
	c.sendRaw(`{"protocol":1,"type":"authenticate","credential":null}`)
	c.expectError(CodeForbidden, "")
	c.expectClose(1000, "")
}

func TestCase024_LoopbackWrongCredential(t *testing.T) {
	e := newEnv(t, envOptions{lan: true})
	p, _ := e.s.CurrentPairing()
	// A wrong token, and the credentials of remote devices, are refused on
	// loopback; loopback is never locked out.
	_, tok := e.pair(3)
	p2, _ := e.s.CreatePairing()
	for i, cred := range []string{"wrong", p.PIN, p2.PIN, p2.URL[strings.Index(p2.URL, "#pair=")+6:], tok, "wrong", "wrong", "wrong", "wrong", "wrong"} {
		c := e.dial(dialOptions{})
		c.auth(cred)
		c.expectError(CodeForbidden, "invalid or expired credential")
		c.expectClose(1000, "")
		_ = i
	}
	e.admin()
	// The loopback failures consumed nothing.
	if _, ok := e.s.CurrentPairing(); !ok {
		t.Fatal("loopback failures counted against the pairing")
	}
}

func TestCase025_AdminSnapshot(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.s.Render(control.View{})
	c := e.dial(dialOptions{})
	c.auth(testAdminToken)
	m := c.expect(TypeAuthenticated)
	if m["admin"] != true || m["session_token"] != nil || m["lan_enabled"] != false {
		t.Fatalf("%v", m)
	}
	if _, ok := m["session_token"]; !ok {
		t.Fatal("session_token must be present (null)")
	}
	s := c.expect(TypeSurface)
	if s["view"].(map[string]any)["frame"] != float64(0) {
		t.Fatalf("%v", s)
	}
	x := c.readRaw()
	checkMessage(t, x)
	if string(x) != `{"protocol":1,"type":"experience_state","status":"idle","kind":null,"title":null,"cue_index":null,"caption":null,"detail":null,"elapsed_ms":0,"duration_ms":null,"tempo":1.0,"audio_asset":null,"audio_cue":null,"audio_slot":null,"audio_sequence":0,"start_delay_ms":0,"reason":null}` {
		t.Fatalf("initial experience_state %s", x)
	}
	c.expectQuiet(50 * time.Millisecond)
}

func TestCase026_RemoteAdminTokenRefused(t *testing.T) {
	e := newEnv(t, envOptions{lan: true})
	c := e.remote(3)
	c.auth(testAdminToken)
	c.expectError(CodeForbidden, "")
	c.expectClose(1000, "")
}

func TestCase027_CommandBeforeAuthentication(t *testing.T) {
	e := newEnv(t, envOptions{})
	c := e.dial(dialOptions{})
	c.send(map[string]any{"type": "action", "action": "stop"})
	c.expectError(CodeAuthenticationRequired, "authenticate before sending commands")
	c.expectClose(1000, "")
	if ev := e.s.Poll(); len(ev) != 0 {
		t.Fatalf("events %v", ev)
	}
}

func TestCase028_BadFirstMessage(t *testing.T) {
	e := newEnv(t, envOptions{})
	c := e.dial(dialOptions{})
	c.sendRaw("not json")
	c.expectError(CodeInvalidJSON, "message must be valid JSON")
	c.expectClose(1000, "")
	c = e.dial(dialOptions{})
	c.sendRaw("[1,2]")
	c.expectError(CodeInvalidMessage, "message must be a JSON object")
	c.expectClose(1000, "")
}

func TestCase029_UnsupportedProtocolFirst(t *testing.T) {
	e := newEnv(t, envOptions{})
	c := e.dial(dialOptions{})
	c.sendRaw(`{"protocol":2,"type":"authenticate","credential":"` + testAdminToken + `"}`)
	c.expectError(CodeUnsupportedProtocol, "unsupported web protocol")
	c.expectClose(1000, "")
}

func TestCase030_AuthenticationTimeout(t *testing.T) {
	if AuthTimeout != 10*time.Second {
		t.Fatalf("AuthTimeout %v, the spec says 10 s", AuthTimeout)
	}
	e := newEnv(t, envOptions{})
	c := e.dial(dialOptions{})
	e.waitArmed(2) // the authentication timeout and the keep-alive ping
	e.advance(AuthTimeout.Seconds() - 0.001)
	// Not yet: the connection still takes its first message.
	c.auth(testAdminToken)
	c.expect(TypeAuthenticated)
	d := e.dial(dialOptions{})
	e.waitArmed(4) // and d's
	e.advance(AuthTimeout.Seconds())
	d.expectError(CodeAuthenticationTimeout, "authentication timed out")
	d.expectClose(1000, "")
	// The timeout covers only the first message.
	c.drainSnapshot()
	c.send(map[string]any{"type": "action", "action": "stop"})
	e.events(1)
	// Nothing else came (no late timeout error): an answered request's
	// reply is the next message.
	c.send(map[string]any{"type": "revoke_remote"})
	c.expect(TypeRemoteRevoked)
}

func TestCase030_AuthenticationTimeoutRealTenSeconds(t *testing.T) {
	if testing.Short() {
		t.Skip("waits 10 s")
	}
	t.Parallel()
	// The wall clock: without Options.Clock the timeout is real time. A
	// timer never fires early, so only the lower bound is checked; the
	// read deadline is a hang guard.
	e := newEnv(t, envOptions{realClock: true})
	c := e.dial(dialOptions{})
	start := time.Now()
	c.c.SetReadDeadline(time.Now().Add(AuthTimeout + ioTimeout))
	_, data, err := c.c.ReadMessage()
	if err != nil {
		t.Fatal(err)
	}
	checkMessage(t, data)
	if d := time.Since(start); d < 9500*time.Millisecond || !strings.Contains(string(data), CodeAuthenticationTimeout) {
		t.Fatalf("%s after %v", data, d)
	}
	c.expectClose(1000, "")
}

func TestCase031_BinaryAuthenticate(t *testing.T) {
	e := newEnv(t, envOptions{})
	c := e.dial(dialOptions{})
	c.c.WriteMessage(websocket.BinaryMessage, []byte(`{"protocol":1,"type":"authenticate","credential":"`+testAdminToken+`"}`))
	c.expect(TypeAuthenticated)
	c.drainSnapshot()
	c.c.WriteMessage(websocket.BinaryMessage, []byte(`{"protocol":1,"type":"select_session","slot":3}`))
	if ev := e.events(1); ev[0] != sessionSelected(3) {
		t.Fatalf("%v", ev)
	}
}

func TestCase032_BinaryInvalidUTF8(t *testing.T) {
	e := newEnv(t, envOptions{})
	c := e.dial(dialOptions{})
	c.c.WriteMessage(websocket.BinaryMessage, []byte{0xFF, 0xFE})
	c.expectError(CodeInvalidEncoding, "message must be UTF-8")
	c.expectClose(1000, "")
	// After authentication the connection stays open.
	a := e.admin()
	a.c.WriteMessage(websocket.BinaryMessage, []byte{0xFF, 0xFE})
	a.expectError(CodeInvalidEncoding, "message must be UTF-8")
	a.send(map[string]any{"type": "action", "action": "retry"})
	e.events(1)
	// Invalid UTF-8 in a text frame is a transport error: close 1007.
	b := e.admin()
	b.c.WriteMessage(websocket.TextMessage, []byte{'"', 0xFF, '"'})
	b.expectClose(1007, "invalid UTF-8")
}

func TestCase040_CredentialLength(t *testing.T) {
	e := newEnv(t, envOptions{})
	for _, cred := range []string{`""`, `"` + strings.Repeat("a", 257) + `"`, `"` + strings.Repeat("é", 257) + `"`, `123`, `true`, `["x"]`} {
		c := e.dial(dialOptions{})
		c.sendRaw(`{"protocol":1,"type":"authenticate","credential":` + cred + `}`)
		c.expectError(CodeInvalidMessage, "credential must be a non-empty string")
		c.expectClose(1000, "")
	}
	// 256 code points (512 bytes) is a credential, just a wrong one.
	c := e.dial(dialOptions{})
	c.auth(strings.Repeat("é", 256))
	c.refused()
}

func TestCase041_AuthenticateTwice(t *testing.T) {
	e := newEnv(t, envOptions{})
	c := e.admin()
	c.auth(testAdminToken)
	c.expectError(CodeInvalidMessage, "client is already authenticated")
	c.send(map[string]any{"type": "action", "action": "approve"})
	if ev := e.events(1); ev[0] != actionPressed(wire.ActionApprove) {
		t.Fatalf("%v", ev)
	}
}

func TestCase051To053_PairAndReconnect(t *testing.T) {
	e := newEnv(t, envOptions{lan: true})
	p, ok := e.s.CurrentPairing()
	if !ok || len(p.PIN) != 6 {
		t.Fatalf("no start-up pairing: %+v", p)
	}
	c := e.remote(3)
	c.auth(p.PIN)
	m := c.expect(TypeAuthenticated)
	tok, _ := m["session_token"].(string)
	if m["admin"] != false || len(tok) != 43 || m["lan_enabled"] != true {
		t.Fatalf("case 51: %v", m)
	}
	for _, r := range tok {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			t.Fatalf("token %q", tok)
		}
	}
	// Remote clients never get pairing messages.
	for _, m := range c.drainSnapshot() {
		if m["type"] == TypePairing {
			t.Fatal("remote got a pairing")
		}
	}
	// Case 52: the same PIN again, from this or another peer.
	for _, n := range []int{3, 4} {
		d := e.remote(n)
		d.auth(p.PIN)
		d.expectError(CodeForbidden, "")
		d.expectClose(1000, "")
	}
	// Case 53: the session token reconnects, without a new token, from any
	// peer and as often as needed.
	for _, n := range []int{3, 5, 3} {
		d := e.remote(n)
		d.auth(tok)
		m := d.expect(TypeAuthenticated)
		if m["admin"] != false || m["session_token"] != nil {
			t.Fatalf("case 53: %v", m)
		}
		d.drainSnapshot()
	}
}

func TestCase054_ConcurrentPIN(t *testing.T) {
	e := newEnv(t, envOptions{lan: true})
	for round := range 5 {
		p, err := e.s.CreatePairing()
		if err != nil {
			t.Fatal(err)
		}
		a, b := e.remote(10+2*round), e.remote(11+2*round)
		var wg sync.WaitGroup
		for _, c := range []*wsClient{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c.c.WriteMessage(websocket.TextMessage, []byte(`{"protocol":1,"type":"authenticate","credential":"`+p.PIN+`"}`))
			}()
		}
		wg.Wait()
		wins := 0
		for _, c := range []*wsClient{a, b} {
			m := c.read()
			switch m["type"] {
			case TypeAuthenticated:
				wins++
				if len(m["session_token"].(string)) != 43 {
					t.Fatalf("%v", m)
				}
			case TypeError:
				if m["code"] != CodeForbidden {
					t.Fatalf("%v", m)
				}
				c.expectClose(1000, "")
			}
			c.c.Close()
		}
		e.waitIdle()
		if wins != 1 {
			t.Fatalf("round %d: %d successes", round, wins)
		}
	}
	if n := len(e.s.Devices()); n != 5 {
		t.Fatalf("%d devices", n)
	}
}

func TestCase055_RevokeRemote(t *testing.T) {
	e := newEnv(t, envOptions{lan: true})
	r1, tok1 := e.pair(3)
	r2, tok2 := e.pair(4)
	admin := e.admin()
	other := e.admin()
	// A remote still authenticating is not closed by the revocation.
	pending := e.remote(6)
	admin.send(map[string]any{"type": "revoke_remote"})
	admin.expect(TypeRemoteRevoked)
	r1.expectClose(1008, "authorization revoked")
	r2.expectClose(1008, "authorization revoked")
	other.expectQuiet(50 * time.Millisecond) // the reply goes to the requester only
	pending.auth(tok1)
	pending.refused()
	for _, tok := range []string{tok1, tok2} {
		c := e.remote(5)
		c.auth(tok)
		c.refused()
	}
	if _, ok := e.s.CurrentPairing(); ok {
		t.Fatal("the pairing survived the revocation")
	}
	// Admins stay connected.
	admin.send(map[string]any{"type": "action", "action": "stop"})
	e.events(1)
}

func TestCase055_RevokeRemoteWithoutLAN(t *testing.T) {
	e := newEnv(t, envOptions{})
	a := e.admin()
	a.send(map[string]any{"type": "revoke_remote"})
	a.expect(TypeRemoteRevoked)
}

func TestCase056_PairingExpiry(t *testing.T) {
	e := newEnv(t, envOptions{lan: true})
	for i, c := range []struct {
		after float64
		ok    bool
	}{{301, false}, {300.0, false}, {299.999, true}} {
		t0 := 5000.0 * float64(i+1)
		e.set(t0)
		p, err := e.s.CreatePairing()
		if err != nil {
			t.Fatal(err)
		}
		e.set(t0 + c.after)
		r := e.remote(20 + i)
		r.auth(p.PIN)
		m := r.read()
		if got := m["type"] == TypeAuthenticated; got != c.ok {
			t.Fatalf("PIN at t0+%v: %v", c.after, m)
		}
	}
}

func TestCase057_LockoutPerIP(t *testing.T) {
	e := newEnv(t, envOptions{lan: true})
	e.set(100)
	p, _ := e.s.CreatePairing()
	_, tok := e.pair(9) // consumes p; make another
	p, _ = e.s.CreatePairing()
	for i := range 5 {
		e.set(100 + float64(i)*0.1)
		c := e.remote(7)
		c.auth("000000x")
		c.refused()
	}
	attempts := e.s.auth.pairing.attempts
	if attempts != 5 {
		t.Fatalf("attempts %d", attempts)
	}
	e.set(159.9)
	for _, cred := range []string{p.PIN, tok} {
		c := e.remote(7)
		c.auth(cred)
		c.refused()
	}
	if e.s.auth.pairing.attempts != attempts {
		t.Fatal("attempts during a lock-out were counted")
	}
	// Another IP is not affected.
	c := e.remote(8)
	c.auth(tok)
	c.expect(TypeAuthenticated)
	// 60 s after the first failure the IP may try again.
	e.set(160.0)
	c = e.remote(7)
	c.auth(p.PIN)
	c.expect(TypeAuthenticated)
}

func TestCase058_PairingDiscardedAfter20Failures(t *testing.T) {
	e := newEnv(t, envOptions{lan: true})
	p, _ := e.s.CurrentPairing()
	for i := range 20 {
		c := e.remote(30 + i)
		c.auth("999999x")
		c.refused()
	}
	if _, ok := e.s.CurrentPairing(); ok {
		t.Fatal("pairing survived 20 failures")
	}
	c := e.remote(60)
	c.auth(p.PIN)
	c.refused()
}

func TestCase059_NewPairingReplacesOld(t *testing.T) {
	e := newEnv(t, envOptions{lan: true})
	old, _ := e.s.CurrentPairing()
	admin := e.admin()
	admin.send(map[string]any{"type": "create_pairing"})
	m := admin.expect(TypePairing)
	if m["expires_in"] != float64(300) || m["pin"] == old.PIN && m["pairing_url"] == old.URL {
		t.Fatalf("%v", m)
	}
	oldSecret := old.URL[strings.Index(old.URL, "#pair=")+6:]
	for _, cred := range []string{old.PIN, oldSecret} {
		if cred == m["pin"] {
			continue // one in a million
		}
		c := e.remote(3)
		c.auth(cred)
		c.refused()
	}
	c := e.remote(4)
	c.auth(m["pin"].(string))
	c.expect(TypeAuthenticated)
}

func TestCase060_SecretConsumesPIN(t *testing.T) {
	e := newEnv(t, envOptions{lan: true})
	p, _ := e.s.CurrentPairing()
	secret := p.URL[strings.Index(p.URL, "#pair=")+6:]
	if len(secret) != 32 {
		t.Fatalf("secret %q", secret)
	}
	c := e.remote(3)
	c.auth(secret)
	if m := c.expect(TypeAuthenticated); len(m["session_token"].(string)) != 43 {
		t.Fatalf("%v", m)
	}
	d := e.remote(4)
	d.auth(p.PIN)
	d.refused()
}

func TestCase064_PairingReplayToAdmins(t *testing.T) {
	e := newEnv(t, envOptions{lan: true})
	e.set(2000)
	p, _ := e.s.CreatePairing()
	// Half-way values round to even; nothing is sent when ≤ 0 remains
	// (checked in the order the clock reaches them).
	type left struct {
		left float64
		want int
		ok   bool
	}
	check := func(cases ...left) {
		t.Helper()
		for _, c := range cases {
			e.set(2000 + 300 - c.left)
			got, ok := e.s.CurrentPairing()
			if ok != c.ok || (ok && got.ExpiresIn != c.want) {
				t.Errorf("%v left: %+v %v", c.left, got, ok)
			}
		}
	}
	check(left{121.5, 122, true}, left{120.5, 120, true})
	e.set(2000 + 300 - 120.4)
	c := e.dial(dialOptions{})
	c.auth(testAdminToken)
	c.expect(TypeAuthenticated)
	m := c.expect(TypePairing)
	if m["expires_in"] != float64(120) || m["pin"] != p.PIN || m["pairing_url"] != p.URL {
		t.Fatalf("%v", m)
	}
	c.expect(TypeExperienceState)
	check(left{0.51, 1, true}, left{0.5, 0, false}, left{-3, 0, false})
	// Remote clients never get one.
	e.s.CreatePairing()
	_, tok := e.pair(3)
	e.s.CreatePairing()
	r := e.remote(4)
	r.auth(tok)
	r.expect(TypeAuthenticated)
	r.expect(TypeExperienceState)
}

func TestCase071_NonASCIICredential(t *testing.T) {
	e := newEnv(t, envOptions{lan: true})
	for _, c := range []*wsClient{e.dial(dialOptions{}), e.remote(3)} {
		c.auth("é" + testAdminToken)
		c.expectError(CodeForbidden, "")
		c.expectClose(1000, "")
	}
}

// Pure policy tests of the authority with the spec's exact times.

func TestAuthorityLockoutWindow(t *testing.T) {
	a := newAuthority("admin", time.Now)
	a.newPairing(0, "http://pad.local:1", func(string) (string, error) { return "data:image/svg+xml,", nil })
	bad := "bad"
	for i := range 5 {
		if a.authenticate("10.0.0.5", false, &bad, float64(i)*0.1).ok {
			t.Fatal("bad credential accepted")
		}
	}
	pin := a.pairing.pin
	for _, now := range []float64{0.5, 30, 59.9} {
		if a.authenticate("10.0.0.5", false, &pin, now).ok || !a.locked("10.0.0.5", now) {
			t.Fatalf("not locked at %v", now)
		}
	}
	if a.pairing.attempts != 5 {
		t.Fatalf("attempts %d", a.pairing.attempts)
	}
	if a.locked("10.0.0.5", 60.0) {
		t.Fatal("still locked at 60.0")
	}
	// At 60.0 the first failure is 60 s old: four remain, one more locks.
	if a.authenticate("10.0.0.5", false, &bad, 60.0).ok || !a.locked("10.0.0.5", 60.05) {
		t.Fatal("sliding window")
	}
	if !a.locked("10.0.0.5", 60.09) || a.locked("10.0.0.5", 60.1) {
		t.Fatal("sliding window end")
	}
	// Missing credentials are not counted; loopback is never limited.
	for range 10 {
		a.authenticate("10.0.0.6", false, nil, 61)
		a.authenticate("127.0.0.1", true, &bad, 61)
	}
	if a.locked("10.0.0.6", 61) || a.locked("127.0.0.1", 61) {
		t.Fatal("uncounted attempts locked")
	}
	res := a.authenticate("10.0.0.6", false, &pin, 61)
	if !res.ok || len(res.issued) != 43 || a.pairing != nil {
		t.Fatalf("pairing: %+v", res)
	}
	// Success clears the peer's history; token reconnects do not.
	if _, ok := a.failures["10.0.0.6"]; ok {
		t.Fatal("history kept")
	}
}

func TestAuthorityFailureMapBounded(t *testing.T) {
	a := newAuthority("admin", time.Now)
	bad := "bad"
	for i := range maxTrackedPeers + 100 {
		a.authenticate("10.1."+strconv.Itoa(i/256)+"."+strconv.Itoa(i%256), false, &bad, float64(i)*0.001)
	}
	if len(a.failures) > maxTrackedPeers {
		t.Fatalf("%d peers tracked", len(a.failures))
	}
}

func TestPairingFormats(t *testing.T) {
	e := newEnv(t, envOptions{lan: true})
	for range 20 {
		p, err := e.s.CreatePairing()
		if err != nil {
			t.Fatal(err)
		}
		if len(p.PIN) != 6 || strings.Trim(p.PIN, "0123456789") != "" {
			t.Fatalf("PIN %q", p.PIN)
		}
		if !strings.HasPrefix(p.URL, "http://pad-host.local:") || len(p.URL[strings.Index(p.URL, "#pair=")+6:]) != 32 {
			t.Fatalf("URL %q", p.URL)
		}
		if !strings.HasPrefix(p.QRDataURI, "data:image/svg+xml;charset=utf-8,%3Csvg") || p.ExpiresIn != 300 {
			t.Fatalf("%+v", p)
		}
	}
}

func TestOpenIsIdempotentAndCloseToo(t *testing.T) {
	e := newEnv(t, envOptions{lan: true})
	p1, _ := e.s.CurrentPairing()
	if err := e.s.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	if p2, _ := e.s.CurrentPairing(); p2.PIN != p1.PIN || e.s.Port() != e.port {
		t.Fatal("second Open changed the server")
	}
	if err := e.s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := e.s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := e.s.Open(context.Background()); err == nil {
		t.Fatal("Open after Close")
	}
}
