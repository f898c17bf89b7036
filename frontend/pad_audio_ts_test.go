package frontend

import (
	"path/filepath"
	"testing"

	"github.com/lets-app/lets/backend/testenv/browsertest"
)

// TestPadSoundLogic runs src/pad/audio.test.ts with Node's test runner:
// the audio fields of experience_state, earcon and soundtrack URLs, when
// a Demo earcon plays (sequence rules), the soundtrack's start, resync and
// stop, and the remembered Sound toggle.
func TestPadSoundLogic(t *testing.T) {
	browsertest.RunNodeTests(t, filepath.Join("src", "pad", "audio.test.ts"))
}
