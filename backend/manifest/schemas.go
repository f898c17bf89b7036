package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/lets-app/lets/backend/textsafe"
)

// MaxDataSchemaBytes caps one schema file a unique declares for the data
// of an event or command.
const MaxDataSchemaBytes = 256 << 10

// schemaBase is the URL the unique's folder has while its schemas are
// compiled: a relative "$ref" resolves inside the folder, and the loader
// serves nothing else (no other files, no network).
const schemaBase = "file:///lets-unique/"

// dataSchemas are the compiled schemas of one unique, by envelope type.
type dataSchemas struct {
	events   map[string]typeSchema
	commands map[string]typeSchema
}

type typeSchema struct {
	file   string // the path in unique.json, for messages
	schema *jsonschema.Schema
}

// DataError says which field of an envelope's data breaks the schema the
// unique declared for its type. The host answers it with bad_data.
type DataError struct {
	// Type is the envelope type.
	Type string
	// Field is the path of the offending field inside data, with '/'
	// between levels ("value", "items/2/name"); "" means data itself.
	Field string
	// Message says what is wrong with the field.
	Message string
	// Schema is the schema file, as unique.json names it.
	Schema string
}

func (e *DataError) Error() string {
	where := "data"
	if e.Field != "" {
		where = "data field " + e.Field
	}
	return fmt.Sprintf("%s: %s %s (the unique's schema %s)", e.Type, where, e.Message, e.Schema)
}

// CheckEventData validates data (a JSON object) of an up-event against the
// schema the unique declared for typ. Types without a declared schema pass.
// The error is a *DataError.
func (m *Manifest) CheckEventData(typ string, data []byte) error {
	if m.schemas == nil {
		return nil
	}
	return checkData(typ, data, m.schemas.events)
}

// CheckCommandData validates data of a down-command against the schema
// the unique declared for typ. Types without a declared schema pass.
func (m *Manifest) CheckCommandData(typ string, data []byte) error {
	if m.schemas == nil {
		return nil
	}
	return checkData(typ, data, m.schemas.commands)
}

// HasDataSchemas reports whether any declared type has a compiled schema
// (only manifests loaded with their files have them).
func (m *Manifest) HasDataSchemas() bool {
	return m.schemas != nil && len(m.schemas.events)+len(m.schemas.commands) > 0
}

func checkData(typ string, data []byte, by map[string]typeSchema) error {
	ts, ok := by[typ]
	if !ok {
		return nil
	}
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}")
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return &DataError{Type: typ, Message: "is not valid JSON", Schema: ts.file}
	}
	err = ts.schema.Validate(doc)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return &DataError{Type: typ, Message: err.Error(), Schema: ts.file}
	}
	field, msg := firstLeaf(ve)
	return &DataError{Type: typ, Field: field, Message: msg, Schema: ts.file}
}

// firstLeaf finds the first concrete failure in a validation tree and
// words it as (field, message).
func firstLeaf(e *jsonschema.ValidationError) (string, string) {
	for len(e.Causes) > 0 {
		e = e.Causes[0]
	}
	field := strings.Join(e.InstanceLocation, "/")
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		missing := strings.Join(k.Missing, ", ")
		if field != "" {
			return field + "/" + k.Missing[0], "is required (missing: " + missing + ")"
		}
		return k.Missing[0], "is required (missing: " + missing + ")"
	case *kind.AdditionalProperties:
		p := k.Properties[0]
		if field != "" {
			p = field + "/" + p
		}
		return p, "is not allowed here"
	}
	leaf := &jsonschema.ValidationError{SchemaURL: e.SchemaURL, InstanceLocation: e.InstanceLocation, ErrorKind: e.ErrorKind}
	msg := leaf.BasicOutput().Error.String()
	if msg == "" {
		msg = "does not match the schema"
	}
	return field, msg
}

// compileDataSchemas compiles every schema file the manifest declares,
// once, from the unique's own files. A declared file that is missing was
// already reported as a warning by CheckFiles and is not enforced; a file
// that is there but is not a usable JSON Schema is a problem (rule 2), so
// a unique never runs with a schema the host cannot apply.
func compileDataSchemas(m *Manifest, fsys fs.FS) (*dataSchemas, []Problem) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(uniqueLoader{fsys: fsys})
	out := &dataSchemas{events: map[string]typeSchema{}, commands: map[string]typeSchema{}}
	var problems []Problem
	for _, group := range []struct {
		key   string
		types map[string]TypeInfo
		into  map[string]typeSchema
	}{{"events", m.Events, out.events}, {"commands", m.Commands, out.commands}} {
		types := make([]string, 0, len(group.types))
		for t := range group.types {
			types = append(types, t)
		}
		slices.Sort(types)
		for _, t := range types {
			file := group.types[t].Schema
			if file == "" || insidePathProblem(file) != "" {
				continue
			}
			rel := cleanRel(file)
			if regularFile(fsys, rel) != nil {
				continue // CheckFiles warned: the declaration is ignored
			}
			s, err := c.Compile(schemaBase + rel)
			if err != nil {
				problems = append(problems, Problem{Rule: 2, Field: group.key + "/" + t + "/schema",
					Message: fmt.Sprintf("%q is not a JSON Schema Lets can use (%s); fix the file or remove \"schema\"", file, oneLine(err))})
				continue
			}
			group.into[t] = typeSchema{file: file, schema: s}
		}
	}
	return out, problems
}

func oneLine(err error) string {
	return textsafe.ClipBytes(textsafe.Collapse(err.Error()), 300)
}

// uniqueLoader serves schema files from the unique's folder only.
type uniqueLoader struct{ fsys fs.FS }

func (l uniqueLoader) Load(raw string) (any, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "file" || u.Host != "" || !strings.HasPrefix(u.Path, "/lets-unique/") {
		return nil, fmt.Errorf("%s is outside the unique folder; a schema may refer only to files inside it", raw)
	}
	rel := path.Clean(strings.TrimPrefix(u.Path, "/lets-unique/"))
	if !fs.ValidPath(rel) {
		return nil, fmt.Errorf("%s is outside the unique folder", raw)
	}
	data, err := readLimited(l.fsys, rel, MaxDataSchemaBytes)
	if errors.Is(err, errTooLarge) {
		return nil, fmt.Errorf("%s is larger than %d KiB", rel, MaxDataSchemaBytes>>10)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", rel, err)
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(data))
}
