// Package schemas embeds the JSON Schemas (draft 2020-12) of every message
// and file format Lets speaks, and compiles them for validation.
package schemas

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed *.schema.json
var files embed.FS

// baseURL is where the embedded schemas live for $ref resolution.
const baseURL = "https://lets.invalid/schemas/"

// Names lists the embedded schema files.
func Names() []string {
	entries, _ := fs.ReadDir(files, ".")
	var names []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".schema.json") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names
}

// Raw returns the text of one embedded schema file.
func Raw(name string) ([]byte, error) {
	data, err := files.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("schema %s is not embedded (known: %v): %w", name, Names(), err)
	}
	return data, nil
}

// Compile compiles the named schema (for example "unique.schema.json"); it
// may $ref the other embedded schemas by file name.
func Compile(name string) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	for _, n := range Names() {
		data, _ := files.ReadFile(n)
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("schema %s is not valid JSON: %w", n, err)
		}
		if err := c.AddResource(baseURL+n, doc); err != nil {
			return nil, fmt.Errorf("add schema %s: %w", n, err)
		}
	}
	s, err := c.Compile(baseURL + name)
	if err != nil {
		return nil, fmt.Errorf("compile schema %s: %w", name, err)
	}
	return s, nil
}

// ValidateJSON checks one JSON document against a compiled schema.
func ValidateJSON(s *jsonschema.Schema, doc []byte) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	return s.Validate(v)
}
