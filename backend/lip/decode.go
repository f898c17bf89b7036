package lip

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/lets-app/lets/backend/textsafe"
)

// Item is one element of a decoded frame or request body: an envelope that
// passed Parse and Validate, or the error that rejected it.
type Item struct {
	Index    int       // position in the batch (0 for a single envelope)
	Envelope *Envelope // nil when rejected
	Err      *Error    // nil when accepted
	// ID is the element's id when it could be read, even if rejected (for
	// answers like {rejected: [{index, id, code, message}]}).
	ID string
}

// Batch is the result of Decode: one Item per element. IsBatch tells whether
// the input was a JSON array (a single envelope yields one Item either way).
type Batch struct {
	IsBatch bool
	Items   []Item
}

// Rejection is one rejected element, as listed in answers.
type Rejection struct {
	Index   int    `json:"index"`
	ID      string `json:"id,omitempty"`
	Code    Code   `json:"code"`
	Message string `json:"message"`
}

// Accepted returns the envelopes that passed, in input order.
func (b *Batch) Accepted() []*Envelope {
	var out []*Envelope
	for _, it := range b.Items {
		if it.Err == nil {
			out = append(out, it.Envelope)
		}
	}
	return out
}

// Rejected lists the elements that failed, with index, id (when known),
// code and message.
func (b *Batch) Rejected() []Rejection {
	var out []Rejection
	for _, it := range b.Items {
		if it.Err != nil {
			out = append(out, Rejection{Index: it.Index, ID: it.ID, Code: it.Err.Code, Message: it.Err.Message})
		}
	}
	return out
}

// DecodeOptions tunes Decode.
type DecodeOptions struct {
	// AssignID, when set, gives an id to elements that have none (for
	// example cm_ ids for commands Claude posts to /lip/send). When nil a
	// missing id is a bad_envelope.
	AssignID func() string
}

// Decode reads a frame or request body holding one envelope or a batch (a
// JSON array, spec §2) and validates every element (Parse + Validate).
//
// The returned *Error rejects the input as a whole: larger than
// MaxBatchBytes, a batch of more than MaxBatchLen envelopes, not JSON, or
// neither an object nor an array. Otherwise every element is reported alone
// in Batch.Items; an invalid element never rejects its neighbours.
func Decode(b []byte) (Batch, *Error) {
	return DecodeWith(b, DecodeOptions{})
}

// DecodeWith is Decode with options.
func DecodeWith(b []byte, opts DecodeOptions) (Batch, *Error) {
	if len(b) > MaxBatchBytes {
		return Batch{}, Errorf(CodeTooLarge, "the body is %d bytes; one envelope may be at most %d bytes and a batch at most %d bytes", len(b), MaxEnvelopeBytes, MaxBatchBytes)
	}
	trimmed := bytes.TrimLeft(b, " \t\r\n")
	if len(trimmed) == 0 {
		return Batch{}, Errorf(CodeBadEnvelope, "the body is empty; send one envelope (a JSON object) or a batch (a JSON array of envelopes)")
	}
	switch trimmed[0] {
	case '{':
		it := decodeElement(0, b, opts, false)
		return Batch{Items: []Item{it}}, nil
	case '[':
		return decodeArray(b, opts)
	default:
		return Batch{}, Errorf(CodeBadEnvelope, "the body must be one envelope (a JSON object) or a batch (a JSON array of envelopes)")
	}
}

func decodeArray(b []byte, opts DecodeOptions) (Batch, *Error) {
	if !utf8.Valid(b) {
		return Batch{}, Errorf(CodeBadEnvelope, "the batch is not valid UTF-8")
	}
	if !json.Valid(b) {
		return Batch{}, Errorf(CodeBadEnvelope, "the batch is not valid JSON: %s", syntaxError(b))
	}
	out := Batch{IsBatch: true}
	i := skipWS(b, 0) + 1 // after '['
	for n := 0; ; n++ {
		i = skipWS(b, i)
		if b[i] == ']' {
			break
		}
		if n >= MaxBatchLen {
			return Batch{}, Errorf(CodeTooLarge, "a batch may hold at most %d envelopes; split it", MaxBatchLen)
		}
		end := skipValue(b, i)
		out.Items = append(out.Items, decodeElement(n, b[i:end], opts, true))
		i = skipWS(b, end)
		if b[i] == ',' {
			i++
		}
	}
	return out, nil
}

