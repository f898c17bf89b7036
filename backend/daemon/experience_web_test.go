package daemon_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gorilla/websocket"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/lets-app/lets/backend/daemon"
	"github.com/lets-app/lets/backend/surface/web"
	"github.com/lets-app/lets/backend/testenv/conformance"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/schemas"
)

// The experiences through the real browser surface and the real daemon:
// who may start and stop, and what browsers receive in which order.

const webAdminToken = "experience-test-admin-token-0123456789abcdefgh"

// webRig is a daemon whose surface is a browser surface with a loopback
// LAN listener (127.0.0.2) for paired "phones".
type webRig struct {
	*harness
	srv  *web.Server
	port int
	ref  *jsonschema.Schema
	ours *jsonschema.Schema
}

func startWebRig(t testing.TB, lan bool, opts ...harnessOpt) *webRig {
	t.Helper()
	wo := web.Options{
		App:              fstest.MapFS{"index.html": {Data: []byte("<!doctype html><title>pad</title>")}},
		AdminToken:       webAdminToken,
		AllowLoopbackLAN: true,
	}
	if lan {
		testutil.LoopbackAlias(t, "127.0.0.2")
		wo.LAN = &web.LAN{Bind: netip.MustParseAddr("127.0.0.2"), AdvertiseHost: "pad-host.local"}
	}
	srv, err := web.New(wo)
	if err != nil {
		t.Fatal(err)
	}
	h := start(t, append([]harnessOpt{func(o *daemon.Options) { o.Surface = srv }}, opts...)...)
	ours, err := schemas.Compile("web-surface-protocol-1.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	r := &webRig{harness: h, srv: srv, ref: conformance.Schema(t, "web-surface-protocol-v1.json"), ours: ours}
	testutil.Eventually(t, "the browser surface listens", func() bool { r.port = srv.Port(); return r.port != 0 })
	return r
}

// browser is a test WebSocket client.
type browser struct {
	t testing.TB
	r *webRig
	c *websocket.Conn
}

func (r *webRig) dial(from, to, host string) *browser {
	r.t.Helper()
	hdr := http.Header{}
	hdr.Set("Origin", "http://"+host)
	d := websocket.Dialer{
		HandshakeTimeout: ioTimeout,
		NetDialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			nd := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: ioTimeout}
			return nd.DialContext(ctx, "tcp4", net.JoinHostPort(to, strconv.Itoa(r.port)))
		},
	}
	c, _, err := d.Dial("ws://"+host+"/ws", hdr)
	if err != nil {
		r.t.Fatalf("dial the browser surface from %s: %v", from, err)
	}
	r.t.Cleanup(func() { c.Close() })
	return &browser{t: r.t, r: r, c: c}
}

// admin is a loopback administrator past its snapshot.
func (r *webRig) admin() *browser {
	r.t.Helper()
	b := r.dial("127.0.0.1", "127.0.0.1", "127.0.0.1:"+strconv.Itoa(r.port))
	b.send(`{"protocol":1,"type":"authenticate","credential":"` + webAdminToken + `"}`)
	if m := b.expect("authenticated"); m["admin"] != true {
		r.t.Fatalf("not an admin: %v", m)
	}
	b.until("experience_state")
	return b
}

// phone pairs a LAN device (from 127.0.0.<n>) with the current PIN.
func (r *webRig) phone(n int) *browser {
	r.t.Helper()
	p, ok := r.srv.CurrentPairing()
	if !ok {
		var err error
		if p, err = r.srv.CreatePairing(); err != nil {
			r.t.Fatal(err)
		}
	}
	b := r.dial(fmt.Sprintf("127.0.0.%d", n), "127.0.0.2", "pad-host.local:"+strconv.Itoa(r.port))
	b.send(`{"protocol":1,"type":"authenticate","credential":"` + p.PIN + `"}`)
	if m := b.expect("authenticated"); m["admin"] != false {
		r.t.Fatalf("a phone became an admin: %v", m)
	}
	b.until("experience_state")
	return b
}

func (b *browser) send(msg string) {
	b.t.Helper()
	b.c.SetWriteDeadline(time.Now().Add(ioTimeout))
	if err := b.c.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
		b.t.Fatal(err)
	}
}

// read reads one message and validates it against the reference schema
// and ours.
func (b *browser) read(timeout time.Duration) (map[string]any, error) {
	b.c.SetReadDeadline(time.Now().Add(timeout))
	_, raw, err := b.c.ReadMessage()
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		b.t.Fatalf("not JSON: %q", raw)
	}
	if err := schemas.ValidateJSON(b.r.ref, raw); err != nil {
		b.t.Fatalf("reference schema rejects %s: %v", raw, err)
	}
	if err := schemas.ValidateJSON(b.r.ours, raw); err != nil {
		b.t.Fatalf("our schema rejects %s: %v", raw, err)
	}
	return m, nil
}

func (b *browser) expect(typ string) map[string]any {
	b.t.Helper()
	m, err := b.read(ioTimeout)
	if err != nil {
		b.t.Fatalf("waiting for %s: %v", typ, err)
	}
	if m["type"] != typ {
		b.t.Fatalf("got %v, want a %s message", m, typ)
	}
	return m
}

