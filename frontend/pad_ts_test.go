package frontend

import (
	"path/filepath"
	"testing"

	"github.com/lets-app/lets/backend/testenv/browsertest"
)

// TestPadLogic runs src/pad/pad.test.ts with Node's test runner: message
// parsing, the spec colours and light layout, words for screen readers,
// keyboard movement, credential choice and the PIN lock-out.
func TestPadLogic(t *testing.T) {
	browsertest.RunNodeTests(t, filepath.Join("src", "pad", "pad.test.ts"))
}
