package web

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gorilla/websocket"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/lets-app/lets/backend/clock"
	"github.com/lets-app/lets/backend/surface"
	"github.com/lets-app/lets/backend/testenv/conformance"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/backend/wire"
	"github.com/lets-app/lets/schemas"
)

// testApp is a small stand-in for the browser app bundle, with the file
// names the spec's checklist uses.
func testApp() fstest.MapFS {
	wav := make([]byte, 23858)
	copy(wav, "RIFF")
	return fstest.MapFS{
		"index.html":                               {Data: []byte("<!doctype html><title>pad</title>")},
		"assets/index-DVFDf2Rz.js":                 {Data: []byte("console.log('pad')")},
		"assets/index-DlxxM3fU.css":                {Data: []byte("body{}")},
		"pad-lattice-logo.svg":                     {Data: []byte("<svg xmlns='http://www.w3.org/2000/svg'/>")},
		"config.json":                              {Data: []byte(`{"mode":"demo","protocol":1}`)},
		"experiences/demo-v1.json":                 {Data: []byte(`{}`)},
		"experiences/audio/earcon-stop-none.wav":   {Data: wav},
		"experiences/audio/constellation-v1.wav":   {Data: []byte("RIFF")},
		"experiences/constellation-v1.json":        {Data: []byte(`{}`)},
		"experiences/audio/greeting.wav":           {Data: []byte("RIFF")},
		"experiences/audio/earcon-approve-0.wav":   {Data: []byte("RIFF")},
		"experiences/audio/earcon-approve-7.wav":   {Data: []byte("RIFF")},
		"experiences/audio/earcon-select-none.wav": {Data: []byte("RIFF")},
	}
}

// epoch is the fake clock's reading when a test's server is made: its
// time 0 for pairing expiry, lock-outs and rate limits.
var epoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// seconds converts the server's seconds to a duration.
// ioTimeout bounds every socket operation and wait for something that must
// happen. It is a failure detector, not a budget: the one limit every wait
// uses (testutil.EventuallyTimeout), so a loaded machine makes a failing
// test fail slower, never a correct server fail. Checks that nothing
// arrives (expectQuiet) keep their own short windows.
const ioTimeout = testutil.EventuallyTimeout

func seconds(s float64) time.Duration { return time.Duration(math.Round(s * float64(time.Second))) }

const testAdminToken = "local-admin-secret"

// lanBind is the address the tests' LAN listener binds: a loopback address
// the hooks treat as a LAN address, so no traffic leaves the machine.
var lanBind = netip.MustParseAddr("127.0.0.2")

// env is one running server and what tests need around it.
type env struct {
	t     testing.TB
	s     *Server
	clock *clock.Fake
	port  int
}

// set moves the server's clock to s seconds after it was made (never
// back); the timers that fall due (authentication timeouts, keep-alive
// pings and pong deadlines) fire.
func (e *env) set(s float64) { e.clock.Set(epoch.Add(seconds(s))) }

// advance moves the server's clock forward by ds seconds.
func (e *env) advance(ds float64) { e.clock.Advance(seconds(ds)) }

// waitArmed waits until n timers are armed on the server's clock (the
// server reached the point where it waits on them).
func (e *env) waitArmed(n int) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), ioTimeout)
	defer cancel()
	if err := e.clock.BlockUntil(ctx, n); err != nil {
		e.t.Fatal(err)
	}
}

type envOptions struct {
	lan          bool   // LAN listener on 127.0.0.2, advertised as pad-host.local
	realClock    bool   // the wall clock instead of a fake one
	advertise    string // overrides pad-host.local
	pong         time.Duration
	maxConns     int
	app          fstest.MapFS
	writeTimeout time.Duration
	peerUID      func(client, server netip.AddrPort) (int, error)
	// Listener caps and HTTP timeouts (0: the defaults).
	listenerCap int
	idle        time.Duration
	readHeader  time.Duration
}

