package wire

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// decodeCase is one codec-level checklist row: an input line (without its
// newline) and either the expected error or the expected command.
type decodeCase struct {
	caseNo int
	name   string
	in     string
	code   string  // expected error code; "" = success
	text   string  // expected error text (exact) when code != ""
	want   Command // expected command when code == "" (nil = don't care)
}

// checklistDecodeCases covers spec §15 cases 1–55 at the codec level.
func checklistDecodeCases() []decodeCase {
	longPing := `{"protocol":1,"type":"ping"}` + strings.Repeat(" ", MaxFrameBytes-len(`{"protocol":1,"type":"ping"}`))
	def := DefaultIdentity()
	return []decodeCase{
		{caseNo: 1, in: `{"protocol":1,"type":"ping"}`, want: PingCommand{}},
		{caseNo: 2, name: "1.0", in: `{"protocol":1.0,"type":"ping"}`, want: PingCommand{}},
		{caseNo: 2, name: "1e0", in: `{"protocol":1e0,"type":"ping"}`, want: PingCommand{}},
		{caseNo: 2, name: "10e-1", in: `{"protocol":10e-1,"type":"ping"}`, want: PingCommand{}},
		{caseNo: 3, in: `{"type":"status"}`, code: CodeUnsupportedProtocol, text: "unsupported wire protocol None; expected 1"},
		{caseNo: 4, in: `{"protocol":2,"type":"status"}`, code: CodeUnsupportedProtocol, text: "unsupported wire protocol 2; expected 1"},
		{caseNo: 4, name: "2.5", in: `{"protocol":2.5,"type":"status"}`, code: CodeUnsupportedProtocol, text: "unsupported wire protocol 2.5; expected 1"},
		{caseNo: 4, name: "list", in: `{"protocol":[1],"type":"status"}`, code: CodeUnsupportedProtocol, text: "unsupported wire protocol [1]; expected 1"},
		{caseNo: 4, name: "object", in: `{"protocol":{"v":1},"type":"status"}`, code: CodeUnsupportedProtocol, text: "unsupported wire protocol {'v': 1}; expected 1"},
		{caseNo: 4, name: "huge float", in: `{"protocol":1e400,"type":"status"}`, code: CodeUnsupportedProtocol, text: "unsupported wire protocol inf; expected 1"},
		{caseNo: 4, name: "float repr", in: `{"protocol":1e16,"type":"status"}`, code: CodeUnsupportedProtocol, text: "unsupported wire protocol 1e+16; expected 1"},
		{caseNo: 4, name: "zero", in: `{"protocol":-0,"type":"status"}`, code: CodeUnsupportedProtocol, text: "unsupported wire protocol 0; expected 1"},
		{caseNo: 5, in: `{"protocol":true,"type":"status"}`, code: CodeUnsupportedProtocol, text: "unsupported wire protocol True; expected 1"},
		{caseNo: 5, name: "false", in: `{"protocol":false,"type":"status"}`, code: CodeUnsupportedProtocol, text: "unsupported wire protocol False; expected 1"},
		{caseNo: 6, in: `{"protocol":"1","type":"ping"}`, code: CodeUnsupportedProtocol, text: "unsupported wire protocol '1'; expected 1"},
		{caseNo: 6, name: "null", in: `{"protocol":null,"type":"ping"}`, code: CodeUnsupportedProtocol, text: "unsupported wire protocol None; expected 1"},
		{caseNo: 6, name: "quote", in: `{"protocol":"it's","type":"ping"}`, code: CodeUnsupportedProtocol, text: `unsupported wire protocol "it's"; expected 1`},
		{caseNo: 7, in: `[1,2]`, code: CodeInvalidMessage, text: TextNotObject},
		{caseNo: 7, name: "string", in: `"x"`, code: CodeInvalidMessage, text: TextNotObject},
		{caseNo: 8, in: `not json`, code: CodeInvalidMessage, text: TextInvalidJSON},
		{caseNo: 8, name: "NaN", in: `{"protocol":NaN,"type":"ping"}`, code: CodeInvalidMessage, text: TextInvalidJSON},
		{caseNo: 9, in: "\xff\xfe", code: CodeInvalidMessage, text: TextInvalidJSON},
		{caseNo: 9, name: "invalid utf8 in string", in: "{\"protocol\":1,\"type\":\"ping\",\"x\":\"\xc3\x28\"}", code: CodeInvalidMessage, text: TextInvalidJSON},
		{caseNo: 9, name: "utf8 surrogate", in: "{\"protocol\":1,\"type\":\"\xed\xa0\x80\"}", code: CodeInvalidMessage, text: TextInvalidJSON},
		{caseNo: 10, in: "\xef\xbb\xbf" + `{"protocol":1,"type":"ping"}`, code: CodeInvalidMessage, text: TextInvalidJSON},
		{caseNo: 11, in: `{"protocol":1,"type":"ping"} {"x":1}`, code: CodeInvalidMessage, text: TextInvalidJSON},
		{caseNo: 13, in: "{\"protocol\":1,\"type\":\"ping\"}\r", want: PingCommand{}},
		{caseNo: 13, name: "json whitespace around", in: " \t{\"protocol\":1,\"type\":\"ping\"}\r \t", want: PingCommand{}},
		{caseNo: 13, name: "vertical tab is not JSON whitespace", in: "\v{\"protocol\":1,\"type\":\"ping\"}", code: CodeInvalidMessage, text: TextInvalidJSON},
		{caseNo: 14, name: "bad type between pings", in: `{"protocol":1,"type":"nope"}`, code: CodeUnknownMessageType, text: "unknown message type: nope"},
		{caseNo: 18, in: longPing, want: PingCommand{}},
		{caseNo: 19, in: longPing + " ", code: CodeFrameTooLarge, text: TextFrameTooLarge},
		{caseNo: 20, in: strings.Repeat("x", 70000), code: CodeFrameTooLarge, text: TextFrameTooLarge},
		{caseNo: 21, in: strings.Repeat("x", MaxFrameBytes), code: CodeInvalidMessage, text: TextInvalidJSON},
		{caseNo: 24, in: `{"protocol":1}`, code: CodeUnknownMessageType, text: "unknown message type: None"},
		{caseNo: 24, name: "null", in: `{"protocol":1,"type":null}`, code: CodeUnknownMessageType, text: "unknown message type: None"},
		{caseNo: 24, name: "list", in: `{"protocol":1,"type":["a"]}`, code: CodeUnknownMessageType, text: "unknown message type: ['a']"},
		{caseNo: 24, name: "bool", in: `{"protocol":1,"type":true}`, code: CodeUnknownMessageType, text: "unknown message type: True"},
		{caseNo: 24, name: "case-sensitive", in: `{"protocol":1,"type":"PING"}`, code: CodeUnknownMessageType, text: "unknown message type: PING"},
		{caseNo: 24, name: "unknown type skips field check", in: `{"protocol":1,"type":"nope","zzz":1}`, code: CodeUnknownMessageType, text: "unknown message type: nope"},
		{caseNo: 25, in: `{"protocol":1,"type":"nope"}`, code: CodeUnknownMessageType, text: "unknown message type: nope"},
		{caseNo: 26, in: `{"protocol":1,"type":"status","future":true}`, code: CodeInvalidMessage, text: "unknown field: future"},
		{caseNo: 26, name: "case-insensitive names are unknown", in: `{"protocol":1,"type":"ping","Type":"ping"}`, code: CodeInvalidMessage, text: "unknown field: Type"},
		{caseNo: 26, name: "PROTOCOL is not protocol", in: `{"PROTOCOL":1,"type":"ping"}`, code: CodeUnsupportedProtocol, text: "unsupported wire protocol None; expected 1"},
		{caseNo: 27, in: `{"protocol":1,"type":"ping","b":1,"a":2}`, code: CodeInvalidMessage, text: "unknown field: a"},
		{caseNo: 27, name: "code point order", in: `{"protocol":1,"type":"ping","é":1,"z":2,"Z":3}`, code: CodeInvalidMessage, text: "unknown field: Z"},
		{caseNo: 28, in: `{"protocol":2,"type":"ping","protocol":1}`, want: PingCommand{}},
		{caseNo: 28, name: "last wins the other way", in: `{"protocol":1,"type":"ping","protocol":2}`, code: CodeUnsupportedProtocol, text: "unsupported wire protocol 2; expected 1"},
		{caseNo: 29, in: `{"protocol":1,"type":"state","state":"bad","x":1}`, code: CodeInvalidMessage, text: "unknown field: x"},
		{caseNo: 29, name: "subscribe", in: `{"protocol":1,"type":"subscribe_actions","actions":[],"bogus":1,"alpha":2}`, code: CodeInvalidMessage, text: "unknown field: alpha"},

		{caseNo: 30, in: `{"protocol":1,"type":"state","state":"waiting_for_reply"}`, want: StateCommand{State: StateWaitingForReply, Agent: def}},
		{caseNo: 31, in: `{"protocol":1,"type":"state","state":"running","reply":true}`, want: StateCommand{State: StateRunning, Agent: def, Reply: true}},
		{caseNo: 32, in: `{"protocol":1,"type":"state","state":"running","agent":null,"reply":true}`, want: StateCommand{State: StateRunning, Agent: def, Reply: true}},
		{caseNo: 33, in: `{"protocol":1,"type":"state","state":"running","reply":false}`, want: StateCommand{State: StateRunning, Agent: def}},
		{caseNo: 33, name: "null", in: `{"protocol":1,"type":"state","state":"running","reply":null}`, want: StateCommand{State: StateRunning, Agent: def}},
		{caseNo: 34, in: `{"protocol":1,"type":"state","state":"thinking"}`, code: CodeInvalidMessage, text: "unknown state: thinking"},
		{caseNo: 34, name: "missing", in: `{"protocol":1,"type":"state"}`, code: CodeInvalidMessage, text: "unknown state: None"},
		{caseNo: 34, name: "number", in: `{"protocol":1,"type":"state","state":5}`, code: CodeInvalidMessage, text: "unknown state: 5"},
		{caseNo: 34, name: "list", in: `{"protocol":1,"type":"state","state":["running"]}`, code: CodeInvalidMessage, text: "unknown state: ['running']"},
		{caseNo: 34, name: "case", in: `{"protocol":1,"type":"state","state":"Running"}`, code: CodeInvalidMessage, text: "unknown state: Running"},
		{caseNo: 35, in: `{"protocol":1,"type":"state","state":"running","agent":"x"}`, code: CodeInvalidMessage, text: TextAgentNotObject},
		{caseNo: 35, name: "empty", in: `{"protocol":1,"type":"state","state":"running","agent":{}}`, code: CodeInvalidMessage, text: TextAgentBackend},
		{caseNo: 35, name: "no session", in: `{"protocol":1,"type":"state","state":"running","agent":{"backend":"a"}}`, code: CodeInvalidMessage, text: TextAgentSessionID},
		{caseNo: 35, name: "numeric session", in: `{"protocol":1,"type":"state","state":"running","agent":{"backend":"a","session_id":5}}`, code: CodeInvalidMessage, text: TextAgentSessionID},
		{caseNo: 35, name: "empty backend", in: `{"protocol":1,"type":"state","state":"running","agent":{"backend":"","session_id":"s"}}`, code: CodeInvalidMessage, text: TextAgentBackend},
		{caseNo: 36, in: `{"protocol":1,"type":"state","state":"running","agent":{"backend":"a","session_id":"s","label":""}}`, code: CodeInvalidMessage, text: TextAgentMetadataValues},
		{caseNo: 36, name: "empty key", in: `{"protocol":1,"type":"state","state":"running","agent":{"backend":"a","session_id":"s","":"x"}}`, code: CodeInvalidMessage, text: TextAgentMetadataKeys},
		{caseNo: 36, name: "number value", in: `{"protocol":1,"type":"state","state":"running","agent":{"backend":"a","session_id":"s","n":5}}`, code: CodeInvalidMessage, text: TextAgentMetadataValues},
		{caseNo: 37, in: `{"protocol":1,"type":"state","state":"running","agent":{"backend":"a","session_id":"s","k":"","":"v"}}`, code: CodeInvalidMessage, text: TextAgentMetadataValues},
		{caseNo: 37, name: "opposite order", in: `{"protocol":1,"type":"state","state":"running","agent":{"backend":"a","session_id":"s","":"v","k":""}}`, code: CodeInvalidMessage, text: TextAgentMetadataKeys},
		{caseNo: 37, name: "duplicate key keeps first position, last value", in: `{"protocol":1,"type":"state","state":"running","agent":{"backend":"a","session_id":"s","k":"","":"v","k":"ok"}}`, code: CodeInvalidMessage, text: TextAgentMetadataKeys},
		{caseNo: 38, in: `{"protocol":1,"type":"state","state":"nope","agent":{"backend":"a"}}`, code: CodeInvalidMessage, text: TextAgentSessionID},
		{caseNo: 39, in: `{"protocol":1,"type":"state","state":"running","lease_id":""}`, code: CodeInvalidMessage, text: TextLeaseID},
		{caseNo: 39, name: "number", in: `{"protocol":1,"type":"state","state":"running","lease_id":7,"reply":1}`, code: CodeInvalidMessage, text: TextLeaseID},
		{caseNo: 40, in: `{"protocol":1,"type":"state","state":"running","reply":1}`, code: CodeInvalidMessage, text: TextReply},
		{caseNo: 40, name: "yes", in: `{"protocol":1,"type":"state","state":"running","reply":"yes"}`, code: CodeInvalidMessage, text: TextReply},
		{caseNo: 41, in: `{"protocol":1,"type":"state","state":"running","agent":{"backend":"codex","session_id":"session-123","cwd":"/work/x"},"lease_id":"lease-123","reply":true}`,
			want: StateCommand{State: StateRunning, Agent: Identity{"codex", "session-123"}, Metadata: Metadata{{"cwd", "/work/x"}}, LeaseID: "lease-123", Reply: true}},
		{caseNo: 41, name: "metadata order and duplicates", in: `{"protocol":1,"type":"state","state":"running","agent":{"z":"1","backend":"b","a":"2","session_id":"s","z":"3"}}`,
			want: StateCommand{State: StateRunning, Agent: Identity{"b", "s"}, Metadata: Metadata{{"z", "3"}, {"a", "2"}}}},
		{caseNo: 42, in: `{"protocol":1,"type":"session_end"}`, code: CodeInvalidMessage, text: TextAgentNotObject},
		{caseNo: 42, name: "null", in: `{"protocol":1,"type":"session_end","agent":null}`, code: CodeInvalidMessage, text: TextAgentNotObject},
		{caseNo: 43, in: `{"protocol":1,"type":"session_end","agent":{"backend":"a","session_id":"s","n":5,"x":[{}]}}`, want: SessionEndCommand{Agent: Identity{"a", "s"}}},
		{caseNo: 44, in: `{"protocol":1,"type":"session_lease","lease_id":""}`, code: CodeInvalidMessage, text: TextLeaseID},
		{caseNo: 44, name: "missing (reference crashes)", in: `{"protocol":1,"type":"session_lease"}`, code: CodeInvalidMessage, text: TextLeaseID},
		{caseNo: 44, name: "null", in: `{"protocol":1,"type":"session_lease","lease_id":null}`, code: CodeInvalidMessage, text: TextLeaseID},
		{caseNo: 45, in: `{"protocol":1,"type":"session_lease","lease_id":"L","metadata":[]}`, code: CodeInvalidMessage, text: TextMetadataNotObject},
		{caseNo: 45, name: "empty value", in: `{"protocol":1,"type":"session_lease","lease_id":"L","metadata":{"a":""}}`, code: CodeInvalidMessage, text: TextMetadataValues},
		{caseNo: 45, name: "number value", in: `{"protocol":1,"type":"session_lease","lease_id":"L","metadata":{"a":1}}`, code: CodeInvalidMessage, text: TextMetadataValues},
		{caseNo: 45, name: "empty key", in: `{"protocol":1,"type":"session_lease","lease_id":"L","metadata":{"":"x"}}`, code: CodeInvalidMessage, text: TextMetadataKeys},
		{caseNo: 45, name: "agent", in: `{"protocol":1,"type":"session_lease","lease_id":"L","agent":"x"}`, code: CodeInvalidMessage, text: TextAgentNotObject},
		{caseNo: 45, name: "agent before metadata", in: `{"protocol":1,"type":"session_lease","lease_id":"L","metadata":[],"agent":{}}`, code: CodeInvalidMessage, text: TextAgentBackend},
		{caseNo: 46, in: `{"protocol":1,"type":"session_lease","lease_id":"L","agent":null,"metadata":null}`, want: SessionLeaseCommand{LeaseID: "L"}},
		{caseNo: 46, name: "full", in: `{"protocol":1,"type":"session_lease","lease_id":"9f3c0d2e","agent":{"backend":"codex","session_id":"019f28ff-3c1a","x":1},"metadata":{"cwd":"/home/user/pad-lattice","label":"implementation"}}`,
			want: SessionLeaseCommand{LeaseID: "9f3c0d2e", Agent: Identity{"codex", "019f28ff-3c1a"}, Metadata: Metadata{{"cwd", "/home/user/pad-lattice"}, {"label", "implementation"}}}},
		{caseNo: 47, in: `{"protocol":1,"type":"subscribe_actions","actions":[]}`, code: CodeInvalidMessage, text: TextActionsArray},
		{caseNo: 47, name: "missing", in: `{"protocol":1,"type":"subscribe_actions"}`, code: CodeInvalidMessage, text: TextActionsArray},
		{caseNo: 47, name: "string", in: `{"protocol":1,"type":"subscribe_actions","actions":"approve"}`, code: CodeInvalidMessage, text: TextActionsArray},
		{caseNo: 47, name: "unknown", in: `{"protocol":1,"type":"subscribe_actions","actions":["merge"]}`, code: CodeInvalidMessage, text: TextActionsUnknown},
		{caseNo: 47, name: "non-string", in: `{"protocol":1,"type":"subscribe_actions","actions":["stop",true]}`, code: CodeInvalidMessage, text: TextActionsUnknown},
		{caseNo: 48, in: `{"protocol":1,"type":"subscribe_actions","actions":["stop"],"request_id":""}`, code: CodeInvalidMessage, text: TextRequestID},
		{caseNo: 48, name: "one_shot", in: `{"protocol":1,"type":"subscribe_actions","actions":["stop"],"one_shot":"y"}`, code: CodeInvalidMessage, text: TextOneShot},
		{caseNo: 49, in: `{"protocol":1,"type":"subscribe_actions","actions":["stop"]}`, want: SubscribeActionsCommand{Agent: def, Actions: []Action{ActionStop}}},
		{caseNo: 49, name: "null agent", in: `{"protocol":1,"type":"subscribe_actions","agent":null,"actions":["approve","reject"],"request_id":"c42a7e0b","one_shot":true}`,
			want: SubscribeActionsCommand{Agent: def, Actions: []Action{ActionApprove, ActionReject}, RequestID: "c42a7e0b", OneShot: true}},
		{caseNo: 50, in: `{"protocol":1,"type":"subscribe_actions","actions":["stop","stop"]}`, want: SubscribeActionsCommand{Agent: def, Actions: []Action{ActionStop, ActionStop}}},
		{caseNo: 51, in: `{"protocol":1,"type":"preview","preview_id":"p","state":"success","ttl":2.5}`, want: PreviewCommand{PreviewID: "p", State: StateSuccess, TTL: 2.5}},
		{caseNo: 51, name: "31", in: `{"protocol":1,"type":"preview","preview_id":"p","state":"success","ttl":31}`, code: CodeInvalidMessage, text: TextTTL},
		{caseNo: 52, name: "0", in: `{"protocol":1,"type":"preview","preview_id":"p","state":"success","ttl":0}`, code: CodeInvalidMessage, text: TextTTL},
		{caseNo: 52, name: "-1", in: `{"protocol":1,"type":"preview","preview_id":"p","state":"success","ttl":-1}`, code: CodeInvalidMessage, text: TextTTL},
		{caseNo: 52, name: "30.0001", in: `{"protocol":1,"type":"preview","preview_id":"p","state":"success","ttl":30.0001}`, code: CodeInvalidMessage, text: TextTTL},
		{caseNo: 52, name: "true", in: `{"protocol":1,"type":"preview","preview_id":"p","state":"success","ttl":true}`, code: CodeInvalidMessage, text: TextTTL},
		{caseNo: 52, name: "string", in: `{"protocol":1,"type":"preview","preview_id":"p","state":"success","ttl":"5"}`, code: CodeInvalidMessage, text: TextTTL},
		{caseNo: 52, name: "missing", in: `{"protocol":1,"type":"preview","preview_id":"p","state":"success"}`, code: CodeInvalidMessage, text: TextTTL},
		{caseNo: 52, name: "huge integer (reference crashes)", in: `{"protocol":1,"type":"preview","preview_id":"p","state":"success","ttl":1` + strings.Repeat("0", 400) + `}`, code: CodeInvalidMessage, text: TextTTL},
		{caseNo: 52, name: "30", in: `{"protocol":1,"type":"preview","preview_id":"p","state":"success","ttl":30}`, want: PreviewCommand{PreviewID: "p", State: StateSuccess, TTL: 30}},
		{caseNo: 52, name: "2.5e1", in: `{"protocol":1,"type":"preview","preview_id":"p","state":"success","ttl":2.5e1}`, want: PreviewCommand{PreviewID: "p", State: StateSuccess, TTL: 25}},
		{caseNo: 53, in: `{"protocol":1,"type":"preview","preview_id":"","state":"success","ttl":1}`, code: CodeInvalidMessage, text: TextPreviewID},
		{caseNo: 53, name: "missing id (reference crashes)", in: `{"protocol":1,"type":"preview","state":"nope","ttl":1}`, code: CodeInvalidMessage, text: TextPreviewID},
		{caseNo: 53, name: "state", in: `{"protocol":1,"type":"preview","preview_id":"p","state":"nope","ttl":99}`, code: CodeInvalidMessage, text: "unknown state: nope"},
		{caseNo: 54, name: "preview_end decodes", in: `{"protocol":1,"type":"preview_end","preview_id":"5d41402abc4b2a76"}`, want: PreviewEndCommand{PreviewID: "5d41402abc4b2a76"}},
		{caseNo: 54, name: "preview_end missing id (reference crashes)", in: `{"protocol":1,"type":"preview_end"}`, code: CodeInvalidMessage, text: TextPreviewID},
		{caseNo: 0, name: "deep nesting (reference crashes)", in: `{"protocol":1,"type":"ping","x":` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + `}`, code: CodeInvalidMessage, text: TextInvalidJSON},
		{caseNo: 0, name: "4301-digit integer (reference crashes)", in: `{"protocol":1` + strings.Repeat("0", 0) + `,"type":"ping","x":` + "1" + strings.Repeat("0", 4300) + `}`, code: CodeInvalidMessage, text: TextInvalidJSON},
		{caseNo: 0, name: "4300-digit integer is fine", in: `{"protocol":1,"type":"ping","x":` + "1" + strings.Repeat("0", 4299) + `}`, code: CodeInvalidMessage, text: "unknown field: x"},
		{caseNo: 0, name: "status", in: `{"protocol":1,"type":"status"}`, want: StatusCommand{}},
		{caseNo: 0, name: "escaped names match", in: `{"protocol":1,"\u0074ype":"p\u0069ng"}`, want: PingCommand{}},
		{caseNo: 0, name: "non-ascii str()", in: `{"protocol":1,"type":"h\u00e9\ud83d\ude00"}`, code: CodeUnknownMessageType, text: "unknown message type: hé😀"},
	}
}

