package claudehook_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/lets-app/lets/backend/approval"
	"github.com/lets-app/lets/backend/claudehook"
)

// addStdinSeeds adds every recorded hook input as a seed.
func addStdinSeeds(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "stdin", "*.json"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no recorded hook inputs: %v", err)
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// Hook stdin is untrusted input: decoding never panics, fails only with
// an *InputError, and an accepted event always has a session id.
func FuzzDecodeEvent(f *testing.F) {
	addStdinSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		ev, err := claudehook.ParseEvent(data)
		ev2, err2 := claudehook.DecodeEvent(bytes.NewReader(data))
		if (err == nil) != (err2 == nil) {
			t.Fatalf("ParseEvent %v, DecodeEvent %v", err, err2)
		}
		if err != nil {
			var ie *claudehook.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %T %v is not an *InputError", err, err)
			}
			return
		}
		if ev.SessionID == "" || ev.SessionID != ev2.SessionID {
			t.Fatalf("accepted %+v / %+v", ev, ev2)
		}
		_ = claudehook.Label(ev.Cwd)
		_ = approval.Summary(ev.ToolName, ev.ToolInput)
	})
}

// Pending events come from windows through the host: whatever they hold,
// the context stays within its cap, framed, and free of tag characters.
func FuzzPromptContext(f *testing.F) {
	f.Add(readFile(f, filepath.Join("testdata", "pending.json")))
	f.Fuzz(func(t *testing.T, data []byte) {
		var p claudehook.PendingEvents
		if json.Unmarshal(data, &p) != nil {
			return
		}
		checkContext(t, claudehook.PromptContext(p))
	})
}