// until reads messages up to and including one of type typ.
func (b *browser) until(typ string) []map[string]any {
	b.t.Helper()
	var got []map[string]any
	for range 50 {
		m, err := b.read(ioTimeout)
		if err != nil {
			b.t.Fatalf("waiting for %s after %v: %v", typ, got, err)
		}
		got = append(got, m)
		if m["type"] == typ {
			return got
		}
	}
	b.t.Fatalf("no %s in %v", typ, got)
	return nil
}

// Non-administrators cannot start or stop an experience: a paired phone
// gets admin_required and nothing starts or stops; the administrator
// starts the Show, and every browser receives the first frame before its
// experience_state.
func TestExperienceAdminOnlyThroughBrowserSurface(t *testing.T) {
	r := startWebRig(t, true)
	admin := r.admin()
	phone := r.phone(3)
	for _, msg := range []string{`{"protocol":1,"type":"start_experience","kind":"show"}`, `{"protocol":1,"type":"stop_experience"}`} {
		phone.send(msg)
		m := phone.expect("error")
		if m["code"] != "admin_required" || m["error"] != "local administrator required" {
			t.Fatalf("non-admin %s: %v", msg, m)
		}
	}
	r.barrier()
	if got := r.status()["experience"]; got != nil {
		t.Fatalf("a phone started %v", got)
	}

	admin.send(`{"protocol":1,"type":"start_experience","kind":"show"}`)
	for _, b := range []*browser{admin, phone} {
		m := b.expect("experience_state")
		if m["status"] != "starting" || m["kind"] != "show" || m["start_delay_ms"] != 500.0 || m["cue_index"] != nil {
			t.Fatalf("starting: %v", m)
		}
	}
	r.advance(0.5)
	for _, b := range []*browser{admin, phone} {
		f := b.expect("performance_frame")
		if len(f["grid"].([]any)) != 8 {
			t.Fatalf("frame %v", f)
		}
		m := b.expect("experience_state")
		if m["status"] != "playing" || m["cue_index"] != 0.0 {
			t.Fatalf("playing: %v", m)
		}
	}
	// The phone cannot stop it either; the admin can.
	phone.send(`{"protocol":1,"type":"stop_experience"}`)
	if m := phone.expect("error"); m["code"] != "admin_required" {
		t.Fatalf("phone stop: %v", m)
	}
	r.barrier()
	if got := r.status()["experience"]; got != "show" {
		t.Fatalf("the phone stopped the Show: %v", got)
	}
	admin.send(`{"protocol":1,"type":"stop_experience"}`)
	for _, b := range []*browser{admin, phone} {
		m := b.expect("experience_state")
		if m["status"] != "idle" || m["reason"] != "stopped" {
			t.Fatalf("stop: %v", m)
		}
		if s := b.expect("surface"); s["view"] == nil {
			t.Fatalf("live view %v", s)
		}
	}
}

// A browser that joins mid-Show gets the latest frame after the
// experience_state snapshot; a Demo sends stage views as surface messages.
func TestExperienceBrowserDemoAndLateJoiner(t *testing.T) {
	r := startWebRig(t, false)
	admin := r.admin()
	admin.send(`{"protocol":1,"type":"start_experience","kind":"demo"}`)
	got := admin.until("experience_state")
	if len(got) != 2 || got[0]["type"] != "surface" {
		t.Fatalf("Demo start: want surface then experience_state, got %v", got)
	}
	view := got[0]["view"].(map[string]any)
	if len(view["sessions"].([]any)) < 3 || got[1]["audio_sequence"] != 1.0 {
		t.Fatalf("Demo stage view %v / %v", view, got[1])
	}
	admin.send(`{"protocol":1,"type":"select_session","slot":1}`)
	got = admin.until("experience_state")
	if got[0]["type"] != "surface" || got[1]["cue_index"] != 1.0 || got[1]["audio_cue"] != "session_selected" || got[1]["audio_slot"] != 1.0 {
		t.Fatalf("select 1: %v", got)
	}
	admin.send(`{"protocol":1,"type":"stop_experience"}`)
	admin.until("surface")

	admin.send(`{"protocol":1,"type":"start_experience","kind":"show"}`)
	admin.expect("experience_state")
	r.advance(0.6)
	admin.expect("performance_frame")
	admin.expect("experience_state")
	// The fake clock stands still, so no cue changes: a frame the late
	// joiner receives is the current one, sent with its snapshot right
	// after the experience_state.
	late := r.admin2().until("performance_frame")
	if n := len(late); n < 2 || late[n-2]["type"] != "experience_state" {
		t.Fatalf("a late joiner must get the current frame after its experience_state: %v", late)
	}
}

// admin2 connects a second administrator, not yet past its snapshot.
func (r *webRig) admin2() *browser {
	r.t.Helper()
	b := r.dial("127.0.0.1", "127.0.0.1", "127.0.0.1:"+strconv.Itoa(r.port))
	b.send(`{"protocol":1,"type":"authenticate","credential":"` + webAdminToken + `"}`)
	return b
}
