package web

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/lets-app/lets/backend/wire"
	"github.com/lets-app/lets/schemas"
)

// TestDecodeOrder walks the normative order of §5.3: the first failing
// step wins.
func TestDecodeOrder(t *testing.T) {
	big := `{"protocol":1,"type":"action","action":"stop"}` + strings.Repeat(" ", MaxMessageBytes)
	for _, c := range []struct {
		in, code, text string
	}{
		{big, CodeFrameTooLarge, "message exceeds size limit"},
		{"\xff{", CodeInvalidEncoding, "message must be UTF-8"},
		{"{", CodeInvalidJSON, "message must be valid JSON"},
		{"", CodeInvalidJSON, "message must be valid JSON"},
		{`{"protocol":NaN}`, CodeInvalidJSON, ""},
		{"\ufeff{}", CodeInvalidJSON, ""},
		{`"x"`, CodeInvalidMessage, "message must be a JSON object"},
		{`null`, CodeInvalidMessage, "message must be a JSON object"},
		{`{}`, CodeUnsupportedProtocol, "unsupported web protocol"},
		{`{"type":"nope"}`, CodeUnsupportedProtocol, ""},
		{`{"protocol":2,"type":"nope"}`, CodeUnsupportedProtocol, ""},
		{`{"protocol":1.5,"type":"action"}`, CodeUnsupportedProtocol, ""},
		{`{"protocol":null,"type":"action"}`, CodeUnsupportedProtocol, ""},
		{`{"protocol":1}`, CodeInvalidMessage, "unknown message type"},
		{`{"protocol":1,"type":1}`, CodeInvalidMessage, "unknown message type"},
		{`{"protocol":1,"type":"Action"}`, CodeInvalidMessage, "unknown message type"},
		{`{"protocol":1,"type":"error","code":"x","error":"y"}`, CodeInvalidMessage, "unknown message type"},
		{`{"protocol":1,"type":"action","zz":1}`, CodeInvalidMessage, "missing field: action"},
		{`{"protocol":1,"type":"action","action":"x","b":1,"a":2}`, CodeInvalidMessage, "unknown field: a"},
		{`{"protocol":1,"type":"create_pairing","pin":"1"}`, CodeInvalidMessage, "unknown field: pin"},
		{`{"protocol":1,"type":"authenticate","credential":"x","admin":true}`, CodeInvalidMessage, "unknown field: admin"},
		{`{"protocol":1,"type":"action","action":"x"}`, CodeInvalidMessage, "unknown action"},
		{`{"protocol":1,"type":"action","action":null}`, CodeInvalidMessage, "unknown action"},
		{`{"protocol":1,"type":"select_session","slot":1e400}`, CodeInvalidMessage, "slot must be an integer from 0 to 7"},
		{`{"protocol":1,"type":"select_session","slot":null}`, CodeInvalidMessage, "slot must be an integer from 0 to 7"},
		{`{"protocol":1,"type":"start_experience","kind":"DEMO"}`, CodeInvalidMessage, "experience kind must be demo or show"},
		{`{"protocol":1,"type":"revoke_device","device":"short"}`, CodeInvalidMessage, "unknown device"},
	} {
		_, err := DecodeClientMessage([]byte(c.in))
		if err == nil || err.Code != c.code || (c.text != "" && err.Text != c.text) {
			t.Errorf("%.60q: %v, want %s %q", c.in, err, c.code, c.text)
		}
	}
	for in, want := range map[string]ClientMessage{
		`{"protocol":1,"type":"authenticate"}`:                              {Type: TypeAuthenticate},
		`{"protocol":1e0,"type":"authenticate","credential":null}`:          {Type: TypeAuthenticate},
		`{"protocol":1,"type":"action","action":"retry"}`:                   {Type: TypeAction, Action: wire.ActionRetry},
		` {"type":"select_session","slot":-0,"protocol":1.0} `:              {Type: TypeSelectSession, Slot: 0},
		`{"protocol":1,"type":"select_session","slot":70e-1}`:               {Type: TypeSelectSession, Slot: 7},
		`{"protocol":1,"type":"start_experience","kind":"show"}`:            {Type: TypeStartExperience, Kind: "show"},
		`{"protocol":1,"type":"stop_experience"}`:                           {Type: TypeStopExperience},
		`{"protocol":1,"type":"revoke_remote"}`:                             {Type: TypeRevokeRemote},
		`{"protocol":1,"type":"create_pairing"}`:                            {Type: TypeCreatePairing},
		`{"protocol":1,"type":"list_devices"}`:                              {Type: TypeListDevices},
		`{"protocol":1,"type":"revoke_device","device":"AbC-_0123456"}`:     {Type: TypeRevokeDevice, Device: "AbC-_0123456"},
		`{"protocol":1,"type":"action","action":"stop","action":"approve"}`: {Type: TypeAction, Action: wire.ActionApprove},
	} {
		got, err := DecodeClientMessage([]byte(in))
		if err != nil || got != want {
			t.Errorf("%s: %+v %v, want %+v", in, got, err, want)
		}
	}
	m, err := DecodeClientMessage([]byte(`{"protocol":1,"type":"authenticate","credential":"042917"}`))
	if err != nil || m.Credential == nil || *m.Credential != "042917" {
		t.Fatalf("%+v %v", m, err)
	}
}

