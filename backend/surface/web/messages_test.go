package web

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/lets-app/lets/backend/control"
	"github.com/lets-app/lets/backend/surface"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/backend/visual"
	"github.com/lets-app/lets/backend/wire"
)

func TestCase033_SizeLimit(t *testing.T) {
	e := newEnv(t, envOptions{})
	a := e.admin()
	msg := `{"protocol":1,"type":"action","action":"stop"}`
	exact := msg + strings.Repeat(" ", MaxMessageBytes-len(msg))
	a.sendRaw(exact)
	if ev := e.events(1); ev[0] != actionPressed(wire.ActionStop) {
		t.Fatalf("%v", ev)
	}
	a.sendRaw(exact + " ")
	a.expectClose(1009, "")
}

func TestCase034To039And042_AuthenticatedDecodeErrors(t *testing.T) {
	e := newEnv(t, envOptions{})
	a := e.admin()
	for _, c := range []struct {
		cs              int
		msg, code, text string
	}{
		{34, `not json`, CodeInvalidJSON, "message must be valid JSON"},
		{35, `{"protocol":1,"type":"nope"}`, CodeInvalidMessage, "unknown message type"},
		{36, `{"protocol":1,"type":"action","action":"launch"}`, CodeInvalidMessage, "unknown action"},
		{37, `{"protocol":1,"type":"select_session","slot":true}`, CodeInvalidMessage, "slot must be an integer from 0 to 7"},
		{37, `{"protocol":1,"type":"select_session","slot":8}`, CodeInvalidMessage, "slot must be an integer from 0 to 7"},
		{37, `{"protocol":1,"type":"select_session","slot":7.5}`, CodeInvalidMessage, "slot must be an integer from 0 to 7"},
		{37, `{"protocol":1,"type":"select_session","slot":-1}`, CodeInvalidMessage, "slot must be an integer from 0 to 7"},
		{37, `{"protocol":1,"type":"select_session","slot":"1"}`, CodeInvalidMessage, "slot must be an integer from 0 to 7"},
		{39, `{"protocol":1,"type":"action"}`, CodeInvalidMessage, "missing field: action"},
		{39, `{"protocol":1,"type":"action","action":"stop","x":1}`, CodeInvalidMessage, "unknown field: x"},
		{42, `{"type":"action","action":"stop"}`, CodeUnsupportedProtocol, "unsupported web protocol"},
		{42, `{"protocol":true,"type":"action","action":"stop"}`, CodeUnsupportedProtocol, "unsupported web protocol"},
		{42, `{"protocol":"1","type":"action","action":"stop"}`, CodeUnsupportedProtocol, "unsupported web protocol"},
		{35, `{"protocol":1,"type":"remote_revoked"}`, CodeInvalidMessage, "unknown message type"},
		{36, `{"protocol":1,"type":"start_experience","kind":"movie"}`, CodeInvalidMessage, "experience kind must be demo or show"},
		{34, `[]`, CodeInvalidMessage, "message must be a JSON object"},
	} {
		a.sendRaw(c.msg)
		m := a.expect(TypeError)
		if m["code"] != c.code || m["error"] != c.text {
			t.Fatalf("case %d %s: %v", c.cs, c.msg, m)
		}
	}
	// Still open, and the valid forms work.
	a.sendRaw(`{"protocol":1,"type":"select_session","slot":7}`)
	a.sendRaw(`{"protocol":1.0,"type":"select_session","slot":1.0}`) // case 38
	a.sendRaw(`{"protocol":1,"type":"select_session","slot":1e0}`)
	ev := e.events(3)
	if ev[0] != sessionSelected(7) || ev[1] != sessionSelected(1) || ev[2] != sessionSelected(1) {
		t.Fatalf("%v", ev)
	}
}

func TestCase043_EventOrder(t *testing.T) {
	e := newEnv(t, envOptions{})
	a := e.admin()
	a.send(map[string]any{"type": "select_session", "slot": 2})
	a.send(map[string]any{"type": "action", "action": "stop"})
	ev := e.events(2)
	if ev[0] != sessionSelected(2) || ev[1] != actionPressed(wire.ActionStop) {
		t.Fatalf("%v", ev)
	}
}

