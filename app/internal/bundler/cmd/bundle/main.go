// Command bundle regenerates shell/dist and frontend/dist. Run it through
// `go generate ./...` (or `make generate`) from anywhere in the repository.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/lets-app/lets/app/internal/bundler"
)

func main() {
	root, err := findRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bundle:", err)
		os.Exit(1)
	}
	want := map[string]bool{}
	for _, a := range os.Args[1:] {
		want[a] = true
	}
	for _, t := range bundler.Targets() {
		if len(want) > 0 && !want[t.Dir] {
			continue
		}
		files, err := bundler.Build(root, t)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bundle:", err)
			os.Exit(1)
		}
		if err := bundler.Write(root, t, files); err != nil {
			fmt.Fprintln(os.Stderr, "bundle: write", t.Dir, err)
			os.Exit(1)
		}
		if t.OutFile != "" {
			fmt.Printf("bundled %s into %s\n", t.Dir, t.OutFile)
			continue
		}
		fmt.Printf("bundled %s/%s (%d files)\n", t.Dir, bundler.DistDir, len(files))
	}
}

// findRoot walks up from the working directory to the folder with go.mod.
func findRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for range 32 {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return "", fmt.Errorf("no go.mod above the working directory; run it inside the repository")
}