func newEnv(t testing.TB, o envOptions) *env {
	t.Helper()
	clk := clock.NewFake(epoch)
	app := o.app
	if app == nil {
		app = testApp()
	}
	opts := Options{
		App:        app,
		AdminToken: testAdminToken,
		Clock:      clk,
		// Only 127.0.0.1 is an administrator; 127.0.0.2… are LAN devices.
		AllowLoopbackLAN:       true,
		MaxListenerConnections: o.listenerCap,
		IdleTimeout:            o.idle,
		ReadHeaderTimeout:      o.readHeader,
		hooks: &testHooks{
			pongTimeout:    o.pong,
			maxConnections: o.maxConns,
			writeTimeout:   o.writeTimeout,
			peerUID:        o.peerUID,
		},
	}
	if o.lan {
		adv := o.advertise
		if adv == "" {
			adv = "pad-host.local"
		}
		opts.LAN = &LAN{Bind: lanBind, AdvertiseHost: adv}
	}
	if o.realClock {
		opts.Clock = nil
	}
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return &env{t: t, s: s, clock: clk, port: s.Port()}
}

// Schemas: every server message a test reads is validated against the
// reference schema (core messages) and our own schema (all messages).
var (
	schemaMu             sync.Mutex
	refSchema, ourSchema *jsonschema.Schema
)

func loadSchemas(t testing.TB) (*jsonschema.Schema, *jsonschema.Schema) {
	t.Helper()
	schemaMu.Lock()
	defer schemaMu.Unlock()
	if ourSchema == nil {
		s, err := schemas.Compile("web-surface-protocol-1.schema.json")
		if err != nil {
			t.Fatal(err)
		}
		ourSchema = s
	}
	if refSchema == nil {
		refSchema = conformance.Schema(t, "web-surface-protocol-v1.json")
	}
	return refSchema, ourSchema
}

func bufioReader(s string) *bufio.Reader { return bufio.NewReader(strings.NewReader(s)) }

// extensionTypes are Lets additions the reference schema does not know.
var extensionTypes = map[string]bool{
	TypeDevices: true, TypeDeviceRevoked: true, TypeListDevices: true, TypeRevokeDevice: true,
	TypeLAN: true, TypeGetLAN: true, TypeSetLAN: true,
}

// checkMessage validates one server (or client) message against both
// schemas.
func checkMessage(t testing.TB, raw []byte) map[string]any {
	t.Helper()
	ref, ours := loadSchemas(t)
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("server sent non-JSON %q: %v", raw, err)
	}
	typ, _ := m["type"].(string)
	if !extensionTypes[typ] {
		if err := schemas.ValidateJSON(ref, raw); err != nil {
			t.Fatalf("reference schema rejects %s: %v", raw, err)
		}
	}
	if err := schemas.ValidateJSON(ours, raw); err != nil {
		t.Fatalf("our schema rejects %s: %v", raw, err)
	}
	if len(raw) > MaxMessageBytes {
		t.Fatalf("message over the outbound limit: %d bytes", len(raw))
	}
	return m
}

// dialOptions say how a test browser connects.
type dialOptions struct {
	from   string // local IP (default 127.0.0.1)
	to     string // server IP (default 127.0.0.1)
	host   string // Host header (default "<to>:<port>", "127.0.0.1:P")
	origin string // Origin header (default "http://" + host); "-" for none
	path   string // default /ws
	header http.Header
	// tinyBuffer shrinks the client's socket receive buffer (slow-reader
	// tests).
	tinyBuffer bool
}

// wsClient is a test browser.
type wsClient struct {
	t    testing.TB
	c    *websocket.Conn
	resp *http.Response
}

func (e *env) dialOpts(o dialOptions) (*websocket.Conn, *http.Response, error) {
	if o.from == "" {
		o.from = "127.0.0.1"
	}
	if o.to == "" {
		o.to = "127.0.0.1"
	}
	if o.host == "" {
		o.host = o.to + ":" + strconv.Itoa(e.port)
	}
	if o.path == "" {
		o.path = "/ws"
	}
	h := http.Header{}
	for k, v := range o.header {
		h[k] = v
	}
	h.Set("Host", o.host)
	switch o.origin {
	case "":
		h.Set("Origin", "http://"+o.host)
	case "-":
	default:
		h.Set("Origin", o.origin)
	}
	local := &net.TCPAddr{IP: net.ParseIP(o.from)}
	d := websocket.Dialer{
		HandshakeTimeout: ioTimeout,
		NetDialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			nd := net.Dialer{LocalAddr: local, Timeout: ioTimeout}
			if o.tinyBuffer {
				nd.Control = func(_, _ string, rc syscall.RawConn) error {
					return rc.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
				}
			}
			return nd.DialContext(ctx, "tcp4", net.JoinHostPort(o.to, strconv.Itoa(e.port)))
		},
	}
	return d.Dial("ws://"+o.host+o.path, h)
}

