// Command gen writes the browser pad's sounds (run by `go generate` in
// backend/audio): the 99 earcons of the bank and the Show soundtrack, into
// the folder given by -out (frontend/static/pad/experiences/audio). Files
// there that it did not write are removed. The output is deterministic;
// backend/audio/gen's test fails when the committed files are stale.
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	out := flag.String("out", "", "`folder` to write the WAV files into")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "gen: -out is required")
		os.Exit(2)
	}
	files, err := Files()
	if err == nil {
		err = Write(*out, files)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
