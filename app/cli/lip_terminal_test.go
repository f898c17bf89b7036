package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// #23 (low): what a unique sends is printed by `lets listen` as one line a
// terminal cannot split or reorder: NEL (U+0085), the line separators and
// bidi controls inside JSON strings are written as \u escapes, and the
// line still decodes to the same value.
func TestListenPrintsUniqueDataAsOneSafeLine(t *testing.T) {
	raw := json.RawMessage("{\"text\": \"a\u0085FAKE\\tline\u2028b\u202Ec\u009b2J\"}")
	got := compactJSON(raw)
	for _, bad := range []string{"\u0085", "\u2028", "\u202E", "\u009b", "\n"} {
		if strings.Contains(got, bad) {
			t.Fatalf("%q holds %q raw", got, bad)
		}
	}
	var back, want any
	if err := json.Unmarshal([]byte(got), &back); err != nil {
		t.Fatalf("%q is not JSON: %v", got, err)
	}
	_ = json.Unmarshal(raw, &want)
	if b1, _ := json.Marshal(back); string(b1) != func() string { b2, _ := json.Marshal(want); return string(b2) }() {
		t.Fatalf("value changed: %s", got)
	}
	if got := compactJSON(json.RawMessage("not json \u0085\x1b")); strings.ContainsAny(got, "\u0085\x1b") {
		t.Fatalf("bad JSON printed raw: %q", got)
	}
}
