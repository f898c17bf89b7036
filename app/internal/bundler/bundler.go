// Package bundler turns the TypeScript sources of shell/ and frontend/ into
// the minified bundles (with source maps) that the binary embeds. It uses the
// esbuild Go API, so building needs no Node.js.
package bundler

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/evanw/esbuild/pkg/api"
)

// Target is one folder with TypeScript in src/ and generated files in dist/.
type Target struct {
	// Dir is the folder relative to the repository root, e.g. "frontend".
	Dir string
	// Entries are entry points relative to Dir, e.g. "src/home.ts".
	Entries []string
	// Format is the output module format.
	Format api.Format
	// GlobalName names the IIFE global, when Format is IIFE.
	GlobalName string
	// OutFile, when set, makes the target one readable file instead of a
	// minified dist folder: the single entry is bundled, not minified and
	// without a source map, to OutFile (relative to the repository root),
	// headed by Banner. Only that file is written, so it can live beside
	// hand-written files (a built-in unique's page, which authors read).
	OutFile string
	Banner  string
}

// Targets lists every bundle the repository commits.
func Targets() []Target {
	return []Target{
		{Dir: "shell", Entries: []string{"src/envelope.ts", "src/shell.ts", "src/sdk.ts"}, Format: api.FormatIIFE},
		{Dir: "frontend", Entries: []string{"src/home.ts", "src/pad.ts"}, Format: api.FormatIIFE},
		{Dir: "uniques/_graph", Entries: []string{"main.ts"}, Format: api.FormatIIFE, OutFile: "uniques/graph/ui/app.js",
			Banner: "// Generated from uniques/_graph/*.ts by `go generate ./uniques/` (the esbuild Go API). Edit the TypeScript."},
	}
}

// DistDir is where a target's generated files live, relative to its Dir.
const DistDir = "dist"

// Build bundles a target found under root and returns its dist files by
// path relative to dist/ ("home.js", "home.js.map").
func Build(root string, t Target) (map[string][]byte, error) {
	abs, err := filepath.Abs(filepath.Join(root, t.Dir))
	if err != nil {
		return nil, err
	}
	if t.OutFile != "" {
		return buildOne(root, abs, t)
	}
	outdir := filepath.Join(abs, DistDir)
	entries := make([]string, len(t.Entries))
	for i, e := range t.Entries {
		entries[i] = filepath.Join(abs, filepath.FromSlash(e))
	}
	res := api.Build(api.BuildOptions{
		EntryPoints:       entries,
		Outdir:            outdir,
		Bundle:            true,
		Write:             false,
		MinifyWhitespace:  true,
		MinifyIdentifiers: true,
		MinifySyntax:      true,
		Sourcemap:         api.SourceMapLinked,
		Format:            t.Format,
		GlobalName:        t.GlobalName,
		Target:            api.ES2020,
		Platform:          api.PlatformBrowser,
		Charset:           api.CharsetUTF8,
		LegalComments:     api.LegalCommentsNone,
		LogLevel:          api.LogLevelSilent,
	})
	if len(res.Errors) > 0 {
		msgs := api.FormatMessages(res.Errors, api.FormatMessagesOptions{Kind: api.ErrorMessage})
		return nil, fmt.Errorf("bundle %s: %s", t.Dir, strings.Join(msgs, "\n"))
	}
	out := map[string][]byte{}
	for _, f := range res.OutputFiles {
		rel, err := filepath.Rel(outdir, f.Path)
		if err != nil || strings.HasPrefix(rel, "..") {
			return nil, fmt.Errorf("bundle %s: esbuild wrote outside dist: %s", t.Dir, f.Path)
		}
		out[filepath.ToSlash(rel)] = f.Contents
	}
	return out, nil
}

