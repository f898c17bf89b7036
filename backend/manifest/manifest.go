// Package manifest reads and checks unique.json (LIP 1 §11, seed §6), keeps
// the registries of uniques (built-in, embedded in the binary, and user,
// installed from git into ~/.lets/uniques/<name>/), and resolves the files a
// unique's origin may serve (LIP 1 §1.6).
//
// Validation is two-staged, as the spec orders: the JSON Schema
// schemas/unique.schema.json first, then the seed's eight rules. Every
// rejection is a Problem that names the rule number and the field, e.g.
//
//	rule 1 (name): "Graph" must match ^[a-z][a-z0-9-]{1,31}$
//
// The manifest checks themselves are pure (no clock, no network); the
// registry and the installer do file and process I/O.
package manifest

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// LIPMajor is the LIP major version this host speaks (rule 6).
const LIPMajor = 1

// reservedDomains may not be declared by a unique (LIP 1 §3, rule 3).
var reservedDomains = []string{"lip", "session", "entity", "chat", "component", "media", "ui", "shell", "host", "clipboard", "window"}

// ReservedDomains lists the domains a unique may not declare.
func ReservedDomains() []string { return slices.Clone(reservedDomains) }

// IsReservedDomain reports whether d is a core domain (LIP 1 §3).
func IsReservedDomain(d string) bool { return slices.Contains(reservedDomains, d) }

// KnownLanguages are the languages the runner knows (LIP 1 §10). A manifest
// may list others in permissions.exec; they are kept, warned about, and
// refused at run time.
var knownLanguages = []string{"python", "javascript", "shell"}

// TypeInfo describes one declared event or command.
type TypeInfo struct {
	Summary string `json:"summary"`
	// Schema is a path inside the unique folder of a JSON Schema for data.
	Schema string `json:"schema,omitempty"`
}

// Permissions is the manifest's permissions object. Unknown keys are kept
// in Other and ignored.
type Permissions struct {
	FSWrite []string `json:"fs.write,omitempty"`
	Net     []string `json:"net,omitempty"`
	// Exec lists the languages the unique may ask the host to run (rule 8).
	// Empty means the unique may run nothing.
	Exec  []string                   `json:"exec,omitempty"`
	Other map[string]json.RawMessage `json:"-"`
}

// SessionTypes names the handoff types (rule 7). After Parse all three are
// set: either declared, or the defaults <domain>.export, <domain>.snapshot
// and <domain>.load of the first domain.
type SessionTypes struct {
	Export   string `json:"export"`
	Snapshot string `json:"snapshot"`
	Restore  string `json:"restore"`
}

// Author is the manifest's author object.
type Author struct {
	Name  string `json:"name,omitempty"`
	URL   string `json:"url,omitempty"`
	Email string `json:"email,omitempty"`
}

// Manifest is a checked unique.json.
type Manifest struct {
	LIP          int                 `json:"lip"`
	Name         string              `json:"name"`
	Version      string              `json:"version"`
	Title        string              `json:"title"`
	Description  string              `json:"description,omitempty"`
	Entry        string              `json:"entry"`
	Guide        string              `json:"guide,omitempty"`
	Icon         string              `json:"icon,omitempty"`
	Domains      []string            `json:"domains"`
	Capabilities []string            `json:"capabilities,omitempty"`
	Events       map[string]TypeInfo `json:"events,omitempty"`
	Commands     map[string]TypeInfo `json:"commands,omitempty"`
	Permissions  Permissions         `json:"permissions"`
	// Session always holds the three handoff types (defaults applied).
	Session SessionTypes `json:"session"`
	// SessionDeclared reports whether unique.json had a session object.
	SessionDeclared bool    `json:"-"`
	Engine          string  `json:"engine,omitempty"`
	Author          *Author `json:"author,omitempty"`
	License         string  `json:"license,omitempty"`
	Repository      string  `json:"repository,omitempty"`

	// Unknown holds top-level keys this host does not know (rule 5): kept
	// for forward compatibility, otherwise ignored.
	Unknown map[string]json.RawMessage `json:"-"`

	// schemas are the compiled data schemas of the declared types; set
	// when the manifest is loaded with its files (LoadFS, LoadDir).
	schemas *dataSchemas
}

// defaultGuide is the guide file used when the manifest names none.
const defaultGuide = "GUIDE.md"

// GuidePath is the guide file inside the unique folder (the manifest's
// guide, or GUIDE.md).
func (m *Manifest) GuidePath() string {
	if m.Guide != "" {
		return cleanRel(m.Guide)
	}
	return defaultGuide
}

// InDomain reports whether typ belongs to one of the unique's domains
// (rule 4): it equals a domain or starts with "<domain>.".
func (m *Manifest) InDomain(typ string) bool {
	for _, d := range m.Domains {
		if strings.HasPrefix(typ, d+".") {
			return true
		}
	}
	return false
}

// Event returns the declared event typ.
func (m *Manifest) Event(typ string) (TypeInfo, bool) {
	t, ok := m.Events[typ]
	return t, ok
}

// Command returns the declared command typ.
func (m *Manifest) Command(typ string) (TypeInfo, bool) {
	t, ok := m.Commands[typ]
	return t, ok
}

// IsSessionType reports whether typ is one of the handoff types.
func (m *Manifest) IsSessionType(typ string) bool {
	return typ == m.Session.Export || typ == m.Session.Snapshot || typ == m.Session.Restore
}

// AllowsExec reports whether permissions.exec lists language (rule 8). The
// human's consent is a separate check (LIP 1 §10).
func (m *Manifest) AllowsExec(language string) bool {
	return slices.Contains(m.Permissions.Exec, language)
}

// UnknownKeys lists the ignored top-level keys in sorted order.
func (m *Manifest) UnknownKeys() []string {
	keys := make([]string, 0, len(m.Unknown))
	for k := range m.Unknown {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Problem is one reason a manifest is refused.
type Problem struct {
	// Rule is the seed's rule number 1-8, or 0 for other checks.
	Rule int `json:"rule,omitempty"`
	// Check names a check that is not one of the eight rules: "json",
	// "schema", "engine" or "files". Empty when Rule is set.
	Check string `json:"check,omitempty"`
	// Field is the manifest field (a JSON pointer without the leading
	// slash, e.g. "name", "events/other.x", "permissions/exec").
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
}

// String renders the problem as `rule N (field): message` or
// `check (field): message`.
func (p Problem) String() string {
	label := p.Check
	if p.Rule > 0 {
		label = fmt.Sprintf("rule %d", p.Rule)
	}
	if p.Field != "" {
		return fmt.Sprintf("%s (%s): %s", label, p.Field, p.Message)
	}
	return fmt.Sprintf("%s: %s", label, p.Message)
}

// ErrInvalid is wrapped by every *InvalidError (the host answers
// invalid_manifest).
var ErrInvalid = errors.New("invalid unique manifest")

// InvalidError lists every problem found in one manifest.
type InvalidError struct {
	// Where names the manifest (a folder or a source) for the message.
	Where    string
	Problems []Problem
}

func (e *InvalidError) Error() string {
	var b strings.Builder
	if e.Where != "" {
		fmt.Fprintf(&b, "%s: ", e.Where)
	}
	b.WriteString("unique.json is not valid: ")
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(p.String())
	}
	return b.String()
}

// Unwrap lets errors.Is(err, ErrInvalid) match.
func (e *InvalidError) Unwrap() error { return ErrInvalid }

// HasRule reports whether one of the problems is the given rule.
func (e *InvalidError) HasRule(rule int) bool {
	for _, p := range e.Problems {
		if p.Rule == rule {
			return true
		}
	}
	return false
}
