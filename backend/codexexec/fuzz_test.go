package codexexec

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParseLine: any line is an event or a *LineError, never a panic;
// what an event carries to a pad or a terminal is valid UTF-8 and error
// words are one clipped line; folding it into a task never panics.
func FuzzParseLine(f *testing.F) {
	for _, s := range []string{
		`{"type":"thread.started","thread_id":"t"}`,
		`{"type":"turn.started"}`,
		`{"type":"item.started","item":{"id":"i","type":"command_execution","command":"ls"}}`,
		`{"type":"item.completed","item":{"id":"i","type":"agent_message","text":"hi\n\u001b[2J"}}`,
		`{"type":"item.completed","item":{"id":"w","type":"error","message":"a\nb"}}`,
		`{"type":"turn.completed","usage":{"input_tokens":1}}`,
		`{"type":"turn.failed","error":{"message":"boom"}}`,
		`{"type":"error","message":"401"}`,
		`{"type":1}`, `[]`, `null`, "{\"type\":\"\xff\"}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ev, err := ParseLine(b)
		if err != nil {
			var le *LineError
			if !errors.As(err, &le) {
				t.Fatalf("error %T %v, want *LineError", err, err)
			}
			return
		}
		if ev.Type == "" {
			t.Fatal("an event without a type")
		}
		if !utf8.ValidString(ev.Message) || strings.ContainsAny(ev.Message, "\n\r") || utf8.RuneCountInString(ev.Message) > maxWords {
			t.Fatalf("message %q", ev.Message)
		}
		var task Task
		u := task.Apply(ev)
		if !utf8.ValidString(u.Say) || strings.ContainsRune(u.Say, '\x1b') {
			t.Fatalf("say %q", u.Say)
		}
		if u.Failed != "" && u.State != "error" {
			t.Fatalf("failed without error: %+v", u)
		}
	})
}
