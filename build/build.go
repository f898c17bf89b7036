// Package build holds what turns Lets into an installed desktop app: the
// app icons (drawn by internal/iconart and committed), the desktop entry
// (linux/lets.desktop) and the Debian package recipe (linux/package.sh,
// run by `make package`). It has no code the app uses; its tests check
// the icons are fresh and that the package installs where a desktop
// expects it.
package build

//go:generate go run ./internal/iconart/cmd/appicons
