package midi

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/lets-app/lets/backend/testenv/conformance"
)

func TestCaseM17_SchemaOnlyOnRequest(t *testing.T) {
	path := writeTemp(t, "p.json", proMk1(t))
	calls := 0
	validate := func([]byte) error { calls++; return nil }
	if _, err := LoadProfileFile(path); err != nil || calls != 0 {
		t.Fatal(err, calls)
	}
	if _, err := LoadProfileFileChecked(path, validate); err != nil || calls != 1 {
		t.Fatal(err, calls)
	}
	// The schema runs before the parser: its error wins.
	bad := writeTemp(t, "bad.json", []byte(`{}`))
	schemaErr := errors.New("schema says no")
	if _, err := LoadProfileFileChecked(bad, func([]byte) error { return schemaErr }); !errors.Is(err, schemaErr) {
		t.Fatal(err)
	}
}

// M28, schema side: the reference JSON Schema accepts what the parser
// rejects (reversed accents, 1.0) and rejects what the parser defaults.
func TestCaseM28_ReferenceSchemaDiffers(t *testing.T) {
	schema := conformance.Schema(t, "device-profile-v1.json")
	valid := func(data []byte) bool {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		return schema.Validate(doc) == nil
	}
	if !valid(proMk1(t)) {
		t.Fatal("our Pro Mk1 profile fails the reference schema")
	}
	for _, id := range profileIDs {
		if !valid(builtinRaw(t, id)) {
			t.Fatalf("%s fails the reference schema", id)
		}
	}
	reversed := mutate(t, proMk1(t), func(m map[string]any) {
		a := m["accents"].([]any)
		for i, j := 0, len(a)-1; i < j; i, j = i+1, j-1 {
			a[i], a[j] = a[j], a[i]
		}
	})
	float := mutate(t, proMk1(t), func(m map[string]any) { m["schema_version"] = json.Number("1.0") })
	for name, data := range map[string][]byte{"reversed accents": reversed, "schema_version 1.0": float} {
		if !valid(data) {
			t.Errorf("schema rejects %s", name)
		}
		if _, err := ParseProfile(data, ""); err == nil {
			t.Errorf("parser accepts %s", name)
		}
	}
	for _, del := range []func(m map[string]any){
		func(m map[string]any) { delete(sub(m, "grid"), "channel") },
		func(m map[string]any) { delete(m, "messages") },
		func(m map[string]any) { delete(m, "capabilities") },
	} {
		data := mutate(t, proMk1(t), del)
		if valid(data) {
			t.Error("schema accepts a missing required member")
		}
		if _, err := ParseProfile(data, ""); err != nil {
			t.Error(err)
		}
	}
}
