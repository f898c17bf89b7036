package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/lets-app/lets/schemas"
)

// Limits on what a manifest may make the host read.
const (
	// MaxManifestBytes caps unique.json.
	MaxManifestBytes = 256 << 10
	// MaxGuideBytes caps the guide the host reads and hands to Claude.
	MaxGuideBytes = 512 << 10
	// GuideWordsWarn is the guide length the seed asks authors to stay
	// under (§7); longer guides are accepted with a warning.
	GuideWordsWarn = 1500
)

// Patterns of the seed and LIP 1 §2.
var (
	nameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9-]{1,31}$`) })
	typeRE = regexp.MustCompile(`^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)+$`)
)

// maxTypeLen is the longest envelope type (LIP 1 §2).
const maxTypeLen = 96

// Options configure a Checker.
type Options struct {
	// HostVersion is the running Lets version (semver, e.g. "0.1.0-dev"),
	// checked against a manifest's engine range. Its prerelease part is
	// ignored for that check, so a 0.2.0-dev build runs uniques that ask
	// for ">=0.2.0". Empty skips the check.
	HostVersion string
	// LIP is the host's LIP major (rule 6); 0 means LIPMajor.
	LIP int
}

// Checker validates manifests. It holds the compiled schema, so make one
// and reuse it; it is safe for concurrent use.
type Checker struct {
	schema *jsonschema.Schema
	opts   Options
	host   *Version
}

// NewChecker compiles schemas/unique.schema.json.
func NewChecker(opts Options) (*Checker, error) {
	s, err := schemas.Compile("unique.schema.json")
	if err != nil {
		return nil, fmt.Errorf("manifest checker: %w", err)
	}
	if opts.LIP == 0 {
		opts.LIP = LIPMajor
	}
	c := &Checker{schema: s, opts: opts}
	if opts.HostVersion != "" {
		v, err := ParseVersion(opts.HostVersion)
		if err != nil {
			return nil, fmt.Errorf("manifest checker: host version: %w", err)
		}
		rel := v.Release()
		c.host = &rel
	}
	return c, nil
}

// ValidName reports whether name is a well-formed unique name (rule 1:
// lowercase letters, digits and '-', 2–32 characters, starting with a
// letter).
func ValidName(name string) bool { return nameRE().MatchString(name) }

// ruleOfField says which seed rule covers a top-level manifest field, so
// that schema failures are reported under the rule they break.
func ruleOfField(field string) int {
	top, rest, _ := strings.Cut(field, "/")
	switch top {
	case "name":
		return 1
	case "entry":
		return 2
	case "domains":
		return 3
	case "events", "commands":
		return 4
	case "lip":
		return 6
	case "session":
		return 7
	case "permissions":
		if rest == "exec" || strings.HasPrefix(rest, "exec/") {
			return 8
		}
	}
	return 0
}

// Parse checks the text of a unique.json: JSON, the schema, then rules 1
// and 3-8, the lexical part of rule 2 (paths must stay inside the folder)
// and the engine range. It fills the session defaults (rule 7). A refused
// manifest gives an *InvalidError listing every problem; warnings are
// things worth telling the author that do not refuse the manifest.
func (c *Checker) Parse(data []byte) (*Manifest, []string, error) {
	if len(data) > MaxManifestBytes {
		return nil, nil, &InvalidError{Problems: []Problem{{Check: "json", Message: fmt.Sprintf("unique.json is %d bytes; the limit is %d", len(data), MaxManifestBytes)}}}
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil || raw == nil {
		msg := "unique.json must hold one JSON object, like {\"lip\": 1, \"name\": \"…\"}"
		if err != nil {
			msg = fmt.Sprintf("unique.json is not valid JSON (%v)", err)
		}
		return nil, nil, &InvalidError{Problems: []Problem{{Check: "json", Message: msg}}}
	}

	schemaProblems := c.schemaProblems(data)
	m, ruleProblems, warnings := c.checkRules(raw)

	// A field with a rule problem is explained by that rule; the schema's
	// wording for the same field would only repeat it less clearly.
	explained := map[string]bool{}
	for _, p := range ruleProblems {
		explained[topField(p.Field)] = true
	}
	problems := ruleProblems
	for _, p := range schemaProblems {
		if !explained[topField(p.Field)] {
			problems = append(problems, p)
		}
	}
	if len(problems) > 0 {
		sortProblems(problems)
		return nil, warnings, &InvalidError{Problems: problems}
	}
	return m, warnings, nil
}

func topField(f string) string {
	top, _, _ := strings.Cut(f, "/")
	return top
}

func sortProblems(ps []Problem) {
	rank := func(p Problem) int {
		if p.Rule > 0 {
			return p.Rule
		}
		return 100
	}
	sort.SliceStable(ps, func(i, j int) bool {
		if rank(ps[i]) != rank(ps[j]) {
			return rank(ps[i]) < rank(ps[j])
		}
		return ps[i].Field < ps[j].Field
	})
}

// schemaProblems validates against unique.schema.json and flattens the
// failures into problems named by field (and rule, where a rule covers
// the field).
func (c *Checker) schemaProblems(data []byte) []Problem {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return []Problem{{Check: "json", Message: fmt.Sprintf("unique.json is not valid JSON (%v)", err)}}
	}
	err = c.schema.Validate(doc)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []Problem{{Check: "schema", Message: err.Error()}}
	}
	var out []Problem
	seen := map[string]bool{}
	add := func(p Problem) {
		if p.Rule = ruleOfField(p.Field); p.Rule == 0 {
			p.Check = "schema"
		}
		if key := p.String(); !seen[key] {
			seen[key] = true
			out = append(out, p)
		}
	}
	var walk func(e *jsonschema.ValidationError, parent []string)
	walk = func(e *jsonschema.ValidationError, parent []string) {
		if pn, ok := e.ErrorKind.(*kind.PropertyNames); ok {
			// The library reports the key's own problems at an empty
			// location; name the key under its object instead.
			field := strings.Join(append(slices.Clone(parent), pn.Property), "/")
			add(Problem{Field: field, Message: fmt.Sprintf("%q is not a valid type: lowercase words joined by dots, like \"graph.node.add\", at most %d characters", pn.Property, maxTypeLen)})
			return
		}
		loc := e.InstanceLocation
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c, loc)
			}
			return
		}
		field := strings.Join(loc, "/")
		if req, ok := e.ErrorKind.(*kind.Required); ok {
			for _, missing := range req.Missing {
				f := missing
				if field != "" {
					f = field + "/" + missing
				}
				add(Problem{Field: f, Message: "is required"})
			}
			return
		}
		if msg := friendly(field, e.ErrorKind); msg != "" {
			add(Problem{Field: field, Message: msg})
			return
		}
		leaf := &jsonschema.ValidationError{SchemaURL: e.SchemaURL, InstanceLocation: e.InstanceLocation, ErrorKind: e.ErrorKind}
		add(Problem{Field: field, Message: leaf.BasicOutput().Error.String()})
	}
	walk(ve, nil)
	return out
}

// friendly words the schema failures authors meet most; "" keeps the
// schema library's own wording.
func friendly(field string, k jsonschema.ErrorKind) string {
	switch k := k.(type) {
	case *kind.Pattern:
		if field == "version" {
			return fmt.Sprintf("%q must be a semantic version like 0.1.0", k.Got)
		}
	case *kind.MinItems:
		if field == "domains" {
			return `declare at least one domain of your own, like ["graph"]`
		}
	case *kind.MinLength:
		if k.Got == 0 {
			return "must not be empty"
		}
	case *kind.AdditionalProperties:
		if field == "session" {
			return fmt.Sprintf("unknown key(s) %s; session knows export, snapshot and restore", strings.Join(k.Properties, ", "))
		}
	}
	return ""
}

// checkRules decodes the known fields leniently (a field of the wrong
// type is left empty; the schema reports it) and checks the seed's rules.
func (c *Checker) checkRules(raw map[string]json.RawMessage) (*Manifest, []Problem, []string) {
	m := &Manifest{}
	var problems []Problem
	var warnings []string
	add := func(rule int, field, format string, args ...any) {
		problems = append(problems, Problem{Rule: rule, Field: field, Message: fmt.Sprintf(format, args...)})
	}
	get := func(key string, into any) bool {
		v, ok := raw[key]
		if !ok {
			return false
		}
		return json.Unmarshal(v, into) == nil
	}

	// Rule 5: keep unknown keys, ignore them.
	known := map[string]bool{}
	for _, k := range []string{"$schema", "lip", "name", "version", "title", "description", "entry", "guide", "icon", "domains", "capabilities", "events", "commands", "permissions", "session", "engine", "author", "license", "repository"} {
		known[k] = true
	}
	for k, v := range raw {
		if !known[k] {
			if m.Unknown == nil {
				m.Unknown = map[string]json.RawMessage{}
			}
			m.Unknown[k] = v
		}
	}

	// Rule 6: the LIP major must match.
	if get("lip", &m.LIP) && m.LIP != c.opts.LIP {
		add(6, "lip", "this unique speaks LIP %d but Lets speaks LIP %d; install a version of the unique made for LIP %d", m.LIP, c.opts.LIP, c.opts.LIP)
	}

	// Rule 1: the name.
	if get("name", &m.Name) && !nameRE().MatchString(m.Name) {
		add(1, "name", "%q must match ^[a-z][a-z0-9-]{1,31}$ (lowercase letters, digits and '-', starting with a letter, 2-32 characters)", m.Name)
	}

	get("version", &m.Version)
	get("title", &m.Title)
	get("description", &m.Description)
	get("capabilities", &m.Capabilities)
	get("license", &m.License)
	get("repository", &m.Repository)
	var author Author
	if get("author", &author) {
		m.Author = &author
	}

	// Rule 2 (lexical part): paths stay inside the folder.
	for _, f := range []struct {
		key string
		dst *string
	}{{"entry", &m.Entry}, {"guide", &m.Guide}, {"icon", &m.Icon}} {
		if !get(f.key, f.dst) || *f.dst == "" {
			continue
		}
		if msg := insidePathProblem(*f.dst); msg != "" {
			add(2, f.key, "%s", msg)
		}
	}
	if m.Entry != "" && insidePathProblem(m.Entry) == "" && hiddenName(cleanRel(m.Entry), []string{m.GuidePath()}) {
		add(2, "entry", "%q is only for the host (unique.json and the guide are never served to the page); point entry at an HTML file", m.Entry)
	}
	if m.Entry != "" && insidePathProblem(m.Entry) == "" {
		if ext := strings.ToLower(path.Ext(m.Entry)); ext != ".html" && ext != ".htm" {
			warnings = append(warnings, fmt.Sprintf("entry %q is not an .html file; the host injects the LIP SDK only into HTML", m.Entry))
		}
	}

	// Rule 3: no reserved domains.
	if get("domains", &m.Domains) {
		for i, d := range m.Domains {
			if IsReservedDomain(d) {
				add(3, fmt.Sprintf("domains/%d", i), "%q is a core domain of LIP and cannot be declared by a unique (reserved: %s)", d, strings.Join(reservedDomains, ", "))
			}
		}
	}
	// Rules 1-4 need a usable domain list; the schema reports its shape.
	var usable []string
	for _, d := range m.Domains {
		if !IsReservedDomain(d) && d != "" {
			usable = append(usable, d)
		}
	}
	domainList := strings.Join(usable, ", ")
	if domainList == "" {
		domainList = "none"
	}

	// Rule 4: declared types start with a declared domain.
	for _, f := range []struct {
		key string
		dst *map[string]TypeInfo
	}{{"events", &m.Events}, {"commands", &m.Commands}} {
		if !get(f.key, f.dst) {
			*f.dst = nil
			continue
		}
		names := make([]string, 0, len(*f.dst))
		for t := range *f.dst {
			names = append(names, t)
		}
		slices.Sort(names)
		for _, t := range names {
			if !typeRE.MatchString(t) || len(t) > maxTypeLen {
				continue // the schema names the syntax problem
			}
			if !inDomains(t, usable) {
				add(4, f.key+"/"+t, "%q must start with one of the unique's domains (%s), like %q", t, domainList, firstOr(usable, "mydomain")+"."+lastPart(t))
			}
			if s := (*f.dst)[t].Schema; s != "" {
				if msg := insidePathProblem(s); msg != "" {
					add(2, f.key+"/"+t+"/schema", "%s", msg)
				}
			}
		}
	}

	// Rule 7: session types; defaults from the first domain.
	var session map[string]json.RawMessage
	if get("session", &session) {
		m.SessionDeclared = true
		for _, f := range []struct {
			key string
			dst *string
		}{{"export", &m.Session.Export}, {"snapshot", &m.Session.Snapshot}, {"restore", &m.Session.Restore}} {
			v, ok := session[f.key]
			if !ok || json.Unmarshal(v, f.dst) != nil {
				*f.dst = ""
				continue
			}
			if typeRE.MatchString(*f.dst) && !inDomains(*f.dst, usable) {
				add(7, "session/"+f.key, "%q must start with one of the unique's domains (%s)", *f.dst, domainList)
			}
		}
	}
	if len(usable) > 0 {
		d := usable[0]
		if m.Session.Export == "" {
			m.Session.Export = d + ".export"
		}
		if m.Session.Snapshot == "" {
			m.Session.Snapshot = d + ".snapshot"
		}
		if m.Session.Restore == "" {
			m.Session.Restore = d + ".load"
		}
	}

	// Rule 8: permissions.exec lists languages.
	var perms map[string]json.RawMessage
	if get("permissions", &perms) {
		for k, v := range perms {
			var list []string
			switch k {
			case "fs.write":
				if json.Unmarshal(v, &list) == nil {
					m.Permissions.FSWrite = list
				}
			case "net":
				if json.Unmarshal(v, &list) == nil {
					m.Permissions.Net = list
				}
			case "exec":
				if json.Unmarshal(v, &list) != nil {
					add(8, "permissions/exec", "must be a list of languages, like [\"python\"]")
					continue
				}
				m.Permissions.Exec = list
				for i, lang := range list {
					if !slices.Contains(knownLanguages, lang) {
						warnings = append(warnings, fmt.Sprintf("permissions.exec[%d]: Lets cannot run %q (it knows %s); /lip/run will refuse it", i, lang, strings.Join(knownLanguages, ", ")))
					}
				}
			default:
				if m.Permissions.Other == nil {
					m.Permissions.Other = map[string]json.RawMessage{}
				}
				m.Permissions.Other[k] = v
			}
		}
	}

	// engine: the minimum host version.
	if get("engine", &m.Engine) && m.Engine != "" {
		r, err := ParseRange(m.Engine)
		switch {
		case err != nil:
			problems = append(problems, Problem{Check: "engine", Field: "engine", Message: fmt.Sprintf("%v; write a range like \">=0.1.0\"", err)})
		case c.host != nil && !r.Contains(*c.host):
			problems = append(problems, Problem{Check: "engine", Field: "engine", Message: fmt.Sprintf("this unique needs Lets %s but this is Lets %s; update Lets to use it", m.Engine, c.opts.HostVersion)})
		}
	}

	if len(m.Unknown) > 0 {
		keys := m.UnknownKeys()
		warnings = append(warnings, fmt.Sprintf("unknown keys ignored: %s", strings.Join(keys, ", ")))
	}
	return m, problems, warnings
}

func inDomains(typ string, domains []string) bool {
	for _, d := range domains {
		if strings.HasPrefix(typ, d+".") {
			return true
		}
	}
	return false
}

func firstOr(list []string, def string) string {
	if len(list) > 0 {
		return list[0]
	}
	return def
}

func lastPart(t string) string {
	if i := strings.LastIndexByte(t, '.'); i >= 0 {
		return t[i+1:]
	}
	return t
}

// insidePathProblem checks a manifest path lexically: relative, slash
// separated, and still inside the folder after cleaning. It returns "" when
// the path is fine.
func insidePathProblem(p string) string {
	switch {
	case p == "":
		return "must not be empty"
	case strings.ContainsRune(p, 0):
		return fmt.Sprintf("%q contains a NUL byte", p)
	case strings.ContainsRune(p, '\\'):
		return fmt.Sprintf("%q must use '/' between folders, not '\\'", p)
	case strings.HasPrefix(p, "/"):
		return fmt.Sprintf("%q must be a path inside the unique folder, not an absolute path", p)
	case strings.Contains(p, "://") || strings.HasPrefix(p, "//"):
		return fmt.Sprintf("%q must be a file inside the unique folder, not a URL", p)
	}
	c := path.Clean(p)
	if c == "." || c == ".." || strings.HasPrefix(c, "../") {
		return fmt.Sprintf("%q resolves outside the unique folder; nothing outside it is ever served", p)
	}
	for _, seg := range strings.Split(c, "/") {
		if strings.HasPrefix(seg, ".") {
			return fmt.Sprintf("%q names a hidden file or folder; those are never served", p)
		}
	}
	return ""
}

// CheckFiles checks rule 2 against the unique's files: entry, guide and
// icon must resolve to regular files inside fsys (a missing GUIDE.md that
// the manifest does not name is only a warning). fsys must refuse paths
// that escape it (an os.Root's FS or an embed.FS). A guide over about 1500
// words, or a declared schema file that is missing, is a warning.
func (c *Checker) CheckFiles(m *Manifest, fsys fs.FS) ([]string, error) {
	var problems []Problem
	var warnings []string
	check := func(rule int, field, p string, required bool) {
		if p == "" || insidePathProblem(p) != "" {
			return // Parse reported it
		}
		err := regularFile(fsys, cleanRel(p))
		switch {
		case err == nil:
		case required:
			problems = append(problems, Problem{Rule: rule, Field: field, Message: fmt.Sprintf("%q is not a file inside the unique folder (missing, a folder, or a link that leads outside)", p)})
		default:
			warnings = append(warnings, fmt.Sprintf("%s %q is not a file inside the unique folder; it is ignored", field, p))
		}
	}
	check(2, "entry", m.Entry, true)
	check(2, "icon", m.Icon, true)
	if m.Guide != "" {
		check(2, "guide", m.Guide, true)
	}
	for _, group := range []struct {
		key   string
		types map[string]TypeInfo
	}{{"events", m.Events}, {"commands", m.Commands}} {
		for t, info := range group.types {
			check(2, group.key+"/"+t+"/schema", info.Schema, false)
		}
	}
	slices.Sort(warnings)
	if len(problems) > 0 {
		return warnings, &InvalidError{Problems: problems}
	}

	guide, err := readLimited(fsys, m.GuidePath(), MaxGuideBytes)
	switch {
	case errors.Is(err, errTooLarge):
		return warnings, &InvalidError{Problems: []Problem{{Rule: 0, Check: "files", Field: "guide", Message: fmt.Sprintf("%s is larger than %d KiB; keep guides under about %d words", m.GuidePath(), MaxGuideBytes>>10, GuideWordsWarn)}}}
	case err != nil:
		warnings = append(warnings, fmt.Sprintf("no %s: Claude will get no guide for this unique", m.GuidePath()))
	default:
		if n := len(strings.Fields(string(guide))); n > GuideWordsWarn {
			warnings = append(warnings, fmt.Sprintf("%s has %d words; guides should stay under about %d (seed §7) so Claude reads them whole", m.GuidePath(), n, GuideWordsWarn))
		}
	}
	return warnings, nil
}

var errTooLarge = errors.New("file too large")

// regularFile reports whether name (slash path) is a regular file in fsys
// after following symlinks inside it.
func regularFile(fsys fs.FS, name string) error {
	fi, err := fs.Stat(fsys, name)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", name)
	}
	return nil
}

// readLimited reads a regular file of at most max bytes.
func readLimited(fsys fs.FS, name string, max int64) ([]byte, error) {
	if err := regularFile(fsys, name); err != nil {
		return nil, err
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var b bytes.Buffer
	n, err := b.ReadFrom(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if n > max {
		return nil, errTooLarge
	}
	return b.Bytes(), nil
}

// LoadFS reads unique.json from fsys, runs Parse and CheckFiles, and
// compiles the data schemas the manifest declares (once, here), so the
// host can enforce them on every envelope.
func (c *Checker) LoadFS(fsys fs.FS) (*Manifest, []string, error) {
	data, err := readLimited(fsys, "unique.json", MaxManifestBytes)
	if errors.Is(err, errTooLarge) {
		return nil, nil, &InvalidError{Problems: []Problem{{Check: "json", Message: fmt.Sprintf("unique.json is larger than %d KiB", MaxManifestBytes>>10)}}}
	}
	if err != nil {
		return nil, nil, &InvalidError{Problems: []Problem{{Check: "files", Message: "there is no unique.json in the folder (a unique is a folder with unique.json, GUIDE.md and its files)"}}}
	}
	m, warnings, err := c.Parse(data)
	if err != nil {
		return nil, warnings, err
	}
	more, err := c.CheckFiles(m, fsys)
	warnings = append(warnings, more...)
	if err != nil {
		return nil, warnings, err
	}
	schemas, problems := compileDataSchemas(m, fsys)
	if len(problems) > 0 {
		return nil, warnings, &InvalidError{Problems: problems}
	}
	m.schemas = schemas
	return m, warnings, nil
}

// LoadDir reads and checks the unique in folder dir (symlinks that leave
// dir count as missing files).
func (c *Checker) LoadDir(dir string) (*Manifest, []string, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, nil, &InvalidError{Where: dir, Problems: []Problem{{Check: "files", Message: fmt.Sprintf("cannot open the unique folder: %v", err)}}}
	}
	defer root.Close()
	m, warnings, err := c.LoadFS(root.FS())
	var ie *InvalidError
	if errors.As(err, &ie) && ie.Where == "" {
		ie.Where = dir
	}
	return m, warnings, err
}
