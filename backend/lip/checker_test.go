package lip

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/lets-app/lets/schemas"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Checker validates envelopes of core types against
// schemas/lip-messages.schema.json (the data shape of every §4 message and
// the props of the eight built-in components). Types it does not know pass:
// new types are additive (seed §8). Safe for concurrent use. It is a test
// helper: every message Lets sends is checked against its schema in tests,
// while package lip stays free of a JSON Schema engine (the small hook
// front links it).
type Checker struct {
	messages *jsonschema.Schema
	printer  *message.Printer
}

// NewChecker compiles the embedded message schemas.
func NewChecker() (*Checker, error) {
	s, err := schemas.Compile("lip-messages.schema.json")
	if err != nil {
		return nil, fmt.Errorf("lip: message schemas: %w", err)
	}
	return &Checker{messages: s, printer: message.NewPrinter(language.English)}, nil
}

// Check validates the whole envelope, including its data when the type is a
// core type. The error is a bad_envelope naming the first problem.
func (c *Checker) Check(e *Envelope) *Error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(e.AppendJSON(nil)))
	if err != nil {
		return Errorf(CodeBadEnvelope, "the envelope does not encode: %v", err)
	}
	if err := c.messages.Validate(doc); err != nil {
		return Errorf(CodeBadEnvelope, "%s data is not valid: %s", e.Type, schemaMessage(err, c.printer))
	}
	return nil
}

// schemaMessage condenses a jsonschema error to its most specific causes.
func schemaMessage(err error, p *message.Printer) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	var leaves []string
	var walk func(v *jsonschema.ValidationError)
	walk = func(v *jsonschema.ValidationError) {
		if len(v.Causes) == 0 {
			loc := "/" + strings.Join(v.InstanceLocation, "/")
			leaves = append(leaves, fmt.Sprintf("at %s: %s", loc, v.ErrorKind.LocalizedString(p)))
			return
		}
		for _, c := range v.Causes {
			walk(c)
		}
	}
	walk(ve)
	if len(leaves) > 3 {
		leaves = append(leaves[:3], fmt.Sprintf("and %d more", len(leaves)-3))
	}
	return strings.Join(leaves, "; ")
}