func TestCase044_RateLimitCommands(t *testing.T) {
	e := newEnv(t, envOptions{})
	a := e.admin()
	for range 22 {
		a.send(map[string]any{"type": "action", "action": "retry"})
	}
	a.expectError(CodeRateLimited, "browser command rate exceeded")
	a.expectClose(1008, "command rate exceeded")
	if ev := e.events(20); len(ev) != 20 {
		t.Fatal(len(ev))
	}
	e.waitIdle() // the connection's reader has stopped: nothing more can come
	if extra := e.s.Poll(); len(extra) != 0 {
		t.Fatalf("events after the limit: %v", extra)
	}
}

func TestCase045_RateLimitCountsInvalidMessages(t *testing.T) {
	e := newEnv(t, envOptions{})
	a := e.admin()
	for range 21 {
		a.sendRaw("not json")
	}
	for range 20 {
		a.expectError(CodeInvalidJSON, "")
	}
	a.expectError(CodeRateLimited, "")
	a.expectClose(1008, "command rate exceeded")
}

func TestCase046_RateWindow(t *testing.T) {
	var w rateWindow
	for i := range 20 {
		if !w.allow(10.0) {
			t.Fatalf("message %d refused", i+1)
		}
	}
	if w.allow(10.0) {
		t.Fatal("21st accepted")
	}
	if w.allow(10.999) {
		t.Fatal("accepted inside the window")
	}
	if !w.allow(11.1) {
		t.Fatal("refused after the window")
	}
	// Through the server with its clock: the window slides.
	e := newEnv(t, envOptions{})
	a := e.admin()
	e.set(10)
	for range 20 {
		a.send(map[string]any{"type": "action", "action": "stop"})
	}
	e.events(20)
	e.set(11.1)
	a.send(map[string]any{"type": "action", "action": "stop"})
	e.events(1)
	a.expectQuiet(30 * time.Millisecond)
}

func TestCase047_CreatePairingWithoutLAN(t *testing.T) {
	e := newEnv(t, envOptions{})
	a := e.admin()
	a.send(map[string]any{"type": "create_pairing"})
	a.expectError(CodeLANDisabled, "LAN access is not enabled")
	a.send(map[string]any{"type": "action", "action": "stop"})
	e.events(1)
}

func TestCase048_CreatePairing(t *testing.T) {
	e := newEnv(t, envOptions{lan: true})
	a := e.dial(dialOptions{})
	a.auth(testAdminToken)
	if m := a.expect(TypeAuthenticated); m["lan_enabled"] != true {
		t.Fatalf("%v", m)
	}
	a.expect(TypePairing) // the start-up pairing
	a.drainSnapshot()
	a.send(map[string]any{"type": "create_pairing"})
	m := a.expect(TypePairing)
	pin, _ := m["pin"].(string)
	url, _ := m["pairing_url"].(string)
	qr, _ := m["qr_data_uri"].(string)
	base := e.s.LANURL()
	if len(pin) != 6 || m["expires_in"] != float64(300) || !strings.HasPrefix(url, base+"/#pair=") || len(url) != len(base)+len("/#pair=")+32 || !strings.HasPrefix(qr, "data:image/svg+xml") {
		t.Fatalf("%v", m)
	}
	// The other admin does not get it (not broadcast).
	b := e.dial(dialOptions{})
	b.auth(testAdminToken)
	b.expect(TypeAuthenticated)
	if p := b.expect(TypePairing); p["pin"] != pin {
		t.Fatalf("replay %v", p)
	}
	b.drainSnapshot()
	a.send(map[string]any{"type": "create_pairing"})
	a.expect(TypePairing)
	b.expectQuiet(50 * time.Millisecond)
}

