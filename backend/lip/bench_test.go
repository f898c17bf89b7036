package lip

import (
	"strings"
	"testing"
	"time"
)

const benchEnvelope = `{"lip":1,"id":"ev_01J9Q0Z8M3K7X4N2AAAAAAAAAA","ts":1760000000000,"dir":"up","from":"unique:graph#w1","type":"graph.node.select","data":{"ids":["n3","n4"],"at":{"x":120,"y":80}},"re":"cm_01J9Q0Z7AAAAAAAAAAAAAAAAAA"}`

// BenchmarkDecodeValidate: one typical envelope through Decode (parse +
// validate).
func BenchmarkDecodeValidate(b *testing.B) {
	in := []byte(benchEnvelope)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if bt, err := Decode(in); err != nil || bt.Items[0].Err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeBatch64: a batch of 64 envelopes.
func BenchmarkDecodeBatch64(b *testing.B) {
	in := []byte("[" + strings.TrimSuffix(strings.Repeat(benchEnvelope+",", 64), ",") + "]")
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if bt, err := Decode(in); err != nil || len(bt.Accepted()) != 64 {
			b.Fatal(err)
		}
	}
}

// BenchmarkStampEncode: host stamping plus encoding of one envelope.
func BenchmarkStampEncode(b *testing.B) {
	bt, _ := Decode([]byte(benchEnvelope))
	e := *bt.Items[0].Envelope
	src := Source{Kind: KindUnique, Unique: "graph", Window: "w1"}
	now := time.UnixMilli(1_760_000_000_000)
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for b.Loop() {
		c := e
		_ = StampUp(&c, src, now)
		buf = c.AppendJSON(buf[:0])
	}
}

// BenchmarkCheckerCore: schema check of a core command (entity.say).
func BenchmarkCheckerCore(b *testing.B) {
	c, err := NewChecker()
	if err != nil {
		b.Fatal(err)
	}
	bt, _ := Decode([]byte(`{"lip":1,"id":"cm_1","type":"entity.say","win":"w1","data":{"text":"Hello there","mood":"happy","ttl":6000}}`))
	e := bt.Items[0].Envelope
	b.ReportAllocs()
	for b.Loop() {
		if err := c.Check(e); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkIDs: one monotonic id.
func BenchmarkIDs(b *testing.B) {
	g := NewIDs(nil)
	now := time.UnixMilli(1_760_000_000_000)
	b.ReportAllocs()
	for b.Loop() {
		_ = g.Event(now)
	}
}
