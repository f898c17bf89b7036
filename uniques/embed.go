// Package uniques embeds the built-in uniques: one folder per unique, each
// with unique.json, GUIDE.md and its static files. backend/manifest checks
// them at start-up like any other unique.
package uniques

//go:generate go run ../app/internal/bundler/cmd/bundle uniques/_graph

import (
	"embed"
	"io/fs"
)

// builtin holds the unique folders. Add a line per new built-in unique;
// dot-files and _-files are left out by go:embed.
//
//go:embed chat graph hello
var builtin embed.FS

// FS returns the built-in uniques, one top-level folder per unique.
func FS() fs.FS { return builtin }
