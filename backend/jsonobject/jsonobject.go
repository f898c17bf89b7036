// Package jsonobject reads and writes JSON objects with their members in
// document order, which Go maps lose: a settings file of the person's
// (claudesetup) must keep its order when Lets edits it, and a saved
// session's data keeps its "session" key first (sessions). Values stay
// raw JSON; what to do with them is the caller's.
package jsonobject

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// ErrNotObject means the text is JSON but not an object ([], null, "x").
var ErrNotObject = errors.New("not a JSON object")

// TrailingError means more text follows the object. Err is the decoder's
// error reading that text (a *json.SyntaxError, for instance), or nil when
// it is more JSON.
type TrailingError struct{ Err error }

func (e *TrailingError) Error() string {
	if e.Err != nil {
		return "text after the JSON object: " + e.Err.Error()
	}
	return "text after the JSON object"
}

func (e *TrailingError) Unwrap() error { return e.Err }

// DuplicateKeyError means a key stands twice in an object where the
// caller needs it once.
type DuplicateKeyError struct{ Key string }

func (e *DuplicateKeyError) Error() string { return fmt.Sprintf("%q appears twice", e.Key) }

// Member is one key of an object and its value as written.
type Member struct {
	Key   string
	Value json.RawMessage
}

// Object is a JSON object's members in document order; a repeated key
// stays repeated until Unique.
type Object []Member

// Parse reads exactly one JSON object. Each value is kept as written;
// every member is kept, in order, repeated keys included. Text that is
// not an object gives ErrNotObject, more after it a *TrailingError, and
// broken JSON the decoder's error (a *json.SyntaxError or
// io.ErrUnexpectedEOF, wrapped with the key for a value). An empty object
// is a non-nil, empty Object.
func Parse(data []byte) (Object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, ErrNotObject
	}
	o := Object{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok { // the decoder reports a non-string key itself; kept for safety
			return nil, ErrNotObject
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("value of %q: %w", key, err)
		}
		o = append(o, Member{Key: key, Value: v})
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &TrailingError{Err: err}
	}
	return o, nil
}

// Index is the position of key's member, -1 when there is none, and a
// *DuplicateKeyError when key stands more than once.
func (o Object) Index(key string) (int, error) {
	at := -1
	for i, m := range o {
		if m.Key == key {
			if at >= 0 {
				return 0, &DuplicateKeyError{Key: key}
			}
			at = i
		}
	}
	return at, nil
}

// Get is the value of key's first member.
func (o Object) Get(key string) (json.RawMessage, bool) {
	for _, m := range o {
		if m.Key == key {
			return m.Value, true
		}
	}
	return nil, false
}

// Set returns a copy of o with key's first member holding v, or with
// key appended when o has no such member.
func (o Object) Set(key string, v json.RawMessage) Object {
	out := append(Object(nil), o...)
	for i, m := range out {
		if m.Key == key {
			out[i].Value = v
			return out
		}
	}
	return append(out, Member{Key: key, Value: v})
}

// Without returns a copy of o without any member called key.
func (o Object) Without(key string) Object {
	out := make(Object, 0, len(o))
	for _, m := range o {
		if m.Key != key {
			out = append(out, m)
		}
	}
	return out
}

// Unique returns o with each key once, at its first position and with
// its last value: the object encoding/json would read.
func (o Object) Unique() Object {
	out := make(Object, 0, len(o))
	index := make(map[string]int, len(o))
	for _, m := range o {
		if i, ok := index[m.Key]; ok {
			out[i].Value = m.Value
			continue
		}
		index[m.Key] = len(out)
		out = append(out, m)
	}
	return out
}

// Encode writes o in order as compact JSON around the values as they are.
func (o Object) Encode() []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		key, _ := json.Marshal(m.Key) // a string always encodes
		b.Write(key)
		b.WriteByte(':')
		b.Write(m.Value)
	}
	b.WriteByte('}')
	return b.Bytes()
}
