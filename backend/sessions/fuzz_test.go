package sessions

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// FuzzSaveEnvelope: whatever a unique sends as an export, the store either
// refuses it as a bad envelope or writes a file it reads back with the
// session key first and the payload unchanged.
func FuzzSaveEnvelope(f *testing.F) {
	f.Add([]byte(`{"lip":1,"type":"graph.export","data":{"a":1,"summary":"hi"}}`))
	f.Add([]byte(`{"data":{"session":{"id":"x"},"b":[1,{"c":"d"}]},"ts":5}`))
	f.Add([]byte(`{"data":null}`))
	f.Add([]byte(`{"a":1,"a":2,"data":{"k":"\u00e9\n","k":3}}`))
	f.Add([]byte(`[{"data":{}}]`))
	s := NewStore(f.TempDir(), Options{})
	f.Fuzz(func(t *testing.T, env []byte) {
		if len(env) > 64<<10 {
			return
		}
		info, err := s.Save("graph", "fuzz", Export, env, t0)
		if err != nil {
			return
		}
		got, err := s.Get("graph", "fuzz")
		if err != nil {
			t.Fatalf("saved but unreadable: %v", err)
		}
		if got.ID != "fuzz" || !got.Handoff || got.Summary != info.Summary {
			t.Fatalf("read back %+v, saved %+v", got.Info, info)
		}
		if !json.Valid(got.Envelope) || !json.Valid(got.Payload) {
			t.Fatal("invalid JSON stored")
		}
		obj, err := parseObject(got.Payload)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := obj.Get("session"); ok {
			t.Fatal("payload kept a session key")
		}
		if utf8.RuneCountInString(info.Summary) > maxGivenSummary {
			t.Fatalf("summary of %d chars", utf8.RuneCountInString(info.Summary))
		}
	})
}

// FuzzParseObject: the ordered decoder agrees with encoding/json on what
// is a JSON object, and round-trips.
func FuzzParseObject(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1}`, `{"a":{"b":[1,2]},"c":"x"}`, `{"a":1}x`, `{"a"}`, `[]`, `{"\u0000":1}`, ` {"a" : 1 } `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		obj, err := parseObject(data)
		var m map[string]json.RawMessage
		stdErr := json.Unmarshal(data, &m)
		if err == nil && stdErr != nil {
			t.Fatalf("accepted what encoding/json refuses: %v", stdErr)
		}
		if err != nil {
			return
		}
		if m == nil || len(m) != len(obj) {
			t.Fatalf("keys: %d vs %d", len(m), len(obj))
		}
		enc := encodeObject(obj)
		again, err := parseObject(enc)
		if err != nil || !bytes.Equal(encodeObject(again), enc) {
			t.Fatalf("round trip: %v", err)
		}
		_ = Summary(enc)
	})
}