func decodeElement(i int, raw []byte, opts DecodeOptions, inBatch bool) Item {
	it := Item{Index: i}
	if len(raw) > MaxEnvelopeBytes {
		it.Err = Errorf(CodeTooLarge, "the envelope is %d bytes; one envelope may be at most %d bytes", len(raw), MaxEnvelopeBytes)
		if inBatch {
			it.Err = prefixIndex(i, it.Err)
		}
		return it
	}
	var env Envelope
	var err *Error
	if inBatch {
		env, err = parseValid(raw) // the whole batch was checked
	} else {
		env, err = Parse(raw)
	}
	it.ID = env.ID
	if err == nil && env.ID == "" && opts.AssignID != nil {
		env.ID = opts.AssignID()
		it.ID = env.ID
	}
	if err == nil {
		err = Validate(&env)
	}
	if err != nil {
		if inBatch {
			err = prefixIndex(i, err)
		}
		it.Err = err
		return it
	}
	it.Envelope = &env
	return it
}

func prefixIndex(i int, e *Error) *Error {
	return &Error{Code: e.Code, Message: "envelope " + strconv.Itoa(i) + ": " + e.Message}
}

// Parse reads one envelope's structure: a JSON object whose known fields
// have the right JSON types. Unknown top-level fields are kept in Extra, in
// order. Duplicate top-level keys, invalid UTF-8 and trailing data are
// rejected. Parse does not check values (see Validate); an absent "data"
// becomes {}. On error the returned envelope still carries what was read
// (notably ID), for error answers.
func Parse(b []byte) (Envelope, *Error) {
	if !utf8.Valid(b) {
		return Envelope{}, Errorf(CodeBadEnvelope, "the envelope is not valid UTF-8")
	}
	if !json.Valid(b) {
		return Envelope{}, Errorf(CodeBadEnvelope, "the envelope is not valid JSON: %s", syntaxError(b))
	}
	return parseValid(b)
}

