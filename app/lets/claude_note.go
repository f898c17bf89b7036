package lets

import (
	"strings"

	"github.com/lets-app/lets/app/tray"
)

// ClaudeTrayNote is the line the tray menu shows after "Set up Claude…",
// in words only (a tray host may draw ✓ and ✗ as boxes).
func ClaudeTrayNote(out string, manual bool, err error) tray.Note {
	switch {
	case err != nil:
		why := err.Error()
		for _, line := range strings.Split(out, "\n") {
			if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "✗ "); ok {
				why = rest
				break
			}
		}
		return tray.Note{Text: "Claude set-up did not fully work", Tooltip: why + " — run `lets setup claude` in a terminal to see every step"}
	case manual:
		return tray.Note{Text: "Almost there: install Claude Code, then set up again",
			Tooltip: "Lets added its hooks and skill, but Claude Code's `claude` command is not on your PATH, so its MCP server is not registered yet"}
	}
	return tray.Note{Text: "Claude is connected to Lets", Tooltip: "Start a new Claude Code session to use Lets"}
}
