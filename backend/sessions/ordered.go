package sessions

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/lets-app/lets/backend/jsonobject"
)

// maxDepth bounds nesting in documents the store reads.
const maxDepth = 64

// parseObject decodes one JSON object keeping its key order; values stay
// raw (compacted). A repeated key keeps its first position and its last
// value, as encoding/json would read it. Anything after the object is an
// error.
func parseObject(data []byte) (jsonobject.Object, error) {
	o, err := jsonobject.Parse(data)
	if err != nil {
		return nil, err
	}
	for i, m := range o {
		if depth(m.Value) > maxDepth {
			return nil, fmt.Errorf("value of %q is nested deeper than %d", m.Key, maxDepth)
		}
		var c bytes.Buffer
		if err := json.Compact(&c, m.Value); err != nil {
			return nil, err
		}
		o[i].Value = c.Bytes()
	}
	return o.Unique(), nil
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
func encodeObject(members []jsonobject.Member) json.RawMessage {
	return jsonobject.Object(members).Encode()
}
