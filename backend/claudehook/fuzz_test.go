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

// addStdinSeeds adds every recorded hook input, Claude Code's and
// Codex's, as a seed.
func addStdinSeeds(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "stdin", "*.json"))
	codex, cerr := filepath.Glob(filepath.Join("testdata", "stdin-codex", "*.json"))
	if err != nil || cerr != nil || len(files) == 0 || len(codex) == 0 {
		f.Fatalf("no recorded hook inputs: %v %v", err, cerr)
	}
	files = append(files, codex...)
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

// Codex's hook inputs (testdata/stdin-codex) decode: the session id is the
// agent's identity, the event and the tool (a shell call is "Bash", an MCP
// tool mcp__<server>__<tool>) are read, and each is one of the events the
// Codex profile handles.
func TestCodexHookInputsDecode(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "stdin-codex", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Codex hook inputs: %v", err)
	}
	events := map[string]bool{}
	for _, e := range claudehook.Codex.Events() {
		events[e] = true
	}
	for _, name := range files {
		ev, err := claudehook.DecodeEvent(bytes.NewReader(readFile(t, name)))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if ev.SessionID != "01a23a15-2dd8-7531-bb19-cfedb92a71d8" || ev.Cwd != "/home/sam/garden" {
			t.Errorf("%s: session %q cwd %q", name, ev.SessionID, ev.Cwd)
		}
		if !events[ev.HookEventName] {
			t.Errorf("%s: event %q is not one the Codex profile handles (%v)", name, ev.HookEventName, claudehook.Codex.Events())
		}
		if ev.HookEventName == claudehook.EventPermissionRequest && ev.ToolName == "" {
			t.Errorf("%s: no tool name", name)
		}
	}
}
