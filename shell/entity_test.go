package shell

import (
	"path/filepath"
	"testing"

	"github.com/lets-app/lets/backend/testenv/browsertest"
)

// TestEntityLogic runs src/entity/logic.test.ts (issue #11, companion):
// eight distinct moods, the eighteen reactions, eased and clamped moves,
// following at the persona distance, persona traits, suggestion menus,
// entity.profile aggregation (counts only, ≤ every 60 s), the self-played
// reactions and the four secret moves (once per window). The DOM side is
// checked in Chromium by backend/host's entity browser tests.
func TestEntityLogic(t *testing.T) {
	browsertest.RunNodeTests(t, filepath.Join("src", "entity", "logic.test.ts"))
}

// TestCompanionClearSpot runs src/entity/clear.test.ts (issue #21): the
// companion's resting place covers no control when one is clear, the
// least of them (and never the pointer or the focused control) when the
// controls fill the view.
func TestCompanionClearSpot(t *testing.T) {
	browsertest.RunNodeTests(t, filepath.Join("src", "entity", "clear.test.ts"))
}
