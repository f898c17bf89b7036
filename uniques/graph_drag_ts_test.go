package uniques_test

import (
	"path/filepath"
	"testing"

	"github.com/lets-app/lets/backend/testenv/browsertest"
)

// TestGraphDragLogic runs _graph/drag.test.ts with Node's test runner:
// dragged nodes and a panned board land where the pointer was released,
// whatever pointer moves the browser merged or dropped before it.
func TestGraphDragLogic(t *testing.T) {
	browsertest.RunNodeTests(t, filepath.Join("_graph", "drag.test.ts"))
}
