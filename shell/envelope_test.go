package shell

import (
	"path/filepath"
	"testing"

	"github.com/lets-app/lets/backend/testenv/browsertest"
)

// TestEnvelopeHelpers runs src/envelope.test.ts with Node's test runner.
// esbuild strips the types, so no TypeScript compiler is needed.
func TestEnvelopeHelpers(t *testing.T) {
	browsertest.RunNodeTests(t, filepath.Join("src", "envelope.test.ts"))
}

// TestCase034_035_039_ShellProtocol runs src/protocol.test.ts: unknown
// component types fall back to a note (34), chat.say chunks assemble in
// order (35), ui.theme refuses a bad var alone (39), plus delivery
// bookkeeping. The browser test in backend/host checks the same in Chromium.
func TestCase034_035_039_ShellProtocol(t *testing.T) {
	browsertest.RunNodeTests(t, filepath.Join("src", "protocol.test.ts"))
}

func TestFilesEmbedsBundle(t *testing.T) {
	fsys, err := Files()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"envelope.js", "shell.js", "shell.css", "sdk.js"} {
		data, err := fsys.Open(name)
		if err != nil {
			t.Fatalf("%s not embedded: %v", name, err)
		}
		_ = data.Close()
	}
}