// buildOne bundles a single-file target (Target.OutFile), readable.
func buildOne(root, abs string, t Target) (map[string][]byte, error) {
	rootAbs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	if len(t.Entries) != 1 {
		return nil, fmt.Errorf("bundle %s: a target with OutFile takes exactly one entry, not %d", t.Dir, len(t.Entries))
	}
	name := filepath.Base(t.OutFile)
	res := api.Build(api.BuildOptions{
		EntryPoints:   []string{filepath.Join(abs, filepath.FromSlash(t.Entries[0]))},
		Outfile:       name,
		AbsWorkingDir: rootAbs, // the path comments name files from the repository root, wherever this runs
		Bundle:        true,
		Write:         false,
		Format:        t.Format,
		GlobalName:    t.GlobalName,
		Target:        api.ES2020,
		Platform:      api.PlatformBrowser,
		Charset:       api.CharsetUTF8,
		LegalComments: api.LegalCommentsNone,
		Banner:        map[string]string{"js": t.Banner},
		LogLevel:      api.LogLevelSilent,
	})
	if len(res.Errors) > 0 {
		msgs := api.FormatMessages(res.Errors, api.FormatMessagesOptions{Kind: api.ErrorMessage})
		return nil, fmt.Errorf("bundle %s: %s", t.Dir, strings.Join(msgs, "\n"))
	}
	if len(res.OutputFiles) != 1 {
		return nil, fmt.Errorf("bundle %s: esbuild made %d files, want 1", t.Dir, len(res.OutputFiles))
	}
	return map[string][]byte{name: res.OutputFiles[0].Contents}, nil
}

// Write replaces the target's dist folder with files, removing stale ones;
// a single-file target writes its one file only.
func Write(root string, t Target, files map[string][]byte) error {
	if t.OutFile != "" {
		data, ok := files[filepath.Base(t.OutFile)]
		if !ok || len(files) != 1 {
			return fmt.Errorf("bundle %s: want exactly %s to write", t.Dir, filepath.Base(t.OutFile))
		}
		return os.WriteFile(filepath.Join(root, filepath.FromSlash(t.OutFile)), data, 0o644)
	}
	dist := filepath.Join(root, t.Dir, DistDir)
	if err := os.MkdirAll(dist, 0o755); err != nil {
		return err
	}
	existing, err := ReadDist(root, t)
	if err != nil {
		return err
	}
	for name := range existing {
		if _, keep := files[name]; !keep {
			if err := os.Remove(filepath.Join(dist, filepath.FromSlash(name))); err != nil {
				return err
			}
		}
	}
	for name, data := range files {
		p := filepath.Join(dist, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// ReadDist reads the committed dist folder of a target (its one file,
// for a single-file target).
func ReadDist(root string, t Target) (map[string][]byte, error) {
	if t.OutFile != "" {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(t.OutFile)))
		if errors.Is(err, fs.ErrNotExist) {
			return map[string][]byte{}, nil
		}
		if err != nil {
			return nil, err
		}
		return map[string][]byte{filepath.Base(t.OutFile): data}, nil
	}
	dist := filepath.Join(root, t.Dir, DistDir)
	out := map[string][]byte{}
	err := filepath.WalkDir(dist, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == dist {
				return fs.SkipAll
			}
			return err
		}
		if d.IsDir() || d.Name() == "embed.go" {
			return nil
		}
		rel, _ := filepath.Rel(dist, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[filepath.ToSlash(rel)] = data
		return nil
	})
	return out, err
}

// Diff describes how the committed files differ from a fresh build; empty
// means they are the same.
func Diff(committed, fresh map[string][]byte) []string {
	var diffs []string
	for name, data := range fresh {
		old, ok := committed[name]
		switch {
		case !ok:
			diffs = append(diffs, name+": missing from the committed bundle")
		case !bytes.Equal(old, data):
			diffs = append(diffs, name+": differs from a fresh build")
		}
	}
	for name := range committed {
		if _, ok := fresh[name]; !ok {
			diffs = append(diffs, name+": committed but no longer generated")
		}
	}
	sort.Strings(diffs)
	return diffs
}
