package daemon_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/lets-app/lets/backend/clock"
	"github.com/lets-app/lets/backend/control"
	"github.com/lets-app/lets/backend/daemon"
	"github.com/lets-app/lets/backend/daemon/daemontest"
	"github.com/lets-app/lets/backend/testenv/conformance"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/backend/wire"
	"github.com/lets-app/lets/schemas"
)

// ioTimeout bounds every socket operation and loop sync of a test. It is a
// failure detector, not a budget: the same limit as every other wait
// (testutil.EventuallyTimeout), so a loaded machine (a 2-core CI runner
// with load 15+, where parsing the Show on the loop took over 5 s) does not
// fail a correct daemon.
const ioTimeout = testutil.EventuallyTimeout

// validators checks every daemon message against the reference schema and
// our own, each by the definition matching the message's type, so a reply
// can never pass by accidentally matching a client command.
type validators struct {
	ref  map[string]*jsonschema.Schema
	ours map[string]*jsonschema.Schema
}

var (
	validatorsOnce sync.Once
	validatorsVal  *validators
	validatorsErr  error
)

// reply type → (reference $def, our $def)
var replyDefs = map[string][2]string{
	wire.TypeStateAck:          {"stateAck", "stateAck"},
	wire.TypeStatus:            {"statusResponse", "status"},
	wire.TypePong:              {"pongResponse", "pong"},
	wire.TypeAction:            {"actionEvent", "actionEvent"},
	wire.TypeSessionLeaseAck:   {"sessionLeaseAck", "sessionLeaseAck"},
	wire.TypeSessionLeaseBound: {"sessionLeaseBound", "sessionLeaseBound"},
	wire.TypePreviewAck:        {"previewAck", "previewAck"},
	wire.TypePreviewEndAck:     {"previewEndAck", "previewEndAck"},
	wire.TypeError:             {"errorResponse", "error"},
}

func loadValidators(tb testing.TB) *validators {
	tb.Helper()
	// Without ../shared the daemon's messages are still checked against our
	// own schema (a failure under LETS_REQUIRE_SHARED=1, as in make test).
	refPath, haveRef := conformance.OptionalFile(tb, "schemas/socket-protocol-v1.json", "wire-protocol-1.schema.json")
	if haveRef {
		// The whole reference schema must compile with the shared helper too.
		_ = conformance.Schema(tb, "socket-protocol-v1.json")
	}
	validatorsOnce.Do(func() {
		v := &validators{ref: map[string]*jsonschema.Schema{}, ours: map[string]*jsonschema.Schema{}}
		if err := v.addOurs(); err != nil {
			validatorsErr = err
			return
		}
		if haveRef {
			validatorsErr = v.addReference(refPath)
		}
		validatorsVal = v
	})
	if validatorsErr != nil {
		tb.Fatalf("load message schemas: %v", validatorsErr)
	}
	return validatorsVal
}

// addOurs compiles our schema's definition of each daemon message.
func (v *validators) addOurs() error {
	for typ, defs := range replyDefs {
		o, err := schemas.Compile("wire-protocol-1.schema.json#/$defs/" + defs[1])
		if err != nil {
			return err
		}
		v.ours[typ] = o
	}
	whole, err := schemas.Compile("wire-protocol-1.schema.json")
	if err != nil {
		return err
	}
	v.ours[""] = whole
	return nil
}

