package experience

import (
	"embed"
	"fmt"
)

// Lets' own experiences, written by ./gen (package internal/author) and
// embedded. Regenerate with `go generate ./backend/experience` after
// changing the authoring code; a test fails while the files are stale.
//
//go:generate go run ./gen content

//go:embed content/*.json
var content embed.FS

// Embedded file names.
const (
	DemoContentFile = "content/lets-demo-v1.json"
	ShowContentFile = "content/lets-show-v1.json"
)

// DemoJSON returns the embedded Demo manifest's bytes.
func DemoJSON() []byte {
	b, _ := content.ReadFile(DemoContentFile)
	return b
}

// ShowJSON returns the embedded Show manifest's bytes.
func ShowJSON() []byte {
	b, _ := content.ReadFile(ShowContentFile)
	return b
}

// LoadDefault parses Lets' embedded Demo and Show with the validating
// loaders. Hosts call it once at start-up (spec §10: fail early).
func LoadDefault() (*Demo, *Performance, error) {
	d, err := ParseDemoManifest(DemoJSON())
	if err != nil {
		return nil, nil, fmt.Errorf("the built-in Demo is invalid (rebuild Lets after `go generate ./backend/experience`): %w", err)
	}
	p, err := ParsePerformanceManifest(ShowJSON())
	if err != nil {
		return nil, nil, fmt.Errorf("the built-in Show is invalid (rebuild Lets after `go generate ./backend/experience`): %w", err)
	}
	return d, p, nil
}
