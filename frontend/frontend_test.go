package frontend

import (
	"io/fs"
	"testing"
)

func TestNoNameInBothLayers(t *testing.T) {
	static, _ := fs.Sub(files, "static")
	dist, _ := fs.Sub(files, "dist")
	_ = fs.WalkDir(static, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if _, err := fs.Stat(dist, p); err == nil {
			t.Errorf("%s exists in static/ and dist/", p)
		}
		return nil
	})
}

func TestPagesHasIndexAndBundle(t *testing.T) {
	pages, err := Pages()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"index.html", "home.css", "home.js", "home.js.map"} {
		if _, err := fs.Stat(pages, name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := pages.Open("missing.txt"); err == nil {
		t.Error("a missing file opened")
	}
}