func TestCase049_RemoteAdminMessages(t *testing.T) {
	e := newEnv(t, envOptions{lan: true})
	r, _ := e.pair(3)
	for _, msg := range []map[string]any{
		{"type": "start_experience", "kind": "demo"}, {"type": "create_pairing"}, {"type": "revoke_remote"},
		{"type": "stop_experience"}, {"type": "list_devices"}, {"type": "revoke_device", "device": "AAAAAAAAAAAA"},
	} {
		r.send(msg)
		r.expectError(CodeAdminRequired, "local administrator required")
	}
	// Remote clients are full operators for actions and selection.
	r.send(map[string]any{"type": "action", "action": "approve"})
	r.send(map[string]any{"type": "select_session", "slot": 0})
	ev := e.events(2)
	if ev[0] != actionPressed(wire.ActionApprove) || ev[1] != sessionSelected(0) {
		t.Fatalf("%v", ev)
	}
	if len(e.s.Devices()) != 1 {
		t.Fatal("a remote revoked something")
	}
}

func TestCase050_Experiences(t *testing.T) {
	e := newEnv(t, envOptions{})
	a := e.admin()
	a.send(map[string]any{"type": "start_experience", "kind": "demo"})
	a.send(map[string]any{"type": "start_experience", "kind": "show"})
	a.send(map[string]any{"type": "stop_experience"})
	ev := e.events(3)
	if ev[0] != (surface.ExperienceRequested{Kind: "demo"}) || ev[1] != (surface.ExperienceRequested{Kind: "show"}) || ev[2] != (surface.ExperienceStopRequested{}) {
		t.Fatalf("%v", ev)
	}
	a.expectQuiet(30 * time.Millisecond) // no reply
}

func TestCase061_RemoteConnectionCap(t *testing.T) {
	e := newEnv(t, envOptions{lan: true})
	var rs []*wsClient
	for i := range MaxRemoteConnections {
		if i < 4 {
			c, _ := e.pair(3 + i)
			rs = append(rs, c)
		} else {
			rs = append(rs, e.remote(3+i)) // still authenticating: counts too
		}
	}
	ninth := e.remote(20)
	ninth.expectError(CodeConnectionLimit, "browser connection limit reached")
	ninth.expectClose(1000, "")
	// Loopback still fits (16 in total).
	e.admin()
	// A slot frees when a connection ends (the server notices the close
	// on its own time).
	rs[0].c.Close()
	testutil.Eventually(t, "the closed connection's slot is free", func() bool {
		e.s.mu.Lock()
		defer e.s.mu.Unlock()
		return e.s.remote < MaxRemoteConnections
	})
	// A new remote connection now has a slot: its bad credential is
	// refused as such, not for the connection limit.
	c := e.remote(30)
	c.auth("000000x")
	c.refused()
}

func TestCase062_TotalConnectionCap(t *testing.T) {
	e := newEnv(t, envOptions{})
	for range MaxConnections - 2 {
		e.admin()
	}
	e.dial(dialOptions{}) // authenticating
	e.dial(dialOptions{})
	c := e.dial(dialOptions{})
	c.expectError(CodeConnectionLimit, "browser connection limit reached")
	c.expectClose(1000, "")
}

func TestCase063_EventQueueBounded(t *testing.T) {
	e := newEnv(t, envOptions{})
	var cs []*wsClient
	for range 14 {
		cs = append(cs, e.admin())
	}
	for _, c := range cs {
		for range 19 {
			c.send(map[string]any{"type": "select_session", "slot": 1})
		}
	}
	testutil.Eventually(t, "the events past the queue are dropped", func() bool { return e.s.Dropped() >= 266-EventQueue })
	if got := len(e.s.Poll()); got != EventQueue || e.s.Dropped() != 10 {
		t.Fatalf("poll %d, dropped %d", got, e.s.Dropped())
	}
	if got := e.s.Poll(); len(got) != 0 {
		t.Fatalf("second poll %d", len(got))
	}
	for _, c := range cs {
		c.expectQuiet(10 * time.Millisecond) // no error for dropped events
	}
}