// addReference compiles the reference schema's definition of each daemon
// message.
func (v *validators) addReference(refPath string) error {
	data, err := os.ReadFile(refPath)
	if err != nil {
		return err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	url := "file://" + filepath.ToSlash(refPath)
	if err := c.AddResource(url, doc); err != nil {
		return err
	}
	for typ, defs := range replyDefs {
		s, err := c.Compile(url + "#/$defs/" + defs[0])
		if err != nil {
			return err
		}
		v.ref[typ] = s
	}
	return nil
}

// check validates one daemon line (without its newline).
func (v *validators) check(tb testing.TB, line []byte) {
	tb.Helper()
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(line, &head); err != nil {
		tb.Fatalf("daemon wrote a line that is not JSON: %q: %v", line, err)
	}
	ours, ok := v.ours[head.Type]
	if !ok || head.Type == "" {
		tb.Fatalf("daemon wrote a message of type %q, which no daemon message has: %s", head.Type, line)
	}
	if ref, ok := v.ref[head.Type]; ok {
		if err := schemas.ValidateJSON(ref, line); err != nil {
			tb.Fatalf("reference schema rejects daemon message %s: %v", line, err)
		}
	}
	if err := schemas.ValidateJSON(ours, line); err != nil {
		tb.Fatalf("our schema rejects daemon message %s: %v", line, err)
	}
	if err := schemas.ValidateJSON(v.ours[""], line); err != nil {
		tb.Fatalf("our whole schema rejects daemon message %s: %v", line, err)
	}
}

// harness is one daemon running in-process on a real Unix socket.
type harness struct {
	t       testing.TB
	d       *daemon.Daemon
	surface *daemontest.Surface
	clock   *clock.Fake
	path    string
	v       *validators
	cancel  context.CancelFunc
	errc    chan error
	stopped bool
}

type harnessOpt func(*daemon.Options)

func withControl(f func(*control.Config)) harnessOpt {
	return func(o *daemon.Options) {
		if o.Control == nil {
			cfg := control.DefaultConfig(0)
			o.Control = &cfg
		}
		f(o.Control)
	}
}

func withSurface(s *daemontest.Surface) harnessOpt {
	return func(o *daemon.Options) { o.Surface = s }
}

// shortDir returns a temporary folder short enough for a socket path.
func shortDir(tb testing.TB) string {
	tb.Helper()
	dir, err := os.MkdirTemp("", "lw")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// epoch is control-plane time 0 of every test daemon: its fake clock's
// reading when the daemon is made.
var epoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// at is control-plane time s on the test daemon's fake clock.
func at(s float64) time.Time { return epoch.Add(seconds(s)) }

// seconds converts control-plane seconds to a duration.
func seconds(s float64) time.Duration { return time.Duration(math.Round(s * float64(time.Second))) }

// start runs a daemon with the fake surface (capacity 4) and a fake clock
// at control-plane time 1.0 s.
func start(tb testing.TB, opts ...harnessOpt) *harness {
	tb.Helper()
	h := &harness{t: tb, surface: daemontest.NewSurface(), clock: clock.NewFake(epoch), v: loadValidators(tb)}
	h.path = filepath.Join(shortDir(tb), "s.sock")
	o := daemon.Options{SocketPath: h.path, Clock: h.clock}
	for _, f := range opts {
		f(&o)
	}
	if o.Surface == nil {
		o.Surface = h.surface
	} else if s, ok := o.Surface.(*daemontest.Surface); ok {
		h.surface = s
	}
	d, err := daemon.Listen(o)
	if err != nil {
		tb.Fatalf("start daemon: %v", err)
	}
	h.d = d
	h.clock.Set(at(1.0)) // before Run: no timer is armed yet
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	h.errc = make(chan error, 1)
	go func() { h.errc <- d.Run(ctx) }()
	tb.Cleanup(h.stop)
	testutil.EventuallyNoError(tb, "the daemon runs its loop", func() error {
		ctx, cancel := context.WithTimeout(context.Background(), ioTimeout)
		defer cancel()
		return d.Sync(ctx)
	})
	return h
}

// set moves the fake clock to control-plane time s (never back) and
// returns once the daemon has acted on it: the owner loop is held while
// the clock moves, so it sees only s, and every timer that fell due (the
// tick, an experience's cue) has been handled.
func (h *harness) set(s float64) { h.t.Helper(); h.setTime(at(s)) }

// advance moves the fake clock forward by ds seconds, like set.
func (h *harness) advance(ds float64) { h.t.Helper(); h.setTime(h.clock.Now().Add(seconds(ds))) }

// ticks lets n periodic ticks happen: the clock moves one tick interval
// at a time.
func (h *harness) ticks(n int) {
	h.t.Helper()
	for range n {
		h.setTime(h.clock.Now().Add(daemon.DefaultTickInterval))
	}
}

func (h *harness) setTime(t time.Time) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), ioTimeout)
	defer cancel()
	release, err := h.d.HoldLoop(ctx)
	if err != nil {
		h.t.Fatalf("hold the daemon's loop to move its clock: %v", err)
	}
	h.clock.Set(t)
	release()
	h.sync()
}

// sync returns once the owner loop has handled everything posted so far
// through the socket or the loop (and every timer that was due).
func (h *harness) sync() {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), ioTimeout)
	defer cancel()
	if err := h.d.Sync(ctx); err != nil {
		h.t.Fatalf("the daemon's loop: %v", err)
	}
}

