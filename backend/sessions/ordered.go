package sessions

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// member is one key of a JSON object, in document order.
type member struct {
	Key   string
	Value json.RawMessage
}

// object is a JSON object that keeps its key order (Go maps do not, and
// the spec needs data's session key first).
type object []member

func (o object) get(key string) (json.RawMessage, bool) {
	for _, m := range o {
		if m.Key == key {
			return m.Value, true
		}
	}
	return nil, false
}

// set replaces key's value in place, or appends it.
func (o object) set(key string, v json.RawMessage) object {
	for i, m := range o {
		if m.Key == key {
			out := append(object(nil), o...)
			out[i].Value = v
			return out
		}
	}
	return append(append(object(nil), o...), member{key, v})
}

// without drops every member called key.
func (o object) without(key string) []member {
	out := make([]member, 0, len(o))
	for _, m := range o {
		if m.Key != key {
			out = append(out, m)
		}
	}
	return out
}

// maxDepth bounds nesting in documents the store reads.
const maxDepth = 64

// parseObject decodes one JSON object keeping its key order; values stay
// raw (compacted). A repeated key keeps its first position and its last
// value, as encoding/json would read it. Anything after the object is an
// error.
func parseObject(data []byte) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	var out object
	index := map[string]int{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, errors.New("object key is not a string")
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("value of %q: %w", key, err)
		}
		if depth(v) > maxDepth {
			return nil, fmt.Errorf("value of %q is nested deeper than %d", key, maxDepth)
		}
		var c bytes.Buffer
		if err := json.Compact(&c, v); err != nil {
			return nil, err
		}
		if i, ok := index[key]; ok {
			out[i].Value = c.Bytes()
			continue
		}
		index[key] = len(out)
		out = append(out, member{key, c.Bytes()})
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("text after the JSON object")
	}
	if out == nil {
		out = object{}
	}
	return out, nil
}

// depth is the deepest bracket nesting of a JSON text (strings skipped).
func depth(v []byte) int {
	d, max := 0, 0
	inString, escaped := false, false
	for _, c := range v {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			d++
			if d > max {
				max = d
			}
		case c == '}' || c == ']':
			d--
		}
	}
	return max
}

// encodeObject writes members in order as compact JSON.
func encodeObject(members []member) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.Key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.Value)
	}
	b.WriteByte('}')
	return b.Bytes()
}
