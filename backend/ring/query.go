package ring

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/lets-app/lets/backend/lip"
	"github.com/lets-app/lets/backend/textsafe"
)

// ParseListenQuery reads a listen query from URL parameters (GET
// /lip/listen): cursor, wait_ms, max, types (comma-separated, may repeat),
// window, beyond. Absent parameters take their defaults (cursor "claude",
// wait_ms 25000, max 100); other parameters (such as the token t) are
// ignored. Errors are *lip.Error (bad_envelope) naming the parameter.
func ParseListenQuery(v url.Values) (Query, error) {
	q := defaultQuery()
	for _, name := range []string{"cursor", "wait_ms", "max", "window", "beyond"} {
		if len(v[name]) > 1 {
			return Query{}, qerr(name, "is given %d times; give it once", len(v[name]))
		}
	}
	if s, ok := first(v, "cursor"); ok {
		if err := setCursor(&q.Cursor, "cursor", s); err != nil {
			return Query{}, err
		}
	}
	if s, ok := first(v, "beyond"); ok && s != "" {
		if err := setCursor(&q.Beyond, "beyond", s); err != nil {
			return Query{}, err
		}
	}
	if s, ok := first(v, "wait_ms"); ok {
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return Query{}, qerr("wait_ms", "must be whole milliseconds from 0 to %d, got %q", MaxWait.Milliseconds(), clip(s))
		}
		if err := setWait(&q, n); err != nil {
			return Query{}, err
		}
	}
	if s, ok := first(v, "max"); ok {
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return Query{}, qerr("max", "must be a whole number from 1 to %d, got %q", MaxMax, clip(s))
		}
		if err := setMax(&q, n); err != nil {
			return Query{}, err
		}
	}
	var types []string
	for _, s := range v["types"] {
		for _, t := range strings.Split(s, ",") {
			if t = strings.TrimSpace(t); t != "" {
				types = append(types, t)
			}
		}
	}
	if err := setTypes(&q, types); err != nil {
		return Query{}, err
	}
	if s, ok := first(v, "window"); ok && s != "" {
		if !lip.ValidWindow(s) {
			return Query{}, qerr("window", "must be a window id like \"w1\", got %q", clip(s))
		}
		q.Window = s
	}
	return q, nil
}

// ParseListenJSON reads a listen query from a JSON object (the MCP listen
// tool's input, or a POST body): {cursor?, wait_ms?, max?, types?, window?,
// beyond?}; types is an array of strings or one comma-separated string.
// Unknown keys are ignored. Errors are *lip.Error (bad_envelope).
func ParseListenJSON(b []byte) (Query, error) {
	q := defaultQuery()
	if len(bytes.TrimSpace(b)) == 0 {
		return q, nil
	}
	var in struct {
		Cursor *string          `json:"cursor"`
		WaitMS json.RawMessage  `json:"wait_ms"`
		Max    json.RawMessage  `json:"max"`
		Types  *json.RawMessage `json:"types"`
		Window *string          `json:"window"`
		Beyond *string          `json:"beyond"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&in); err != nil {
		return Query{}, &lip.Error{Code: lip.CodeBadEnvelope, Message: "listen: the query must be a JSON object {cursor?, wait_ms?, max?, types?, window?}: " + err.Error()}
	}
	if dec.More() {
		return Query{}, &lip.Error{Code: lip.CodeBadEnvelope, Message: "listen: unexpected data after the query object"}
	}
	if in.Cursor != nil {
		if err := setCursor(&q.Cursor, "cursor", *in.Cursor); err != nil {
			return Query{}, err
		}
	}
	if in.Beyond != nil && *in.Beyond != "" {
		if err := setCursor(&q.Beyond, "beyond", *in.Beyond); err != nil {
			return Query{}, err
		}
	}
	if in.WaitMS != nil && string(in.WaitMS) != "null" {
		n, err := strconv.ParseInt(string(in.WaitMS), 10, 64)
		if err != nil {
			return Query{}, qerr("wait_ms", "must be whole milliseconds from 0 to %d, got %s", MaxWait.Milliseconds(), clip(string(in.WaitMS)))
		}
		if err := setWait(&q, n); err != nil {
			return Query{}, err
		}
	}
	if in.Max != nil && string(in.Max) != "null" {
		n, err := strconv.ParseInt(string(in.Max), 10, 64)
		if err != nil {
			return Query{}, qerr("max", "must be a whole number from 1 to %d, got %s", MaxMax, clip(string(in.Max)))
		}
		if err := setMax(&q, n); err != nil {
			return Query{}, err
		}
	}
	if in.Types != nil && string(*in.Types) != "null" {
		var list []string
		var one string
		switch {
		case json.Unmarshal(*in.Types, &list) == nil:
		case json.Unmarshal(*in.Types, &one) == nil:
			for _, t := range strings.Split(one, ",") {
				if t = strings.TrimSpace(t); t != "" {
					list = append(list, t)
				}
			}
		default:
			return Query{}, qerr("types", "must be an array of types like [\"graph.node.select\"] or a comma-separated string")
		}
		if err := setTypes(&q, list); err != nil {
			return Query{}, err
		}
	}
	if in.Window != nil && *in.Window != "" {
		if !lip.ValidWindow(*in.Window) {
			return Query{}, qerr("window", "must be a window id like \"w1\", got %q", clip(*in.Window))
		}
		q.Window = *in.Window
	}
	return q, nil
}

func defaultQuery() Query {
	return Query{Cursor: CursorClaude, Wait: DefaultWait, Max: DefaultMax}
}

func first(v url.Values, name string) (string, bool) {
	s, ok := v[name]
	if !ok || len(s) == 0 {
		return "", false
	}
	return s[0], true
}

func setCursor(dst *string, field, s string) error {
	if !ValidCursorName(s) {
		return qerr(field, "%q is not a cursor name: use 1-32 characters a-z, 0-9 and -, starting with a letter (e.g. \"claude\")", clip(s))
	}
	*dst = s
	return nil
}

func setWait(q *Query, n int64) error {
	if n < 0 || n > MaxWait.Milliseconds() {
		return qerr("wait_ms", "must be from 0 to %d, got %d", MaxWait.Milliseconds(), n)
	}
	q.Wait = time.Duration(n) * time.Millisecond
	return nil
}

func setMax(q *Query, n int64) error {
	if n < 1 || n > MaxMax {
		return qerr("max", "must be from 1 to %d, got %d", MaxMax, n)
	}
	q.Max = int(n)
	return nil
}

func setTypes(q *Query, types []string) error {
	if len(types) > MaxTypes {
		return qerr("types", "lists %d types; at most %d are allowed", len(types), MaxTypes)
	}
	for _, t := range types {
		if !lip.ValidType(t) {
			return qerr("types", "%q is not a type: use lowercase words joined by dots, like \"graph.node.select\"", clip(t))
		}
	}
	if len(types) > 0 {
		q.Types = types
	}
	return nil
}

func qerr(field, format string, args ...any) *lip.Error {
	e := lip.Errorf(lip.CodeBadEnvelope, format, args...)
	e.Message = "listen: " + field + " " + e.Message
	return e
}

// clip quotes at most 40 bytes of s in an error.
func clip(s string) string { return textsafe.ClipBytes(s, 40) }
