package manifest

import (
	"errors"
	"os"
)

// ResolveFile maps a URL path (already percent-decoded, as in
// http.Request.URL.Path) to a regular file inside root for serving to the
// unique's own origin (origin U). It cleans the path, refuses dot-files
// (any segment starting with "."), the root's unique.json and GUIDE.md, and
// resolves symlinks, refusing any that leave root. Every refusal is an
// error matching fs.ErrNotExist that says nothing about the outside, so the
// host answers 404.
//
// Prefer OpenFile for serving: it also closes the gap between checking and
// opening.
func ResolveFile(root, urlPath string) (string, error) {
	return "", errors.New("manifest: not implemented yet")
}

// OpenFile is ResolveFile followed by an open that cannot escape root
// (os.Root), so a symlink swapped in after the check still cannot reach
// outside. The file is a regular file; the caller closes it.
func OpenFile(root, urlPath string) (*os.File, error) {
	return nil, errors.New("manifest: not implemented yet")
}

// cleanRel cleans a manifest path (entry, guide, icon) to a slash path
// relative to the unique folder; it does not check that it stays inside.
func cleanRel(p string) string { return p }
