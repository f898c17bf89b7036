package lip

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/schemas"
)

func mustDecodeOne(t *testing.T, s string) *Envelope {
	t.Helper()
	b, err := Decode([]byte(s))
	if err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
	if len(b.Items) != 1 || b.Items[0].Err != nil {
		t.Fatalf("decode %s: %+v", s, b.Items)
	}
	return b.Items[0].Envelope
}

func decodeErr(t *testing.T, s string) *Error {
	t.Helper()
	b, err := Decode([]byte(s))
	if err != nil {
		return err
	}
	if len(b.Items) != 1 {
		t.Fatalf("decode %s: %d items", s, len(b.Items))
	}
	return b.Items[0].Err
}

func TestCase001_Lip2IsUnsupportedVersion(t *testing.T) {
	e := decodeErr(t, `{"lip":2,"id":"ev_1","type":"graph.changed","data":{}}`)
	if e == nil || e.Code != CodeUnsupportedVersion {
		t.Fatalf("got %v, want unsupported_version", e)
	}
	if !strings.Contains(e.Message, "lip 2") || !strings.Contains(e.Message, "lip 1") {
		t.Errorf("message should name both versions: %q", e.Message)
	}
	// Not an integer at all is a bad envelope, not a version problem.
	if e := decodeErr(t, `{"lip":"1","id":"x","type":"a.b"}`); e == nil || e.Code != CodeBadEnvelope {
		t.Errorf(`lip "1": %v`, e)
	}
}

func TestCase002_UppercaseTypeIsBadEnvelope(t *testing.T) {
	e := decodeErr(t, `{"lip":1,"id":"ev_1","type":"Graph.Node"}`)
	if e == nil || e.Code != CodeBadEnvelope || !strings.Contains(e.Message, `"type"`) {
		t.Fatalf("got %v, want bad_envelope about type", e)
	}
}