func TestCase065_LabelSanitising(t *testing.T) {
	e := newEnv(t, envOptions{})
	a := e.admin()
	long := strings.Repeat("x", 100)
	e.s.Render(control.View{
		Centre: wire.StateWaitingForApproval,
		Indicators: []control.Indicator{
			{Slot: 0, State: wire.StateRunning, Accent: "cyan", Label: "  Reviewer\nagent  "},
			{Slot: 2, State: wire.StateError, Accent: "lime", Label: " \t\u001f "},
			{Slot: 3, State: wire.StateWaitingForApproval, Selected: true, Accent: "orange", Label: long},
		},
		Available: []wire.Action{wire.ActionApprove, wire.ActionReject},
	})
	raw := a.readRaw()
	checkMessage(t, raw)
	if strings.Contains(string(raw), "session_id") {
		t.Fatalf("session id leaked: %s", raw)
	}
	var m struct {
		View struct {
			Sessions []map[string]any `json:"sessions"`
		} `json:"view"`
	}
	json.Unmarshal(raw, &m)
	s := m.View.Sessions
	if len(s) != 3 || s[0]["label"] != "Reviewer agent" || s[1]["label"] != "Session 3" || s[2]["label"] != long[:80] {
		t.Fatalf("%v", s)
	}
	for _, x := range s {
		if len(x) != 5 {
			t.Fatalf("session keys %v", x)
		}
	}
}

func TestCase066_ActionsInTheFrame(t *testing.T) {
	e := newEnv(t, envOptions{})
	a := e.admin()
	e.s.Render(control.View{Centre: wire.StateWaitingForApproval, Available: []wire.Action{wire.ActionApprove, wire.ActionReject}})
	m := a.expect(TypeSurface)
	if got := m["visual_frame"].(map[string]any)["actions"].(map[string]any)["approve"]; got != "action:approve:enabled" {
		t.Fatalf("%v", got)
	}
	e.s.Render(control.View{Centre: wire.StateRunning, Available: []wire.Action{wire.ActionStop, wire.ActionRetry}})
	m = a.expect(TypeSurface)
	got, _ := json.Marshal(m["view"].(map[string]any)["available_actions"])
	if string(got) != `["retry","stop"]` {
		t.Fatalf("%s", got)
	}
	if m["view"].(map[string]any)["frame"] != float64(1) {
		t.Fatalf("frame counter %v", m["view"])
	}
}

func TestCase067_ShowColours(t *testing.T) {
	e := newEnv(t, envOptions{lan: true})
	a := e.admin()
	r, _ := e.pair(3)
	var f visual.ShowFrame
	c, _ := visual.NewShowColor("off", 1, 127, 255)
	for y := range f.Grid {
		for x := range f.Grid[y] {
			f.Grid[y][x] = c
		}
		f.Top[y], f.Right[y] = c, c
	}
	e.s.RenderShowFrame(&f)
	for _, cl := range []*wsClient{a, r} {
		m := cl.expect(TypePerformanceFrame)
		grid := m["grid"].([]any)
		top := m["top"].([]any)
		if grid[0].([]any)[0] != "#017fff" || len(top) != 8 || top[7] != "#017fff" {
			t.Fatalf("%v", m)
		}
	}
	// A late joiner gets it after experience_state; idle forgets it.
	late := e.dial(dialOptions{})
	late.auth(testAdminToken)
	late.expect(TypeAuthenticated) // the pairing was used by r: no replay
	late.expect(TypeExperienceState)
	late.expect(TypePerformanceFrame)
	e.s.SetExperience(visual.ExperienceView{Status: visual.ExperienceIdle, Tempo: 1})
	late.expect(TypeExperienceState)
	again := e.dial(dialOptions{})
	again.auth(testAdminToken)
	again.expect(TypeAuthenticated)
	again.expect(TypeExperienceState)
	again.expectQuiet(50 * time.Millisecond)
}

