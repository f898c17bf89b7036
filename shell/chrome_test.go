package shell

import (
	"path/filepath"
	"testing"

	"github.com/lets-app/lets/backend/testenv/browsertest"
)

// TestChromeLogic runs src/chrome.test.ts (issue #11): Markdown-lite for
// chat (links stay text), out-of-order chat.say assembly, coalesced
// component changes, theme validation and the approval card's text. The
// browser tests in backend/host check the same parts in Chromium.
func TestChromeLogic(t *testing.T) {
	browsertest.RunNodeTests(t, filepath.Join("src", "chrome.test.ts"))
}
