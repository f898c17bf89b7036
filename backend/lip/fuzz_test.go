package lip

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/lets-app/lets/schemas"
)

// FuzzDecodeEnvelope feeds single envelopes and batches to Decode. For every
// accepted element: the encoding is valid JSON, decoding it again gives the
// same encoding, and once host-stamped it validates against
// schemas/lip-envelope.schema.json.
func FuzzDecodeEnvelope(f *testing.F) {
	for _, s := range []string{
		`{"lip":1,"id":"ev_01J9Q0Z8M3K7X4N2","ts":1760000000000,"dir":"up","from":"unique:graph#w1","type":"graph.node.select","data":{"ids":["n3"]},"re":"cm_01J9Q0Z7","ttl":30000}`,
		`[{"lip":1,"id":"a","type":"a.b"},{"lip":2,"id":"b","type":"a.b"},{"lip":1,"id":"c","type":"Graph.Node"}]`,
		`{"lip":1,"id":"x","type":"a.b","zz":{"k":[1,2,{"q":null}]},"data":{"b":1,"a":2}}`,
		`{"lip":1.0,"id":"x","type":"a.b","ts":1e3,"ttl":0}`,
		`{"lip":1,"id":"x","type":"a.b","type":"a.c"}`,
		`[]`, `[1,"x",null]`, `{}`, ``, `{"lip":1,"id":"x","type":"a.b","data":null,"seq":-4,"sts":"x"}`,
	} {
		f.Add([]byte(s))
	}
	envSchema, err := schemas.Compile("lip-envelope.schema.json")
	if err != nil {
		f.Fatal(err)
	}
	now := time.UnixMilli(1_760_000_000_000)
	f.Fuzz(func(t *testing.T, in []byte) {
		b, berr := Decode(in)
		if berr != nil {
			if berr.Message == "" || (berr.Code != CodeBadEnvelope && berr.Code != CodeTooLarge) {
				t.Fatalf("whole-input error %+v", berr)
			}
			return
		}
		if len(b.Items) > MaxBatchLen || (!b.IsBatch && len(b.Items) != 1) {
			t.Fatalf("%d items", len(b.Items))
		}
		for _, it := range b.Items {
			if it.Err != nil {
				if it.Err.Message == "" || it.Envelope != nil {
					t.Fatalf("rejection %+v", it)
				}
				continue
			}
			e := it.Envelope
			out := e.AppendJSON(nil)
			if !json.Valid(out) {
				t.Fatalf("invalid JSON out: %s", out)
			}
			again, err := Decode(out)
			if err != nil || len(again.Items) != 1 || again.Items[0].Err != nil {
				t.Fatalf("re-decode of %s: %v %+v", out, err, again.Items)
			}
			if out2 := again.Items[0].Envelope.AppendJSON(nil); !bytes.Equal(out, out2) {
				t.Fatalf("not stable:\n%s\n%s", out, out2)
			}
			c := e.Clone()
			if StampUp(&c, Source{Kind: KindUnique, Unique: "graph", Window: "w1"}, now) == nil {
				if err := schemas.ValidateJSON(envSchema, c.AppendJSON(nil)); err != nil {
					t.Fatalf("stamped envelope fails the schema: %s: %v", c.AppendJSON(nil), err)
				}
			}
		}
	})
}
