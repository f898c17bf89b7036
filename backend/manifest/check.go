package manifest

import (
	"errors"
	"io/fs"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Options configure a Checker.
type Options struct {
	// HostVersion is the running Lets version (semver, e.g. "0.1.0-dev"),
	// checked against a manifest's engine range. Empty skips the check.
	HostVersion string
	// LIP is the host's LIP major (rule 6); 0 means LIPMajor.
	LIP int
}

// Checker validates manifests. It holds the compiled schema, so make one
// and reuse it; it is safe for concurrent use.
type Checker struct {
	schema *jsonschema.Schema
	opts   Options
}

// NewChecker compiles schemas/unique.schema.json.
func NewChecker(opts Options) (*Checker, error) {
	return nil, errors.New("manifest: not implemented yet")
}

// Parse checks the text of a unique.json: JSON, the schema, then rules 1
// and 3-8 and the lexical part of rule 2 (paths must stay inside the
// folder), and the engine range. It fills the session defaults (rule 7). A
// refused manifest gives an *InvalidError listing every problem; warnings
// are things worth telling the author that do not refuse the manifest.
func (c *Checker) Parse(data []byte) (m *Manifest, warnings []string, err error) {
	return nil, nil, errors.New("manifest: not implemented yet")
}

// CheckFiles checks rule 2 against the unique's files: entry (and guide,
// icon, declared schema files) must resolve to regular files inside fsys.
// fsys must refuse paths that escape it (an os.Root's FS or an embed.FS).
// A GUIDE.md over about 1500 words is a warning, not an error.
func (c *Checker) CheckFiles(m *Manifest, fsys fs.FS) (warnings []string, err error) {
	return nil, errors.New("manifest: not implemented yet")
}

// LoadFS reads unique.json from fsys and runs Parse and CheckFiles.
func (c *Checker) LoadFS(fsys fs.FS) (*Manifest, []string, error) {
	return nil, nil, errors.New("manifest: not implemented yet")
}

// LoadDir reads and checks the unique in folder dir (symlinks that leave
// dir count as missing files).
func (c *Checker) LoadDir(dir string) (*Manifest, []string, error) {
	return nil, nil, errors.New("manifest: not implemented yet")
}
