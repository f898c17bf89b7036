package conformance

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/schemas"
)

// fakeShared makes a shared folder whose socket-protocol-v1.json is
// referenceSchema, and points LETS_SHARED_DIR at it.
func fakeShared(t *testing.T, referenceSchema string) {
	t.Helper()
	dir := t.TempDir()
	schemasDir := filepath.Join(dir, "conformance", "pad-lattice", "schemas")
	if err := os.MkdirAll(schemasDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(schemasDir, "socket-protocol-v1.json"), []byte(referenceSchema), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvDir, dir)
}

const (
	ping    = `{"protocol":1,"type":"ping"}`
	notWire = `{"protocol":1,"type":"no_such_message"}`
)

// Point: a test that validates against a reference schema validates against
// our own schemas/ too. With a reference that accepts anything, our
// wire-protocol-1 schema still rejects what is not a Wire message.
func TestSchemaChecksOurOwnSchemaToo(t *testing.T) {
	fakeShared(t, `{"$schema": "https://json-schema.org/draft/2020-12/schema"}`)
	s := Schema(t, "socket-protocol-v1.json")
	if err := schemas.ValidateJSON(s, []byte(ping)); err != nil {
		t.Fatalf("ping should pass both: %v", err)
	}
	if err := schemas.ValidateJSON(s, []byte(notWire)); err == nil {
		t.Fatal("our own schema was not applied: a message no Wire schema knows passed")
	}
}

// And the reference still counts: one that accepts nothing fails a
// message our schema accepts.
func TestSchemaChecksTheReferenceToo(t *testing.T) {
	fakeShared(t, `false`)
	s := Schema(t, "socket-protocol-v1.json")
	if err := schemas.ValidateJSON(s, []byte(ping)); err == nil {
		t.Fatal("the reference schema was not applied")
	}
}

// Point: without ../shared, schema checks go on against our own schemas
// (outside make test); LETS_REQUIRE_SHARED=1 turns that into a failure,
// which backend/testenv/testutil's tests show.
func TestSchemaWithoutSharedChecksOursAlone(t *testing.T) {
	t.Setenv(EnvDir, filepath.Join(t.TempDir(), "absent"))
	t.Setenv(testutil.RequireSharedEnv, "")
	s := Schema(t, "socket-protocol-v1.json")
	if err := schemas.ValidateJSON(s, []byte(ping)); err != nil {
		t.Fatalf("ping: %v", err)
	}
	if err := schemas.ValidateJSON(s, []byte(notWire)); err == nil {
		t.Fatal("without ../shared, our own schema must still reject what is not a Wire message")
	}
}

func TestEveryOwnSchemaNamedExists(t *testing.T) {
	for _, ref := range []string{"socket-protocol-v1.json", "web-surface-protocol-v1.json", "demo-manifest-v1.json", "performance-manifest-v1.json"} {
		own := ownSchema(ref)
		if _, err := schemas.Raw(own); err != nil {
			t.Errorf("%s maps to %q: %v", ref, own, err)
		}
	}
}
