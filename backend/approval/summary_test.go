package approval_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/lets-app/lets/backend/approval"
	"github.com/lets-app/lets/backend/textsafe"
)

// The tables of the hook's former Summary and About (backend/claudehook),
// moved here unchanged.

func TestSummaryOfTheHook(t *testing.T) {
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
		if got := approval.Summary(c.tool, json.RawMessage(c.input)); got != c.want {
			t.Errorf("Summary(%s, %s) = %q, want %q", c.tool, c.input, got, c.want)
		}
	}
	got := approval.Summary("Odd", json.RawMessage(long))
	if utf8.RuneCountInString(got) != approval.SummaryJSONRunes || !strings.HasSuffix(got, "…") || !strings.HasPrefix(got, `{"url":"https://example.com/xxx`) {
		t.Errorf("long summary %q", got)
	}
}

// TestAbout: Claude's own words for a command or a helper, on one line
// and cut short; nothing for tools that carry none.
func TestAboutOfTheHook(t *testing.T) {
	for _, c := range []struct{ tool, input, want string }{
		{"Bash", `{"command":"npm test","description":"Run the tests"}`, "Run the tests"},
		{"Bash", `{"command":"ls","description":"  List the\n files  "}`, "List the files"},
		{"Task", `{"description":"Explore the code","prompt":"…"}`, "Explore the code"},
		{"Bash", `{"command":"ls"}`, ""},
		{"Edit", `{"file_path":"/x","description":"sneaky"}`, ""},
		{"Bash", `not json`, ""},
	} {
		if got := approval.About(c.tool, json.RawMessage(c.input)); got != c.want {
			t.Errorf("About(%s, %s) = %q, want %q", c.tool, c.input, got, c.want)
		}
	}
	long := approval.About("Bash", json.RawMessage(`{"description":"`+strings.Repeat("z", 300)+`"}`))
	if utf8.RuneCountInString(long) != approval.AboutRunes || !strings.HasSuffix(long, "…") {
		t.Errorf("long about %q", long)
	}
}

// The table of the chat driver's former Summary (backend/chatdriver),
// moved here unchanged.

func TestSummaryOfTheChat(t *testing.T) {
	long := `{"glob":"` + strings.Repeat("x", 200) + `"}`
	for _, c := range []struct{ tool, in, want string }{
		{"Bash", `{"command":"go test\n ./..."}`, "go test ./..."},
		{"Edit", `{"file_path":"/home/a/notes.md","old_string":"a"}`, "/home/a/notes.md"},
		{"Write", `{"file_path":"/tmp/x","content":"y"}`, "/tmp/x"},
		{"WebFetch", `{"url":"https://example.org"}`, "https://example.org"},
		{"WebSearch", `{"query":"weather\nin Paris"}`, "weather in Paris"},
		{"Grep", `{"pattern":"TODO","path":"/home/a"}`, "TODO"},
		{"Glob", `{"pattern":"**/*.md"}`, "**/*.md"},
		{"Read", `{"file_path":"/home/a/plan.md"}`, "/home/a/plan.md"},
		{"NotebookEdit", `{"notebook_path":"/home/a/n.ipynb"}`, "/home/a/n.ipynb"},
		{"WebFetch", `{"prompt":"no address"}`, `{"prompt":"no address"}`},
		{"Bash", `{"description":"no command"}`, `{"description":"no command"}`},
	} {
		if got := approval.Summary(c.tool, json.RawMessage(c.in)); got != c.want {
			t.Errorf("Summary(%s, %s) = %q, want %q", c.tool, c.in, got, c.want)
		}
	}
	if got := approval.Summary("Grep", json.RawMessage(long)); len([]rune(got)) != approval.SummaryJSONRunes || !strings.HasSuffix(got, "…") {
		t.Errorf("long summary %q", got)
	}
}

// OneLine: the host's clipping of what a card shows (textsafe.OneLine, as
// Request.Clipped applies it).

func TestOneLine(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"  a\n\tb  ", 10, "a b"},
		{"abcdef", 4, "abc…"},
		{"ééééé", 5, "ééééé"},
	} {
		if got := textsafe.OneLine(c.in, c.max); got != c.want {
			t.Errorf("oneLine(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}

// FuzzSummary: a tool input from claude always gives one short line.
func FuzzSummary(f *testing.F) {
	f.Add("Bash", []byte(`{"command":"ls -la"}`))
	f.Add("Edit", []byte(`{"file_path":"/tmp/x"}`))
	f.Add("WebFetch", []byte(`{"url":"https://example.org","prompt":"`+strings.Repeat("y", 300)+`"}`))
	f.Add("Bash", []byte(`not json`))
	f.Fuzz(func(t *testing.T, tool string, in []byte) {
		s := approval.Summary(tool, json.RawMessage(in))
		if strings.ContainsAny(s, "\n\r\t") {
			t.Fatalf("summary has line breaks: %q", s)
		}
		switch tool {
		case "Bash", "Edit", "Write", "MultiEdit", "Read", "NotebookEdit", "WebFetch", "WebSearch", "Glob", "Grep":
			return // the command, path, address or pattern itself, whole (the host cuts it to fit the card)
		}
		if utf8.RuneCountInString(s) > approval.SummaryJSONRunes {
			t.Fatalf("summary of %d runes", utf8.RuneCountInString(s))
		}
	})
}
