package shell

import (
	"path/filepath"
	"testing"

	"github.com/lets-app/lets/backend/testenv/browsertest"
)

// TestEmitRule runs src/emitrule.test.ts: lip.emit of a type the unique may
// not emit is refused with the rule (issue #10). The SDK throws with this
// text synchronously; backend/host checks that in Chromium.
func TestEmitRule(t *testing.T) {
	browsertest.RunNodeTests(t, filepath.Join("src", "emitrule.test.ts"))
}
