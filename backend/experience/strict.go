package experience

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// The reference loaders do not run JSON Schema; they walk the decoded
// document and check exact key sets, real integers and non-blank strings
// (experiences spec §2.2, §3.2). This file is that walker.

// MaxManifestBytes bounds a manifest file. The packaged Show is about
// 64 KB; the largest manifest the schema allows (4096 cues) stays well
// below this.
const MaxManifestBytes = 8 << 20

// ErrInvalidManifest wraps every validation failure, for errors.Is.
var ErrInvalidManifest = errors.New("invalid experience manifest")

// invalid returns a validation error at path.
func invalid(path, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrInvalidManifest, path, fmt.Sprintf(format, args...))
}

// decodeDocument parses exactly one JSON value, keeping numbers as text so
// that 1 and 1.0 stay distinguishable.
func decodeDocument(data []byte, what string) (any, error) {
	if len(data) > MaxManifestBytes {
		return nil, fmt.Errorf("%w: the %s is %d bytes; at most %d are accepted", ErrInvalidManifest, what, len(data), MaxManifestBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("%w: the %s is not valid JSON: %v", ErrInvalidManifest, what, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: the %s has data after its JSON value", ErrInvalidManifest, what)
	}
	return v, nil
}

// object checks that v is an object with exactly the given keys.
func object(v any, path string, keys ...string) (map[string]any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, invalid(path, "must be an object, got %s", kindOf(v))
	}
	var missing, unknown []string
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			missing = append(missing, k)
		}
	}
	for k := range m {
		if !slices.Contains(keys, k) {
			unknown = append(unknown, strconv.Quote(k))
		}
	}
	if len(missing) > 0 {
		return nil, invalid(path, "missing key(s) %s (every key is required; write null where a value may be absent)", strings.Join(missing, ", "))
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return nil, invalid(path, "unknown key(s) %s; allowed keys are %s", strings.Join(unknown, ", "), strings.Join(keys, ", "))
	}
	return m, nil
}

// array checks that v is an array of min…max items.
func array(v any, path string, min, max int) ([]any, error) {
	a, ok := v.([]any)
	if !ok {
		return nil, invalid(path, "must be an array, got %s", kindOf(v))
	}
	if len(a) < min || len(a) > max {
		return nil, invalid(path, "must hold %d to %d items, has %d", min, max, len(a))
	}
	return a, nil
}

// text checks that v is a string with a non-whitespace character.
func text(v any, path string) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", invalid(path, "must be a non-empty string, got %s", kindOf(v))
	}
	if strings.TrimFunc(s, isSpace) == "" {
		return "", invalid(path, "must be a non-empty string with visible text")
	}
	return s, nil
}

// nullableText is text or null ("" for null).
func nullableText(v any, path string) (string, bool, error) {
	if v == nil {
		return "", false, nil
	}
	s, err := text(v, path)
	return s, true, err
}

// isSpace is Python's str.isspace set: Unicode whitespace plus the
// separators U+001C…U+001F.
func isSpace(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f) }

// integer checks that v is a JSON integer (no fraction, no exponent, not a
// boolean) within lo…hi.
func integer(v any, path string, lo, hi int64) (int64, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, invalid(path, "must be an integer, got %s", kindOf(v))
	}
	if strings.ContainsAny(string(n), ".eE") {
		return 0, invalid(path, "must be an integer, got %s", n)
	}
	i, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil || i < lo || i > hi {
		return 0, invalid(path, "must be an integer from %d to %d, got %s", lo, hi, n)
	}
	return i, nil
}

// nullableInteger is integer or null (ok false for null).
func nullableInteger(v any, path string, lo, hi int64) (int64, bool, error) {
	if v == nil {
		return 0, false, nil
	}
	i, err := integer(v, path, lo, hi)
	return i, true, err
}

func boolean(v any, path string) (bool, error) {
	b, ok := v.(bool)
	if !ok {
		return false, invalid(path, "must be true or false, got %s", kindOf(v))
	}
	return b, nil
}

// constant checks that v is the string want.
func constant(v any, path, want string) error {
	if s, ok := v.(string); !ok || s != want {
		return invalid(path, "must be %q", want)
	}
	return nil
}

// kindOf names a decoded JSON value's type for error messages.
func kindOf(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "the number " + string(x)
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// maxInt is the integer bound for values that only need to be positive.
const maxInt = math.MaxInt32
