package wire

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/lets-app/lets/backend/testenv/conformance"
	"github.com/lets-app/lets/schemas"
)

func mustEncode(t *testing.T, m Message) string {
	t.Helper()
	line, err := m.Encode()
	if err != nil {
		t.Fatalf("encode %T: %v", m, err)
	}
	if len(line) == 0 || line[len(line)-1] != '\n' || strings.Count(string(line), "\n") != 1 {
		t.Fatalf("encode %T: not exactly one newline-terminated line: %q", m, line)
	}
	return string(line[:len(line)-1])
}

func ack(backend, sid string, st State, slot int, accent string, selected, leased bool, label string) StateAck {
	return StateAck{Backend: backend, SessionID: sid, State: st, Slot: slot, Accent: accent, Selected: selected, Leased: leased, Label: label}
}

// testSurface is the reference test surface (spec §14).
func testSurface() SurfaceDescriptor {
	return SurfaceDescriptor{Kind: SurfaceKindMIDI, Profile: "test/grid/device", VisualProtocol: 1, Input: "Test input", Output: "Test output"}
}

func emptyStatus() Status {
	return Status{
		Profile: "test/grid/device", VisualProtocol: 1, Input: "Test input", Output: "Test output",
		Surfaces: []SurfaceDescriptor{testSurface()}, SessionTTL: DefaultSessionTTL,
	}
}

func threeSessionStatus() Status {
	s := emptyStatus()
	s.Selected = &Identity{"codex", "019f28ff-aaaa-bbbb"}
	s.OverflowCount = 1
	s.Sessions = []StatusSession{
		{Backend: "codex", SessionID: "019f28ff-aaaa-bbbb", State: StateRunning, Slot: 0, Accent: "cyan", Selected: true, Label: "pad-lattice", Metadata: Metadata{{"cwd", "/home/u/pad-lattice"}}},
		{Backend: "codex", SessionID: "5b2e91c0", State: StateWaitingForApproval, Slot: 1, Accent: "magenta", Label: "docs", Metadata: Metadata{{"label", "docs"}}},
		{Backend: "codex-exec", SessionID: "d41d8cd98f00b204", State: StateRunning, Slot: NoSlot, Label: "d41d8cd9"},
	}
	return s
}

