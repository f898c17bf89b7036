package shell

import (
	"bytes"
	"compress/gzip"
	"io/fs"
	"testing"
)

// TestShellBundleBudget: the whole shell page — shell.js and shell.css as
// embedded — stays within 120 KB minified and 40 KB gzipped (issue #11).
// The SDK and the envelope helpers load elsewhere and are not counted.
func TestShellBundleBudget(t *testing.T) {
	fsys, err := Files()
	if err != nil {
		t.Fatal(err)
	}
	var all []byte
	for _, name := range []string{"shell.js", "shell.css"} {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			t.Fatalf("%s is not embedded (run go generate ./shell/): %v", name, err)
		}
		all = append(all, data...)
	}
	var gz bytes.Buffer
	w, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	_, _ = w.Write(all)
	_ = w.Close()
	t.Logf("shell bundle: %.1f KB minified, %.1f KB gzipped", float64(len(all))/1024, float64(gz.Len())/1024)
	if len(all) > 120*1024 {
		t.Errorf("the shell is %d bytes minified, over the 120 KB budget", len(all))
	}
	if gz.Len() > 40*1024 {
		t.Errorf("the shell is %d bytes gzipped, over the 40 KB budget", gz.Len())
	}
}
