// Command gen writes Lets' own experiences (the Demo and the Show) to
// backend/experience/content. `go generate ./backend/experience` runs it;
// the files are committed and embedded, and a test fails when they are
// stale.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/lets-app/lets/backend/atomicfile"
	"github.com/lets-app/lets/backend/experience/internal/author"
)

func main() {
	dir := "content"
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	if err := run(dir); err != nil {
		fmt.Fprintln(os.Stderr, "experience gen:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	demo, err := author.DemoJSON()
	if err != nil {
		return fmt.Errorf("compose the Demo: %w", err)
	}
	show, err := author.ShowJSON()
	if err != nil {
		return fmt.Errorf("compose the Show: %w", err)
	}
	for name, data := range map[string][]byte{author.DemoFile: demo, author.ShowFile: show} {
		if err := atomicfile.Write(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