// literalCases are the literal daemon messages of the spec (§7, §10, §15).
func literalCases() []struct {
	caseNo int
	name   string
	msg    Message
	want   string
} {
	bound := ack("codex", "019f28ff-3c1a", StateWaitingForReply, 0, "cyan", true, true, "implementation")
	return []struct {
		caseNo int
		name   string
		msg    Message
		want   string
	}{
		{1, "pong", Pong{}, `{"protocol":1,"type":"pong"}`},
		{31, "state_ack default agent", ack("local", "default", StateRunning, 0, "cyan", true, false, "default"),
			`{"protocol":1,"type":"state_ack","backend":"local","session_id":"default","state":"running","slot":0,"scene":1,"accent":"cyan","selected":true,"leased":false,"label":"default"}`},
		{0, "§7.1 state_ack", ack("codex", "019f28ff-3c1a", StateRunning, 0, "cyan", true, true, "implementation"),
			`{"protocol":1,"type":"state_ack","backend":"codex","session_id":"019f28ff-3c1a","state":"running","slot":0,"scene":1,"accent":"cyan","selected":true,"leased":true,"label":"implementation"}`},
		{0, "state_ack overflow with stale accent", ack("c", "s", StateRunning, NoSlot, "lime", false, false, "s"),
			`{"protocol":1,"type":"state_ack","backend":"c","session_id":"s","state":"running","slot":null,"scene":null,"accent":"lime","selected":false,"leased":false,"label":"s"}`},
		{126, "empty status", emptyStatus(),
			`{"protocol":1,"type":"status","profile":"test/grid/device","visual_protocol":1,"input":"Test input","output":"Test output","surfaces":[{"kind":"midi","profile":"test/grid/device","visual_protocol":1,"input":"Test input","output":"Test output"}],"selected":null,"overflow_count":0,"activity_motion":false,"audio_feedback":false,"experience":null,"preview_active":false,"session_ttl":86400.0,"sessions":[]}`},
		{127, "three sessions, one in overflow", threeSessionStatus(),
			`{"protocol":1,"type":"status","profile":"test/grid/device","visual_protocol":1,"input":"Test input","output":"Test output","surfaces":[{"kind":"midi","profile":"test/grid/device","visual_protocol":1,"input":"Test input","output":"Test output"}],"selected":{"backend":"codex","session_id":"019f28ff-aaaa-bbbb"},"overflow_count":1,"activity_motion":false,"audio_feedback":false,"experience":null,"preview_active":false,"session_ttl":86400.0,"sessions":[{"backend":"codex","session_id":"019f28ff-aaaa-bbbb","state":"running","slot":0,"accent":"cyan","selected":true,"leased":false,"label":"pad-lattice","metadata":{"cwd":"/home/u/pad-lattice"}},{"backend":"codex","session_id":"5b2e91c0","state":"waiting_for_approval","slot":1,"accent":"magenta","selected":false,"leased":false,"label":"docs","metadata":{"label":"docs"}},{"backend":"codex-exec","session_id":"d41d8cd98f00b204","state":"running","slot":null,"accent":null,"selected":false,"leased":false,"label":"d41d8cd9","metadata":{}}]}`},
		{88, "unscoped action", ActionEvent{Action: ActionStop, Agent: Identity{"codex", "a"}},
			`{"protocol":1,"type":"action","action":"stop","agent":{"backend":"codex","session_id":"a"}}`},
		{0, "§7.4 action", ActionEvent{Action: ActionApprove, Agent: Identity{"codex", "019f28ff-3c1a"}, RequestID: "c42a7e0b"},
			`{"protocol":1,"type":"action","action":"approve","agent":{"backend":"codex","session_id":"019f28ff-3c1a"},"request_id":"c42a7e0b"}`},
		{46, "lease ack without session", SessionLeaseAck{LeaseID: "L"}, `{"protocol":1,"type":"session_lease_ack","lease_id":"L"}`},
		{0, "§7.5 lease ack", SessionLeaseAck{LeaseID: "9f3c0d2e", Session: &bound},
			`{"protocol":1,"type":"session_lease_ack","lease_id":"9f3c0d2e","session":{"protocol":1,"type":"state_ack","backend":"codex","session_id":"019f28ff-3c1a","state":"waiting_for_reply","slot":0,"scene":1,"accent":"cyan","selected":true,"leased":true,"label":"implementation"}}`},
		{0, "§7.6 lease bound", SessionLeaseBound{LeaseID: "9f3c0d2e", Session: bound},
			`{"protocol":1,"type":"session_lease_bound","lease_id":"9f3c0d2e","session":{"protocol":1,"type":"state_ack","backend":"codex","session_id":"019f28ff-3c1a","state":"waiting_for_reply","slot":0,"scene":1,"accent":"cyan","selected":true,"leased":true,"label":"implementation"}}`},
		{0, "§7.7 preview ack", PreviewAck{PreviewID: "5d41402abc4b2a76", State: StateSuccess}, `{"protocol":1,"type":"preview_ack","preview_id":"5d41402abc4b2a76","state":"success"}`},
		{0, "§7.8 preview end ack", PreviewEndAck{PreviewID: "5d41402abc4b2a76"}, `{"protocol":1,"type":"preview_end_ack","preview_id":"5d41402abc4b2a76"}`},
		{0, "§7.9 error", ErrorMessage{Code: CodeUnknownMessageType, Text: "unknown message type: example"}, `{"protocol":1,"type":"error","code":"unknown_message_type","error":"unknown message type: example"}`},
		{54, "preview_not_owned", ErrPreviewNotOwned().Message(), `{"protocol":1,"type":"error","code":"preview_not_owned","error":"surface preview is not owned by this client"}`},
		{121, "preview_conflict other", ErrPreviewConflictOther().Message(), `{"protocol":1,"type":"error","code":"preview_conflict","error":"surface preview is already owned by another client"}`},
		{121, "preview_conflict different", ErrPreviewConflictDifferent().Message(), `{"protocol":1,"type":"error","code":"preview_conflict","error":"client already owns a different surface preview"}`},
		// Client → daemon builders.
		{30, "bare state builder", StateCommand{State: StateWaitingForReply}, `{"protocol":1,"type":"state","state":"waiting_for_reply"}`},
		{99, "report_state with metadata", StateCommand{State: StateRunning, Agent: Identity{"example", "session-1"}, Metadata: Metadata{{"label", "docs"}}},
			`{"protocol":1,"type":"state","state":"running","agent":{"backend":"example","session_id":"session-1","label":"docs"}}`},
		{0, "§6.1 state", StateCommand{State: StateRunning, Agent: Identity{"codex", "019f28ff-3c1a"}, Metadata: Metadata{{"cwd", "/home/user/pad-lattice"}, {"label", "implementation"}}, LeaseID: "9f3c0d2e", Reply: true},
			`{"protocol":1,"type":"state","state":"running","agent":{"backend":"codex","session_id":"019f28ff-3c1a","cwd":"/home/user/pad-lattice","label":"implementation"},"lease_id":"9f3c0d2e","reply":true}`},
		{0, "§6.2 session_end", SessionEndCommand{Agent: Identity{"codex", "019f28ff-3c1a"}}, `{"protocol":1,"type":"session_end","agent":{"backend":"codex","session_id":"019f28ff-3c1a"}}`},
		{0, "§6.3 status", StatusCommand{}, `{"protocol":1,"type":"status"}`},
		{1, "§6.4 ping", PingCommand{}, `{"protocol":1,"type":"ping"}`},
		{0, "§6.5 session_lease", SessionLeaseCommand{LeaseID: "9f3c0d2e", Agent: Identity{"codex", "019f28ff-3c1a"}, Metadata: Metadata{{"cwd", "/home/user/pad-lattice"}, {"label", "implementation"}}},
			`{"protocol":1,"type":"session_lease","lease_id":"9f3c0d2e","agent":{"backend":"codex","session_id":"019f28ff-3c1a"},"metadata":{"cwd":"/home/user/pad-lattice","label":"implementation"}}`},
		{0, "§6.6 subscribe_actions", SubscribeActionsCommand{Agent: Identity{"codex", "019f28ff-3c1a"}, Actions: []Action{ActionApprove, ActionReject}, RequestID: "c42a7e0b", OneShot: true},
			`{"protocol":1,"type":"subscribe_actions","agent":{"backend":"codex","session_id":"019f28ff-3c1a"},"actions":["approve","reject"],"request_id":"c42a7e0b","one_shot":true}`},
		{0, "§6.7 preview", PreviewCommand{PreviewID: "5d41402abc4b2a76", State: StateSuccess, TTL: 1.7}, `{"protocol":1,"type":"preview","preview_id":"5d41402abc4b2a76","state":"success","ttl":1.7}`},
		{0, "§6.8 preview_end", PreviewEndCommand{PreviewID: "5d41402abc4b2a76"}, `{"protocol":1,"type":"preview_end","preview_id":"5d41402abc4b2a76"}`},
	}
}

