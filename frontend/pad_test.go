package frontend

import (
	"io/fs"
	"testing"
)

func TestPadAppHasPageStyleAndBundle(t *testing.T) {
	app, err := PadApp()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"index.html", "pad.css", "pad.js", "pad.js.map"} {
		if _, err := fs.Stat(app, name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	// The pad app is its own root: the home page is not part of it.
	if _, err := fs.Stat(app, "home.js"); err == nil {
		t.Error("home.js is visible in the pad app")
	}
}