func TestCase068_ExperienceStatePreserved(t *testing.T) {
	e := newEnv(t, envOptions{})
	a := e.admin()
	kind, title, detail, caption, cue := "demo", "Three Agents, One Surface", "Approving lets Reviewer finish; Reject remains available as a recovery path.", "Approve the review.", "session_selected"
	idx, slot := 1, 1
	e.s.SetExperience(visual.ExperienceView{Status: visual.ExperiencePlaying, Kind: &kind, Title: &title, CueIndex: &idx, Caption: &caption, Detail: &detail, Tempo: 1.25, AudioCue: &cue, AudioSlot: &slot, AudioSequence: 2})
	raw := a.readRaw()
	checkMessage(t, raw)
	want := `{"protocol":1,"type":"experience_state","status":"playing","kind":"demo","title":"Three Agents, One Surface","cue_index":1,"caption":"Approve the review.","detail":"Approving lets Reviewer finish; Reject remains available as a recovery path.","elapsed_ms":0,"duration_ms":null,"tempo":1.25,"audio_asset":null,"audio_cue":"session_selected","audio_slot":1,"audio_sequence":2,"start_delay_ms":0,"reason":null}`
	if string(raw) != want {
		t.Fatalf("got  %s\nwant %s", raw, want)
	}
	// The Show "starting" example of 8.4.2, byte for byte.
	show, stitle, asset, dur := "show", "A Spark Becomes a Constellation", "experiences/audio/constellation-v1.wav", 43100
	got := EncodeExperienceState(visual.ExperienceView{Status: visual.ExperienceStarting, Kind: &show, Title: &stitle, DurationMS: &dur, Tempo: 1, AudioAsset: &asset, StartDelayMS: 500})
	if string(got) != `{"protocol":1,"type":"experience_state","status":"starting","kind":"show","title":"A Spark Becomes a Constellation","cue_index":null,"caption":null,"detail":null,"elapsed_ms":0,"duration_ms":43100,"tempo":1.0,"audio_asset":"experiences/audio/constellation-v1.wav","audio_cue":null,"audio_slot":null,"audio_sequence":0,"start_delay_ms":500,"reason":null}` {
		t.Fatalf("%s", got)
	}
	checkMessage(t, got)
}

func TestCase069_OversizedErrorRefused(t *testing.T) {
	got := encodeError(&ProtocolError{Code: CodeInvalidMessage, Text: strings.Repeat("x", 20000)})
	if string(got) != `{"protocol":1,"type":"error","code":"frame_too_large","error":"message exceeds size limit"}` {
		t.Fatalf("%s", got)
	}
	checkMessage(t, got)
	// An oversized broadcast is dropped rather than sent.
	e := newEnv(t, envOptions{})
	a := e.admin()
	e.s.broadcast([]byte(`{"protocol":1,"type":"remote_revoked","x":"`+strings.Repeat("x", MaxMessageBytes)+`"}`), nil)
	a.expectQuiet(50 * time.Millisecond)
}

func TestCase070_Shutdown(t *testing.T) {
	e := newEnv(t, envOptions{lan: true})
	a := e.admin()
	pending := e.dial(dialOptions{})
	r, _ := e.pair(3)
	rPending := e.remote(4)
	done := make(chan struct{})
	go func() { e.s.Close(); close(done) }()
	r.expectClose(1008, "authorization revoked")
	a.expectClose(1001, "server shutting down")
	pending.expectClose(1001, "server shutting down")
	rPending.expectClose(1001, "server shutting down")
	select {
	case <-done:
	case <-time.After(ioTimeout):
		t.Fatal("Close hung")
	}
	if _, _, err := e.dialOpts(dialOptions{}); err == nil {
		t.Fatal("still listening")
	}
}

func TestBroadcastReachesEveryoneInOrder(t *testing.T) {
	e := newEnv(t, envOptions{lan: true})
	a := e.admin()
	r, _ := e.pair(3)
	for i := range 30 {
		e.s.Render(control.View{Centre: wire.StateRunning, OverflowCount: i})
	}
	for _, c := range []*wsClient{a, r} {
		for i := range 30 {
			m := c.expect(TypeSurface)
			if m["view"].(map[string]any)["overflow_count"] != float64(i) {
				t.Fatalf("order: %v", m)
			}
		}
	}
}

