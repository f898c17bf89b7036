package frontend

import (
	"path/filepath"
	"testing"

	"github.com/lets-app/lets/backend/testenv/browsertest"
)

// TestHomeLogic runs src/home/format.test.ts with Node's test runner: the
// home page's words for uptimes, times ago and Claude's set-up.
func TestHomeLogic(t *testing.T) {
	browsertest.RunNodeTests(t, filepath.Join("src", "home", "format.test.ts"))
}
