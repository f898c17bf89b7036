package wireclient

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/backend/wire"
	"github.com/lets-app/lets/backend/wireclient/wiretest"
)

// ioTimeout bounds every wait for something that must happen (a reply, a
// closed socket, an update). It is a failure detector, not a budget: the
// one limit every wait uses, so a loaded machine never fails a correct
// client.
const ioTimeout = testutil.EventuallyTimeout

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), ioTimeout)
	t.Cleanup(cancel)
	return ctx
}

func sampleStatus() wire.Status {
	return wire.Status{
		Profile: "test/grid/device", VisualProtocol: 1, Input: "Test input", Output: "Test output",
		Surfaces:   []wire.SurfaceDescriptor{{Kind: "midi", Profile: "test/grid/device", VisualProtocol: 1, Input: "Test input", Output: "Test output"}},
		SessionTTL: wire.DefaultSessionTTL,
		Sessions: []wire.StatusSession{{Backend: "codex", SessionID: "a", State: wire.StateRunning, Slot: 1, Accent: "magenta", Leased: true, Label: "docs",
			Metadata: wire.MetadataOf("cwd", "/home/u/pad-lattice", "label", "docs")}},
	}
}

func sampleAck() wire.StateAck {
	return wire.StateAck{Backend: "local", SessionID: "default", State: wire.StateRunning, Slot: 0, Accent: "cyan", Selected: true, Label: "default"}
}

func cannedServer(t *testing.T) *wiretest.Server {
	return wiretest.Start(t, wiretest.Canned(sampleStatus(), sampleAck()))
}

// fast is a client whose requests wait ioTimeout for the fake daemon's
// reply (the product's 2 s is a promise to a user, not a test's limit).
func fast(path string) *Client {
	c := New(path)
	c.Timeout = ioTimeout
	return c
}

func TestPingAndStatus(t *testing.T) {
	srv := cannedServer(t)
	c := fast(srv.Path)
	ctx := testCtx(t)
	if err := c.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	st, err := c.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(st, sampleStatus()) {
		t.Fatalf("status %#v", st)
	}
	lines := srv.Lines()
	if len(lines) != 2 || lines[0].Text != `{"protocol":1,"type":"ping"}` || lines[1].Text != `{"protocol":1,"type":"status"}` || lines[0].Conn == lines[1].Conn {
		t.Fatalf("lines %v", lines)
	}
}

func TestCase098_StatusReceivingPongIsUnexpected(t *testing.T) {
	srv := wiretest.Start(t, func(c *wiretest.Conn, _ []byte) { _ = c.SendRaw(`{"protocol":1,"type":"pong"}`) })
	_, err := fast(srv.Path).Status(testCtx(t))
	var pe *wire.ProtocolError
	if !errors.As(err, &pe) || pe.Code != wire.CodeUnexpectedMessageType {
		t.Fatalf("err = %v", err)
	}
}

func TestErrorReplyCarriesDaemonCode(t *testing.T) {
	srv := wiretest.Start(t, func(c *wiretest.Conn, _ []byte) {
		_ = c.SendRaw(`{"protocol":1,"type":"error","code":"preview_conflict","error":"surface preview is already owned by another client"}`)
	})
	_, err := fast(srv.Path).Status(testCtx(t))
	var pe *wire.ProtocolError
	if !errors.As(err, &pe) || pe.Code != wire.CodePreviewConflict || pe.Text != wire.TextPreviewOwnedByOther {
		t.Fatalf("err = %v", err)
	}
	srv2 := wiretest.Start(t, func(c *wiretest.Conn, _ []byte) { _ = c.SendRaw(`{"protocol":1,"type":"error"}`) })
	err = fast(srv2.Path).Ping(testCtx(t))
	if !errors.As(err, &pe) || pe.Code != wire.CodeDaemonError {
		t.Fatalf("no code: %v", err)
	}
	srv3 := wiretest.Start(t, func(c *wiretest.Conn, _ []byte) { _ = c.SendRaw(`{"protocol":2,"type":"pong"}`) })
	err = fast(srv3.Path).Ping(testCtx(t))
	if !errors.As(err, &pe) || pe.Code != wire.CodeUnsupportedProtocol {
		t.Fatalf("protocol 2: %v", err)
	}
}

