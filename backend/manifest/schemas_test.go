package manifest

import (
	"errors"
	"strings"
	"testing"
)

// tallyFiles is a unique that declares data schemas: tally.set needs an
// integer value, tally.changed refers to a shared definition file.
func tallyFiles(t testing.TB, edit func(files map[string]string)) map[string]string {
	m := map[string]any{
		"lip": 1, "name": "tally", "version": "0.1.0", "title": "Tally", "entry": "index.html",
		"domains": []any{"tally"},
		"events": map[string]any{
			"tally.changed": map[string]any{"summary": "the count changed", "schema": "schemas/changed.json"},
			"tally.note":    map[string]any{"summary": "no schema"},
		},
		"commands": map[string]any{
			"tally.set": map[string]any{"summary": "set the count", "schema": "schemas/set.json"},
		},
	}
	files := map[string]string{
		"unique.json": string(encode(t, m)),
		"index.html":  "<p>tally</p>",
		"GUIDE.md":    "Count things.",
		"schemas/set.json": `{"type": "object", "required": ["value"], "properties": {"value": {"type": "integer"}},
			"additionalProperties": false}`,
		"schemas/changed.json": `{"type": "object", "properties": {"count": {"$ref": "defs.json#/$defs/count"},
			"items": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}}}}}}`,
		"schemas/defs.json": `{"$defs": {"count": {"type": "integer", "minimum": 0}}}`,
	}
	if edit != nil {
		edit(files)
	}
	return files
}

func loadTally(t *testing.T, edit func(files map[string]string)) (*Manifest, []string, error) {
	t.Helper()
	return checker(t).LoadFS(memFS(tallyFiles(t, edit)))
}

// TestDeclaredSchemasAreEnforced (issue #10, LIP gaps: declared schemas):
// `lets send w1 tally.set '{"value":"seven"}'` must be refused, naming the
// field; before, the schema was only checked to exist.
func TestDeclaredSchemasAreEnforced(t *testing.T) {
	m, warnings, err := loadTally(t, nil)
	if err != nil || len(warnings) != 0 {
		t.Fatalf("load: %v %v", err, warnings)
	}
	if !m.HasDataSchemas() {
		t.Fatal("the declared schemas were not compiled at load")
	}
	cases := []struct {
		name, typ, data string
		command         bool
		field, msg      string
	}{
		{"wrong type", "tally.set", `{"value":"seven"}`, true, "value", "integer"},
		{"missing field", "tally.set", `{}`, true, "value", "required"},
		{"extra field", "tally.set", `{"value":1,"colour":"red"}`, true, "colour", "not allowed"},
		{"ref into a sibling file", "tally.changed", `{"count":-1}`, false, "count", "minimum"},
		{"nested field", "tally.changed", `{"items":[{"name":"a"},{"name":7}]}`, false, "items/1/name", "string"},
	}
	for _, tc := range cases {
		check := m.CheckEventData
		if tc.command {
			check = m.CheckCommandData
		}
		err := check(tc.typ, []byte(tc.data))
		var de *DataError
		if !errors.As(err, &de) {
			t.Errorf("%s: %s %s passed (%v), want a DataError", tc.name, tc.typ, tc.data, err)
			continue
		}
		if de.Field != tc.field || !strings.Contains(de.Message, tc.msg) || de.Type != tc.typ || !strings.HasPrefix(de.Schema, "schemas/") {
			t.Errorf("%s: %+v, want field %q and a message about %q", tc.name, de, tc.field, tc.msg)
		}
		if !strings.Contains(err.Error(), tc.field) {
			t.Errorf("%s: the message %q does not name the field", tc.name, err)
		}
	}
	for _, ok := range []struct{ typ, data string }{
		{"tally.set", `{"value":7}`}, {"tally.changed", `{"count":3,"items":[{"name":"a"}]}`},
		{"tally.note", `{"anything":"goes"}`}, {"tally.undeclared", `{"x":1}`},
	} {
		if err := m.CheckCommandData(ok.typ, []byte(ok.data)); ok.typ == "tally.set" && err != nil {
			t.Errorf("%s %s: %v", ok.typ, ok.data, err)
		}
		if err := m.CheckEventData(ok.typ, []byte(ok.data)); ok.typ != "tally.set" && err != nil {
			t.Errorf("%s %s: %v", ok.typ, ok.data, err)
		}
	}
	// A command's schema does not apply to an event of the same name.
	if err := m.CheckEventData("tally.set", []byte(`{"value":"seven"}`)); err != nil {
		t.Errorf("event check used the command schema: %v", err)
	}
}

// TestDataSchemaFilesMustBeUsable: a declared schema that is there but
// cannot be compiled, or that refers outside the unique, refuses the
// unique (rule 2) instead of running unenforced; a missing one stays a
// warning and is not enforced.
func TestDataSchemaFilesMustBeUsable(t *testing.T) {
	for name, edit := range map[string]func(map[string]string){
		"not JSON":           func(f map[string]string) { f["schemas/set.json"] = `{"type": ` },
		"not a schema":       func(f map[string]string) { f["schemas/set.json"] = `{"type": "integr"}` },
		"ref outside":        func(f map[string]string) { f["schemas/set.json"] = `{"$ref": "file:///etc/passwd"}` },
		"ref up and out":     func(f map[string]string) { f["schemas/set.json"] = `{"$ref": "../../../etc/hosts"}` },
		"ref to the network": func(f map[string]string) { f["schemas/set.json"] = `{"$ref": "https://example.invalid/s.json"}` },
	} {
		_, _, err := loadTally(t, edit)
		var ie *InvalidError
		if !errors.As(err, &ie) || !ie.HasRule(2) || !strings.Contains(err.Error(), "commands/tally.set/schema") {
			t.Errorf("%s: %v, want rule 2 on commands/tally.set/schema", name, err)
		}
	}
	m, warnings, err := loadTally(t, func(f map[string]string) { delete(f, "schemas/set.json") })
	if err != nil || len(warnings) != 1 || !strings.Contains(warnings[0], "schemas/set.json") {
		t.Fatalf("missing schema file: %v %v", err, warnings)
	}
	if err := m.CheckCommandData("tally.set", []byte(`{"value":"seven"}`)); err != nil {
		t.Fatalf("a missing schema cannot be enforced: %v", err)
	}
}

func BenchmarkCheckCommandData(b *testing.B) {
	m, _, err := checker(b).LoadFS(memFS(tallyFiles(b, nil)))
	if err != nil {
		b.Fatal(err)
	}
	data := []byte(`{"value":7}`)
	b.ReportAllocs()
	for b.Loop() {
		if err := m.CheckCommandData("tally.set", data); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzCheckData: envelope data is untrusted (Claude, the unique); checking
// it against a declared schema never panics, and a refusal always names
// the type and the schema.
func FuzzCheckData(f *testing.F) {
	m, _, err := checker(f).LoadFS(memFS(tallyFiles(f, nil)))
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{`{"value":7}`, `{"value":"seven"}`, `{}`, ``, `[`, `{"count":-1,"items":[{"name":1}]}`, `null`, `"x"`} {
		f.Add("tally.set", seed)
		f.Add("tally.changed", seed)
	}
	f.Fuzz(func(t *testing.T, typ, data string) {
		for _, check := range []func(string, []byte) error{m.CheckCommandData, m.CheckEventData} {
			err := check(typ, []byte(data))
			var de *DataError
			if err != nil && (!errors.As(err, &de) || de.Type != typ || de.Schema == "") {
				t.Fatalf("%s %q: %v", typ, data, err)
			}
		}
	})
}