func (e *env) dial(o dialOptions) *wsClient {
	e.t.Helper()
	c, resp, err := e.dialOpts(o)
	if err != nil {
		e.t.Fatalf("dial %+v: %v (response %v)", o, err, resp)
	}
	wc := &wsClient{t: e.t, c: c, resp: resp}
	e.t.Cleanup(func() { c.Close() })
	return wc
}

// remote dials the LAN listener from a LAN-like peer 127.0.0.<n>.
func (e *env) remote(n int) *wsClient {
	e.t.Helper()
	host := "pad-host.local:" + strconv.Itoa(e.port)
	return e.dial(dialOptions{from: fmt.Sprintf("127.0.0.%d", n), to: lanBind.String(), host: host})
}

func (c *wsClient) sendRaw(msg string) {
	c.t.Helper()
	c.c.SetWriteDeadline(time.Now().Add(ioTimeout))
	if err := c.c.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
		c.t.Fatalf("send %q: %v", msg, err)
	}
}

func (c *wsClient) send(v map[string]any) {
	c.t.Helper()
	if _, ok := v["protocol"]; !ok {
		v["protocol"] = 1
	}
	b, _ := json.Marshal(v)
	c.sendRaw(string(b))
}

func (c *wsClient) auth(cred string) {
	c.t.Helper()
	c.send(map[string]any{"type": "authenticate", "credential": cred})
}

// read returns the next message, validated against the schemas.
func (c *wsClient) read() map[string]any {
	c.t.Helper()
	raw := c.readRaw()
	return checkMessage(c.t, raw)
}

func (c *wsClient) readRaw() []byte {
	c.t.Helper()
	c.c.SetReadDeadline(time.Now().Add(ioTimeout))
	mt, data, err := c.c.ReadMessage()
	if err != nil {
		c.t.Fatalf("read: %v", err)
	}
	if mt != websocket.TextMessage {
		c.t.Fatalf("server sent message type %d", mt)
	}
	return data
}

// expect reads the next message and checks its type.
func (c *wsClient) expect(typ string) map[string]any {
	c.t.Helper()
	m := c.read()
	if m["type"] != typ {
		c.t.Fatalf("got %v, want type %s", m, typ)
	}
	return m
}

// expectError reads an error with this code (and text, if given).
func (c *wsClient) expectError(code, text string) {
	c.t.Helper()
	m := c.expect(TypeError)
	if m["code"] != code || (text != "" && m["error"] != text) {
		c.t.Fatalf("got error %v, want %s %q", m, code, text)
	}
}

// expectClose reads until the close frame and checks code and reason.
func (c *wsClient) expectClose(code int, reason string) {
	c.t.Helper()
	c.c.SetReadDeadline(time.Now().Add(ioTimeout))
	for range 64 {
		_, data, err := c.c.ReadMessage()
		if err == nil {
			// Broadcasts may still be queued before the close frame.
			switch checkMessage(c.t, data)["type"] {
			case TypeSurface, TypeExperienceState, TypePerformanceFrame, TypeDevices:
				continue
			}
			c.t.Fatalf("want close %d, got message %s", code, data)
		}
		var ce *websocket.CloseError
		if !errors.As(err, &ce) {
			c.t.Fatalf("want close %d %q, got %v", code, reason, err)
		}
		if ce.Code != code || ce.Text != reason {
			c.t.Fatalf("close %d %q, want %d %q", ce.Code, ce.Text, code, reason)
		}
		return
	}
}

// expectQuiet checks that nothing arrives within d.
func (c *wsClient) expectQuiet(d time.Duration) {
	c.t.Helper()
	c.c.SetReadDeadline(time.Now().Add(d))
	_, data, err := c.c.ReadMessage()
	if err == nil {
		c.t.Fatalf("unexpected message %s", data)
	}
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		c.t.Fatalf("unexpected read result: %v", err)
	}
}

// admin connects from loopback and authenticates with the admin token,
// reading the snapshot (authenticated, pairing if any, surface if any,
// experience_state).
func (e *env) admin() *wsClient {
	e.t.Helper()
	c := e.dial(dialOptions{})
	c.auth(testAdminToken)
	m := c.expect(TypeAuthenticated)
	if m["admin"] != true {
		e.t.Fatalf("admin: %v", m)
	}
	c.drainSnapshot()
	return c
}

