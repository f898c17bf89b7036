package chatdriver

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzDecodeChatMessage: whatever the shell page sends as chat.message
// data, the decoder never panics and keeps only bounded text and absolute
// attachment paths.
func FuzzDecodeChatMessage(f *testing.F) {
	f.Add([]byte(`{"text":"hi"}`))
	f.Add([]byte(`{"text":"look","attachments":[{"path":"/home/a/.lets/uploads/chat/a.png","mime":"image/png"},{"path":"../x"}]}`))
	f.Add([]byte(`{"text":5}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := decodeChatMessage(b)
		if err != nil {
			return
		}
		if len(m.Text) > maxMessageText || !utf8.ValidString(m.Text) || len(m.Attachments) > 10 {
			t.Fatalf("unbounded message: %d bytes, %d attachments", len(m.Text), len(m.Attachments))
		}
		for _, a := range m.Attachments {
			if !strings.HasPrefix(a.Path, "/") || len(a.Path) > maxPathLen {
				t.Fatalf("kept attachment %q", a.Path)
			}
		}
	})
}

// FuzzSummary: a tool input from claude always gives one short line.
func FuzzSummary(f *testing.F) {
	f.Add("Bash", []byte(`{"command":"ls -la"}`))
	f.Add("Edit", []byte(`{"file_path":"/tmp/x"}`))
	f.Add("WebFetch", []byte(`{"url":"https://example.org","prompt":"`+strings.Repeat("y", 300)+`"}`))
	f.Add("Bash", []byte(`not json`))
	f.Fuzz(func(t *testing.T, tool string, in []byte) {
		s := Summary(tool, json.RawMessage(in))
		if strings.ContainsAny(s, "\n\r\t") {
			t.Fatalf("summary has line breaks: %q", s)
		}
		switch tool {
		case "Bash", "Edit", "Write", "MultiEdit", "Read", "NotebookEdit", "WebFetch", "WebSearch", "Glob", "Grep":
			return // the command, path, address or pattern itself, whole (the host cuts it to fit the card)
		}
		if utf8.RuneCountInString(s) > summaryMax {
			t.Fatalf("summary of %d runes", utf8.RuneCountInString(s))
		}
	})
}