func TestChecklistDecodeCases(t *testing.T) {
	for _, tc := range checklistDecodeCases() {
		name := fmt.Sprintf("case%03d", tc.caseNo)
		if tc.name != "" {
			name += "/" + tc.name
		}
		t.Run(name, func(t *testing.T) {
			cmd, err := DecodeLine([]byte(tc.in))
			if tc.code != "" {
				if err == nil {
					t.Fatalf("decoded %#v, want error %s / %q", cmd, tc.code, tc.text)
				}
				if err.Code != tc.code || err.Text != tc.text {
					t.Fatalf("error = %s / %q, want %s / %q", err.Code, err.Text, tc.code, tc.text)
				}
				if cmd != nil {
					t.Fatalf("command %#v returned with an error", cmd)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error %s / %q", err.Code, err.Text)
			}
			if tc.want != nil && !reflect.DeepEqual(cmd, tc.want) {
				t.Fatalf("decoded\n %#v\nwant\n %#v", cmd, tc.want)
			}
		})
	}
}

func TestCase012_BlankLinesAreSkipped(t *testing.T) {
	for _, in := range []string{"", " ", "\r", " \t\r\v\f", "\n"} {
		if !IsBlankLine([]byte(in)) {
			t.Errorf("IsBlankLine(%q) = false", in)
		}
	}
	for _, in := range []string{"x", " {}", "\x00", "\u00a0"} {
		if IsBlankLine([]byte(in)) {
			t.Errorf("IsBlankLine(%q) = true", in)
		}
	}
}

// Case 14 at the codec level: each line is decoded independently, in order.
func TestCase014_PipelinedLinesDecodeIndependently(t *testing.T) {
	lines := bytes.Split([]byte("{\"protocol\":1,\"type\":\"ping\"}\n{\"protocol\":1,\"type\":\"nope\"}\n{\"protocol\":1,\"type\":\"ping\"}"), []byte("\n"))
	var got []string
	for _, l := range lines {
		cmd, err := DecodeLine(l)
		if err != nil {
			got = append(got, err.Code)
		} else {
			got = append(got, cmd.Type())
		}
	}
	want := []string{"ping", CodeUnknownMessageType, "ping"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// Case 17 and 20 at the codec level: the frame_too_large error line.
func TestCase017_FrameTooLargeErrorLine(t *testing.T) {
	line, err := ErrFrameTooLarge().Message().Encode()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"protocol":1,"type":"error","code":"frame_too_large","error":"protocol message exceeds the size limit"}` + "\n"
	if string(line) != want {
		t.Fatalf("got %q, want %q", line, want)
	}
	if _, perr := DecodeLine(bytes.Repeat([]byte("x"), MaxFrameBytes+1)); perr == nil || perr.Code != CodeFrameTooLarge {
		t.Fatalf("65537 bytes: got %v", perr)
	}
}

func TestDecodeLineExactBoundary(t *testing.T) {
	base := `{"protocol":1,"type":"ping"}`
	ok := base + strings.Repeat(" ", MaxFrameBytes-len(base))
	if _, err := DecodeLine([]byte(ok)); err != nil {
		t.Fatalf("65536 bytes: %v", err)
	}
	if _, err := DecodeLine([]byte(ok + " ")); err == nil || err.Code != CodeFrameTooLarge {
		t.Fatalf("65537 bytes: %v", err)
	}
}

func TestPythonReprRendering(t *testing.T) {
	cases := []struct{ in, repr, str string }{
		{`null`, "None", "None"},
		{`true`, "True", "True"},
		{`"1"`, "'1'", "1"},
		{`"it's"`, `"it's"`, "it's"},
		{`"a'b\"c"`, `'a\'b"c'`, `a'b"c`},
		{`"back\\slash"`, `'back\\slash'`, `back\slash`},
		{`"tab\tnl\ncr\r\u0001\u007f"`, `'tab\tnl\ncr\r\x01\x7f'`, "tab\tnl\ncr\r\x01\x7f"},
		{`"\u00e9\u00a0\u200b\ud83d\ude00\ue000"`, `'é\xa0\u200b😀\ue000'`, "é\u00a0\u200b😀\ue000"},
		{`2`, "2", "2"},
		{`-0`, "0", "0"},
		{`1.50`, "1.5", "1.5"},
		{`1E2`, "100.0", "100.0"},
		{`0.00001`, "1e-05", "1e-05"},
		{`-0.0`, "-0.0", "-0.0"},
		{`123456789012345678901234567890`, "123456789012345678901234567890", "123456789012345678901234567890"},
		{`[1,"a",null,[true]]`, "[1, 'a', None, [True]]", "[1, 'a', None, [True]]"},
		{`{"b":1,"a":[],"b":2}`, "{'b': 2, 'a': []}", "{'b': 2, 'a': []}"},
		{`[]`, "[]", "[]"},
		{`{}`, "{}", "{}"},
	}
	for _, c := range cases {
		v, ok := parseJSON([]byte(c.in))
		if !ok {
			t.Fatalf("parse %s failed", c.in)
		}
		if got := pyReprString(&v); got != c.repr {
			t.Errorf("repr(%s) = %s, want %s", c.in, got, c.repr)
		}
		if got := pyStr(&v); got != c.str {
			t.Errorf("str(%s) = %s, want %s", c.in, got, c.str)
		}
	}
}

func TestParserRejects(t *testing.T) {
	bad := []string{
		``, ` `, `{`, `}`, `{"a"}`, `{"a":}`, `{"a":1,}`, `[1,]`, `[,1]`, `01`, `-`, `1.`, `.5`, `1e`, `1e+`,
		`+1`, `"abc`, `"\x"`, `"\u12"`, `"\u12g4"`, "\"a\tb\"", `tru`, `nul`, `Infinity`, `-Infinity`, `NaN`,
		`{"a":1}}`, `{"a":1} x`, `{'a':1}`, `[1 2]`, `{"a" 1}`, `{1:2}`,
	}
	for _, in := range bad {
		if v, ok := parseJSON([]byte(in)); ok {
			t.Errorf("parseJSON(%q) accepted: %#v", in, v)
		}
	}
	good := []string{`0`, `-0`, `-1.5e+3`, `1E-2`, `"\/\b\f\n\r\t\"\\"`, `"\ud800"`, `"\udc00x"`, `"\ud800\u0041"`, `[[],{}]`, ` {"a" : [ 1 , 2 ] } `}
	for _, in := range good {
		if _, ok := parseJSON([]byte(in)); !ok {
			t.Errorf("parseJSON(%q) rejected", in)
		}
	}
}

func TestParserStringDecoding(t *testing.T) {
	cases := map[string]string{
		`"\ud83d\ude00"`:       "😀",
		`"\ud800"`:             "\ufffd",
		`"\ud800\u0041"`:       "\ufffdA",
		`"\udc00"`:             "\ufffd",
		`"a\u00e9b"`:           "aéb",
		`"\/\b\f\n\r\t"`:       "/\b\f\n\r\t",
		`"héllo \"q\" \\"`:     `héllo "q" \`,
		`"\u0000"`:             "\x00",
		`"\ud83d\ud83d\ude00"`: "\ufffd😀",
	}
	for in, want := range cases {
		v, ok := parseJSON([]byte(in))
		if !ok || v.kind != jString || v.s != want {
			t.Errorf("parse %s = %q (ok %v), want %q", in, v.s, ok, want)
		}
	}
}

func TestDeepButAllowedNesting(t *testing.T) {
	in := `{"protocol":1,"type":"session_end","agent":{"backend":"a","session_id":"b","x":` +
		strings.Repeat("[", maxNestingDepth-2) + strings.Repeat("]", maxNestingDepth-2) + `}}`
	if _, err := DecodeLine([]byte(in)); err != nil {
		t.Fatalf("nesting %d: %v", maxNestingDepth, err)
	}
	in = `{"protocol":1,"type":"session_end","agent":{"backend":"a","session_id":"b","x":` +
		strings.Repeat("[", maxNestingDepth-1) + strings.Repeat("]", maxNestingDepth-1) + `}}`
	if _, err := DecodeLine([]byte(in)); err == nil || err.Text != TextInvalidJSON {
		t.Fatalf("nesting %d: %v", maxNestingDepth+1, err)
	}
}

func TestManyDuplicateKeysStayFast(t *testing.T) {
	var sb strings.Builder
	sb.WriteString(`{"protocol":1,"type":"session_lease","lease_id":"L","metadata":{`)
	for i := 0; sb.Len() < MaxFrameBytes-100; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `"k%d":"v","k%d":"w"`, i, i/2)
	}
	sb.WriteString(`}}`)
	cmd, err := DecodeLine([]byte(sb.String()))
	if err != nil {
		t.Fatal(err)
	}
	md := cmd.(SessionLeaseCommand).Metadata
	if v, _ := md.Get("k0"); v != "w" || md[0].Key != "k0" {
		t.Fatalf("k0 = %q first %q", v, md[0].Key)
	}
}

func TestCase112_LeaseSessionIdentityIsLenient(t *testing.T) {
	id, ok := LeaseSessionIdentity([]byte(`{"type":"session_lease_bound","session":{"backend":"codex","session_id":"session-123"}}`))
	if !ok || id != (Identity{"codex", "session-123"}) {
		t.Fatalf("got %v %v", id, ok)
	}
	for _, in := range []string{`{"type":"pong"}`, `{"session":null}`, `{"session":{"backend":"a"}}`, `[{"session":{}}]`, `nope`} {
		if _, ok := LeaseSessionIdentity([]byte(in)); ok {
			t.Errorf("%s: identity found", in)
		}
	}
}
