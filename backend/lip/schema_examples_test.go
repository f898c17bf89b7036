package lip

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/lets-app/lets/schemas"
)

// TestSchemaExamples validates schemas/testdata/lip-messages and
// lip-components: every good example passes, every bad one fails. Message
// examples also go through Decode and the Checker, which must agree.
func TestSchemaExamples(t *testing.T) {
	check, err := NewChecker()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"lip-messages", "lip-components"} {
		s, err := schemas.Compile(name + ".schema.json")
		if err != nil {
			t.Fatal(err)
		}
		for _, kind := range []string{"good", "bad"} {
			files, _ := filepath.Glob(filepath.Join("..", "..", "schemas", "testdata", name, kind, "*.json"))
			if len(files) < 5 {
				t.Fatalf("%s/%s: %d examples", name, kind, len(files))
			}
			for _, f := range files {
				doc, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				verr := schemas.ValidateJSON(s, doc)
				if kind == "good" && verr != nil {
					t.Errorf("%s: %v", f, verr)
				}
				if kind == "bad" && verr == nil {
					t.Errorf("%s accepted", f)
				}
				if name != "lip-messages" {
					continue
				}
				b, derr := Decode(doc)
				var cerr *Error
				if derr == nil {
					if it := b.Items[0]; it.Err != nil {
						cerr = it.Err
					} else {
						cerr = check.Check(it.Envelope)
					}
				}
				if ok := derr == nil && cerr == nil; ok != (kind == "good") {
					t.Errorf("%s: Decode+Check says ok=%v (%v %v)", f, ok, derr, cerr)
				}
			}
		}
	}
}