// stop stops the daemon and checks it returned cleanly.
func (h *harness) stop() {
	h.t.Helper()
	if h.stopped {
		return
	}
	h.stopped = true
	h.cancel()
	select {
	case err := <-h.errc:
		if err != nil {
			h.t.Errorf("daemon Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		h.t.Errorf("daemon did not stop within 10 s")
	}
}

// client is one test connection. Every line it reads is validated.
type client struct {
	t  testing.TB
	h  *harness
	c  *net.UnixConn
	r  *bufio.Reader
	mu sync.Mutex
}

func (h *harness) dial() *client {
	h.t.Helper()
	nc, err := net.DialTimeout("unix", h.path, ioTimeout)
	if err != nil {
		h.t.Fatalf("connect to the daemon: %v", err)
	}
	c := &client{t: h.t, h: h, c: nc.(*net.UnixConn), r: bufio.NewReaderSize(nc, 128<<10)}
	h.t.Cleanup(func() { c.c.Close() })
	return c
}

// sendRaw writes bytes as they are.
func (c *client) sendRaw(b []byte) {
	c.t.Helper()
	c.c.SetWriteDeadline(time.Now().Add(ioTimeout))
	if _, err := c.c.Write(b); err != nil {
		c.t.Fatalf("write to the daemon: %v", err)
	}
}

// send writes one line and its newline.
func (c *client) send(line string) { c.t.Helper(); c.sendRaw([]byte(line + "\n")) }

// readLine reads one line (without newline), validating it, or fails.
func (c *client) readLine() string {
	c.t.Helper()
	line, err := c.tryRead(ioTimeout)
	if err != nil {
		c.t.Fatalf("read from the daemon: %v", err)
	}
	return line
}

// tryRead reads one line within timeout and validates it.
func (c *client) tryRead(timeout time.Duration) (string, error) {
	c.t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.c.SetReadDeadline(time.Now().Add(timeout))
	b, err := c.r.ReadBytes('\n')
	if err != nil {
		if len(b) > 0 {
			c.t.Fatalf("daemon wrote an unterminated line %q then %v", b, err)
		}
		return "", err
	}
	line := b[:len(b)-1]
	if len(b) > wire.MaxEncodedBytes {
		c.t.Fatalf("daemon wrote a %d-byte frame, above the %d-byte limit", len(b), wire.MaxEncodedBytes)
	}
	c.h.v.check(c.t, line)
	return string(line), nil
}

// read reads and decodes one message.
func (c *client) read() map[string]any {
	c.t.Helper()
	return decode(c.t, c.readLine())
}

func decode(tb testing.TB, line string) map[string]any {
	tb.Helper()
	var m map[string]any
	d := json.NewDecoder(strings.NewReader(line))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		tb.Fatalf("decode %q: %v", line, err)
	}
	return m
}

// roundtrip sends a line and returns the first line received.
func (c *client) roundtrip(line string) string {
	c.t.Helper()
	c.send(line)
	return c.readLine()
}

// expectLine reads one line and compares it byte for byte.
func (c *client) expectLine(want string) {
	c.t.Helper()
	if got := c.readLine(); got != want {
		c.t.Fatalf("daemon wrote\n  %s\nwant\n  %s", got, want)
	}
}

// expectError reads one error message with code and text.
func (c *client) expectError(code, text string) {
	c.t.Helper()
	c.expectLine(errLine(code, text))
}

func errLine(code, text string) string {
	b, _ := wire.ErrorMessage{Code: code, Text: text}.Encode()
	return strings.TrimSuffix(string(b), "\n")
}

// expectSilence checks that the daemon has written nothing to c for what
// it handled so far and that the connection is still open: a ping's pong
// must be the very next line (the daemon writes each connection's output
// in order). Callers make sure the daemon handled the event that must not
// produce output first (press, barrier, a reply on another connection).
func (c *client) expectSilence() {
	c.t.Helper()
	c.ping()
}

// closeAndWait half-closes c and waits until the daemon closed its side:
// the daemon has handled everything c sent and ran its disconnect cleanup
// (§9.12), which at EOF it does exactly as for a full close.
func (c *client) closeAndWait() {
	c.t.Helper()
	if err := c.c.CloseWrite(); err != nil {
		c.t.Fatal(err)
	}
	for {
		if _, err := c.tryRead(ioTimeout); err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				c.t.Fatalf("the daemon did not close the connection after EOF within %v", ioTimeout)
			}
			break
		}
	}
	c.close()
}

// expectNothingThenPong proves that nothing was written for the earlier
// lines: a ping's pong must be the very next line.
func (c *client) sync() {
	c.t.Helper()
	c.expectLine(pong) // nothing before the pong
}

// ping sends a ping and checks that the pong is the next line, proving
// nothing else was written before it.
func (c *client) ping() {
	c.t.Helper()
	c.send(ping)
	c.sync()
}

// expectClosed checks that the daemon closes the connection (EOF) within
// ioTimeout, after no further complete lines.
func (c *client) expectClosed() {
	c.t.Helper()
	line, err := c.tryRead(ioTimeout)
	if err == nil {
		c.t.Fatalf("daemon wrote %s, want the connection closed", line)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		c.t.Fatalf("connection still open after %v", ioTimeout)
	}
	if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) && !strings.Contains(err.Error(), "reset") {
		c.t.Fatalf("unexpected error waiting for close: %v", err)
	}
}

