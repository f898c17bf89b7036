// Package conformance finds the shared conformance data (../shared/conformance
// beside the repository) for tests. A user's fresh clone does not have it:
// tests that need its fixtures skip loudly, and schema checks fall back to
// our own schemas/ (see Schema). `make test` and CI set LETS_REQUIRE_SHARED=1,
// so there a missing ../shared fails instead.
package conformance

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/schemas"
)

// EnvDir overrides where the shared folder is.
const EnvDir = "LETS_SHARED_DIR"

// repoRoot is the repository root, found from this source file's location.
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", "..", ".."))
}

// SharedDir returns the shared folder (../shared beside the repository) or
// "" if it is absent.
func SharedDir() string {
	if d := os.Getenv(EnvDir); d != "" {
		return d
	}
	d := filepath.Join(repoRoot(), "..", "shared")
	if fi, err := os.Stat(d); err == nil && fi.IsDir() {
		return d
	}
	return ""
}

// PadLattice returns ../shared/conformance/pad-lattice, skipping the test
// with a loud message when it is absent.
func PadLattice(tb testing.TB) string {
	tb.Helper()
	d := SharedDir()
	if d == "" {
		skipLoudly(tb, "../shared (conformance data) is not beside this repository")
	}
	p := filepath.Join(d, "conformance", "pad-lattice")
	if _, err := os.Stat(p); err != nil {
		skipLoudly(tb, fmt.Sprintf("%s is missing", p))
	}
	return p
}

// File returns the path of a file under the pad-lattice conformance folder,
// for example File(t, "schemas/socket-protocol-v1.json").
func File(tb testing.TB, rel string) string {
	tb.Helper()
	return filepath.Join(PadLattice(tb), filepath.FromSlash(rel))
}

// ownSchema names our schema in schemas/ that covers the same documents as
// a reference schema, or "" when we have none (then the product checks
// those documents in Go only).
func ownSchema(reference string) string {
	switch reference {
	case "socket-protocol-v1.json":
		return "wire-protocol-1.schema.json"
	case "web-surface-protocol-v1.json":
		return "web-surface-protocol-1.schema.json"
	case "demo-manifest-v1.json":
		return "demo-manifest-1.schema.json"
	case "performance-manifest-v1.json":
		return "performance-manifest-1.schema.json"
	}
	return ""
}

// Schema compiles a reference schema (for example "socket-protocol-v1.json")
// together with our own schema for the same documents: a document is valid
// only when both accept it, so every test that checks against the reference
// checks against schemas/ too. Without ../shared it checks against ours
// alone, after a loud note (a failure under LETS_REQUIRE_SHARED=1); a
// reference schema we have no counterpart for skips loudly instead.
func Schema(tb testing.TB, name string) *jsonschema.Schema {
	tb.Helper()
	own := ownSchema(name)
	if own == "" {
		return ReferenceSchema(tb, name)
	}
	c := newCompiler(tb)
	ownURL := addOwnSchemas(tb, c, own)
	path, ok := optionalReference(tb, "schemas/"+name, own)
	if !ok {
		return compile(tb, c, ownURL)
	}
	refURL := addFile(tb, c, path)
	both := map[string]any{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"allOf":   []any{map[string]any{"$ref": refURL}, map[string]any{"$ref": ownURL}},
	}
	bothURL := "https://lets.invalid/conformance/both/" + name
	if err := c.AddResource(bothURL, both); err != nil {
		tb.Fatalf("combine the reference schema %s with schemas/%s: %v", name, own, err)
	}
	return compile(tb, c, bothURL)
}

// ReferenceSchema compiles one reference schema alone, for tests about the
// reference itself; it skips loudly without ../shared.
func ReferenceSchema(tb testing.TB, name string) *jsonschema.Schema {
	tb.Helper()
	path := File(tb, "schemas/"+name)
	c := newCompiler(tb)
	return compile(tb, c, addFile(tb, c, path))
}

// OptionalFile returns the path of a file under the pad-lattice conformance
// folder and true; without ../shared it notes the gap loudly and returns
// false (a failure under LETS_REQUIRE_SHARED=1), for tests that go on with
// our own schemas (ours says which).
func OptionalFile(tb testing.TB, rel, ours string) (string, bool) {
	tb.Helper()
	return optionalReference(tb, rel, ours)
}

func optionalReference(tb testing.TB, rel, ours string) (string, bool) {
	tb.Helper()
	d := SharedDir()
	if d != "" {
		p := filepath.Join(d, "conformance", "pad-lattice", filepath.FromSlash(rel))
		if _, err := os.Stat(p); err == nil {
			return p, true
		}
	}
	testutil.Degraded(tb, testutil.RequireSharedEnv, "conformance data missing: "+rel+" (../shared is not beside this repository)",
		"checking against schemas/"+ours+" only; run the tests in a checkout with ../shared beside it (CI has it), or set "+EnvDir)
	return "", false
}

func newCompiler(tb testing.TB) *jsonschema.Compiler {
	tb.Helper()
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	return c
}

// addFile adds a schema file to c and returns its URL.
func addFile(tb testing.TB, c *jsonschema.Compiler, path string) string {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("read reference schema: %v", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		tb.Fatalf("reference schema %s is not JSON: %v", path, err)
	}
	url := "file://" + filepath.ToSlash(path)
	if err := c.AddResource(url, doc); err != nil {
		tb.Fatalf("add reference schema %s: %v", path, err)
	}
	return url
}

// addOwnSchemas adds every schema of schemas/ to c (they $ref each other by
// $id) and returns the URL of the one named own.
func addOwnSchemas(tb testing.TB, c *jsonschema.Compiler, own string) string {
	tb.Helper()
	ownURL := ""
	for _, n := range schemas.Names() {
		raw, err := schemas.Raw(n)
		if err != nil {
			tb.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			tb.Fatalf("schemas/%s is not JSON: %v", n, err)
		}
		m, _ := doc.(map[string]any)
		id, _ := m["$id"].(string)
		if id == "" {
			tb.Fatalf("schemas/%s has no $id", n)
		}
		if err := c.AddResource(id, doc); err != nil {
			tb.Fatalf("add schemas/%s: %v", n, err)
		}
		if n == own {
			ownURL = id
		}
	}
	if ownURL == "" {
		tb.Fatalf("schemas/%s does not exist (have %v)", own, schemas.Names())
	}
	return ownURL
}

func compile(tb testing.TB, c *jsonschema.Compiler, url string) *jsonschema.Schema {
	tb.Helper()
	s, err := c.Compile(url)
	if err != nil {
		tb.Fatalf("compile schema %s: %v", url, err)
	}
	return s
}

func skipLoudly(tb testing.TB, why string) {
	tb.Helper()
	testutil.Missing(tb, testutil.RequireSharedEnv, "conformance data missing: "+why,
		"run the tests in a checkout with ../shared beside it (CI has it), or set "+EnvDir+" to its folder")
}
