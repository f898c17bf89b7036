package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// daemonCodes are the codes DecodeLine may return.
var daemonCodes = map[string]bool{
	CodeFrameTooLarge: true, CodeInvalidMessage: true, CodeUnsupportedProtocol: true, CodeUnknownMessageType: true,
}

func FuzzDecodeLine(f *testing.F) {
	for _, tc := range checklistDecodeCases() {
		if len(tc.in) < 4096 {
			f.Add([]byte(tc.in))
		}
	}
	for _, m := range everyMessage() {
		line, _ := m.msg.Encode()
		f.Add(bytes.TrimSuffix(line, []byte("\n")))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		cmd, perr := DecodeLine(line)
		if perr != nil {
			if cmd != nil {
				t.Fatalf("both a command and an error")
			}
			if !daemonCodes[perr.Code] || !IsKnownCode(perr.Code) {
				t.Fatalf("unknown code %q", perr.Code)
			}
			if perr.Text == "" {
				t.Fatal("empty error text")
			}
			out, _ := EncodeReply(perr.Message())
			if len(out) > MaxEncodedBytes || !json.Valid(out) {
				t.Fatalf("error line invalid: %q", out)
			}
		} else {
			if cmd == nil {
				t.Fatal("nil command without error")
			}
			enc, err := cmd.Encode()
			if err != nil {
				// Escaping may push a decoded command over the limit;
				// nothing else may fail.
				if pe, ok := err.(*ProtocolError); !ok || pe.Code != CodeFrameTooLarge {
					t.Fatalf("re-encode %#v: %v", cmd, err)
				}
				return
			}
			again, perr2 := DecodeLine(bytes.TrimSuffix(enc, []byte("\n")))
			if perr2 != nil {
				t.Fatalf("re-decode %q: %v", enc, perr2)
			}
			if !reflect.DeepEqual(again, cmd) {
				t.Fatalf("round trip differs:\n %#v\n %#v", cmd, again)
			}
		}
		// Differential check of the JSON layer against encoding/json.
		if utf8.Valid(line) {
			_, ours := parseJSON(line)
			std := json.Valid(line)
			if ours && !std {
				t.Fatalf("we accept JSON that encoding/json rejects: %q", line)
			}
			if !ours && std && !deepOrLongInt(line) {
				t.Fatalf("we reject JSON that encoding/json accepts: %q", line)
			}
		}
	})
}

// deepOrLongInt reports whether line may exceed our nesting or integer
// digit limits (cheap over-approximation).
func deepOrLongInt(line []byte) bool {
	return bytes.Count(line, []byte("["))+bytes.Count(line, []byte("{")) > maxNestingDepth || len(line) > maxIntDigits
}

// slowEncodeString is the reference implementation of Python's
// json.dumps(ensure_ascii=True) for one string, written for clarity: go
// through UTF-16 code units and escape everything outside printable ASCII.
func slowEncodeString(s string) string {
	var sb strings.Builder
	sb.WriteByte('"')
	for _, u := range utf16.Encode([]rune(s)) {
		switch {
		case u == '"':
			sb.WriteString(`\"`)
		case u == '\\':
			sb.WriteString(`\\`)
		case u == '\b':
			sb.WriteString(`\b`)
		case u == '\f':
			sb.WriteString(`\f`)
		case u == '\n':
			sb.WriteString(`\n`)
		case u == '\r':
			sb.WriteString(`\r`)
		case u == '\t':
			sb.WriteString(`\t`)
		case u >= 0x20 && u < 0x7f:
			sb.WriteByte(byte(u))
		default:
			fmt.Fprintf(&sb, `\u%04x`, u)
		}
	}
	sb.WriteByte('"')
	return sb.String()
}

func FuzzEncodeString(f *testing.F) {
	for _, s := range []string{"", "plain", `q"b\`, "\x00\x1f\x7f", "é😀\u2028", "bad\xff\xfe", "</script>&", "\t\n\r\b\f", "\U0010ffff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := string(AppendString(nil, s))
		if want := slowEncodeString(s); got != want {
			t.Fatalf("AppendString(%q) = %s, want %s", s, got, want)
		}
		for i := 0; i < len(got); i++ {
			if got[i] < 0x20 || got[i] >= 0x7f {
				t.Fatalf("non-ASCII or control byte in %q", got)
			}
		}
		var back string
		if err := json.Unmarshal([]byte(got), &back); err != nil {
			t.Fatalf("not JSON: %s: %v", got, err)
		}
		if want := strings.ToValidUTF8(s, "\ufffd"); utf8.ValidString(s) && back != want {
			t.Fatalf("round trip %q → %q", s, back)
		}
		// Our own parser reads it back too.
		v, ok := parseJSON([]byte(got))
		if !ok || v.kind != jString || (utf8.ValidString(s) && v.s != s) {
			t.Fatalf("parseJSON(%s) = %q %v", got, v.s, ok)
		}
	})
}

func FuzzDecodeReply(f *testing.F) {
	for _, m := range everyMessage() {
		line, _ := m.msg.Encode()
		f.Add(bytes.TrimSuffix(line, []byte("\n")))
	}
	f.Add([]byte(`{"protocol":1,"type":"error"}`))
	f.Add([]byte(`{"protocol":1,"type":"action","action":"stop","agent":{"backend":"a","session_id":"b"},"x":1}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		r, perr := DecodeReply(line)
		if perr != nil {
			if r != nil || !IsKnownCode(perr.Code) || perr.Text == "" {
				t.Fatalf("bad error %#v / reply %#v", perr, r)
			}
			return
		}
		enc, err := r.Encode()
		if err != nil {
			return // escaping may exceed the limit
		}
		again, perr2 := DecodeReply(bytes.TrimSuffix(enc, []byte("\n")))
		if perr2 != nil {
			t.Fatalf("re-decode %q: %v", enc, perr2)
		}
		if !reflect.DeepEqual(again, r) {
			t.Fatalf("round trip differs:\n %#v\n %#v", r, again)
		}
	})
}
