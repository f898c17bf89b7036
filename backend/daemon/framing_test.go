package daemon_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/lets-app/lets/backend/wire"
)

const (
	codeInvalid  = wire.CodeInvalidMessage
	codeProto    = wire.CodeUnsupportedProtocol
	codeType     = wire.CodeUnknownMessageType
	codeTooLarge = wire.CodeFrameTooLarge
	textJSON     = wire.TextInvalidJSON
	textObject   = wire.TextNotObject
)

// One line in, one exact line (or nothing) out, connection kept.
func TestEnvelopeCasesOverSocket(t *testing.T) {
	h := start(t)
	for _, tc := range []struct {
		caseNo int
		line   string
		want   string // "" = nothing
	}{
		{1, ping, pong},
		{2, `{"protocol":1.0,"type":"ping"}`, pong},
		{2, `{"protocol":1e0,"type":"ping"}`, pong},
		{3, `{"type":"status"}`, errLine(codeProto, "unsupported wire protocol None; expected 1")},
		{4, `{"protocol":2,"type":"status"}`, errLine(codeProto, "unsupported wire protocol 2; expected 1")},
		{5, `{"protocol":true,"type":"status"}`, errLine(codeProto, "unsupported wire protocol True; expected 1")},
		{6, `{"protocol":"1","type":"ping"}`, errLine(codeProto, "unsupported wire protocol '1'; expected 1")},
		{6, `{"protocol":null,"type":"ping"}`, errLine(codeProto, "unsupported wire protocol None; expected 1")},
		{7, `[1,2]`, errLine(codeInvalid, textObject)},
		{7, `"x"`, errLine(codeInvalid, textObject)},
		{8, `not json`, errLine(codeInvalid, textJSON)},
		{10, "\xEF\xBB\xBF" + ping, errLine(codeInvalid, textJSON)},
		{11, ping + ` {"x":1}`, errLine(codeInvalid, textJSON)},
		{12, "   \t ", ""},
		{12, "\r", ""},
		{13, ping + "\r", pong},
		{24, `{"protocol":1}`, errLine(codeType, "unknown message type: None")},
		{24, `{"protocol":1,"type":null}`, errLine(codeType, "unknown message type: None")},
		{25, `{"protocol":1,"type":"nope"}`, errLine(codeType, "unknown message type: nope")},
		{26, `{"protocol":1,"type":"status","future":true}`, errLine(codeInvalid, "unknown field: future")},
		{27, `{"protocol":1,"type":"ping","b":1,"a":2}`, errLine(codeInvalid, "unknown field: a")},
		{28, `{"protocol":2,"type":"ping","protocol":1}`, pong},
		{29, `{"protocol":1,"type":"state","state":"bad","x":1}`, errLine(codeInvalid, "unknown field: x")},
		{29, `{"protocol":1,"type":"subscribe_actions","bogus":1,"alpha":2,"actions":"no"}`, errLine(codeInvalid, "unknown field: alpha")},
	} {
		// One connection per line, as the checklist assumes, and each
		// response is the first line on it.
		c := h.dial()
		c.send(tc.line)
		if tc.want == "" {
			c.ping() // the pong is the very next line: nothing was written
		} else {
			if got := c.readLine(); got != tc.want {
				t.Errorf("case %d %q:\n got %s\nwant %s", tc.caseNo, tc.line, got, tc.want)
			}
			c.ping() // the connection stays usable
		}
		c.close()
	}
}

func TestCase009_InvalidUTF8(t *testing.T) {
	h := start(t)
	c := h.dial()
	c.sendRaw([]byte{0xFF, 0xFE, 0x0A})
	c.expectError(codeInvalid, textJSON)
	c.ping()
}

func TestCase012_BlankLinesKeepConnectionOpen(t *testing.T) {
	h := start(t)
	c := h.dial()
	c.sendRaw([]byte("\n \n\r\n\t\v\f\n"))
	c.expectSilence()
	c.ping()
}

func TestCase014_PipelinedLinesAnsweredInOrder(t *testing.T) {
	h := start(t)
	c := h.dial()
	c.sendRaw([]byte(ping + "\n" + `{"protocol":1,"type":"nope"}` + "\n" + ping + "\n"))
	c.expectLine(pong)
	c.expectError(codeType, "unknown message type: nope")
	c.expectLine(pong)
}

func TestCase015_SplitPingAnsweredOnce(t *testing.T) {
	h := start(t)
	c := h.dial()
	c.sendRaw([]byte(ping[:10]))
	c.waitConsumed() // the rest arrives in a read of its own
	c.sendRaw([]byte(ping[10:] + "\n"))
	c.expectLine(pong)
	c.expectSilence()
}