func (c *client) close() { c.c.Close() }

const (
	ping = `{"protocol":1,"type":"ping"}`
	pong = `{"protocol":1,"type":"pong"}`
)

// status asks for the status on a fresh connection.
func (h *harness) status() map[string]any {
	h.t.Helper()
	c := h.dial()
	defer c.close()
	c.send(`{"protocol":1,"type":"status"}`)
	m := c.read()
	if m["type"] != "status" {
		h.t.Fatalf("status answered %v", m)
	}
	return m
}

// statusLine returns the raw status line.
func (h *harness) statusLine() string {
	h.t.Helper()
	c := h.dial()
	defer c.close()
	return c.roundtrip(`{"protocol":1,"type":"status"}`)
}

// sessions returns status.sessions.
func (h *harness) sessions() []map[string]any {
	h.t.Helper()
	raw := h.status()["sessions"].([]any)
	out := make([]map[string]any, len(raw))
	for i, s := range raw {
		out[i] = s.(map[string]any)
	}
	return out
}

// session returns the status entry of backend/session_id, or nil.
func (h *harness) session(backend, sid string) map[string]any {
	h.t.Helper()
	for _, s := range h.sessions() {
		if s["backend"] == backend && s["session_id"] == sid {
			return s
		}
	}
	return nil
}

// stateMsg builds a state line.
func stateMsg(backend, sid, state string, extra ...string) string {
	b := `{"protocol":1,"type":"state","state":"` + state + `","agent":{"backend":"` + backend + `","session_id":"` + sid + `"}`
	for _, e := range extra {
		b += "," + e
	}
	return b + "}"
}

// update sends a state with reply:true on a new connection and returns the
// state_ack once the surface shows it (the ack is written while the loop
// handles the line; the render follows after the batch, so sync).
func (h *harness) update(backend, sid, state string, extra ...string) map[string]any {
	h.t.Helper()
	m := h.updateAck(backend, sid, state, extra...)
	h.sync()
	return m
}

// updateAck is update without waiting for the render: for tests that hold
// the surface.
func (h *harness) updateAck(backend, sid, state string, extra ...string) map[string]any {
	h.t.Helper()
	c := h.dial()
	defer c.close()
	c.send(stateMsg(backend, sid, state, append(extra, `"reply":true`)...))
	m := c.read()
	if m["type"] != "state_ack" {
		h.t.Fatalf("state answered %v", m)
	}
	return m
}

// end sends session_end and waits until it is applied (ping on the same
// connection).
func (h *harness) end(backend, sid string) {
	h.t.Helper()
	c := h.dial()
	defer c.close()
	c.send(`{"protocol":1,"type":"session_end","agent":{"backend":"` + backend + `","session_id":"` + sid + `"}}`)
	c.ping()
}

// subscribe opens a connection subscribed as given and returns it once the
// subscription is applied.
func (h *harness) subscribe(backend, sid string, actions []string, extra ...string) *client {
	h.t.Helper()
	c := h.dial()
	c.send(subscribeMsg(backend, sid, actions, extra...))
	c.ping()
	return c
}

func subscribeMsg(backend, sid string, actions []string, extra ...string) string {
	b, _ := json.Marshal(actions)
	m := `{"protocol":1,"type":"subscribe_actions","agent":{"backend":"` + backend + `","session_id":"` + sid + `"},"actions":` + string(b)
	for _, e := range extra {
		m += "," + e
	}
	return m + "}"
}

// press injects an action press and waits until the owner has handled it
// (a status round trip is processed after it).
func (h *harness) press(a wire.Action) {
	h.t.Helper()
	h.surface.Press(a)
	h.barrier()
}

// selectSlot injects a selector press and waits until it is handled.
func (h *harness) selectSlot(slot int) {
	h.t.Helper()
	h.surface.Select(slot)
	h.barrier()
}

// barrier waits until the owner has handled everything injected so far:
// surface events are handled in order with socket lines only loosely, so
// wait for the surface channel to drain (the owner took the last one) and
// then for the loop to handle a call posted after it.
func (h *harness) barrier() {
	h.t.Helper()
	testutil.Eventually(h.t, "the daemon took the injected surface events", func() bool { return len(h.surface.Events()) == 0 })
	h.sync()
}

// num returns a JSON number member as float64 (nil → -1).
func num(v any) float64 {
	switch n := v.(type) {
	case json.Number:
		f, _ := n.Float64()
		return f
	case float64:
		return n
	}
	return -1
}
