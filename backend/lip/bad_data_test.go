package lip

import (
	"testing"

	"github.com/lets-app/lets/schemas"
)

// TestBadDataCode (issue #10, declared schemas): the host refuses data that
// breaks a unique's declared schema with bad_data; the code is a 400 and a
// lip.error carrying it is a valid message of our schema.
func TestBadDataCode(t *testing.T) {
	if CodeBadData != "bad_data" || CodeBadData.HTTPStatus() != 400 {
		t.Fatalf("%s: %d", CodeBadData, CodeBadData.HTTPStatus())
	}
	s, err := schemas.Compile("lip-messages.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	doc := []byte(`{"lip":1,"id":"cm_1","ts":1,"dir":"down","from":"host","type":"lip.error","win":"w1",
		"data":{"code":"bad_data","message":"tally.set: data field value got string, want integer","re":"ev_1"}}`)
	if err := schemas.ValidateJSON(s, doc); err != nil {
		t.Fatalf("a bad_data lip.error does not validate: %v", err)
	}
	check, err := NewChecker()
	if err != nil {
		t.Fatal(err)
	}
	b, derr := Decode(doc)
	if derr != nil || b.Items[0].Err != nil {
		t.Fatalf("decode: %v %v", derr, b.Items[0].Err)
	}
	if cerr := check.Check(b.Items[0].Envelope); cerr != nil {
		t.Fatalf("check: %v", cerr)
	}
}