var hugeExponent = regexp.MustCompile(`[eE][-+]?0*[0-9]{3,}`)

// FuzzDecodeClientMessage: the decoder never panics, fails only with a
// code of §8.7, and agrees with our schema on valid UTF-8 input: what it
// accepts the schema accepts, and the reverse.
func FuzzDecodeClientMessage(f *testing.F) {
	for _, s := range []string{
		`{"protocol":1,"type":"authenticate","credential":"042917"}`,
		`{"protocol":1,"type":"authenticate"}`,
		`{"protocol":1,"type":"action","action":"approve"}`,
		`{"protocol":1.0,"type":"select_session","slot":1e0}`,
		`{"protocol":1,"type":"start_experience","kind":"show"}`,
		`{"protocol":1,"type":"revoke_device","device":"AAAAAAAAAAAA"}`,
		`{"protocol":1,"type":"action","action":"stop","x":1}`,
		`[1,2]`, `not json`, "\xff\xfe", `{"protocol":true,"type":"action","action":"stop"}`,
	} {
		f.Add([]byte(s))
	}
	s, err := schemas.Compile("web-surface-protocol-1.schema.json")
	if err != nil {
		f.Fatal(err)
	}
	codes := map[string]bool{CodeFrameTooLarge: true, CodeInvalidEncoding: true, CodeInvalidJSON: true, CodeUnsupportedProtocol: true, CodeInvalidMessage: true}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, perr := DecodeClientMessage(data)
		if perr != nil {
			if !codes[perr.Code] || perr.Text == "" {
				t.Fatalf("error %+v", perr)
			}
		} else if _, ok := messageFields[m.Type]; !ok {
			t.Fatalf("decoded type %q", m.Type)
		}
		if !utf8.Valid(data) || len(data) > 4096 || hugeExponent.Match(data) {
			// The schema library's exact number arithmetic is very slow
			// for exponents like 1e999999999; the decoder is not.
			return
		}
		verr := schemas.ValidateJSON(s, data)
		if perr == nil && verr != nil {
			t.Fatalf("decoder accepts, schema rejects %q: %v", data, verr)
		}
		if perr != nil && verr == nil && perr.Code != CodeInvalidJSON {
			var head struct{ Type string }
			if json.Unmarshal(data, &head) == nil {
				if _, client := messageFields[head.Type]; client {
					t.Fatalf("schema accepts, decoder rejects %q: %v", data, perr)
				}
			}
		}
	})
}
