package schemas

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestExamples validates every file in testdata/<schema>/good (must pass)
// and testdata/<schema>/bad (must fail).
func TestExamples(t *testing.T) {
	for _, name := range []string{"lip-envelope", "unique"} {
		s, err := Compile(name + ".schema.json")
		if err != nil {
			t.Fatal(err)
		}
		for _, kind := range []string{"good", "bad"} {
			files, _ := filepath.Glob(filepath.Join("testdata", name, kind, "*.json"))
			if len(files) < 3 {
				t.Fatalf("%s/%s: too few examples (%d)", name, kind, len(files))
			}
			for _, f := range files {
				doc, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				err = ValidateJSON(s, doc)
				if kind == "good" && err != nil {
					t.Errorf("%s should be valid: %v", f, err)
				}
				if kind == "bad" && err == nil {
					t.Errorf("%s should be rejected", f)
				}
			}
		}
	}
}

// TestEverySchemaCompilesAndIsDraft2020 keeps schemas others add honest.
func TestEverySchemaCompilesAndIsDraft2020(t *testing.T) {
	names := Names()
	if len(names) < 2 {
		t.Fatalf("embedded schemas: %v", names)
	}
	for _, n := range names {
		raw, err := Raw(n)
		if err != nil {
			t.Fatal(err)
		}
		var head struct {
			Schema string `json:"$schema"`
			ID     string `json:"$id"`
		}
		if err := json.Unmarshal(raw, &head); err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		if head.Schema != "https://json-schema.org/draft/2020-12/schema" {
			t.Errorf("%s: $schema = %q, want draft 2020-12", n, head.Schema)
		}
		if head.ID != "" && !strings.HasSuffix(head.ID, "/"+n) {
			t.Errorf("%s: $id %q should end with its file name", n, head.ID)
		}
		if _, err := Compile(n); err != nil {
			t.Errorf("%v", err)
		}
	}
}

func TestValidateJSONRejectsNonJSON(t *testing.T) {
	s, err := Compile("lip-envelope.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := ValidateJSON(s, []byte("{nope")); err == nil {
		t.Fatal("want an error")
	}
	err = ValidateJSON(s, []byte(`{"lip":1,"id":"x","type":"Nope"}`))
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) || !strings.Contains(err.Error(), "/type") {
		t.Fatalf("validation error should name the field: %v", err)
	}
}

func TestUnknownSchemaNameSaysWhatExists(t *testing.T) {
	_, err := Raw("nope.schema.json")
	if err == nil || !strings.Contains(err.Error(), "unique.schema.json") {
		t.Fatalf("got %v", err)
	}
}
