package frontend

import (
	"io/fs"
)

// padBundles are the generated files of the pad app; everything else in
// dist/ belongs to other pages.
var padBundles = map[string]bool{"pad.js": true, "pad.js.map": true}

// PadApp returns the virtual pad web app that the browser surface
// (backend/surface/web) serves at its root: static/pad/ (index.html,
// pad.css) plus the bundled pad.js and its source map from dist/.
func PadApp() (fs.FS, error) {
	static, err := fs.Sub(files, "static/pad")
	if err != nil {
		return nil, err
	}
	dist, err := fs.Sub(files, "dist")
	if err != nil {
		return nil, err
	}
	return overlay{static, only{dist, padBundles}}, nil
}

// only exposes the named top-level files of an FS and nothing else.
type only struct {
	fsys  fs.FS
	names map[string]bool
}

func (o only) Open(name string) (fs.File, error) {
	if !o.names[name] {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return o.fsys.Open(name)
}
