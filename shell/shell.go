// Package shell holds the companion shell and the unique SDK: TypeScript in
// src/, bundled into dist/ by `go generate` and embedded in the binary.
package shell

//go:generate go run ../app/internal/bundler/cmd/bundle shell

import (
	"embed"
	"io/fs"
)

//go:embed dist
var dist embed.FS

// Files returns the bundled shell assets (envelope.js, its source map, …).
func Files() (fs.FS, error) {
	return fs.Sub(dist, "dist")
}