func TestCase099_ReportStateSendsMetadataInAgent(t *testing.T) {
	srv := cannedServer(t)
	c := fast(srv.Path)
	err := c.ReportState(testCtx(t), wire.StateCommand{State: wire.StateRunning, Agent: wire.Identity{Backend: "example", SessionID: "session-1"}, Metadata: wire.MetadataOf("label", "docs")})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"protocol":1,"type":"state","state":"running","agent":{"backend":"example","session_id":"session-1","label":"docs"}}`
	ok := srv.Wait(ioTimeout, func(lines []wiretest.Line, closed []int) bool { return len(lines) == 1 && len(closed) == 1 })
	if !ok {
		t.Fatalf("lines %v closed %v", srv.Lines(), srv.Closed())
	}
	if got := srv.Lines()[0].Text; got != want {
		t.Fatalf("sent %s\nwant %s", got, want)
	}
}

func TestReportStateReplyAndEndSession(t *testing.T) {
	srv := cannedServer(t)
	c := fast(srv.Path)
	ctx := testCtx(t)
	ack, err := c.ReportStateReply(ctx, wire.StateCommand{State: wire.StateUserTyping, Agent: wire.Identity{Backend: "b", SessionID: "s"}})
	if err != nil {
		t.Fatal(err)
	}
	if ack.Backend != "b" || ack.State != wire.StateUserTyping || ack.Scene() != 1 {
		t.Fatalf("ack %#v", ack)
	}
	if err := c.EndSession(ctx, wire.Identity{Backend: "b", SessionID: "s"}); err != nil {
		t.Fatal(err)
	}
	srv.Wait(ioTimeout, func(lines []wiretest.Line, _ []int) bool { return len(lines) == 2 })
	lines := srv.Lines()
	if len(lines) != 2 || !strings.Contains(lines[0].Text, `"reply":true`) || lines[1].Text != `{"protocol":1,"type":"session_end","agent":{"backend":"b","session_id":"s"}}` {
		t.Fatalf("lines %v", lines)
	}
	if err := c.EndSession(ctx, wire.Identity{}); err == nil {
		t.Fatal("ending the zero identity was sent")
	}
}

func TestDaemonNotRunning(t *testing.T) {
	dir, err := os.MkdirTemp("", "lw")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	c := fast(filepath.Join(dir, "missing.sock"))
	if err := c.Ping(testCtx(t)); !errors.Is(err, ErrDaemonNotRunning) || !strings.Contains(err.Error(), "missing.sock") {
		t.Fatalf("err = %v", err)
	}
}

func TestTimeoutWhenDaemonIsSilent(t *testing.T) {
	srv := wiretest.Start(t, nil)
	c := New(srv.Path)
	c.Timeout = 200 * time.Millisecond
	err := c.Ping(testCtx(t))
	// The context allows ioTimeout; only the client's own 200 ms Timeout
	// words the error this way (the context's deadline would answer
	// context.DeadlineExceeded), so no wall-clock budget is needed.
	if err == nil || !strings.Contains(err.Error(), "did not answer within 200ms") {
		t.Fatalf("err = %v", err)
	}
	ctx, cancel := context.WithTimeout(testCtx(t), 100*time.Millisecond)
	defer cancel()
	c.Timeout = time.Minute
	if err := c.Ping(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("ctx deadline: %v", err)
	}
	ctx2, cancel2 := context.WithCancel(testCtx(t))
	time.AfterFunc(100*time.Millisecond, cancel2)
	if err := c.Ping(ctx2); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancel: %v", err)
	}
}

func TestCase097_SubscriptionReceivesActionAndClosesSocket(t *testing.T) {
	stop := wire.ActionEvent{Action: wire.ActionStop, Agent: wire.Identity{Backend: "codex", SessionID: "a"}}
	srv := wiretest.Start(t, func(c *wiretest.Conn, line []byte) {
		if strings.Contains(string(line), `"type":"subscribe_actions"`) {
			_ = c.Send(stop)
		}
	})
	ctx := testCtx(t)
	sub, err := fast(srv.Path).Subscribe(ctx, wire.SubscribeActionsCommand{Agent: stop.Agent, Actions: []wire.Action{wire.ActionStop}})
	if err != nil {
		t.Fatal(err)
	}
	ev, err := sub.Receive(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ev != stop {
		t.Fatalf("event %#v", ev)
	}
	if err := sub.Close(); err != nil {
		t.Fatal(err)
	}
	if err := sub.Err(); err != nil {
		t.Fatalf("Err after Close = %v", err)
	}
	if !srv.Wait(ioTimeout, func(_ []wiretest.Line, closed []int) bool { return len(closed) == 1 }) {
		t.Fatal("socket not closed on exit")
	}
	if got := srv.Lines()[0].Text; !strings.Contains(got, `"type":"subscribe_actions"`) {
		t.Fatalf("sent %s", got)
	}
}

func TestSubscriptionContextCancelAndErrors(t *testing.T) {
	srv := wiretest.Start(t, nil)
	ctx, cancel := context.WithCancel(testCtx(t))
	sub, err := fast(srv.Path).Subscribe(ctx, wire.SubscribeActionsCommand{Actions: wire.Actions()})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case _, ok := <-sub.Actions():
		if ok {
			t.Fatal("event after cancel")
		}
	case <-time.After(ioTimeout):
		t.Fatal("channel not closed after cancel")
	}
	if !errors.Is(sub.Err(), context.Canceled) {
		t.Fatalf("Err = %v", sub.Err())
	}
	if !srv.Wait(ioTimeout, func(_ []wiretest.Line, closed []int) bool { return len(closed) == 1 }) {
		t.Fatal("socket not closed on cancel")
	}

	for _, tc := range []struct{ reply, code string }{
		{`{"protocol":1,"type":"error","code":"invalid_message","error":"actions must be a non-empty JSON array"}`, wire.CodeInvalidMessage},
		{`{"protocol":1,"type":"session_lease_bound","lease_id":"L","session":{"protocol":1,"type":"state_ack","backend":"a","session_id":"b","state":"running","slot":0,"scene":1,"accent":"cyan","selected":true,"leased":true,"label":"b"}}`, wire.CodeUnexpectedMessageType},
		{`{"protocol":1,"type":"action","action":"stop","agent":{"backend":"a","session_id":"b"},"extra":1}`, wire.CodeInvalidMessage},
	} {
		reply := tc.reply
		srv := wiretest.Start(t, func(c *wiretest.Conn, _ []byte) { _ = c.SendRaw(reply) })
		sub, err := fast(srv.Path).Subscribe(testCtx(t), wire.SubscribeActionsCommand{Actions: []wire.Action{wire.ActionStop}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = sub.Receive(testCtx(t))
		var pe *wire.ProtocolError
		if !errors.As(err, &pe) || pe.Code != tc.code {
			t.Fatalf("%s: err = %v", reply, err)
		}
	}

	// The daemon closing the subscription ends it.
	srv2 := wiretest.Start(t, func(c *wiretest.Conn, _ []byte) { c.Close() })
	sub2, err := fast(srv2.Path).Subscribe(testCtx(t), wire.SubscribeActionsCommand{Actions: []wire.Action{wire.ActionStop}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sub2.Receive(testCtx(t)); !errors.Is(err, ErrSubscriptionEnded) {
		t.Fatalf("daemon close: %v", err)
	}
}

func TestCase112_LeaseAdoptsIdentityFromBound(t *testing.T) {
	srv := wiretest.Start(t, func(c *wiretest.Conn, line []byte) {
		if strings.Contains(string(line), `"type":"session_lease"`) {
			_ = c.SendRaw(`{"protocol":1,"type":"session_lease_ack","lease_id":"L"}`)
			// Exactly the reference test's minimal message.
			_ = c.SendRaw(`{"type":"session_lease_bound","session":{"backend":"codex","session_id":"session-123"}}`)
		}
	})
	ctx := testCtx(t)
	l, ack, err := fast(srv.Path).Lease(ctx, wire.SessionLeaseCommand{LeaseID: "L", Metadata: wire.MetadataOf("cwd", "/w")})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if ack.LeaseID != "L" || ack.Session != nil {
		t.Fatalf("ack %#v", ack)
	}
	want := wire.Identity{Backend: "codex", SessionID: "session-123"}
	testutil.Eventually(t, "the lease adopts the bound identity", func() bool { return l.Identity() == want })
	if got := srv.Lines()[0].Text; got != `{"protocol":1,"type":"session_lease","lease_id":"L","metadata":{"cwd":"/w"}}` {
		t.Fatalf("sent %s", got)
	}
}

func TestLeaseReconnectsWithAdoptedIdentity(t *testing.T) {
	srv := cannedServer(t)
	ctx := testCtx(t)
	l, ack, err := fast(srv.Path).Lease(ctx, wire.SessionLeaseCommand{LeaseID: "L", Agent: wire.Identity{Backend: "codex", SessionID: "s1"}})
	if err != nil {
		t.Fatal(err)
	}
	if ack.Session == nil || !ack.Session.Leased || l.Identity() != (wire.Identity{Backend: "codex", SessionID: "s1"}) {
		t.Fatalf("ack %#v identity %v", ack, l.Identity())
	}
	srv.CloseConns() // the daemon restarts
	ok := srv.Wait(ioTimeout, func(lines []wiretest.Line, _ []int) bool { return len(lines) == 2 })
	if !ok {
		t.Fatalf("no re-registration: %v", srv.Lines())
	}
	if got := srv.Lines()[1].Text; got != `{"protocol":1,"type":"session_lease","lease_id":"L","agent":{"backend":"codex","session_id":"s1"}}` {
		t.Fatalf("re-registration %s", got)
	}
	var types []string
	timeout := time.After(ioTimeout)
	for len(types) < 3 {
		select {
		case u := <-l.Updates():
			types = append(types, u.Type)
		case <-timeout:
			t.Fatalf("updates %v", types)
		}
	}
	if !reflect.DeepEqual(types, []string{"session_lease_ack", "disconnected", "session_lease_ack"}) && !reflect.DeepEqual(types[:2], []string{"session_lease_ack", "disconnected"}) {
		t.Fatalf("updates %v", types)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(l.Err(), context.Canceled) {
		t.Fatalf("Err %v", l.Err())
	}
}

func TestCase124_SymbolsSevenPreviewsOneIDThenEnd(t *testing.T) {
	srv := cannedServer(t)
	var shown []wire.State
	if err := fast(srv.Path).Symbols(testCtx(t), time.Millisecond, func(s wire.State) { shown = append(shown, s) }); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(shown, wire.States()) {
		t.Fatalf("shown %v", shown)
	}
	lines := srv.Lines()
	if len(lines) != 8 {
		t.Fatalf("%d lines: %v", len(lines), lines)
	}
	var id string
	for i, l := range lines {
		if l.Conn != lines[0].Conn {
			t.Fatal("more than one connection")
		}
		cmd, perr := wire.DecodeLine([]byte(l.Text))
		if perr != nil {
			t.Fatal(perr)
		}
		if i < 7 {
			p, ok := cmd.(wire.PreviewCommand)
			if !ok || p.State != wire.States()[i] || p.TTL != 1.001 {
				t.Fatalf("line %d: %#v", i, cmd)
			}
			if id == "" {
				id = p.PreviewID
			} else if p.PreviewID != id {
				t.Fatal("preview ids differ")
			}
			continue
		}
		if e, ok := cmd.(wire.PreviewEndCommand); !ok || e.PreviewID != id {
			t.Fatalf("last line %#v", cmd)
		}
	}
	if len(id) != 32 {
		t.Fatalf("id %q", id)
	}
	// Visual Protocol V42: 0 < hold < 30.
	for _, hold := range []time.Duration{0, 30 * time.Second, -time.Second} {
		if err := fast(srv.Path).Symbols(testCtx(t), hold, nil); err == nil {
			t.Fatalf("hold %v accepted", hold)
		}
	}
}

func TestSymbolsCancelledEndsPreview(t *testing.T) {
	srv := cannedServer(t)
	ctx, cancel := context.WithCancel(testCtx(t))
	err := fast(srv.Path).Symbols(ctx, 20*time.Second, func(wire.State) { cancel() })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	lines := srv.Lines()
	if len(lines) != 2 || !strings.Contains(lines[1].Text, `"type":"preview_end"`) {
		t.Fatalf("lines %v", lines)
	}
}

func TestPreviewConflictIsReported(t *testing.T) {
	srv := wiretest.Start(t, func(c *wiretest.Conn, _ []byte) { _ = c.Send(wire.ErrPreviewConflictOther().Message()) })
	p, err := fast(srv.Path).OpenPreview(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var pe *wire.ProtocolError
	if err := p.Show(testCtx(t), wire.StateSuccess, 1.7); !errors.As(err, &pe) || pe.Code != wire.CodePreviewConflict {
		t.Fatalf("err %v", err)
	}
}

func TestOversizedReplyIsRefused(t *testing.T) {
	srv := wiretest.Start(t, func(c *wiretest.Conn, _ []byte) {
		// A whole line, newline included: the client refuses it when the
		// line ends, not when its read deadline passes (with no newline
		// the last bytes wait in the read buffer until the deadline).
		_, _ = c.Write([]byte(strings.Repeat("x", wire.MaxFrameBytes+10) + "\n"))
	})
	var pe *wire.ProtocolError
	if err := fast(srv.Path).Ping(testCtx(t)); !errors.As(err, &pe) || pe.Code != wire.CodeFrameTooLarge {
		t.Fatalf("err %v", err)
	}
}

func TestNewIDAndDefaultPath(t *testing.T) {
	a, b := NewID(), NewID()
	if len(a) != 32 || a == b {
		t.Fatalf("ids %s %s", a, b)
	}
	c := NewDefault(func(k string) string {
		if k == wire.EnvSocket {
			return "/x/y.sock"
		}
		return ""
	})
	if c.Path != "/x/y.sock" || c.Timeout != wire.ClientRequestTimeout {
		t.Fatalf("client %#v", c)
	}
}
