package manifest

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
)

// hiddenAtRoot are the files of a unique folder that only the host reads
// (LIP 1 §1.6); dot-files are hidden everywhere.
var hiddenAtRoot = []string{"unique.json", defaultGuide}

// notFound is the one error every refusal gives: it matches fs.ErrNotExist
// and carries only the path that was asked for, never what is outside.
func notFound(urlPath string) error {
	return &fs.PathError{Op: "open", Path: urlPath, Err: fs.ErrNotExist}
}

// servedName turns a percent-decoded URL path into a slash path relative
// to the unique folder, or reports false when origin U may not have it:
// traversal segments, dot-files, NUL or backslash, folders (a trailing
// slash or the root), unique.json, GUIDE.md and the extra hidden names
// (compared without regard to case, so a case-insensitive disk cannot
// be used to sneak past).
func servedName(urlPath string, extraHidden ...string) (string, bool) {
	if urlPath == "" || len(urlPath) > 4096 || strings.ContainsAny(urlPath, "\x00\\") {
		return "", false
	}
	p := strings.TrimPrefix(urlPath, "/")
	if p == "" || strings.HasSuffix(p, "/") {
		return "", false
	}
	for _, seg := range strings.Split(p, "/") {
		// "." and ".." start with a dot too.
		if strings.HasPrefix(seg, ".") {
			return "", false
		}
	}
	rel := strings.TrimPrefix(path.Clean("/"+p), "/")
	if rel == "" {
		return "", false
	}
	if hiddenName(rel, extraHidden) {
		return "", false
	}
	return rel, true
}

func hiddenName(rel string, extraHidden []string) bool {
	for _, h := range hiddenAtRoot {
		if strings.EqualFold(rel, h) {
			return true
		}
	}
	for _, h := range extraHidden {
		if h != "" && strings.EqualFold(rel, cleanRel(h)) {
			return true
		}
	}
	return false
}

// ResolveFile maps a URL path (already percent-decoded, as in
// http.Request.URL.Path) to a regular file inside root for serving to the
// unique's own origin (origin U). It cleans the path, refuses dot-files
// (any segment starting with "."), the root's unique.json and GUIDE.md, and
// resolves symlinks, refusing any that leave root or that lead to a hidden
// file inside it. Every refusal is an error matching fs.ErrNotExist that
// says nothing about the outside, so the host answers 404.
//
// Prefer OpenFile for serving: it also closes the gap between checking and
// opening.
func ResolveFile(root, urlPath string) (string, error) {
	real, _, err := resolve(root, urlPath, nil)
	return real, err
}

// resolve returns the real path of the served file and its path relative
// to the real root.
func resolve(root, urlPath string, extraHidden []string) (string, string, error) {
	rel, ok := servedName(urlPath, extraHidden...)
	if !ok {
		return "", "", notFound(urlPath)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", "", notFound(urlPath)
	}
	real, err := filepath.EvalSymlinks(filepath.Join(realRoot, filepath.FromSlash(rel)))
	if err != nil {
		return "", "", notFound(urlPath)
	}
	inside, err := filepath.Rel(realRoot, real)
	if err != nil || inside == "." || inside == ".." || strings.HasPrefix(inside, ".."+string(filepath.Separator)) || filepath.IsAbs(inside) {
		return "", "", notFound(urlPath)
	}
	// A link inside the folder must not lead to what the name itself
	// could not reach (unique.json, GUIDE.md, .git/…).
	target := filepath.ToSlash(inside)
	if _, ok := servedName("/"+target, extraHidden...); !ok {
		return "", "", notFound(urlPath)
	}
	fi, err := os.Stat(real)
	if err != nil || !fi.Mode().IsRegular() {
		return "", "", notFound(urlPath)
	}
	return real, target, nil
}

// OpenFile is ResolveFile followed by an open that cannot escape root
// (os.Root, without blocking on special files), and a check that the file
// opened is the file resolved, so a link swapped in after the check still
// cannot reach anything else. The file is regular; the caller closes it.
func OpenFile(root, urlPath string) (*os.File, error) {
	return openFile(root, urlPath, nil)
}

func openFile(root, urlPath string, extraHidden []string) (*os.File, error) {
	real, target, err := resolve(root, urlPath, extraHidden)
	if err != nil {
		return nil, err
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, notFound(urlPath)
	}
	r, err := os.OpenRoot(realRoot)
	if err != nil {
		return nil, notFound(urlPath)
	}
	defer r.Close()
	f, err := r.OpenFile(target, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, notFound(urlPath)
	}
	opened, err := f.Stat()
	checked, err2 := os.Stat(real)
	if err != nil || err2 != nil || !opened.Mode().IsRegular() || !os.SameFile(opened, checked) {
		_ = f.Close()
		return nil, notFound(urlPath)
	}
	return f, nil
}

// openServedFS opens a served file from an fs.FS without symlinks (an
// embed.FS).
func openServedFS(fsys fs.FS, urlPath string, extraHidden []string) (fs.File, error) {
	rel, ok := servedName(urlPath, extraHidden...)
	if !ok {
		return nil, notFound(urlPath)
	}
	f, err := fsys.Open(rel)
	if err != nil {
		return nil, notFound(urlPath)
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		_ = f.Close()
		return nil, notFound(urlPath)
	}
	return f, nil
}

// cleanRel cleans a manifest path (entry, guide, icon) to a slash path
// relative to the unique folder; it does not check that it stays inside
// (insidePathProblem does).
func cleanRel(p string) string {
	return strings.TrimPrefix(path.Clean("/"+p), "/")
}

// hostName checks a path the host itself reads inside a unique (no
// traversal, but hidden files are fine).
func hostName(name string) (string, error) {
	if name == "" || strings.ContainsAny(name, "\x00\\") || strings.HasPrefix(name, "/") {
		return "", fmt.Errorf("%q is not a path inside the unique folder: %w", name, fs.ErrNotExist)
	}
	c := path.Clean(name)
	if c == "." || c == ".." || strings.HasPrefix(c, "../") {
		return "", fmt.Errorf("%q is not a path inside the unique folder: %w", name, fs.ErrNotExist)
	}
	return c, nil
}
