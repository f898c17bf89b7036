package wiretypes

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/schemas"
)

// shape is what testdata/extract.cjs reports for one TypeScript type.
type shape struct {
	Kind     string           `json:"kind"` // object, array, enum, prim, union, any, other, deep
	Values   []string         `json:"values"`
	Nullable bool             `json:"nullable"`
	Name     string           `json:"name"`
	Elem     *shape           `json:"elem"`
	Members  []shape          `json:"members"`
	Props    map[string]field `json:"props"`
	Index    bool             `json:"index"`
	Text     string           `json:"text"`
}

type field struct {
	Optional bool  `json:"optional"`
	Shape    shape `json:"shape"`
}

type send struct {
	Line  int    `json:"line"`
	Type  string `json:"type"`
	Shape shape  `json:"shape"`
}

type envelopeCall struct {
	Line int    `json:"line"`
	Type string `json:"type"`
	Data *shape `json:"data"`
}

type fileShapes struct {
	Types     map[string]shape `json:"types"`
	Sends     []send           `json:"sends"`
	Envelopes []envelopeCall   `json:"envelopes"`
}

func repoRoot(t *testing.T) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot find this test's source file")
	}
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", "..", ".."))
}

// extract runs the TypeScript compiler over files (paths relative to dir)
// and returns what it found in each. It needs node and the pinned
// TypeScript that `make tools` installs into build/tools.
func extract(t *testing.T, dir string, files ...string) map[string]fileShapes {
	t.Helper()
	node := testutil.Command(t, "node")
	root := repoRoot(t)
	tsDir := filepath.Join(root, "build", "tools", "node_modules", "typescript")
	if _, err := os.Stat(filepath.Join(tsDir, "package.json")); err != nil {
		testutil.Missing(t, testutil.RequireToolsEnv, "the TypeScript compiler is not in build/tools", "run `make tools` (make test does)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append([]string{filepath.Join(root, "app", "internal", "wiretypes", "testdata", "extract.cjs"), tsDir}, files...)
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("read the TypeScript types: %v\n%s", err, stderr.String())
	}
	if stderr.Len() > 0 {
		t.Fatalf("the TypeScript sources do not type-check; fix these first (make tsc shows them too):\n%s", stderr.String())
	}
	var out map[string]fileShapes
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("the extractor printed something that is not its JSON: %v", err)
	}
	return out
}

// schemaDoc is one JSON Schema file, for walking its $defs.
type schemaDoc struct {
	name string
	root map[string]any
}

func loadSchema(t *testing.T, name string) schemaDoc {
	t.Helper()
	raw, err := schemas.Raw(name)
	if err != nil {
		t.Fatal(err)
	}
	var root map[string]any
	if err := json.Unmarshal(raw, &root); err != nil {
		t.Fatalf("schema %s: %v", name, err)
	}
	return schemaDoc{name: name, root: root}
}

// resolve follows local $refs ("#/$defs/x") and returns the node they name.
func (d schemaDoc) resolve(node map[string]any) map[string]any {
	for range 16 {
		ref, ok := node["$ref"].(string)
		if !ok {
			return node
		}
		rest, ok := strings.CutPrefix(ref, "#/$defs/")
		if !ok {
			return node // another file: not followed
		}
		defs, _ := d.root["$defs"].(map[string]any)
		next, ok := defs[rest].(map[string]any)
		if !ok {
			return node
		}
		node = next
	}
	return node
}

// branches returns the alternatives of a node (oneOf/anyOf) without the
// null one, or the node itself.
func (d schemaDoc) branches(node map[string]any) []map[string]any {
	node = d.resolve(node)
	for _, k := range []string{"oneOf", "anyOf"} {
		list, ok := node[k].([]any)
		if !ok {
			continue
		}
		var out []map[string]any
		for _, b := range list {
			bm, ok := b.(map[string]any)
			if !ok {
				continue
			}
			bm = d.resolve(bm)
			if bm["type"] == "null" {
				continue
			}
			out = append(out, d.branches(bm)...)
		}
		return out
	}
	return []map[string]any{node}
}

