package host

import (
	"strings"
	"testing"
	"testing/fstest"
)

// tallyUnique declares JSON Schemas for a command and an event.
var tallyUnique = map[string]string{
	"unique.json": `{"lip": 1, "name": "tally", "version": "0.1.0", "title": "Tally", "entry": "index.html",
  "domains": ["tally"],
  "events": {"tally.changed": {"summary": "the count changed", "schema": "schemas/changed.json"},
             "tally.note": {"summary": "a note, no schema"}},
  "commands": {"tally.set": {"summary": "set the count: {value}", "schema": "schemas/set.json"}}}`,
	"GUIDE.md":             "# Tally\nCount.\n",
	"index.html":           "<!doctype html><title>tally</title><p>tally</p>\n",
	"schemas/set.json":     `{"type": "object", "required": ["value"], "properties": {"value": {"type": "integer"}}}`,
	"schemas/changed.json": `{"type": "object", "required": ["count"], "properties": {"count": {"type": "integer", "minimum": 0}}}`,
}

func withTally(o *Options) {
	fsys := o.Builtin.(fstest.MapFS)
	for p, data := range tallyUnique {
		fsys["tally/"+p] = &fstest.MapFile{Data: []byte(data), Mode: 0o644}
	}
}

// TestSendChecksDeclaredCommandSchema (issue #10, declared schemas):
// `lets send w1 tally.set '{"value":"seven"}'` was delivered although
// schemas/set.json wants an integer; it is refused with bad_data naming
// the field, and valid data still goes through.
func TestSendChecksDeclaredCommandSchema(t *testing.T) {
	th := startLIPHost(t, withTally)
	win := th.open(t, "tally", "")
	code, body := th.send(t, []map[string]any{
		{"lip": 1, "type": "tally.set", "win": win.Window, "data": map[string]any{"value": "seven"}},
		{"lip": 1, "type": "tally.set", "win": win.Window, "data": map[string]any{"value": 7}},
		{"lip": 1, "type": "tally.set", "win": win.Window},
	})
	if code != 200 {
		t.Fatalf("send: %d %v", code, body)
	}
	rejected, _ := body["rejected"].([]any)
	accepted, _ := body["accepted"].([]any)
	if len(accepted) != 1 || len(rejected) != 2 {
		t.Fatalf("accepted %v, rejected %v; want the integer one only", accepted, rejected)
	}
	for i, r := range rejected {
		rj := r.(map[string]any)
		msg, _ := rj["message"].(string)
		if rj["code"] != "bad_data" || !strings.Contains(msg, "value") || !strings.Contains(msg, "schemas/set.json") {
			t.Errorf("rejection %d: %v, want bad_data naming the field value", i, rj)
		}
	}
	// Only the valid command reaches the window.
	sc := th.dialShell(t, win, nil)
	sc.sendEnv("lip.ready", map[string]any{}, "shell")
	cmds := sc.commands(1, ioTimeout)
	if len(cmds) != 1 || dataOf(t, cmds[0])["value"] != float64(7) {
		t.Fatalf("delivered %v", cmds)
	}
}

// TestUpEventChecksDeclaredEventSchema: an event whose data breaks its
// declared schema is dropped (never reaches Claude) and the window hears
// bad_data naming the field; a valid one and one without a schema pass.
func TestUpEventChecksDeclaredEventSchema(t *testing.T) {
	th := startLIPHost(t, withTally)
	win := th.open(t, "tally", "")
	sc := th.dialShell(t, win, nil)
	badID := sc.sendEnv("tally.changed", map[string]any{"count": "lots"}, "unique")
	e, ok := sc.nextOfType("lip.error", ioTimeout)
	if !ok {
		t.Fatal("no lip.error for data that breaks the schema")
	}
	d := dataOf(t, e)
	if d["code"] != "bad_data" || d["re"] != badID || !strings.Contains(d["message"].(string), "count") {
		t.Fatalf("lip.error %v, want bad_data re %s naming count", d, badID)
	}
	sc.sendEnv("tally.note", map[string]any{"free": "form"}, "unique")
	sc.sendEnv("tally.changed", map[string]any{"count": 3}, "unique")
	ev := th.waitEvent(t, "check-changed", "tally.changed", ioTimeout)
	if dataOf(t, ev)["count"] != float64(3) {
		t.Fatalf("the first tally.changed Claude sees is %v; the bad one must have been dropped", ev)
	}
	th.waitEvent(t, "check-note", "tally.note", ioTimeout)
}
