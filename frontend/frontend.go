// Package frontend holds the app's own pages (home, pairing, virtual pad):
// hand-written files in static/ and TypeScript in src/, bundled into dist/
// by `go generate`. Both folders are embedded and served as one.
package frontend

//go:generate go run ../app/internal/bundler/cmd/bundle frontend

import (
	"embed"
	"errors"
	"io/fs"
)

//go:embed static dist
var files embed.FS

// Pages returns the pages: static/ files and dist/ bundles under one root.
func Pages() (fs.FS, error) {
	static, err := fs.Sub(files, "static")
	if err != nil {
		return nil, err
	}
	dist, err := fs.Sub(files, "dist")
	if err != nil {
		return nil, err
	}
	return overlay{static, dist}, nil
}

// overlay looks a name up in each layer in turn. TestNoNameInBothLayers
// keeps a bundle from shadowing a hand-written file.
type overlay []fs.FS

func (o overlay) Open(name string) (fs.File, error) {
	var firstErr error
	for _, layer := range o {
		f, err := layer.Open(name)
		if err == nil {
			return f, nil
		}
		if firstErr == nil || !errors.Is(err, fs.ErrNotExist) {
			firstErr = err
		}
	}
	return nil, firstErr
}
