// Package conformance finds the shared conformance data (../shared/conformance
// beside the repository) for tests. A user's fresh clone does not have it, so
// tests that need it skip loudly; CI always has it.
package conformance

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/lets-app/lets/backend/testutil"
)

// EnvDir overrides where the shared folder is.
const EnvDir = "LETS_SHARED_DIR"

// repoRoot is the repository root, found from this source file's location.
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
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

// Schema compiles one of the reference schemas, for example
// Schema(t, "socket-protocol-v1.json").
func Schema(tb testing.TB, name string) *jsonschema.Schema {
	tb.Helper()
	path := File(tb, "schemas/"+name)
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("read reference schema: %v", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		tb.Fatalf("reference schema %s is not JSON: %v", path, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	url := "file://" + filepath.ToSlash(path)
	if err := c.AddResource(url, doc); err != nil {
		tb.Fatalf("add reference schema: %v", err)
	}
	s, err := c.Compile(url)
	if err != nil {
		tb.Fatalf("compile reference schema %s: %v", path, err)
	}
	return s
}

func skipLoudly(tb testing.TB, why string) {
	tb.Helper()
	testutil.Missing(tb, testutil.RequireSharedEnv, "conformance data missing: "+why,
		"run the tests in a checkout with ../shared beside it (CI has it), or set "+EnvDir+" to its folder")
}
