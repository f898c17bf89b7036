package claudehook_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/lets-app/lets/backend/claudehook"
	"github.com/lets-app/lets/backend/wire"
	"github.com/lets-app/lets/schemas"
)

// compiled caches the two schemas of what a hook sends.
var compiled sync.Map // name → *jsonschema.Schema

func schemaOf(tb testing.TB, name string) *jsonschema.Schema {
	tb.Helper()
	if s, ok := compiled.Load(name); ok {
		return s.(*jsonschema.Schema)
	}
	s, err := schemas.Compile(name)
	if err != nil {
		tb.Fatalf("compile %s: %v", name, err)
	}
	compiled.Store(name, s)
	return s
}

func outputSchema(tb testing.TB) *jsonschema.Schema {
	return schemaOf(tb, "claude-hook-output.schema.json")
}
func reportSchema(tb testing.TB) *jsonschema.Schema {
	return schemaOf(tb, "claude-report.schema.json")
}

// TestOutputsMatchTheirSchema: every golden stdout and the three decision
// lines are valid claude-hook-output documents, one line each; documents
// the schema must refuse are refused.
func TestOutputsMatchTheirSchema(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*.out"))
	if err != nil || len(files) < 5 {
		t.Fatalf("golden outputs: %v (%d files)", err, len(files))
	}
	checked := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if len(data) == 0 {
			continue // nothing printed is always fine
		}
		if bytes.Count(data, []byte("\n")) != 1 || !bytes.HasSuffix(data, []byte("\n")) {
			t.Errorf("%s: want exactly one line, got %q", f, data)
		}
		if err := schemas.ValidateJSON(outputSchema(t), bytes.TrimSpace(data)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		checked++
	}
	if checked < 3 {
		t.Fatalf("only %d non-empty golden outputs checked", checked)
	}
	for _, a := range []wire.Action{wire.ActionApprove, wire.ActionReject, wire.ActionStop} {
		line, _, ok := claudehook.Decision(a)
		if !ok {
			t.Fatalf("no decision for %s", a)
		}
		if err := schemas.ValidateJSON(outputSchema(t), bytes.TrimSpace([]byte(line))); err != nil {
			t.Errorf("decision for %s: %v", a, err)
		}
	}
	for _, bad := range []string{
		`{}`,
		`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"maybe"}}}`,
		`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny"}}}`,
		`{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"plain text"}}`,
		`{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"<lets-events>\n</lets-events>"}}`,
	} {
		if schemas.ValidateJSON(outputSchema(t), []byte(bad)) == nil {
			t.Errorf("the schema accepts %s", bad)
		}
	}
}

// TestReportSchemaRefusesBadBodies: the report schema is not vacuous.
func TestReportSchemaRefusesBadBodies(t *testing.T) {
	good := claudehook.Report{PID: 42, SessionID: "s-1", Label: "proj", State: "waiting_for_approval", RequestID: "r1", Tool: "Bash", Summary: "ls"}
	body, _ := json.Marshal(good)
	if err := schemas.ValidateJSON(reportSchema(t), body); err != nil {
		t.Fatalf("a good report is refused: %v", err)
	}
	for _, bad := range []string{
		`{"session_id":"s","state":"running"}`,
		`{"pid":0,"session_id":"s","state":"running"}`,
		`{"pid":1,"session_id":"has space","state":"running"}`,
		`{"pid":1,"session_id":"s","state":"dancing"}`,
	} {
		if schemas.ValidateJSON(reportSchema(t), []byte(bad)) == nil {
			t.Errorf("the schema accepts %s", bad)
		}
	}
}
