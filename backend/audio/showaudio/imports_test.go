package showaudio_test

import (
	"go/build"
	"strings"
	"testing"
)

const module = "github.com/lets-app/lets/"

// Issue #10: backend/audio and backend/audio/showaudio do not depend on
// backend/daemon, not even through another package of ours; the app adapts.
func TestAudioDoesNotDependOnTheDaemon(t *testing.T) {
	seen := map[string]bool{}
	var walk func(path string, via []string)
	walk = func(path string, via []string) {
		if seen[path] {
			return
		}
		seen[path] = true
		if path == module+"backend/daemon" {
			t.Errorf("backend/audio reaches backend/daemon through %s", strings.Join(via, " → "))
			return
		}
		pkg, err := build.Import(path, ".", 0)
		if err != nil {
			t.Fatalf("load %s: %v", path, err)
		}
		for _, imp := range pkg.Imports {
			if strings.HasPrefix(imp, module) {
				walk(imp, append(via[:len(via):len(via)], imp))
			}
		}
	}
	for _, root := range []string{module + "backend/audio", module + "backend/audio/showaudio"} {
		walk(root, []string{root})
	}
	if len(seen) < 3 {
		t.Fatalf("only %d packages walked; the import graph was not read", len(seen))
	}
}