// parseValid is Parse for input already known to be valid UTF-8 and JSON.
func parseValid(b []byte) (Envelope, *Error) {
	var env Envelope
	i := skipWS(b, 0)
	if b[i] != '{' {
		return env, Errorf(CodeBadEnvelope, "an envelope must be a JSON object")
	}
	i++
	var seen uint16 // known fields, by bit
	var extraNames map[string]bool
	var hasLIP, ok0 bool
	var firstErr *Error
	fail := func(e *Error) {
		if firstErr == nil {
			firstErr = e
		}
	}
	for {
		i = skipWS(b, i)
		if b[i] == '}' {
			break
		}
		kend := skipString(b, i)
		key, _ := jsonString(b[i:kend])
		i = skipWS(b, kend) + 1 // ':'
		i = skipWS(b, i)
		vend := skipValue(b, i)
		raw := json.RawMessage(b[i:vend])
		i = skipWS(b, vend)
		if b[i] == ',' {
			i++
		}
		if bit, known := knownFields[key]; known {
			if seen&bit != 0 {
				fail(Errorf(CodeBadEnvelope, "field %q appears twice", key))
				continue
			}
			seen |= bit
		} else {
			if extraNames == nil {
				extraNames = make(map[string]bool, 4)
			}
			if extraNames[key] {
				fail(Errorf(CodeBadEnvelope, "field %q appears twice", key))
				continue
			}
			extraNames[key] = true
		}
		switch key {
		case "lip":
			n, ok := jsonInt(raw)
			if !ok {
				fail(Errorf(CodeBadEnvelope, `"lip" must be the integer %d, got %s`, Version, clip(raw)))
				continue
			}
			hasLIP = true
			if n > math.MaxInt32 || n < math.MinInt32 {
				n = math.MaxInt32
			}
			env.LIP = int(n)
		case "id":
			env.ID, ok0 = jsonString(raw)
			if !ok0 {
				fail(Errorf(CodeBadEnvelope, `"id" must be a string`))
			}
		case "ts":
			env.TS, ok0 = jsonInt(raw)
			if !ok0 {
				fail(Errorf(CodeBadEnvelope, `"ts" must be whole milliseconds since the Unix epoch, got %s`, clip(raw)))
			}
		case "sts":
			// Host-added; a sender's value is dropped at stamping. Keep it
			// only if it is well-formed.
			env.STS, _ = jsonInt(raw)
		case "dir":
			s, ok := jsonString(raw)
			if !ok {
				fail(Errorf(CodeBadEnvelope, `"dir" must be "up" or "down"`))
				continue
			}
			env.Dir = Dir(s)
		case "from":
			s, ok := jsonString(raw)
			if !ok {
				fail(Errorf(CodeBadEnvelope, `"from" must be a string (the host overwrites it)`))
				continue
			}
			env.From = s
		case "type":
			env.Type, ok0 = jsonString(raw)
			if !ok0 {
				fail(Errorf(CodeBadEnvelope, `"type" must be a string like "graph.node.select"`))
			}
		case "data":
			if isNull(raw) {
				continue // absent
			}
			if raw[0] != '{' {
				fail(Errorf(CodeBadEnvelope, `"data" must be a JSON object, got %s`, clip(raw)))
				continue
			}
			env.Data = compact(raw)
		case "re":
			env.Re, ok0 = jsonString(raw)
			if !ok0 {
				fail(Errorf(CodeBadEnvelope, `"re" must be an envelope id (a string)`))
			}
		case "ttl":
			env.TTL, ok0 = jsonInt(raw)
			if !ok0 || env.TTL < 1 || env.TTL > MaxTTL {
				fail(Errorf(CodeBadEnvelope, `"ttl" must be whole milliseconds from 1 to %d, got %s`, MaxTTL, clip(raw)))
			}
		case "win":
			env.Win, ok0 = jsonString(raw)
			if !ok0 {
				fail(Errorf(CodeBadEnvelope, `"win" must be a window id (a string like "w1")`))
			}
		case "seq":
			// Host-added; senders cannot set it (stamping clears it).
			n, ok := jsonInt(raw)
			if ok && n > 0 {
				env.Seq = uint64(n)
			}
		default:
			env.Extra = append(env.Extra, Field{Name: key, Value: compact(raw)})
		}
	}
	if firstErr != nil {
		return env, firstErr
	}
	if !hasLIP {
		return env, Errorf(CodeBadEnvelope, `"lip" is missing; every envelope starts with "lip": %d`, Version)
	}
	if env.Data == nil {
		env.Data = json.RawMessage(`{}`)
	}
	return env, nil
}

// knownFields are the envelope fields of §2, by bit.
var knownFields = map[string]uint16{
	"lip": 1 << 0, "id": 1 << 1, "ts": 1 << 2, "sts": 1 << 3, "dir": 1 << 4, "from": 1 << 5,
	"type": 1 << 6, "data": 1 << 7, "re": 1 << 8, "ttl": 1 << 9, "win": 1 << 10, "seq": 1 << 11,
}

// syntaxError describes why b is not valid JSON.
func syntaxError(b []byte) string {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err.Error()
	}
	return "invalid JSON"
}