// drainSnapshot reads the messages that follow authenticated up to and
// including experience_state (and a performance_frame right after, if
// one is stored: tests that care read it themselves).
func (c *wsClient) drainSnapshot() []map[string]any {
	c.t.Helper()
	var got []map[string]any
	for range 5 {
		m := c.read()
		got = append(got, m)
		if m["type"] == TypeExperienceState {
			return got
		}
	}
	c.t.Fatalf("no experience_state in the snapshot: %v", got)
	return nil
}

// pair pairs a remote device with the current PIN and returns the client
// and its session token.
func (e *env) pair(n int) (*wsClient, string) {
	e.t.Helper()
	p, ok := e.s.CurrentPairing()
	if !ok {
		var err error
		if p, err = e.s.CreatePairing(); err != nil {
			e.t.Fatal(err)
		}
	}
	c := e.remote(n)
	c.auth(p.PIN)
	m := c.expect(TypeAuthenticated)
	tok, _ := m["session_token"].(string)
	if m["admin"] != false || len(tok) != 43 {
		e.t.Fatalf("pairing: %v", m)
	}
	c.drainSnapshot()
	return c, tok
}

// events polls the server until n events arrived.
func (e *env) events(n int) []surface.Event {
	e.t.Helper()
	var got []surface.Event
	testutil.Eventually(e.t, fmt.Sprintf("%d surface events arrived", n), func() bool {
		got = append(got, e.s.Poll()...)
		return len(got) >= n
	})
	if len(got) != n {
		e.t.Fatalf("events: got %v, want %d", got, n)
	}
	return got
}

// httpGet sends a raw HTTP/1.1 request and returns the response.
func (e *env) rawRequest(to, req string) (*http.Response, []byte) {
	e.t.Helper()
	if to == "" {
		to = "127.0.0.1"
	}
	nc, err := net.DialTimeout("tcp4", net.JoinHostPort(to, strconv.Itoa(e.port)), ioTimeout)
	if err != nil {
		e.t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(ioTimeout))
	if _, err := nc.Write([]byte(req)); err != nil {
		e.t.Fatal(err)
	}
	all := new(bytes.Buffer)
	buf := make([]byte, 4096)
	for {
		n, err := nc.Read(buf)
		all.Write(buf[:n])
		if err != nil {
			break
		}
		if resp, body, ok := parseResponse(all.Bytes()); ok {
			return resp, body
		}
	}
	resp, body, ok := parseResponse(all.Bytes())
	if !ok {
		return nil, all.Bytes()
	}
	return resp, body
}

func parseResponse(b []byte) (*http.Response, []byte, bool) {
	head, body, ok := bytes.Cut(b, []byte("\r\n\r\n"))
	if !ok {
		return nil, nil, false
	}
	resp, err := http.ReadResponse(bufioReader(string(head)+"\r\n\r\n"), nil)
	if err != nil {
		return nil, nil, false
	}
	if resp.ContentLength >= 0 && int64(len(body)) < resp.ContentLength {
		return nil, nil, false
	}
	if resp.ContentLength >= 0 {
		body = body[:resp.ContentLength]
	}
	return resp, body, true
}

// get sends GET path with Host 127.0.0.1:P (or host) on the loopback
// listener.
func (e *env) get(path, host string, extra ...string) (*http.Response, []byte) {
	e.t.Helper()
	if host == "" {
		host = "127.0.0.1:" + strconv.Itoa(e.port)
	}
	req := "GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n" + strings.Join(extra, "") + "Connection: close\r\n\r\n"
	return e.rawRequest("", req)
}

func sessionSelected(slot int) surface.Event    { return surface.SessionSelected{Slot: slot} }
func actionPressed(a wire.Action) surface.Event { return surface.ActionPressed{Action: a} }

// refused expects forbidden and the close that follows.
func (c *wsClient) refused() {
	c.t.Helper()
	c.expectError(CodeForbidden, "invalid or expired credential")
	c.expectClose(1000, "")
}

// waitIdle waits until no browser connection holds a slot.
func (e *env) waitIdle() {
	e.t.Helper()
	testutil.Eventually(e.t, "no browser connection holds a slot", func() bool {
		e.s.mu.Lock()
		defer e.s.mu.Unlock()
		return e.s.reserved == 0
	})
}

func itoaPort(p int) string { return strconv.Itoa(p) }