func TestLiteralEncodings(t *testing.T) {
	for _, c := range literalCases() {
		t.Run(c.name, func(t *testing.T) {
			if got := mustEncode(t, c.msg); got != c.want {
				t.Fatalf("case %d\n got %s\nwant %s", c.caseNo, got, c.want)
			}
		})
	}
}

func TestEncodeStringPythonCompatible(t *testing.T) {
	cases := map[string]string{
		"plain":              `"plain"`,
		`q"b\`:               `"q\"b\\"`,
		"/<>&'":              `"/<>&'"`,
		"\b\f\n\r\t":         `"\b\f\n\r\t"`,
		"\x00\x01\x1f\x7f":   `"\u0000\u0001\u001f\u007f"`,
		"é":                  `"\u00e9"`,
		"\u2028\uffff":       `"\u2028\uffff"`,
		"😀":                  `"\ud83d\ude00"`,
		"\U0010ffff":         `"\udbff\udfff"`,
		"bad\xffbyte":        `"bad\ufffdbyte"`,
		"日本":                 `"\u65e5\u672c"`,
		"\u00ff\u0100\u0abc": `"\u00ff\u0100\u0abc"`,
	}
	for in, want := range cases {
		if got := string(AppendString(nil, in)); got != want {
			t.Errorf("AppendString(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestPythonFloat(t *testing.T) {
	cases := map[float64]string{
		86400: "86400.0", 0: "0.0", 10.5: "10.5", 1e16: "1e+16", 1.5e-5: "1.5e-05", 1e-4: "0.0001",
		9999999999999998: "9999999999999998.0", 0.1: "0.1", 1.7: "1.7", 30: "30.0", 123456789.125: "123456789.125",
		1e22: "1e+22", 2.5e-7: "2.5e-07", math.Inf(1): "inf", math.Copysign(0, -1): "-0.0",
	}
	for in, want := range cases {
		if got := PythonFloat(in); got != want {
			t.Errorf("PythonFloat(%v) = %s, want %s", in, got, want)
		}
	}
}

// Case 22: an outbound message of more than 65537 bytes is refused with
// frame_too_large; exactly 65537 bytes (including "\n") is allowed.
func TestCase022_OutboundOverLimitRefused(t *testing.T) {
	base := mustEncode(t, ErrorMessage{Code: CodeInvalidMessage, Text: "x"})
	pad := MaxEncodedBytes - 1 - len(base) // bytes to add so the frame is exactly 65537
	exact := ErrorMessage{Code: CodeInvalidMessage, Text: "x" + strings.Repeat("y", pad)}
	line, err := exact.Encode()
	if err != nil || len(line) != MaxEncodedBytes {
		t.Fatalf("exact limit: len %d err %v", len(line), err)
	}
	over := ErrorMessage{Code: CodeInvalidMessage, Text: "x" + strings.Repeat("y", pad+1)}
	if line, err := over.Encode(); err == nil {
		t.Fatalf("over limit encoded %d bytes", len(line))
	} else if pe, ok := err.(*ProtocolError); !ok || pe.Code != CodeFrameTooLarge || pe.Text != TextFrameTooLarge {
		t.Fatalf("over limit: %v", err)
	}
	// Escaping counts: 11000 "é" are 66000 escaped bytes.
	if _, err := (ErrorMessage{Code: CodeInvalidMessage, Text: strings.Repeat("é", 11000)}).Encode(); err == nil {
		t.Fatal("escaped text over the limit was encoded")
	}
	// Client commands are refused too.
	if _, err := (StateCommand{State: StateRunning, Agent: Identity{"a", "b"}, Metadata: Metadata{{"k", strings.Repeat("v", MaxEncodedBytes)}}}).Encode(); err == nil {
		t.Fatal("oversized state command encoded")
	}
}

// Case 23 at the codec level: a status that would exceed the limit is
// replaced by the frame_too_large error line.
func TestCase023_OversizedStatusBecomesFrameTooLarge(t *testing.T) {
	s := emptyStatus()
	for i := 0; i < 2; i++ {
		s.Sessions = append(s.Sessions, StatusSession{Backend: "b", SessionID: string(rune('a' + i)), State: StateRunning, Slot: i, Accent: "cyan", Label: "x",
			Metadata: Metadata{{"blob", strings.Repeat("m", 40000)}}})
	}
	line, ok := EncodeReply(s)
	if ok {
		t.Fatalf("status of %d bytes was sent", len(line))
	}
	want := `{"protocol":1,"type":"error","code":"frame_too_large","error":"protocol message exceeds the size limit"}` + "\n"
	if string(line) != want {
		t.Fatalf("got %q", line)
	}
	line, ok = EncodeReply(Pong{})
	if !ok || string(line) != "{\"protocol\":1,\"type\":\"pong\"}\n" {
		t.Fatalf("pong after: %q %v", line, ok)
	}
}

// everyMessage returns one encoded sample of every message in both
// directions, keyed by our schema's $defs name, including edge values.
func everyMessage() []struct {
	def string
	msg Message
} {
	ov := ack("codex", "s", StateRunning, NoSlot, "", false, false, "")
	full := ack("codex", "019f28ff-3c1a", StateWaitingForApproval, 7, "sky", true, true, "Ünïcode 😀 label")
	st := threeSessionStatus()
	st.Surfaces = append([]SurfaceDescriptor{{Kind: SurfaceKindWeb, Profile: "virtual/browser", VisualProtocol: 1, Input: "Browser controls (8123)", Output: "Browser display (8123)"}}, st.Surfaces...)
	st.Experience = ExperienceDemo
	st.ActivityMotion, st.AudioFeedback, st.PreviewActive = true, true, true
	st.SessionTTL = 0
	st2 := emptyStatus()
	st2.Experience = ExperienceShow
	st2.SessionTTL = 10.5
	out := []struct {
		def string
		msg Message
	}{
		{"pong", Pong{}},
		{"stateAck", full},
		{"stateAck", ov},
		{"status", emptyStatus()},
		{"status", st},
		{"status", st2},
		{"actionEvent", ActionEvent{Action: ActionRetry, Agent: Identity{"b", "s"}}},
		{"actionEvent", ActionEvent{Action: ActionApprove, Agent: Identity{"b", "s"}, RequestID: "r"}},
		{"sessionLeaseAck", SessionLeaseAck{LeaseID: "L"}},
		{"sessionLeaseAck", SessionLeaseAck{LeaseID: "L", Session: &full}},
		{"sessionLeaseBound", SessionLeaseBound{LeaseID: "L", Session: ov}},
		{"previewAck", PreviewAck{PreviewID: "p", State: StateCancelled}},
		{"previewEndAck", PreviewEndAck{PreviewID: "p"}},
		{"stateCommand", StateCommand{State: StateWaitingForReply}},
		{"stateCommand", StateCommand{State: StateUserTyping, Metadata: Metadata{{"label", "x"}}}},
		{"stateCommand", StateCommand{State: StateRunning, Agent: Identity{"codex", "019f28ff-3c1a"}, Metadata: Metadata{{"cwd", "/x"}, {"label", "l"}}, LeaseID: "L", Reply: true}},
		{"sessionEndCommand", SessionEndCommand{Agent: Identity{"a", "b"}}},
		{"statusCommand", StatusCommand{}},
		{"pingCommand", PingCommand{}},
		{"sessionLeaseCommand", SessionLeaseCommand{LeaseID: "L"}},
		{"sessionLeaseCommand", SessionLeaseCommand{LeaseID: "L", Agent: Identity{"a", "b"}, Metadata: Metadata{{"cwd", "/x"}}}},
		{"subscribeActionsCommand", SubscribeActionsCommand{Actions: Actions()}},
		{"subscribeActionsCommand", SubscribeActionsCommand{Agent: Identity{"a", "b"}, Actions: []Action{ActionApprove, ActionReject}, RequestID: "r", OneShot: true}},
		{"previewCommand", PreviewCommand{PreviewID: "p", State: StateSuccess, TTL: 30}},
		{"previewCommand", PreviewCommand{PreviewID: "p", State: StateError, TTL: 0.001}},
		{"previewEndCommand", PreviewEndCommand{PreviewID: "p"}},
	}
	for _, code := range []string{CodeFrameTooLarge, CodeInvalidMessage, CodeUnsupportedProtocol, CodeUnknownMessageType, CodePreviewConflict, CodePreviewNotOwned} {
		out = append(out, struct {
			def string
			msg Message
		}{"error", ErrorMessage{Code: code, Text: "some text"}})
	}
	return out
}

// Case 55: every builder output and every daemon message validates against
// the reference schema and against our own schema (whole and per message).
func TestCase055_EveryMessageValidatesAgainstBothSchemas(t *testing.T) {
	ours, err := schemas.Compile("wire-protocol-1.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	ref := conformance.Schema(t, "socket-protocol-v1.json")
	seen := map[string]bool{}
	for _, m := range everyMessage() {
		line := []byte(mustEncode(t, m.msg))
		seen[m.msg.Type()+"/"+m.def] = true
		if err := schemas.ValidateJSON(ours, line); err != nil {
			t.Errorf("our schema rejects %s: %v", line, err)
		}
		def, err := schemas.Compile("wire-protocol-1.schema.json#/$defs/" + m.def)
		if err != nil {
			t.Fatal(err)
		}
		if err := schemas.ValidateJSON(def, line); err != nil {
			t.Errorf("our $defs/%s rejects %s: %v", m.def, line, err)
		}
		if err := schemas.ValidateJSON(ref, line); err != nil {
			t.Errorf("reference schema rejects %s: %v", line, err)
		}
	}
	if len(seen) != 17 {
		t.Errorf("covered %d message kinds, want 17: %v", len(seen), seen)
	}
}

// Our schema rejects what the daemon never sends and what it refuses.
func TestOwnSchemaRejectsBadMessages(t *testing.T) {
	ours, err := schemas.Compile("wire-protocol-1.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	bad := []string{
		`{"protocol":true,"type":"ping"}`,
		`{"protocol":"1","type":"ping"}`,
		`{"protocol":1,"type":"ping","x":1}`,
		`{"protocol":1,"type":"state","state":"thinking"}`,
		`{"protocol":1,"type":"state","state":"running","agent":{"backend":"a","session_id":"b","label":""}}`,
		`{"protocol":1,"type":"state","state":"running","reply":1}`,
		`{"protocol":1,"type":"session_lease"}`,
		`{"protocol":1,"type":"subscribe_actions","actions":[]}`,
		`{"protocol":1,"type":"preview","preview_id":"p","state":"success","ttl":0}`,
		`{"protocol":1,"type":"preview","preview_id":"p","state":"success","ttl":30.5}`,
		`{"protocol":1,"type":"action","action":"stop","agent":{"backend":"a","session_id":"b"},"request_id":null}`,
		`{"protocol":1,"type":"action","action":"stop","agent":{"backend":"a","session_id":"b","x":"y"}}`,
		`{"protocol":1,"type":"state_ack","backend":"a","session_id":"b","state":"running","slot":null,"scene":1,"accent":null,"selected":false,"leased":false,"label":"b"}`,
		`{"protocol":1,"type":"error","code":"daemon_error","error":"x"}`,
	}
	for _, in := range bad {
		if err := schemas.ValidateJSON(ours, []byte(in)); err == nil {
			t.Errorf("our schema accepts %s", in)
		}
	}
}

// Every line the decoder accepts in the checklist table validates against
// our schema (the schema describes what the daemon accepts).
func TestAcceptedLinesValidateAgainstOwnSchema(t *testing.T) {
	ours, err := schemas.Compile("wire-protocol-1.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range checklistDecodeCases() {
		if tc.code != "" {
			continue
		}
		if err := schemas.ValidateJSON(ours, []byte(tc.in)); err != nil {
			t.Errorf("case %d %s: accepted line fails our schema: %v", tc.caseNo, tc.name, err)
		}
	}
}

// Round trip: every command re-decodes to itself; every reply decodes back.
func TestRoundTrip(t *testing.T) {
	for _, m := range everyMessage() {
		line := []byte(mustEncode(t, m.msg))
		switch want := m.msg.(type) {
		case Command:
			got, err := DecodeLine(line)
			if err != nil {
				t.Errorf("decode %s: %v", line, err)
				continue
			}
			if !reflect.DeepEqual(got, normalizeCommand(want)) {
				t.Errorf("round trip %s\n got %#v\nwant %#v", line, got, normalizeCommand(want))
			}
		case Reply:
			got, err := DecodeReply(line)
			if err != nil {
				t.Errorf("decode reply %s: %v", line, err)
				continue
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("reply round trip %s\n got %#v\nwant %#v", line, got, want)
			}
		}
	}
}

// normalizeCommand applies the decoder's defaults to a command built by hand.
func normalizeCommand(c Command) Command {
	switch v := c.(type) {
	case StateCommand:
		if v.Agent.IsZero() {
			v.Agent = DefaultIdentity()
		}
		return v
	case SubscribeActionsCommand:
		if v.Agent.IsZero() {
			v.Agent = DefaultIdentity()
		}
		return v
	}
	return c
}

func TestEncodeRefusesInvalidCommands(t *testing.T) {
	bad := []Command{
		StateCommand{State: "thinking"},
		StateCommand{State: StateRunning, Agent: Identity{Backend: "a"}},
		StateCommand{State: StateRunning, Metadata: Metadata{{"backend", "x"}}},
		StateCommand{State: StateRunning, Metadata: Metadata{{"k", ""}}},
		SessionEndCommand{},
		SessionLeaseCommand{},
		SessionLeaseCommand{LeaseID: "L", Metadata: Metadata{{"", "v"}}},
		SubscribeActionsCommand{},
		SubscribeActionsCommand{Actions: []Action{"merge"}},
		PreviewCommand{State: StateRunning, TTL: 1},
		PreviewCommand{PreviewID: "p", State: StateRunning, TTL: 31},
		PreviewCommand{PreviewID: "p", State: StateRunning, TTL: math.NaN()},
		PreviewEndCommand{},
	}
	for _, c := range bad {
		if line, err := c.Encode(); err == nil {
			t.Errorf("%#v encoded as %s", c, line)
		}
	}
}
