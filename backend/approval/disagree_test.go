package approval_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/lets-app/lets/backend/approval"
)

// TestSummaryWhereTheCopiesDisagreed covers exactly the inputs on which
// the hook's Summary (backend/claudehook) and the chat's
// (backend/chatdriver) gave different lines, with the one answer chosen
// (see Summary's doc comment).
func TestSummaryWhereTheCopiesDisagreed(t *testing.T) {
	long := strings.Repeat("a", 130)
	for _, c := range []struct{ name, tool, in, want string }{
		// Read and NotebookEdit: the hook tried file_path, then
		// notebook_path, for every file tool; the chat only one of them.
		{"Read names a notebook", "Read", `{"notebook_path":"/n.ipynb"}`, "/n.ipynb"},
		{"NotebookEdit names a file", "NotebookEdit", `{"file_path":"/n.ipynb"}`, "/n.ipynb"},
		{"NotebookEdit names both", "NotebookEdit", `{"file_path":"/a.ipynb","notebook_path":"/b.ipynb"}`, "/a.ipynb"},
		// A field's value: the chat collapsed whitespace, the hook kept it.
		{"command on two lines", "Bash", `{"command":"go test\n ./..."}`, "go test ./..."},
		{"blank command", "Bash", `{"command":"  \n "}`, `{"command":"  \n "}`},
		// Length: the chat never cut a field's value, the hook at 1000.
		{"long command", "Bash", `{"command":"` + strings.Repeat("y", 1001) + `"}`, strings.Repeat("y", 999) + "…"},
		// The fallback: the hook compacted the JSON, the chat squeezed the
		// raw text's whitespace (and kept text that is not JSON).
		{"spaced JSON", "Odd", `{ "a" : 1 }`, `{"a":1}`},
		{"spaced string", "Odd", `{"a":"x  y"}`, `{"a":"x  y"}`},
		{"not JSON", "Odd", `not json`, ``},
		{"long JSON", "Odd", `{"a":"` + long + `"}`, `{"a":"` + strings.Repeat("a", approval.SummaryJSONRunes-7) + "…"},
		// Invalid UTF-8: the hook replaced it before cutting, the chat
		// passed it on.
		{"invalid UTF-8 in a path", "Read", "{\"file_path\":\"/a\xff\"}", "/a\uFFFD"},
	} {
		if got := approval.Summary(c.tool, json.RawMessage(c.in)); got != c.want {
			t.Errorf("%s: Summary(%s, %q) = %q, want %q", c.name, c.tool, c.in, got, c.want)
		}
	}
}

func TestRequestClippedAndWait(t *testing.T) {
	r := approval.Request{Window: "w", Tool: " Ba\nsh ", Summary: strings.Repeat("s", 300), About: "a\tb", TimeoutMs: 10}
	got := r.Clipped()
	if got.Tool != "Ba sh" || got.About != "a b" || len([]rune(got.Summary)) != approval.SummaryMax || got.Window != "w" {
		t.Fatalf("clipped %+v", got)
	}
	for _, c := range []struct {
		ms   int64
		want string
	}{{0, "2m0s"}, {-5, "2m0s"}, {10, "1s"}, {30_000, "30s"}, {3_600_000, "10m0s"}} {
		if w := (approval.Request{TimeoutMs: c.ms}).Wait().String(); w != c.want {
			t.Errorf("Wait(%d ms) = %s, want %s", c.ms, w, c.want)
		}
	}
}

// TestRequestJSON: the JSON names of POST /lip/approve stay as the host
// and its callers have them.
func TestRequestJSON(t *testing.T) {
	b, _ := json.Marshal(approval.Request{Window: "w", Tool: "t", Summary: "s", About: "a", TimeoutMs: 5})
	if string(b) != `{"window":"w","tool":"t","summary":"s","about":"a","timeoutMs":5}` {
		t.Errorf("request %s", b)
	}
	b, _ = json.Marshal(approval.Answer{Choice: "allow", Reason: "answered", Ms: 3})
	if string(b) != `{"choice":"allow","reason":"answered","ms":3}` {
		t.Errorf("answer %s", b)
	}
}
