package chatdriver

import (
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
