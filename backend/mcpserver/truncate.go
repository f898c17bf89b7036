package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// stringLimits are the per-string caps tried, longest first, when a JSON
// value has to shrink to fit a tool result.
func stringLimits() []int { return []int{8000, 4000, 2000, 1000, 500, 200, 100, 40, 0} }

// maxDepth bounds the walk; the host's envelopes are far shallower.
const maxDepth = 64

// errTooDeep is a JSON value nested deeper than maxDepth.
var errTooDeep = errors.New("JSON nested too deeply")

// truncatedMarker is appended where a string was cut; n is the number of
// characters left out.
func truncatedMarker(n int) string { return fmt.Sprintf("…[truncated %d chars]", n) }

// decodeJSON decodes one JSON value, keeping numbers as written.
func decodeJSON(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("trailing data after the JSON value")
	}
	if depth(v, 0) > maxDepth {
		return nil, errTooDeep
	}
	return v, nil
}

func depth(v any, d int) int {
	if d > maxDepth {
		return d
	}
	max := d
	switch t := v.(type) {
	case map[string]any:
		for _, e := range t {
			if n := depth(e, d+1); n > max {
				max = n
			}
		}
	case []any:
		for _, e := range t {
			if n := depth(e, d+1); n > max {
				max = n
			}
		}
	}
	return max
}

// encodeJSON encodes compactly, without HTML escaping (it would make text
// longer for nothing).
func encodeJSON(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Only values from decodeJSON and plain structs come here.
		return []byte(`null`)
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

// truncateStrings returns a copy of v (a decoded JSON value) in which every
// string, and every object key, longer than limit characters is cut to
// limit characters plus a marker saying how many were left out. It reports
// how many strings it cut. v is not modified.
func truncateStrings(v any, limit int) (any, int) {
	switch t := v.(type) {
	case string:
		return cutString(t, limit)
	case map[string]any:
		out := make(map[string]any, len(t))
		cut := 0
		for k, e := range t {
			nk, kc := cutString(k, limit)
			ne, ec := truncateStrings(e, limit)
			if _, dup := out[nk.(string)]; dup {
				// Two long keys with the same start: keep both.
				nk = nk.(string) + fmt.Sprintf("#%d", len(out))
			}
			out[nk.(string)] = ne
			cut += kc + ec
		}
		return out, cut
	case []any:
		out := make([]any, len(t))
		cut := 0
		for i, e := range t {
			ne, ec := truncateStrings(e, limit)
			out[i] = ne
			cut += ec
		}
		return out, cut
	}
	return v, 0
}

// cutString cuts s to limit characters (runes) plus a marker.
func cutString(s string, limit int) (any, int) {
	n := utf8.RuneCountInString(s)
	if n <= limit {
		return s, 0
	}
	i, kept := 0, 0
	for kept < limit {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		kept++
	}
	return s[:i] + truncatedMarker(n-limit), 1
}

// chars is the length of b in characters (runes), the unit of the cap.
func chars(b []byte) int { return utf8.RuneCount(b) }

// fitJSON shrinks raw (one JSON value) to at most max characters by cutting long
// strings, trying the longest per-string cap that fits. It returns the
// value, whether anything was cut, and false when even the shortest cap does
// not fit (then the value is returned as short as it got).
func fitJSON(raw []byte, max int) (json.RawMessage, int, bool) {
	if chars(raw) <= max {
		return raw, 0, true
	}
	v, err := decodeJSON(raw)
	if err != nil {
		// Not JSON we can walk: keep it as one (cut) string.
		s, _ := cutString(string(raw), max/2)
		out := encodeJSON(s)
		return out, 1, chars(out) <= max
	}
	return fitValue(v, max)
}

// fitValue is fitJSON for a decoded value.
func fitValue(v any, max int) (json.RawMessage, int, bool) {
	var out []byte
	cut := 0
	for _, limit := range stringLimits() {
		nv, n := truncateStrings(v, limit)
		out, cut = encodeJSON(nv), n
		if chars(out) <= max {
			return out, cut, true
		}
	}
	return out, cut, false
}
