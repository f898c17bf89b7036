package manifest

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
)

// base is a valid manifest; tests change one thing at a time.
func base() map[string]any {
	return map[string]any{
		"lip":     1,
		"name":    "graph",
		"version": "0.1.0",
		"title":   "Graph",
		"entry":   "ui/index.html",
		"domains": []any{"graph"},
		"events": map[string]any{
			"graph.node.select": map[string]any{"summary": "User selected nodes"},
		},
		"commands": map[string]any{
			"graph.node.add": map[string]any{"summary": "Add a node"},
		},
	}
}

func encode(t testing.TB, m map[string]any) []byte {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func checker(t testing.TB) *Checker {
	t.Helper()
	c, err := NewChecker(Options{HostVersion: "0.1.0-dev"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestBaseManifestIsValid(t *testing.T) {
	m, warnings, err := checker(t).Parse(encode(t, base()))
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 0 {
		t.Fatalf("warnings: %v", warnings)
	}
	if m.Name != "graph" || m.Entry != "ui/index.html" || m.Events["graph.node.select"].Summary != "User selected nodes" {
		t.Fatalf("decoded %+v", m)
	}
}

// TestRules covers each of the seed's eight rules, rejections and
// acceptances, naming the checklist case where there is one.
func TestRules(t *testing.T) {
	c := checker(t)
	cases := []struct {
		checklist int // LIP 1 §15 case, 0 if none
		name      string
		edit      func(m map[string]any)
		rule      int    // expected rule of the first problem; 0 = accepted
		field     string // expected field of that problem
		contains  string // expected text in the error
	}{
		{11, "rule 1: uppercase name", func(m map[string]any) { m["name"] = "Graph" }, 1, "name", `"Graph" must match ^[a-z][a-z0-9-]{1,31}$`},
		{0, "rule 1: one letter", func(m map[string]any) { m["name"] = "g" }, 1, "name", "must match"},
		{0, "rule 1: 33 characters", func(m map[string]any) { m["name"] = "a" + strings.Repeat("b", 32) }, 1, "name", "must match"},
		{0, "rule 1: starts with a digit", func(m map[string]any) { m["name"] = "1graph" }, 1, "name", "must match"},
		{0, "rule 1: missing", func(m map[string]any) { delete(m, "name") }, 1, "name", "is required"},
		{0, "rule 1: not a string", func(m map[string]any) { m["name"] = 7 }, 1, "name", ""},
		{0, "rule 1: 32 characters ok", func(m map[string]any) { m["name"] = "a" + strings.Repeat("b", 31) }, 0, "", ""},
		{12, "rule 2: entry ../x.html", func(m map[string]any) { m["entry"] = "../x.html" }, 2, "entry", "outside the unique folder"},
		{0, "rule 2: entry absolute", func(m map[string]any) { m["entry"] = "/etc/passwd" }, 2, "entry", "not an absolute path"},
		{0, "rule 2: entry sneaks out", func(m map[string]any) { m["entry"] = "ui/../../x.html" }, 2, "entry", "outside"},
		{0, "rule 2: entry is a URL", func(m map[string]any) { m["entry"] = "https://example.com/x.html" }, 2, "entry", "not a URL"},
		{0, "rule 2: entry backslash", func(m map[string]any) { m["entry"] = `..\x.html` }, 2, "entry", "'/'"},
		{0, "rule 2: entry hidden", func(m map[string]any) { m["entry"] = ".secret/index.html" }, 2, "entry", "hidden"},
		{0, "rule 2: entry is the folder", func(m map[string]any) { m["entry"] = "." }, 2, "entry", "outside"},
		{0, "rule 2: guide outside", func(m map[string]any) { m["guide"] = "../GUIDE.md" }, 2, "guide", "outside"},
		{0, "rule 2: icon outside", func(m map[string]any) { m["icon"] = "../../icon.svg" }, 2, "icon", "outside"},
		{0, "rule 2: event schema outside", func(m map[string]any) {
			m["events"] = map[string]any{"graph.x": map[string]any{"summary": "x", "schema": "../s.json"}}
		}, 2, "events/graph.x/schema", "outside"},
		{0, "rule 2: entry is the manifest", func(m map[string]any) { m["entry"] = "./unique.json" }, 2, "entry", "only for the host"},
		{0, "rule 2: entry is the guide", func(m map[string]any) { m["entry"] = "docs/g.md"; m["guide"] = "docs/g.md" }, 2, "entry", "only for the host"},
		{0, "rule 2: entry inside after cleaning ok", func(m map[string]any) { m["entry"] = "ui/../index.html" }, 0, "", ""},
		{13, "rule 3: domains [entity]", func(m map[string]any) {
			m["domains"] = []any{"entity"}
			m["events"] = map[string]any{}
			m["commands"] = map[string]any{}
		}, 3, "domains/0", `"entity" is a core domain`},
		{0, "rule 3: one of several reserved", func(m map[string]any) { m["domains"] = []any{"graph", "session"} }, 3, "domains/1", "core domain"},
		{0, "rule 3: empty list", func(m map[string]any) { m["domains"] = []any{} }, 3, "domains", ""},
		{0, "rule 3: uppercase domain", func(m map[string]any) { m["domains"] = []any{"Graph"} }, 3, "domains/0", ""},
		{14, "rule 4: event other.x with domains [graph]", func(m map[string]any) {
			m["events"] = map[string]any{"other.x": map[string]any{"summary": "x"}}
		}, 4, "events/other.x", "must start with one of the unique's domains (graph)"},
		{0, "rule 4: command outside", func(m map[string]any) {
			m["commands"] = map[string]any{"graphs.add": map[string]any{"summary": "x"}}
		}, 4, "commands/graphs.add", "must start with"},
		{0, "rule 4: bad type syntax", func(m map[string]any) {
			m["events"] = map[string]any{"Graph.X": map[string]any{"summary": "x"}}
		}, 4, "events/Graph.X", "not a valid type"},
		{0, "rule 4: no summary", func(m map[string]any) {
			m["events"] = map[string]any{"graph.x": map[string]any{}}
		}, 4, "events/graph.x/summary", "is required"},
		{0, "rule 4: second domain ok", func(m map[string]any) {
			m["domains"] = []any{"graph", "draw"}
			m["events"] = map[string]any{"draw.stroke": map[string]any{"summary": "x"}}
		}, 0, "", ""},
		{15, "rule 5: unknown key foo accepted", func(m map[string]any) { m["foo"] = map[string]any{"bar": 1} }, 0, "", ""},
		{16, "rule 6: lip 2", func(m map[string]any) { m["lip"] = 2 }, 6, "lip", "speaks LIP 2 but Lets speaks LIP 1"},
		{0, "rule 6: lip string", func(m map[string]any) { m["lip"] = "1" }, 6, "lip", ""},
		{0, "rule 6: lip missing", func(m map[string]any) { delete(m, "lip") }, 6, "lip", "is required"},
		{17, "rule 7: session.export other.export", func(m map[string]any) {
			m["session"] = map[string]any{"export": "other.export"}
		}, 7, "session/export", `"other.export" must start with one of the unique's domains`},
		{0, "rule 7: restore outside", func(m map[string]any) {
			m["session"] = map[string]any{"export": "graph.export", "restore": "x.load"}
		}, 7, "session/restore", "must start with"},
		{0, "rule 7: unknown session key", func(m map[string]any) {
			m["session"] = map[string]any{"exports": "graph.export"}
		}, 7, "session", ""},
		{0, "rule 8: exec not a list", func(m map[string]any) {
			m["permissions"] = map[string]any{"exec": "python"}
		}, 8, "permissions/exec", "list of languages"},
		{0, "rule 8: exec bad language name", func(m map[string]any) {
			m["permissions"] = map[string]any{"exec": []any{"Python 3"}}
		}, 8, "permissions/exec/0", ""},
		{0, "rule 8: exec duplicate", func(m map[string]any) {
			m["permissions"] = map[string]any{"exec": []any{"python", "python"}}
		}, 8, "permissions/exec", ""},
		{0, "rule 8: exec python ok", func(m map[string]any) {
			m["permissions"] = map[string]any{"exec": []any{"python", "javascript"}}
		}, 0, "", ""},
		{0, "engine: too new", func(m map[string]any) { m["engine"] = ">=9.0.0" }, 0, "engine", "needs Lets >=9.0.0"},
		{0, "engine: not a range", func(m map[string]any) { m["engine"] = "soon" }, 0, "engine", "range"},
		{0, "engine: dev build satisfies >=0.1.0", func(m map[string]any) { m["engine"] = ">=0.1.0" }, 0, "", ""},
		{0, "schema: title missing", func(m map[string]any) { delete(m, "title") }, 0, "title", "is required"},
		{0, "schema: version not semver", func(m map[string]any) { m["version"] = "1.0" }, 0, "version", ""},
	}
	for _, tc := range cases {
		name := tc.name
		if tc.checklist > 0 {
			name = "case " + strconv.Itoa(tc.checklist) + " " + name
		}
		t.Run(name, func(t *testing.T) {
			m := base()
			tc.edit(m)
			_, _, err := c.Parse(encode(t, m))
			accepted := tc.rule == 0 && tc.field == ""
			if accepted {
				if err != nil {
					t.Fatalf("want accepted, got %v", err)
				}
				return
			}
			var ie *InvalidError
			if !errors.As(err, &ie) || !errors.Is(err, ErrInvalid) {
				t.Fatalf("want *InvalidError, got %v", err)
			}
			p := ie.Problems[0]
			if p.Rule != tc.rule || p.Field != tc.field {
				t.Fatalf("first problem = %s (rule %d, field %q); want rule %d field %q\nall: %v", p, p.Rule, p.Field, tc.rule, tc.field, err)
			}
			if tc.rule > 0 && !strings.Contains(err.Error(), "rule "+strconv.Itoa(tc.rule)+" ("+tc.field+")") {
				t.Fatalf("message should name the rule and field: %v", err)
			}
			if tc.contains != "" && !strings.Contains(err.Error(), tc.contains) {
				t.Fatalf("message %q should contain %q", err, tc.contains)
			}
		})
	}
}

func TestCase011_NameGraphIsRule1Exactly(t *testing.T) {
	m := base()
	m["name"] = "Graph"
	_, _, err := checker(t).Parse(encode(t, m))
	var ie *InvalidError
	if !errors.As(err, &ie) || len(ie.Problems) != 1 {
		t.Fatalf("want one problem, got %v", err)
	}
	if got := ie.Problems[0].String(); got != `rule 1 (name): "Graph" must match ^[a-z][a-z0-9-]{1,31}$ (lowercase letters, digits and '-', starting with a letter, 2-32 characters)` {
		t.Fatalf("got %s", got)
	}
}

func TestCase015_UnknownKeyKeptButIgnored(t *testing.T) {
	m := base()
	m["foo"] = "bar"
	got, warnings, err := checker(t).Parse(encode(t, m))
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Unknown["foo"]) != `"bar"` || strings.Join(got.UnknownKeys(), ",") != "foo" {
		t.Fatalf("unknown = %v", got.Unknown)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "foo") {
		t.Fatalf("warnings = %v", warnings)
	}
}

func TestCase018_SessionDefaults(t *testing.T) {
	got, _, err := checker(t).Parse(encode(t, base()))
	if err != nil {
		t.Fatal(err)
	}
	want := SessionTypes{Export: "graph.export", Snapshot: "graph.snapshot", Restore: "graph.load"}
	if got.Session != want || got.SessionDeclared {
		t.Fatalf("session = %+v declared=%v", got.Session, got.SessionDeclared)
	}
	// A partial session object keeps what it names and defaults the rest.
	m := base()
	m["session"] = map[string]any{"export": "graph.send"}
	got, _, err = checker(t).Parse(encode(t, m))
	if err != nil {
		t.Fatal(err)
	}
	want.Export = "graph.send"
	if got.Session != want || !got.SessionDeclared || !got.IsSessionType("graph.send") || got.IsSessionType("graph.export") {
		t.Fatalf("session = %+v", got.Session)
	}
}

func TestSeedExampleIsValid(t *testing.T) {
	seed := `{
  "lip": 1, "name": "graph", "version": "0.1.0",
  "title": "Graph — talk in diagrams",
  "description": "Draw flows and ideas; the companion and Claude read them.",
  "entry": "ui/index.html", "guide": "GUIDE.md", "icon": "icon.svg",
  "domains": ["graph"],
  "capabilities": ["entity", "chat", "components", "media.image", "clipboard"],
  "events": { "graph.node.select": { "summary": "User selected nodes", "schema": "schemas/node.select.json" } },
  "commands": { "graph.node.add": { "summary": "Add a node", "schema": "schemas/node.add.json" } },
  "permissions": { "fs.write": ["uploads"], "net": [], "exec": [] },
  "session": { "export": "graph.export", "snapshot": "graph.snapshot", "restore": "graph.load" },
  "author": { "name": "…", "url": "…" },
  "license": "MIT",
  "repository": "https://github.com/…"
}`
	m, _, err := checker(t).Parse([]byte(seed))
	if err != nil {
		t.Fatal(err)
	}
	if !m.InDomain("graph.node.add") || m.InDomain("graphx.a") || m.AllowsExec("python") {
		t.Fatal("helpers disagree with the manifest")
	}
	if _, ok := m.Command("graph.node.add"); !ok {
		t.Fatal("command missing")
	}
	if m.Permissions.FSWrite[0] != "uploads" || m.Author.Name != "…" {
		t.Fatalf("%+v", m)
	}
}

func TestManyProblemsAreAllReportedInRuleOrder(t *testing.T) {
	m := base()
	m["name"] = "X"
	m["lip"] = 2
	m["domains"] = []any{"ui"}
	m["entry"] = "../e.html"
	_, _, err := checker(t).Parse(encode(t, m))
	var ie *InvalidError
	if !errors.As(err, &ie) {
		t.Fatal(err)
	}
	var rules []int
	for _, p := range ie.Problems {
		rules = append(rules, p.Rule)
	}
	// 4 twice: with no usable domain, neither declared type fits.
	want := []int{1, 2, 3, 4, 4, 6}
	if len(rules) != len(want) {
		t.Fatalf("rules %v, want %v: %v", rules, want, err)
	}
	for i := range want {
		if rules[i] != want[i] {
			t.Fatalf("rules %v, want %v", rules, want)
		}
	}
	if !ie.HasRule(6) || ie.HasRule(8) {
		t.Fatal("HasRule")
	}
}

func TestNotJSONAndTooLarge(t *testing.T) {
	c := checker(t)
	for _, in := range []string{"", "{", "[]", "null", `"x"`, `{"a":1} {"b":2}`} {
		_, _, err := c.Parse([]byte(in))
		if !errors.Is(err, ErrInvalid) {
			t.Fatalf("%q: %v", in, err)
		}
	}
	big := base()
	big["description"] = strings.Repeat("x", MaxManifestBytes)
	_, _, err := c.Parse(encode(t, big))
	if err == nil || !strings.Contains(err.Error(), "limit") {
		t.Fatalf("big: %v", err)
	}
}

func TestWarnings(t *testing.T) {
	m := base()
	m["entry"] = "ui/app.js"
	m["permissions"] = map[string]any{"exec": []any{"ruby"}}
	_, warnings, err := checker(t).Parse(encode(t, m))
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(warnings, "\n")
	if !strings.Contains(all, "not an .html file") || !strings.Contains(all, `cannot run "ruby"`) {
		t.Fatalf("warnings: %v", warnings)
	}
}

func memFS(files map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for name, text := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(text), Mode: 0o644}
	}
	return fsys
}

func TestCheckFiles(t *testing.T) {
	c := checker(t)
	manifest := string(encode(t, base()))
	t.Run("entry present", func(t *testing.T) {
		_, warnings, err := c.LoadFS(memFS(map[string]string{"unique.json": manifest, "ui/index.html": "<p>", "GUIDE.md": "Be kind."}))
		if err != nil || len(warnings) != 0 {
			t.Fatalf("%v %v", err, warnings)
		}
	})
	t.Run("rule 2: entry missing", func(t *testing.T) {
		_, _, err := c.LoadFS(memFS(map[string]string{"unique.json": manifest}))
		var ie *InvalidError
		if !errors.As(err, &ie) || ie.Problems[0].Rule != 2 || ie.Problems[0].Field != "entry" {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("rule 2: entry is a folder", func(t *testing.T) {
		_, _, err := c.LoadFS(memFS(map[string]string{"unique.json": manifest, "ui/index.html/x": "x"}))
		if err == nil || !strings.Contains(err.Error(), "rule 2 (entry)") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("no guide is a warning", func(t *testing.T) {
		_, warnings, err := c.LoadFS(memFS(map[string]string{"unique.json": manifest, "ui/index.html": "<p>"}))
		if err != nil || len(warnings) != 1 || !strings.Contains(warnings[0], "no GUIDE.md") {
			t.Fatalf("%v %v", err, warnings)
		}
	})
	t.Run("long guide is a warning", func(t *testing.T) {
		guide := strings.Repeat("word ", GuideWordsWarn+1)
		_, warnings, err := c.LoadFS(memFS(map[string]string{"unique.json": manifest, "ui/index.html": "<p>", "GUIDE.md": guide}))
		if err != nil || len(warnings) != 1 || !strings.Contains(warnings[0], "1501 words") {
			t.Fatalf("%v %v", err, warnings)
		}
	})
	t.Run("1500 words is fine", func(t *testing.T) {
		guide := strings.Repeat("word ", GuideWordsWarn)
		_, warnings, err := c.LoadFS(memFS(map[string]string{"unique.json": manifest, "ui/index.html": "<p>", "GUIDE.md": guide}))
		if err != nil || len(warnings) != 0 {
			t.Fatalf("%v %v", err, warnings)
		}
	})
	t.Run("declared guide missing", func(t *testing.T) {
		m := base()
		m["guide"] = "docs/guide.md"
		_, _, err := c.LoadFS(memFS(map[string]string{"unique.json": string(encode(t, m)), "ui/index.html": "<p>"}))
		if err == nil || !strings.Contains(err.Error(), "rule 2 (guide)") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("missing schema file is a warning", func(t *testing.T) {
		m := base()
		m["events"] = map[string]any{"graph.x": map[string]any{"summary": "x", "schema": "schemas/x.json"}}
		_, warnings, err := c.LoadFS(memFS(map[string]string{"unique.json": string(encode(t, m)), "ui/index.html": "<p>", "GUIDE.md": "x"}))
		if err != nil || len(warnings) != 1 || !strings.Contains(warnings[0], "schemas/x.json") {
			t.Fatalf("%v %v", err, warnings)
		}
	})
	t.Run("no unique.json", func(t *testing.T) {
		_, _, err := c.LoadFS(memFS(map[string]string{"index.html": "x"}))
		if err == nil || !strings.Contains(err.Error(), "no unique.json") {
			t.Fatalf("got %v", err)
		}
	})
}

// TestRule2SymlinkedEntryOutside: an entry that is a link leaving the
// folder does not count as a file inside it.
func TestRule2SymlinkedEntryOutside(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.html"), []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	m := base()
	m["entry"] = "index.html"
	writeFile(t, filepath.Join(dir, "unique.json"), string(encode(t, m)))
	if err := os.Symlink(filepath.Join(outside, "secret.html"), filepath.Join(dir, "index.html")); err != nil {
		t.Fatal(err)
	}
	_, _, err := checker(t).LoadDir(dir)
	if err == nil || !strings.Contains(err.Error(), "rule 2 (entry)") {
		t.Fatalf("got %v", err)
	}
	// A relative link that stays inside is fine.
	if err := os.Remove(filepath.Join(dir, "index.html")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "real.html"), "<p>")
	if err := os.Symlink("real.html", filepath.Join(dir, "index.html")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := checker(t).LoadDir(dir); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t testing.TB, p, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func BenchmarkParse(b *testing.B) {
	c := checker(b)
	data := encode(b, base())
	for b.Loop() {
		if _, _, err := c.Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}
