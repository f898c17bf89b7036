// Package lip is the LIP 1 envelope (spec lip-1 §2–§4, seed
// lip-protocol-v1.txt §1–§3): decoding with validation and batches, the
// error codes of §12, ids, from/ts stamping, the reserved domains and the
// who-may-emit rules of §3, and typed data shapes for the core messages and
// the eight built-in components.
//
// The package is pure: no I/O, no goroutines, no clock. Callers pass the time.
package lip

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// Version is the LIP major this host speaks (rule 6).
const Version = 1

// Limits of spec §2.
const (
	MaxEnvelopeBytes = 256 << 10 // one envelope, encoded
	MaxBatchBytes    = 1 << 20   // one batch (JSON array), encoded
	MaxBatchLen      = 256       // envelopes in one batch
	MaxTTL           = 86_400_000
	MaxTypeLen       = 96
	MaxIDLen         = 64
	// ClockSkew is how far a sender's ts may differ from the host's clock
	// before the host keeps it as sts (§2).
	ClockSkewMillis = 5000
)

// Dir is an envelope's direction.
type Dir string

// Directions.
const (
	Up   Dir = "up"   // human or unique → model (events)
	Down Dir = "down" // model or host → window (commands)
)

// Field is one unknown top-level field, kept verbatim (compacted JSON) and
// re-encoded in arrival order after the known fields.
type Field struct {
	Name  string
	Value json.RawMessage
}

// Envelope is one LIP message (spec §2). Zero values mean "absent" for the
// optional numeric fields (TS, STS, TTL, Seq) and strings. Data is always a
// JSON object once decoded (absent → {}); it is kept as raw compacted JSON so
// its key order survives. Unknown top-level fields are kept in Extra.
//
// Encoding order: lip, id, ts, sts, dir, from, type, data, re, ttl, win,
// seq, then Extra in arrival order.
type Envelope struct {
	LIP   int             // must equal Version
	ID    string          // 1–64 chars of [A-Za-z0-9_.:-]
	TS    int64           // ms since the Unix epoch; host-stamped
	STS   int64           // sender's ts when it differed by > 5 s (host-added)
	Dir   Dir             // up or down
	From  string          // host-stamped origin (see Source)
	Type  string          // domain.name…
	Data  json.RawMessage // JSON object
	Re    string          // id this envelope answers
	TTL   int64           // ms, 1–86 400 000, down-commands
	Win   string          // window id (source of up, target of down)
	Seq   uint64          // ring position of an up-event (host-added)
	Extra []Field         // unknown top-level fields, arrival order
}

// Domain is the envelope type's domain (the part before the first dot).
func (e *Envelope) Domain() string { return DomainOf(e.Type) }

// DataOrEmpty is Data, or {} when absent.
func (e *Envelope) DataOrEmpty() json.RawMessage {
	if len(e.Data) == 0 {
		return json.RawMessage(`{}`)
	}
	return e.Data
}

// Clone returns a copy whose Extra slice is not shared (raw JSON values are
// never mutated in place by this package, so they are shared).
func (e Envelope) Clone() Envelope {
	if e.Extra != nil {
		e.Extra = append([]Field(nil), e.Extra...)
	}
	return e
}

// MarshalJSON encodes the envelope with its fields in the documented order.
func (e Envelope) MarshalJSON() ([]byte, error) {
	return e.AppendJSON(make([]byte, 0, 128+len(e.Data))), nil
}

// AppendJSON appends the encoded envelope to b.
func (e *Envelope) AppendJSON(b []byte) []byte {
	b = append(b, `{"lip":`...)
	b = strconv.AppendInt(b, int64(e.LIP), 10)
	b = append(b, `,"id":`...)
	b = appendString(b, e.ID)
	if e.TS != 0 {
		b = append(b, `,"ts":`...)
		b = strconv.AppendInt(b, e.TS, 10)
	}
	if e.STS != 0 {
		b = append(b, `,"sts":`...)
		b = strconv.AppendInt(b, e.STS, 10)
	}
	if e.Dir != "" {
		b = append(b, `,"dir":`...)
		b = appendString(b, string(e.Dir))
	}
	if e.From != "" {
		b = append(b, `,"from":`...)
		b = appendString(b, e.From)
	}
	b = append(b, `,"type":`...)
	b = appendString(b, e.Type)
	b = append(b, `,"data":`...)
	b = append(b, e.DataOrEmpty()...)
	if e.Re != "" {
		b = append(b, `,"re":`...)
		b = appendString(b, e.Re)
	}
	if e.TTL != 0 {
		b = append(b, `,"ttl":`...)
		b = strconv.AppendInt(b, e.TTL, 10)
	}
	if e.Win != "" {
		b = append(b, `,"win":`...)
		b = appendString(b, e.Win)
	}
	if e.Seq != 0 {
		b = append(b, `,"seq":`...)
		b = strconv.AppendUint(b, e.Seq, 10)
	}
	for _, f := range e.Extra {
		b = append(b, ',')
		b = appendString(b, f.Name)
		b = append(b, ':')
		if len(f.Value) == 0 {
			b = append(b, "null"...)
		} else {
			b = append(b, f.Value...)
		}
	}
	return append(b, '}')
}

// UnmarshalJSON decodes one envelope strictly (see Parse) and validates it
// (see Validate). The error is an *Error.
func (e *Envelope) UnmarshalJSON(b []byte) error {
	env, perr := Parse(b)
	if perr != nil {
		return perr
	}
	if verr := Validate(&env); verr != nil {
		return verr
	}
	*e = env
	return nil
}

// appendString appends s as a JSON string.
func appendString(b []byte, s string) []byte {
	if isPlainASCII(s) {
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	_ = enc.Encode(s) // a Go string always encodes
	return append(b, bytes.TrimRight(buf.Bytes(), "\n")...)
}

// isPlainASCII reports whether s needs no escaping in JSON.
func isPlainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}