func TestSnapshotRaceFree(t *testing.T) {
	// authenticated is always first, and no broadcast is lost or doubled
	// while clients join during renders (§6.7).
	e := newEnv(t, envOptions{})
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			e.s.Render(control.View{OverflowCount: i})
			runtime.Gosched() // let the clients join between renders
		}
	}()
	for range 10 {
		c := e.dial(dialOptions{})
		c.auth(testAdminToken)
		c.expect(TypeAuthenticated)
		last := -1.0
		for range 10 {
			m := c.read()
			if m["type"] != TypeSurface {
				continue
			}
			n := m["view"].(map[string]any)["frame"].(float64)
			if n <= last {
				t.Fatalf("frame %v after %v", n, last)
			}
			last = n
		}
		c.c.Close()
	}
	close(stop)
	wg.Wait()
}

func TestSlowClientIsDropped(t *testing.T) {
	// A short write timeout: the slow browser is cut when one write has
	// waited that long (10 s in the product), so the test does not ride
	// on its deadline under -race.
	e := newEnv(t, envOptions{writeTimeout: time.Second})
	slow := e.dial(dialOptions{tinyBuffer: true})
	slow.auth(testAdminToken)
	slow.expect(TypeAuthenticated)
	slow.drainSnapshot() // and never reads again
	fast := e.admin()
	big := control.View{Centre: wire.StateRunning}
	for i := range 8 {
		big.Indicators = append(big.Indicators, control.Indicator{Slot: i, State: wire.StateRunning, Accent: "cyan", Label: strings.Repeat("é", 80)})
	}
	deadline := time.Now().Add(ioTimeout)
	for n := 2; n == 2; {
		if time.Now().After(deadline) {
			t.Fatal("the slow client was never dropped")
		}
		for range 50 {
			e.s.Render(big)
		}
		// Raw reads: validating every frame against the schemas made each
		// round so slow under -race that the loopback socket buffers (MBs)
		// did not fill before the guard.
		for range 50 {
			if raw := fast.readRaw(); !strings.Contains(string(raw), `"type":"surface"`) {
				t.Fatalf("fast browser got %s, want a surface", raw)
			}
		}
		e.s.mu.Lock()
		n = len(e.s.clients)
		e.s.mu.Unlock()
	}
	e.s.Render(big)
	fast.expect(TypeSurface)
}

func TestDevicesExtension(t *testing.T) {
	e := newEnv(t, envOptions{lan: true})
	a := e.admin()
	a.send(map[string]any{"type": "list_devices"})
	m := a.expect(TypeDevices)
	if len(m["devices"].([]any)) != 0 {
		t.Fatalf("%v", m)
	}
	r1, tok1 := e.pair(3)
	m = a.expect(TypeDevices)
	ds := m["devices"].([]any)
	if len(ds) != 1 || ds[0].(map[string]any)["connected"] != float64(1) || ds[0].(map[string]any)["name"] != "Device 1" {
		t.Fatalf("%v", m)
	}
	raw, _ := json.Marshal(m)
	if strings.Contains(string(raw), tok1) || strings.Contains(string(raw), "127.0.0.3") {
		t.Fatalf("token or address leaked: %s", raw)
	}
	id1 := ds[0].(map[string]any)["id"].(string)
	r2, tok2 := e.pair(4)
	a.expect(TypeDevices)
	// Revoke only the first device.
	a.send(map[string]any{"type": "revoke_device", "device": id1})
	r1.expectClose(1008, "authorization revoked")
	var gotReply bool
	for range 4 {
		m := a.read()
		if m["type"] == TypeDeviceRevoked {
			gotReply = m["device"] == id1
			break
		}
	}
	if !gotReply {
		t.Fatal("no device_revoked")
	}
	c := e.remote(5)
	c.auth(tok1)
	c.refused()
	c = e.remote(5)
	c.auth(tok2)
	c.expect(TypeAuthenticated)
	r2.send(map[string]any{"type": "action", "action": "stop"})
	e.events(1)
	if ds := e.s.Devices(); len(ds) != 1 || ds[0].Connected != 2 {
		t.Fatalf("%+v", ds)
	}
	a.send(map[string]any{"type": "revoke_device", "device": id1})
	for range 4 {
		m := a.read()
		if m["type"] == TypeError {
			if m["error"] != "unknown device" {
				t.Fatalf("%v", m)
			}
			return
		}
	}
	t.Fatal("no error for an unknown device")
}