func TestCase016_UnterminatedPingThenEOF(t *testing.T) {
	h := start(t)
	c := h.dial()
	c.sendRaw([]byte(ping))
	if err := c.c.CloseWrite(); err != nil {
		t.Fatal(err)
	}
	c.expectClosed() // nothing written, connection closed
}

func TestCase017_FrameTooLargeClosesConnection(t *testing.T) {
	h := start(t)
	c := h.dial()
	other := h.dial()
	c.sendRaw(bytes.Repeat([]byte("x"), 65537))
	c.expectError(codeTooLarge, wire.TextFrameTooLarge)
	c.expectClosed()
	// Only that connection: another one is unaffected.
	other.ping()
}

func TestCase018_ExactlyMaxFrameAccepted(t *testing.T) {
	h := start(t)
	c := h.dial()
	line := strings.Repeat(" ", wire.MaxFrameBytes-len(ping)) + ping
	if len(line) != 65536 {
		t.Fatal(len(line))
	}
	c.send(line)
	c.expectLine(pong)
}

func TestCase019_OversizedTerminatedLineKeepsConnection(t *testing.T) {
	h := start(t)
	c := h.dial()
	c.sendRaw([]byte(strings.Repeat("x", 65537) + "\n" + ping + "\n"))
	c.expectError(codeTooLarge, wire.TextFrameTooLarge)
	c.expectLine(pong)
}

func TestCase020_70000ByteLineClosesConnection(t *testing.T) {
	h := start(t)
	c := h.dial()
	c.sendRaw([]byte(strings.Repeat("x", 70000) + "\n" + ping + "\n"))
	c.expectError(codeTooLarge, wire.TextFrameTooLarge)
	c.expectClosed()
}

func TestCase021_MaxFrameUnterminatedHeldThenInvalid(t *testing.T) {
	h := start(t)
	c := h.dial()
	c.sendRaw(bytes.Repeat([]byte("x"), 65536))
	// Held, not answered: once the daemon has read it all, the error for
	// the completed line must be the very next line.
	c.waitConsumed()
	c.sendRaw([]byte("\n"))
	c.expectError(codeInvalid, textJSON)
	c.ping()
}

func TestCase022_023_OversizedStatusAnswersFrameTooLarge(t *testing.T) {
	h := start(t)
	big := strings.Repeat("m", 40000)
	h.update("codex", "a", "running", `"agent":{"backend":"codex","session_id":"a","k":"`+big+`"}`)
	h.update("codex", "b", "running", `"agent":{"backend":"codex","session_id":"b","k":"`+big+`"}`)
	c := h.dial()
	c.send(`{"protocol":1,"type":"status"}`)
	c.expectError(codeTooLarge, wire.TextFrameTooLarge)
	c.ping()
}

// Robustness: malformed lines keep the connection usable, whatever they
// are, and several of them in a row are each answered once.
func TestMalformedLinesKeepConnectionUsable(t *testing.T) {
	h := start(t)
	c := h.dial()
	bad := []string{
		"{", "}", "[", "nul", `{"protocol":NaN,"type":"ping"}`, strings.Repeat("[", 5000),
		`{"protocol":1,"type":"preview","preview_id":"p","state":"running","ttl":1` + strings.Repeat("0", 5000) + `}`,
		`{"protocol":1,"type":"session_lease"}`, `{"protocol":1,"type":"preview_end"}`,
		"\x00\x01", `{"protocol":1,"type":"state","state":"running","agent":{"backend":"a","session_id":"b","x":5}}`,
	}
	for _, line := range bad {
		c.send(line)
	}
	for i := range bad {
		m := c.read()
		if m["type"] != "error" {
			t.Fatalf("line %d: got %v, want an error", i, m)
		}
	}
	c.ping()
}

// A 64 KiB+1 unterminated frame closes only that connection; the daemon
// and its other clients carry on.
func TestOversizedFrameClosesOnlyThatConnection(t *testing.T) {
	h := start(t)
	sub := h.subscribe("codex", "a", []string{"stop"})
	h.update("codex", "a", "running")
	bad := h.dial()
	bad.sendRaw(bytes.Repeat([]byte("y"), 65537))
	bad.expectError(codeTooLarge, wire.TextFrameTooLarge)
	bad.expectClosed()
	h.press(wire.ActionStop)
	if m := sub.read(); m["action"] != "stop" {
		t.Fatalf("subscriber got %v", m)
	}
	sub.ping()
}