func stringList(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

// compare checks a TypeScript shape against a schema node and returns the
// differences: a field the TypeScript has and the schema does not declare,
// a field the schema requires and the TypeScript lacks (unless exempt, at
// this level only), and enum values that differ.
func (d schemaDoc) compare(path string, ts shape, node map[string]any, exempt map[string]bool) []string {
	alts := d.branches(node)
	if len(alts) == 0 {
		return nil
	}
	var first []string
	for i, alt := range alts {
		errs := d.compareOne(path, ts, alt, exempt)
		if len(errs) == 0 {
			return nil
		}
		if i == 0 {
			first = errs
		}
	}
	return first
}

func (d schemaDoc) compareOne(path string, ts shape, node map[string]any, exempt map[string]bool) []string {
	var errs []string
	switch ts.Kind {
	case "object":
		props, hasProps := node["properties"].(map[string]any)
		if !hasProps {
			return nil // a free-form object (e.g. component props): no names to compare
		}
		for _, name := range sortedKeys(ts.Props) {
			sub, ok := props[name].(map[string]any)
			if !ok {
				errs = append(errs, fmt.Sprintf("%s.%s: the TypeScript has this field but %s does not declare it", path, name, d.name))
				continue
			}
			errs = append(errs, d.compare(path+"."+name, ts.Props[name].Shape, sub, nil)...)
		}
		for _, name := range stringList(node["required"]) {
			if _, ok := ts.Props[name]; !ok && !exempt[name] {
				errs = append(errs, fmt.Sprintf("%s.%s: %s requires this field but the TypeScript type has no such field", path, name, d.name))
			}
		}
	case "array":
		if items, ok := node["items"].(map[string]any); ok && ts.Elem != nil {
			errs = append(errs, d.compare(path+"[]", *ts.Elem, items, nil)...)
		}
	case "enum":
		var want []string
		if c, ok := node["const"].(string); ok {
			want = []string{c}
		} else if _, ok := node["enum"]; ok {
			want = stringList(node["enum"])
		} else {
			return nil
		}
		got := append([]string(nil), ts.Values...)
		sort.Strings(got)
		if strings.Join(got, ",") != strings.Join(want, ",") {
			errs = append(errs, fmt.Sprintf("%s: the TypeScript allows %v but %s allows %v", path, got, d.name, want))
		}
	}
	return errs
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// messageDefs maps each message type of a oneOf-of-messages schema (the
// Web Surface Protocol) to its definition, by properties.type.const.
func (d schemaDoc) messageDefs() map[string]map[string]any {
	out := map[string]map[string]any{}
	list, _ := d.root["oneOf"].([]any)
	for _, b := range list {
		bm, ok := b.(map[string]any)
		if !ok {
			continue
		}
		def := d.resolve(bm)
		props, _ := def["properties"].(map[string]any)
		typ, _ := props["type"].(map[string]any)
		if c, ok := typ["const"].(string); ok {
			out[c] = def
		}
	}
	return out
}

// typeLiteral is the single `type` value of a message shape.
func typeLiteral(s shape) (string, bool) {
	f, ok := s.Props["type"]
	if !ok || f.Shape.Kind != "enum" || len(f.Shape.Values) != 1 {
		return "", false
	}
	return f.Shape.Values[0], true
}

// padFramingFields are fields every Web Surface message carries that the
// pad's parser checks and then drops, so its decoded types do not have
// them; checkPadProtocol confirms the parser reads each one.
func padFramingFields() map[string]bool {
	return map[string]bool{"protocol": true, "visual_protocol": true}
}

// checkPadProtocol compares frontend/src/pad/protocol.ts with the Web
// Surface Protocol schema and returns every difference.
func checkPadProtocol(f fileShapes, source []byte, d schemaDoc) []string {
	var errs []string
	framing := padFramingFields()
	for _, name := range sortedKeys(framing) {
		if !bytes.Contains(source, []byte("m."+name)) {
			errs = append(errs, fmt.Sprintf("parseServerMessage no longer checks %q; drop it from padFramingFields or check it again", name))
		}
	}
	defs := d.messageDefs()
	covered := map[string]string{}
	union, ok := f.Types["ServerMessage"]
	if !ok || union.Kind != "union" {
		return append(errs, "frontend/src/pad/protocol.ts no longer exports the ServerMessage union this test reads")
	}
	for _, m := range union.Members {
		typ, ok := typeLiteral(m)
		if !ok {
			errs = append(errs, "a ServerMessage member has no single string `type`")
			continue
		}
		covered[typ] = "ServerMessage"
		def, ok := defs[typ]
		if !ok {
			errs = append(errs, fmt.Sprintf("ServerMessage %q: %s has no message of this type", typ, d.name))
			continue
		}
		errs = append(errs, d.compare("ServerMessage "+typ, m, def, framing)...)
	}
	for _, s := range f.Sends {
		covered[s.Type] = "sent"
		def, ok := defs[s.Type]
		if !ok {
			errs = append(errs, fmt.Sprintf("line %d sends %q: %s has no message of this type", s.Line, s.Type, d.name))
			continue
		}
		errs = append(errs, d.compare(fmt.Sprintf("line %d %s", s.Line, s.Type), s.Shape, def, nil)...)
	}
	for _, typ := range sortedKeys(defs) {
		if _, ok := covered[typ]; !ok {
			errs = append(errs, fmt.Sprintf("%s defines %q but the pad neither decodes it (ServerMessage) nor sends it", d.name, typ))
		}
	}
	return errs
}

// shellOnlyTypes are envelope types the shell sends that lip-messages does
// not define (their data is checked by the host, not by a shared schema).
func shellOnlyTypes() map[string]string {
	return map[string]string{
		"shell.answer": "the shell's answer to an allow prompt; its own domain, read only by the host",
	}
}

// checkShell compares the shell's Envelope interface with the LIP envelope
// schema and every envelope it makes with the LIP message schema.
func checkShell(files map[string]fileShapes, env, msgs schemaDoc) []string {
	var errs []string
	envType, ok := files["src/envelope.ts"].Types["Envelope"]
	if !ok {
		return append(errs, "shell/src/envelope.ts no longer exports the Envelope interface this test reads")
	}
	errs = append(errs, env.compare("Envelope", envType, env.root, nil)...)
	defs, _ := msgs.root["$defs"].(map[string]any)
	shellOnly := shellOnlyTypes()
	for _, file := range sortedKeys(files) {
		for _, e := range files[file].Envelopes {
			where := fmt.Sprintf("%s:%d %s", file, e.Line, e.Type)
			def, ok := defs[e.Type].(map[string]any)
			if !ok {
				if _, known := shellOnly[e.Type]; !known {
					errs = append(errs, where+": "+msgs.name+" has no $defs entry for this type; add one, or list it in shellOnlyTypes with the reason")
				}
				continue
			}
			if e.Data == nil {
				errs = append(errs, msgs.compare(where+" data", shape{Kind: "object", Props: map[string]field{}}, def, nil)...)
				continue
			}
			errs = append(errs, msgs.compare(where+" data", *e.Data, def, nil)...)
		}
	}
	return errs
}

// Point: the pad's wire types (frontend/src/pad/protocol.ts) match
// schemas/web-surface-protocol-1.schema.json both ways.
func TestPadWireTypesMatchTheWebSurfaceSchema(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	dir := filepath.Join(root, "frontend")
	got := extract(t, dir, "src/pad/protocol.ts")
	source, err := os.ReadFile(filepath.Join(dir, "src", "pad", "protocol.ts"))
	if err != nil {
		t.Fatal(err)
	}
	f := got["src/pad/protocol.ts"]
	if len(f.Sends) < 9 {
		t.Fatalf("found only %d client messages in protocol.ts; the extractor lost track of them", len(f.Sends))
	}
	for _, e := range checkPadProtocol(f, source, loadSchema(t, "web-surface-protocol-1.schema.json")) {
		t.Error(e)
	}
}

// Point: the shell's envelope and the envelopes it sends match
// schemas/lip-envelope.schema.json and schemas/lip-messages.schema.json.
func TestShellWireTypesMatchTheLIPSchemas(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(repoRoot(t), "shell")
	files, err := filepath.Glob(filepath.Join(dir, "src", "*.ts"))
	if err != nil {
		t.Fatal(err)
	}
	var rel []string
	for _, f := range files {
		if !strings.HasSuffix(f, ".test.ts") {
			r, _ := filepath.Rel(dir, f)
			rel = append(rel, filepath.ToSlash(r))
		}
	}
	got := extract(t, dir, rel...)
	calls := 0
	for _, f := range got {
		calls += len(f.Envelopes)
	}
	if calls < 4 {
		t.Fatalf("found only %d makeEnvelope calls in shell/src; the extractor lost track of them", calls)
	}
	for _, e := range checkShell(got, loadSchema(t, "lip-envelope.schema.json"), loadSchema(t, "lip-messages.schema.json")) {
		t.Error(e)
	}
}

// Point: the check fails on drift. A drifted copy of the pad protocol (a
// renamed server field, a renamed client field, a dropped message type) and
// a schema that requires a field the TypeScript lacks each give an error.
func TestWireTypeCheckCatchesDrift(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	dir := filepath.Join(root, "app", "internal", "wiretypes", "testdata")
	drifted, err := os.ReadFile(filepath.Join(dir, "drifted_protocol.ts"))
	if err != nil {
		t.Fatal(err)
	}
	f := extract(t, dir, "drifted_protocol.ts")["drifted_protocol.ts"]
	doc := loadSchema(t, "web-surface-protocol-1.schema.json")
	errs := strings.Join(checkPadProtocol(f, drifted, doc), "\n")
	for _, want := range []string{
		`ServerMessage authenticated.lan_on: the TypeScript has this field but web-surface-protocol-1.schema.json does not declare it`,
		`ServerMessage authenticated.lan_enabled: web-surface-protocol-1.schema.json requires this field`,
		`select_session.slots: the TypeScript has this field`,
		`select_session.slot: web-surface-protocol-1.schema.json requires this field`,
		`defines "remote_revoked" but the pad neither decodes it`,
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("drift not reported: want %q in\n%s", want, errs)
		}
	}

	// Schema-side drift: a new required field and a new accent.
	clean := extract(t, filepath.Join(root, "frontend"), "src/pad/protocol.ts")["src/pad/protocol.ts"]
	defs := doc.root["$defs"].(map[string]any)
	auth := defs["authenticated"].(map[string]any)
	auth["required"] = append(auth["required"].([]any), "expires_at")
	accent := defs["accent"].(map[string]any)
	accent["enum"] = append(accent["enum"].([]any), "gold")
	source, err := os.ReadFile(filepath.Join(root, "frontend", "src", "pad", "protocol.ts"))
	if err != nil {
		t.Fatal(err)
	}
	errs = strings.Join(checkPadProtocol(clean, source, doc), "\n")
	for _, want := range []string{
		`ServerMessage authenticated.expires_at: web-surface-protocol-1.schema.json requires this field`,
		`ServerMessage surface.view.sessions[].accent: the TypeScript allows`,
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("schema drift not reported: want %q in\n%s", want, errs)
		}
	}
}