func TestDescribe(t *testing.T) {
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := s.Describe()
	if d.Profile != "virtual/browser" || d.Input != "Browser controls" || d.Output != "Browser display" || len(d.Descriptors) != 1 || d.Descriptors[0].Kind != "web" || d.Descriptors[0].VisualProtocol != 1 {
		t.Fatalf("%+v", d)
	}
	if s.Capacity() != 8 || len(s.Accents()) != 8 || s.Accents()[0] != "cyan" {
		t.Fatal("capacity/accents")
	}
	e := newEnv(t, envOptions{})
	d = e.s.Describe()
	want := "Browser controls (" + itoaPort(e.port) + ")"
	if d.Input != want || d.Descriptors[0].Input != want || d.Descriptors[0].Output != "Browser display ("+itoaPort(e.port)+")" {
		t.Fatalf("%+v", d)
	}
	if strings.Contains(d.Input+d.Output, testAdminToken) || strings.Contains(d.Input+d.Output, "http") {
		t.Fatal("descriptor leaks")
	}
}

// An idle browser that answers the pings stays connected far past the
// pong timeout. On the server's fake clock, with a pong timeout (5 s)
// shorter than the ping interval (20 s), its next wake-up tells whether
// it took the last pong: the keep-alive deadline moves from 5 s after the
// previous pong to 25 s after this one, behind the next ping.
func TestPingKeepsIdleConnectionsAlive(t *testing.T) {
	e := newEnv(t, envOptions{pong: 5 * time.Second})
	a := e.admin()
	var pings atomic.Int32
	a.c.SetPingHandler(func(string) error {
		pings.Add(1)
		return a.c.WriteControl(websocket.PongMessage, nil, time.Now().Add(ioTimeout))
	})
	go func() { // reading handles the pings
		for {
			if _, _, err := a.c.ReadMessage(); err != nil {
				return
			}
		}
	}()
	for i := 1; i <= 3; i++ {
		e.advance(PingInterval.Seconds())
		next := epoch.Add(time.Duration(i+1) * PingInterval)
		testutil.Eventually(t, fmt.Sprintf("the server took pong %d", i), func() bool {
			at, ok := e.clock.NextDeadline()
			return ok && at.Equal(next)
		})
	}
	if n := pings.Load(); n != 3 {
		t.Fatalf("%d pings, want 3", n)
	}
	a.send(map[string]any{"type": "action", "action": "stop"})
	e.events(1)
}

// A browser that does not answer the pings is closed with 1011 once the
// pong timeout after the last ping has passed.
func TestNoPongCloses1011(t *testing.T) {
	e := newEnv(t, envOptions{})
	a := e.admin()
	a.c.SetPingHandler(func(string) error { return nil }) // never answers
	e.advance((PingInterval + PongTimeout).Seconds())
	a.expectClose(1011, "keepalive ping timeout")
}

func TestCloseDoesNotWaitForSilentBrowsers(t *testing.T) {
	e := newEnv(t, envOptions{writeTimeout: time.Hour})
	c := e.dial(dialOptions{tinyBuffer: true})
	c.auth(testAdminToken)
	c.expect(TypeAuthenticated)
	view := control.View{Centre: wire.StateRunning}
	for i := range 8 {
		view.Indicators = append(view.Indicators, control.Indicator{Slot: i, State: wire.StateRunning, Accent: "cyan", Label: strings.Repeat("é", 80)})
	}
	for range 100 { // more than the socket buffers hold; the browser reads nothing
		e.s.Render(view)
	}
	// The browser's write is stuck for as long as the write timeout (an
	// hour here): Close must end it rather than wait it out.
	done := make(chan struct{})
	go func() { e.s.Close(); close(done) }()
	testutil.Wait(t, "Close to return while a silent browser's write is stuck (write timeout one hour)", done)
}
