package host

import (
	"encoding/json"
	"slices"

	"github.com/lets-app/lets/backend/manifest"
)

// sdkDeclaredPlaceholder is replaced in sdk.js with what the unique
// declared, so lip.emit can refuse a type the unique may not emit at the
// call (docs/lip-deviations.md); the shell and the host check again.
const sdkDeclaredPlaceholder = "__LETS_DECLARED__"

// sdkDeclared is the replacement: {unique, events, export, snapshot} as
// JSON, escaped to sit inside the SDK's string literal.
func sdkDeclared(m *manifest.Manifest) []byte {
	events := make([]string, 0, len(m.Events))
	for t := range m.Events {
		events = append(events, t)
	}
	slices.Sort(events)
	doc, _ := json.Marshal(struct {
		Unique   string   `json:"unique"`
		Events   []string `json:"events"`
		Export   string   `json:"export"`
		Snapshot string   `json:"snapshot"`
	}{m.Name, events, m.Session.Export, m.Session.Snapshot})
	// A JSON string is a valid JavaScript string literal; json.Marshal
	// escapes quotes, <, >, & and the line separators.
	lit, _ := json.Marshal(string(doc))
	return lit[1 : len(lit)-1]
}