// Validate checks an envelope's values against spec §2: lip equals Version
// (else unsupported_version), id, type, dir, re, win, ttl and ts rules, data
// an object, and the encoded size. It does not check who sent it (see
// MayEmit) or the data shape of core types (the schemas do; tests check
// every message Lets sends against them).
func Validate(e *Envelope) *Error {
	if e.LIP != Version {
		return Errorf(CodeUnsupportedVersion, "lip %d is not supported; this host speaks lip %d", e.LIP, Version)
	}
	if e.ID == "" {
		return Errorf(CodeBadEnvelope, `"id" is missing; give every envelope an id of 1-%d characters [A-Za-z0-9_.:-]`, MaxIDLen)
	}
	if !ValidID(e.ID) {
		return Errorf(CodeBadEnvelope, `"id" %s must be 1-%d characters of letters, digits, _ . : or -`, quoteClip(e.ID), MaxIDLen)
	}
	if e.Type == "" {
		return Errorf(CodeBadEnvelope, `"type" is missing; use a dotted lowercase type like "graph.node.select"`)
	}
	if !ValidType(e.Type) {
		return Errorf(CodeBadEnvelope, `"type" %s must be lowercase words joined by dots, like "graph.node.select" (pattern ^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)+$, at most %d characters)`, quoteClip(e.Type), MaxTypeLen)
	}
	if e.Dir != "" && e.Dir != Up && e.Dir != Down {
		return Errorf(CodeBadEnvelope, `"dir" must be "up" or "down", got %s`, quoteClip(string(e.Dir)))
	}
	if e.TS < 0 {
		return Errorf(CodeBadEnvelope, `"ts" must be milliseconds since the Unix epoch (not negative)`)
	}
	if e.Re != "" && !ValidID(e.Re) {
		return Errorf(CodeBadEnvelope, `"re" %s must be an envelope id (1-%d characters [A-Za-z0-9_.:-])`, quoteClip(e.Re), MaxIDLen)
	}
	if e.Win != "" && !ValidWindow(e.Win) {
		return Errorf(CodeBadEnvelope, `"win" %s must be a window id like "w1" (1-64 characters [A-Za-z0-9_-])`, quoteClip(e.Win))
	}
	if e.TTL != 0 && (e.TTL < 1 || e.TTL > MaxTTL) {
		return Errorf(CodeBadEnvelope, `"ttl" must be whole milliseconds from 1 to %d, got %d`, MaxTTL, e.TTL)
	}
	if len(e.Data) > 0 && e.Data[0] != '{' {
		return Errorf(CodeBadEnvelope, `"data" must be a JSON object`)
	}
	if n := e.EncodedLen(); n > MaxEnvelopeBytes {
		return Errorf(CodeTooLarge, "the envelope is %d bytes encoded; at most %d are allowed", n, MaxEnvelopeBytes)
	}
	return nil
}

// EncodedLen is the length of the envelope's encoding (AppendJSON).
func (e *Envelope) EncodedLen() int {
	n := 96 + len(e.ID) + len(e.Type) + len(e.From) + len(e.Re) + len(e.Win) + len(e.DataOrEmpty())
	for _, f := range e.Extra {
		n += len(f.Name) + len(f.Value) + 4
	}
	return len(e.AppendJSON(make([]byte, 0, n)))
}

// ValidID reports whether s is a valid envelope id (§2).
func ValidID(s string) bool {
	if len(s) < 1 || len(s) > MaxIDLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(isAlnum(c) || c == '_' || c == '.' || c == ':' || c == '-') {
			return false
		}
	}
	return true
}

// ValidWindow reports whether s is a valid window id (1–64 of [A-Za-z0-9_-]).
func ValidWindow(s string) bool {
	if len(s) < 1 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(isAlnum(c) || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// ValidType reports whether s matches ^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)+$
// and is at most MaxTypeLen characters.
func ValidType(s string) bool {
	if len(s) == 0 || len(s) > MaxTypeLen {
		return false
	}
	dots := 0
	start := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case start:
			if c < 'a' || c > 'z' {
				return false
			}
			start = false
		case c == '.':
			dots++
			start = true
		case (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-':
		default:
			return false
		}
	}
	return dots > 0 && !start
}

func isAlnum(c byte) bool {
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

// jsonInt reads an integral JSON number (1, 1.0 and 1e3 are integers; 1.5
// is not) that fits in an int64.
func jsonInt(raw json.RawMessage) (int64, bool) {
	if len(raw) == 0 || !(raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9')) {
		return 0, false
	}
	s := string(raw)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != math.Trunc(f) || f > math.MaxInt64/2 || f < math.MinInt64/2 {
		return 0, false
	}
	return int64(f), true
}

func jsonString(raw json.RawMessage) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1]), true // valid JSON: no escapes to undo
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}

func isNull(raw json.RawMessage) bool { return string(raw) == "null" }

func compact(raw json.RawMessage) json.RawMessage {
	if !bytes.ContainsAny(raw, " \t\r\n") {
		return append(json.RawMessage(nil), raw...) // already compact; copy so the input may be reused
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return append(json.RawMessage(nil), raw...)
	}
	return buf.Bytes()
}

// clip renders a raw value for a message, at most 40 bytes.
func clip(raw json.RawMessage) string { return textsafe.ClipBytes(string(raw), 40) }

func quoteClip(s string) string {
	return strconv.Quote(textsafe.ClipBytes(s, 40))
}