func TestCase003_BatchWithMiddleInvalid(t *testing.T) {
	in := `[{"lip":1,"id":"ev_1","type":"graph.a"},{"lip":1,"id":"ev_2","type":"Graph.B"},{"lip":1,"id":"ev_3","type":"graph.c"}]`
	b, err := Decode([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if !b.IsBatch || len(b.Items) != 3 {
		t.Fatalf("items: %+v", b)
	}
	acc := b.Accepted()
	if len(acc) != 2 || acc[0].ID != "ev_1" || acc[1].ID != "ev_3" {
		t.Fatalf("accepted: %+v", acc)
	}
	rej := b.Rejected()
	if len(rej) != 1 || rej[0].Index != 1 || rej[0].ID != "ev_2" || rej[0].Code != CodeBadEnvelope {
		t.Fatalf("rejected: %+v", rej)
	}
	if !strings.HasPrefix(rej[0].Message, "envelope 1: ") {
		t.Errorf("message should name the index: %q", rej[0].Message)
	}
	j, _ := json.Marshal(rej)
	if !strings.Contains(string(j), `"index":1`) {
		t.Errorf("rejections encode with index: %s", j)
	}
}

func TestCase004_ForgedFromIsRestamped(t *testing.T) {
	env := mustDecodeOne(t, `{"lip":1,"id":"ev_1","from":"claude","win":"w9","seq":77,"type":"graph.node.select","data":{"ids":["n3"]}}`)
	src := ShellClaim(env.From, "graph", "w1")
	if src.Kind != KindUnique {
		t.Fatalf("a forged claude claim must be treated as the unique, got %v", src.Kind)
	}
	now := time.UnixMilli(1_760_000_000_000)
	if err := StampUp(env, src, now); err != nil {
		t.Fatal(err)
	}
	if env.From != "unique:graph#w1" || env.Win != "w1" || env.Seq != 0 || env.Dir != Up || env.TS != now.UnixMilli() {
		t.Fatalf("stamped: %+v", env)
	}
	for _, claim := range []string{"host", "hook", "unique:other#w5", "", "shell-ish"} {
		if k := ShellClaim(claim, "graph", "w1").Kind; k != KindUnique {
			t.Errorf("claim %q → %v, want unique", claim, k)
		}
	}
	for _, claim := range []string{"shell", "shell:graph#w1", "shell:x#y"} {
		s := ShellClaim(claim, "graph", "w1")
		if s.Kind != KindShell || s.From() != "shell:graph#w1" {
			t.Errorf("claim %q → %+v", claim, s)
		}
	}
	// Down: from is always the sender the host authenticated.
	cmd := mustDecodeOne(t, `{"lip":1,"id":"cm_1","from":"host","type":"entity.say","data":{"text":"hi"},"win":"w1"}`)
	if err := StampDown(cmd, Source{Kind: KindClaude}, now); err != nil || cmd.From != "claude" || cmd.Dir != Down {
		t.Fatalf("down stamp: %v %+v", err, cmd)
	}
}

func TestStampDownNeedsWindowAndDirection(t *testing.T) {
	now := time.UnixMilli(1e12)
	e := mustDecodeOne(t, `{"lip":1,"id":"cm_1","type":"entity.say","data":{"text":"hi"}}`)
	if err := StampDown(e, Source{Kind: KindClaude}, now); err == nil || !strings.Contains(err.Message, "win") {
		t.Errorf("missing win: %v", err)
	}
	e = mustDecodeOne(t, `{"lip":1,"id":"cm_1","dir":"up","win":"w1","type":"entity.say","data":{"text":"hi"}}`)
	if err := StampDown(e, Source{Kind: KindClaude}, now); err == nil {
		t.Error("dir up accepted as a command")
	}
	e = mustDecodeOne(t, `{"lip":1,"id":"ev_1","dir":"down","type":"graph.x"}`)
	if err := StampUp(e, Source{Kind: KindShell, Unique: "g", Window: "w1"}, now); err == nil {
		t.Error("dir down accepted as an event")
	}
}

func TestTimestampRule(t *testing.T) {
	now := time.UnixMilli(1_760_000_000_000)
	cases := []struct {
		name    string
		ts, sts int64
		wantSTS int64
	}{
		{"absent", 0, 0, 0},
		{"close", now.UnixMilli() - 4999, 0, 0},
		{"exactly 5 s", now.UnixMilli() + 5000, 0, 0},
		{"late", now.UnixMilli() - 5001, 0, now.UnixMilli() - 5001},
		{"early", now.UnixMilli() + 60_000, 0, now.UnixMilli() + 60_000},
		{"sender sts dropped", now.UnixMilli(), 42, 0},
	}
	for _, c := range cases {
		e := Envelope{TS: c.ts, STS: c.sts}
		StampTime(&e, now)
		if e.TS != now.UnixMilli() || e.STS != c.wantSTS {
			t.Errorf("%s: ts=%d sts=%d, want sts %d", c.name, e.TS, e.STS, c.wantSTS)
		}
	}
}

func TestUnknownFieldsKeptInOrder(t *testing.T) {
	in := `{"zeta":1,"lip":1,"id":"ev_1","alpha":{"b":2,"a":1},"type":"graph.changed","data":{"z":1,"a":2},"mid":[1, 2]}`
	e := mustDecodeOne(t, in)
	if len(e.Extra) != 3 || e.Extra[0].Name != "zeta" || e.Extra[1].Name != "alpha" || e.Extra[2].Name != "mid" {
		t.Fatalf("extra: %+v", e.Extra)
	}
	out, _ := json.Marshal(e)
	want := `{"lip":1,"id":"ev_1","type":"graph.changed","data":{"z":1,"a":2},"zeta":1,"alpha":{"b":2,"a":1},"mid":[1,2]}`
	if string(out) != want {
		t.Fatalf("encoded\n got %s\nwant %s", out, want)
	}
	// Round trip is stable.
	e2 := mustDecodeOne(t, string(out))
	out2, _ := json.Marshal(e2)
	if !bytes.Equal(out, out2) {
		t.Fatalf("round trip changed: %s", out2)
	}
}

func TestDecodeRejections(t *testing.T) {
	big := strings.Repeat("x", MaxEnvelopeBytes)
	cases := []struct {
		in   string
		code Code
		msg  string
	}{
		{``, CodeBadEnvelope, "empty"},
		{`42`, CodeBadEnvelope, "object"},
		{`{"lip":1,"id":"x","type":"a.b"`, CodeBadEnvelope, "JSON"},
		{`{"lip":1,"id":"x","type":"a.b"} {}`, CodeBadEnvelope, "after"},
		{`{"id":"x","type":"a.b"}`, CodeBadEnvelope, `"lip" is missing`},
		{`{"lip":1,"type":"a.b"}`, CodeBadEnvelope, `"id" is missing`},
		{`{"lip":1,"id":"a b","type":"a.b"}`, CodeBadEnvelope, `"id"`},
		{`{"lip":1,"id":"` + strings.Repeat("a", 65) + `","type":"a.b"}`, CodeBadEnvelope, `"id"`},
		{`{"lip":1,"id":"x"}`, CodeBadEnvelope, `"type" is missing`},
		{`{"lip":1,"id":"x","type":"graph"}`, CodeBadEnvelope, `"type"`},
		{`{"lip":1,"id":"x","type":"a.` + strings.Repeat("b", 95) + `"}`, CodeBadEnvelope, `"type"`},
		{`{"lip":1,"id":"x","type":"a..b"}`, CodeBadEnvelope, `"type"`},
		{`{"lip":1,"id":"x","type":"a.b."}`, CodeBadEnvelope, `"type"`},
		{`{"lip":1,"id":"x","type":"a.b","dir":"sideways"}`, CodeBadEnvelope, `"dir"`},
		{`{"lip":1,"id":"x","type":"a.b","data":[]}`, CodeBadEnvelope, `"data"`},
		{`{"lip":1,"id":"x","type":"a.b","data":"s"}`, CodeBadEnvelope, `"data"`},
		{`{"lip":1,"id":"x","type":"a.b","ttl":0}`, CodeBadEnvelope, `"ttl"`},
		{`{"lip":1,"id":"x","type":"a.b","ttl":86400001}`, CodeBadEnvelope, `"ttl"`},
		{`{"lip":1,"id":"x","type":"a.b","ttl":1.5}`, CodeBadEnvelope, `"ttl"`},
		{`{"lip":1,"id":"x","type":"a.b","ts":-1}`, CodeBadEnvelope, `"ts"`},
		{`{"lip":1,"id":"x","type":"a.b","ts":"now"}`, CodeBadEnvelope, `"ts"`},
		{`{"lip":1,"id":"x","type":"a.b","re":"a b"}`, CodeBadEnvelope, `"re"`},
		{`{"lip":1,"id":"x","type":"a.b","win":"w 1"}`, CodeBadEnvelope, `"win"`},
		{`{"lip":1,"id":"x","type":"a.b","type":"a.c"}`, CodeBadEnvelope, "twice"},
		{`{"lip":1.5,"id":"x","type":"a.b"}`, CodeBadEnvelope, `"lip"`},
		{"{\"lip\":1,\"id\":\"x\",\"type\":\"a.b\",\"data\":{\"s\":\"\xff\"}}", CodeBadEnvelope, "UTF-8"},
		{`{"lip":1,"id":"x","type":"a.b","data":{"s":"` + big + `"}}`, CodeTooLarge, "at most"},
	}
	for i, c := range cases {
		e := decodeErr(t, c.in)
		if e == nil || e.Code != c.code || !strings.Contains(e.Message, c.msg) {
			t.Errorf("case %d %.60q: got %v, want %s containing %q", i, c.in, e, c.code, c.msg)
		}
	}
}

func TestIntegralNumbersAccepted(t *testing.T) {
	e := mustDecodeOne(t, `{"lip":1.0,"id":"x","type":"a.b","ts":1.76e12,"ttl":3e4}`)
	if e.LIP != 1 || e.TS != 1_760_000_000_000 || e.TTL != 30000 {
		t.Fatalf("%+v", e)
	}
}

func TestBatchLimits(t *testing.T) {
	one := `{"lip":1,"id":"x","type":"a.b"}`
	var parts []string
	for range MaxBatchLen {
		parts = append(parts, one)
	}
	if b, err := Decode([]byte("[" + strings.Join(parts, ",") + "]")); err != nil || len(b.Accepted()) != MaxBatchLen {
		t.Fatalf("256 envelopes: %v", err)
	}
	parts = append(parts, one)
	if _, err := Decode([]byte("[" + strings.Join(parts, ",") + "]")); err == nil || err.Code != CodeTooLarge {
		t.Fatalf("257 envelopes: %v", err)
	}
	huge := bytes.Repeat([]byte(" "), MaxBatchBytes+1)
	if _, err := Decode(huge); err == nil || err.Code != CodeTooLarge {
		t.Fatalf("over 1 MiB: %v", err)
	}
	// One oversized element is rejected alone.
	big := `{"lip":1,"id":"big","type":"a.b","data":{"s":"` + strings.Repeat("x", MaxEnvelopeBytes) + `"}}`
	b, err := Decode([]byte("[" + one + "," + big + "," + one + "]"))
	if err != nil {
		t.Fatal(err)
	}
	rej := b.Rejected()
	if len(b.Accepted()) != 2 || len(rej) != 1 || rej[0].Index != 1 || rej[0].Code != CodeTooLarge {
		t.Fatalf("rejected: %+v", rej)
	}
	// Not JSON inside a batch rejects the batch as a whole.
	if _, err := Decode([]byte(`[` + one + `, nope]`)); err == nil || err.Code != CodeBadEnvelope {
		t.Fatalf("broken batch: %v", err)
	}
	// Empty batch: nothing to do.
	if b, err := Decode([]byte(`[]`)); err != nil || !b.IsBatch || len(b.Items) != 0 {
		t.Fatalf("empty batch: %v %+v", err, b)
	}
	// Non-object element.
	b, _ = Decode([]byte(`[` + one + `, 3]`))
	if r := b.Rejected(); len(r) != 1 || r[0].Index != 1 {
		t.Fatalf("non-object element: %+v", r)
	}
}

func TestAssignID(t *testing.T) {
	ids := NewIDs(bytes.NewReader(make([]byte, 1024)))
	now := time.UnixMilli(1_000)
	b, err := DecodeWith([]byte(`[{"lip":1,"type":"entity.say","data":{"text":"x"}},{"lip":1,"id":"mine","type":"ui.toast","data":{"text":"x"}}]`),
		DecodeOptions{AssignID: func() string { return ids.Command(now) }})
	if err != nil {
		t.Fatal(err)
	}
	acc := b.Accepted()
	if len(acc) != 2 || !strings.HasPrefix(acc[0].ID, "cm_") || acc[1].ID != "mine" {
		t.Fatalf("%+v", acc)
	}
}

// TestSchemaAgreesWithDecode checks the Go rules against the lead's schema
// examples: every good example decodes; every bad single-envelope example
// is refused by Parse+Validate, except a forged from, which the host accepts
// and overwrites (checklist 4).
func TestSchemaAgreesWithDecode(t *testing.T) {
	for _, kind := range []string{"good", "bad"} {
		files, _ := filepath.Glob(filepath.Join("..", "..", "schemas", "testdata", "lip-envelope", kind, "*.json"))
		if len(files) == 0 {
			t.Fatalf("no %s examples", kind)
		}
		for _, f := range files {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			env, perr := Parse(raw)
			if perr == nil {
				perr = Validate(&env)
			}
			switch {
			case kind == "good" && perr != nil:
				t.Errorf("%s: %v", f, perr)
			case kind == "bad" && perr == nil && !strings.Contains(f, "from-forged"):
				t.Errorf("%s accepted", f)
			}
		}
	}
}

func TestEncodeEscapes(t *testing.T) {
	e := Envelope{LIP: 1, ID: "x", Type: "a.b", From: "shell:a\"b#w1", Extra: []Field{{Name: "q\"<", Value: json.RawMessage(`"<>"`)}}}
	out, _ := json.Marshal(e)
	var back map[string]any
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	if back["from"] != "shell:a\"b#w1" || back["q\"<"] != "<>" {
		t.Fatalf("%v", back)
	}
	if n := len(e.AppendJSON(nil)); e.EncodedLen() != n {
		t.Errorf("EncodedLen %d, encoded %d", e.EncodedLen(), n)
	}
}

func TestErrorCodesOfSection12(t *testing.T) {
	want := "bad_envelope unsupported_version unknown_window unknown_unique undeclared_type reserved_domain too_large rate_limited unauthorized forbidden exec_denied expired invalid_manifest install_failed internal"
	var got []string
	for _, c := range Codes() {
		got = append(got, string(c))
		if c.HTTPStatus() < 400 {
			t.Errorf("%s: status %d", c, c.HTTPStatus())
		}
	}
	if strings.Join(got, " ") != want {
		t.Fatalf("codes: %v", got)
	}
	if CodeUnauthorized.HTTPStatus() != 401 || CodeForbidden.HTTPStatus() != 403 || CodeExecDenied.HTTPStatus() != 403 || CodeTooLarge.HTTPStatus() != 413 {
		t.Error("status mapping")
	}
	b, _ := json.Marshal(HTTPBody{Error: Errorf(CodeForbidden, "no")})
	if string(b) != `{"error":{"code":"forbidden","message":"no"}}` {
		t.Errorf("%s", b)
	}
}

func TestDataFieldEditing(t *testing.T) {
	d := json.RawMessage(`{"b":1, "a":{"x":2},"_coalesced":1}`)
	got, err := SetDataField(d, "_coalesced", json.RawMessage(`3`))
	if err != nil || string(got) != `{"b":1,"a":{"x":2},"_coalesced":3}` {
		t.Fatalf("%s %v", got, err)
	}
	got, _ = SetDataField(json.RawMessage(`{"b":1}`), "n", json.RawMessage(`2`))
	if string(got) != `{"b":1,"n":2}` {
		t.Fatalf("%s", got)
	}
	got, _ = PrependDataField(json.RawMessage(`{"b":1,"session":0,"a":2}`), "session", json.RawMessage(`{"id":"ss_1"}`))
	if string(got) != `{"session":{"id":"ss_1"},"b":1,"a":2}` {
		t.Fatalf("%s", got)
	}
	if _, err := SetDataField(json.RawMessage(`[1]`), "a", json.RawMessage(`1`)); err == nil {
		t.Fatal("array data accepted")
	}
	v, ok := DataField(json.RawMessage(`{"a":{"b":1}}`), "a")
	if !ok || string(v) != `{"b":1}` {
		t.Fatalf("%s", v)
	}
}

func TestEnvelopeSchemaAcceptsStampedDecodes(t *testing.T) {
	s, err := schemas.Compile("lip-envelope.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	e := mustDecodeOne(t, `{"lip":1,"id":"ev_1","from":"root","ts":5,"type":"graph.changed","data":{"a":1},"x-future":true}`)
	if err := StampUp(e, Source{Kind: KindUnique, Unique: "graph", Window: "w1"}, time.UnixMilli(1e12)); err != nil {
		t.Fatal(err)
	}
	e.Seq = 9
	out, _ := json.Marshal(e)
	if err := schemas.ValidateJSON(s, out); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
}
