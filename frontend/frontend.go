// Package frontend holds the app's own pages (home, pairing, virtual pad):
// TypeScript in src/ and static files in static/, bundled into dist/ by
// `go generate` and embedded in the binary.
package frontend

//go:generate go run ../app/internal/bundler/cmd/bundle frontend

import (
	"embed"
	"io/fs"
)

//go:embed dist
var dist embed.FS

// Pages returns the bundled pages, rooted at dist/.
func Pages() (fs.FS, error) {
	return fs.Sub(dist, "dist")
}
