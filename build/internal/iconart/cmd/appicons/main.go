// Command appicons writes the app icons into build/ (run by
// `go generate ./build/`). The files are committed; build's tests fail
// when they differ from what this would write.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/lets-app/lets/build/internal/iconart"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "appicons:", err)
		os.Exit(1)
	}
}

func run() error {
	files, err := iconart.Files()
	if err != nil {
		return err
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		path := filepath.FromSlash(name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("make the folder for %s: %w", name, err)
		}
		if err := os.WriteFile(path, files[name], 0o644); err != nil {
			return fmt.Errorf("write %s: %w", name, err)
		}
		fmt.Println("wrote build/" + name)
	}
	return nil
}
