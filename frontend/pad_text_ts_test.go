package frontend

import (
	"path/filepath"
	"testing"

	"github.com/lets-app/lets/backend/testenv/browsertest"
)

// TestPadLabelsShownClean runs src/pad/text.test.ts with Node's test
// runner: agent-supplied labels lose terminal escapes, new lines and bidi
// controls before the pad page shows them (#23).
func TestPadLabelsShownClean(t *testing.T) {
	browsertest.RunNodeTests(t, filepath.Join("src", "pad", "text.test.ts"))
}
