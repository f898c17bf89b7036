package claudehook_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/lets-app/lets/backend/claudehook"
	"github.com/lets-app/lets/backend/wire"
)

func TestLabel(t *testing.T) {
	for in, want := range map[string]string{
		"/home/user/project":             "project",
		"/home/user/project/":            "project",
		"/home/u/a/../b":                 "b",
		"relative/dir":                   "dir",
		".":                              ".",
		"/":                              "",
		"":                               "",
		"/x/" + strings.Repeat("ü", 100): strings.Repeat("ü", 63) + "…",
	} {
		if got := claudehook.Label(in); got != want {
			t.Errorf("Label(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSummary(t *testing.T) {
	long := `{"url":"https://example.com/` + strings.Repeat("x", 200) + `"}`
	longCommand := strings.Repeat("y", 1200)
	cases := []struct {
		tool, input, want string
	}{
		{"Bash", `{"command":"touch made-by-bash && exit 3","description":"Touch"}`, "touch made-by-bash && exit 3"},
		{"Edit", `{"file_path":"/home/user/project/main.go","old_string":"a","new_string":"b"}`, "/home/user/project/main.go"},
		{"Write", `{"file_path":"/tmp/x","content":"…"}`, "/tmp/x"},
		{"MultiEdit", `{"file_path":"/tmp/y","edits":[]}`, "/tmp/y"},
		{"NotebookEdit", `{"notebook_path":"/tmp/n.ipynb","new_source":""}`, "/tmp/n.ipynb"},
		{"Read", `{"file_path":"/home/user/project/notes.md"}`, "/home/user/project/notes.md"},
		{"WebFetch", `{"url": "https://example.com",  "prompt":"read"}`, "https://example.com"},
		{"WebSearch", `{"query":"weather in Paris"}`, "weather in Paris"},
		{"Grep", `{"pattern":"TODO","path":"/home/user/project"}`, "TODO"},
		{"Glob", `{"pattern":"**/*.md"}`, "**/*.md"},
		{"WebFetch", `{"prompt":"no address"}`, `{"prompt":"no address"}`},
		{"Bash", `{"command":"` + longCommand + `"}`, strings.Repeat("y", 999) + "…"},
		{"Bash", `{"description":"no command"}`, `{"description":"no command"}`},
		{"mcp__lets__open", ``, ``},
		{"Odd", `not json`, ``},
	}
	for _, c := range cases {
		if got := claudehook.Summary(c.tool, json.RawMessage(c.input)); got != c.want {
			t.Errorf("Summary(%s, %s) = %q, want %q", c.tool, c.input, got, c.want)
		}
	}
	got := claudehook.Summary("Odd", json.RawMessage(long))
	if utf8.RuneCountInString(got) != claudehook.SummaryJSONRunes || !strings.HasSuffix(got, "…") || !strings.HasPrefix(got, `{"url":"https://example.com/xxx`) {
		t.Errorf("long summary %q", got)
	}
}

// TestAbout: Claude's own words for a command or a helper, on one line
// and cut short; nothing for tools that carry none.
func TestAbout(t *testing.T) {
	for _, c := range []struct{ tool, input, want string }{
		{"Bash", `{"command":"npm test","description":"Run the tests"}`, "Run the tests"},
		{"Bash", `{"command":"ls","description":"  List the\n files  "}`, "List the files"},
		{"Task", `{"description":"Explore the code","prompt":"…"}`, "Explore the code"},
		{"Bash", `{"command":"ls"}`, ""},
		{"Edit", `{"file_path":"/x","description":"sneaky"}`, ""},
		{"Bash", `not json`, ""},
	} {
		if got := claudehook.About(c.tool, json.RawMessage(c.input)); got != c.want {
			t.Errorf("About(%s, %s) = %q, want %q", c.tool, c.input, got, c.want)
		}
	}
	long := claudehook.About("Bash", json.RawMessage(`{"description":"`+strings.Repeat("z", 300)+`"}`))
	if utf8.RuneCountInString(long) != claudehook.AboutRunes || !strings.HasSuffix(long, "…") {
		t.Errorf("long about %q", long)
	}
}

func TestDecision(t *testing.T) {
	for _, c := range []struct {
		a     wire.Action
		line  string
		after wire.State
	}{
		{wire.ActionApprove, claudehook.DecisionAllow, wire.StateRunning},
		{wire.ActionReject, claudehook.DecisionDeny, wire.StateRunning},
		{wire.ActionStop, claudehook.DecisionStop, wire.StateCancelled},
	} {
		line, after, ok := claudehook.Decision(c.a)
		if !ok || line != c.line || after != c.after {
			t.Errorf("Decision(%s) = %q %s %v", c.a, line, after, ok)
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(line), &v); err != nil || !strings.HasSuffix(line, "}\n") || strings.Count(line, "\n") != 1 {
			t.Errorf("%q is not one JSON line: %v", line, err)
		}
	}
	if _, _, ok := claudehook.Decision(wire.ActionRetry); ok {
		t.Error("retry answers a permission request")
	}
}

func TestEventsAreKnown(t *testing.T) {
	if len(claudehook.Events()) != 10 {
		t.Fatalf("%v", claudehook.Events())
	}
	for _, e := range claudehook.Events() {
		if !claudehook.KnownEvent(e) {
			t.Errorf("%s unknown", e)
		}
	}
	if claudehook.KnownEvent("prompt") || claudehook.KnownEvent("") {
		t.Error("unknown names accepted")
	}
}
