package uniques_test

import (
	"encoding/json"
	"errors"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/lets-app/lets/backend/manifest"
	"github.com/lets-app/lets/backend/registry"
	"github.com/lets-app/lets/uniques"
)

// graphFiles copies the built-in graph unique into a MapFS, with unique.json
// changed by edit (nil keeps it).
func graphFiles(t *testing.T, edit func(m map[string]any)) fstest.MapFS {
	t.Helper()
	sub, err := fs.Sub(uniques.FS(), "graph")
	if err != nil {
		t.Fatal(err)
	}
	out := fstest.MapFS{}
	err = fs.WalkDir(sub, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(sub, p)
		out[p] = &fstest.MapFile{Data: data, Mode: 0o644}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		var m map[string]any
		if err := json.Unmarshal(out["unique.json"].Data, &m); err != nil {
			t.Fatal(err)
		}
		edit(m)
		data, _ := json.Marshal(m)
		out["unique.json"] = &fstest.MapFile{Data: data, Mode: 0o644}
	}
	return out
}

func graphManifest(t *testing.T) *manifest.Manifest {
	t.Helper()
	c, err := manifest.NewChecker(manifest.Options{HostVersion: "0.1.0"})
	if err != nil {
		t.Fatal(err)
	}
	m, warnings, err := c.LoadFS(graphFiles(t, nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) > 0 {
		t.Errorf("warnings: %v", warnings)
	}
	return m
}

var (
	graphEvents   = []string{"graph.node.select", "graph.node.add", "graph.node.remove", "graph.edge.add", "graph.edge.remove", "graph.label.change", "graph.changed", "graph.export", "graph.snapshot"}
	graphCommands = []string{"graph.node.add", "graph.node.update", "graph.node.remove", "graph.edge.add", "graph.edge.remove", "graph.select", "graph.layout", "graph.focus", "graph.clear", "graph.load"}
)

// TestGraphManifest: the graph unique (the seed's example manifest) is valid
// like an installed one, declares exactly the events and commands,
// each with a schema file, and its guide stays under 1500 words.
func TestGraphManifest(t *testing.T) {
	m := graphManifest(t)
	if m.Name != "graph" || !slices.Equal(m.Domains, []string{"graph"}) || m.Entry != "ui/index.html" {
		t.Errorf("name %q domains %v entry %q", m.Name, m.Domains, m.Entry)
	}
	if m.Session.Export != "graph.export" || m.Session.Snapshot != "graph.snapshot" || m.Session.Restore != "graph.load" {
		t.Errorf("session %+v", m.Session)
	}
	var evs, cmds []string
	for typ, info := range m.Events {
		evs = append(evs, typ)
		if info.Schema == "" || info.Summary == "" {
			t.Errorf("event %s: summary %q schema %q", typ, info.Summary, info.Schema)
		}
	}
	for typ, info := range m.Commands {
		cmds = append(cmds, typ)
		if info.Schema == "" || info.Summary == "" {
			t.Errorf("command %s: summary %q schema %q", typ, info.Summary, info.Schema)
		}
	}
	slices.Sort(evs)
	slices.Sort(cmds)
	wantEv := slices.Sorted(slices.Values(graphEvents))
	wantCmd := slices.Sorted(slices.Values(graphCommands))
	if !slices.Equal(evs, wantEv) || !slices.Equal(cmds, wantCmd) {
		t.Errorf("events %v\ncommands %v", evs, cmds)
	}
	if !m.HasDataSchemas() {
		t.Error("no data schemas compiled")
	}
	if m.AllowsExec("python") {
		t.Error("graph runs no code (rule 8)")
	}
	guide, err := fs.ReadFile(uniques.FS(), "graph/GUIDE.md")
	if err != nil {
		t.Fatal(err)
	}
	words := len(strings.Fields(string(guide)))
	t.Logf("GUIDE.md: %d words", words)
	if words >= 1500 {
		t.Errorf("GUIDE.md has %d words; keep it under 1500", words)
	}
	for _, typ := range append(append([]string{}, graphEvents...), graphCommands...) {
		if !strings.Contains(string(guide), "`"+typ) {
			t.Errorf("GUIDE.md does not explain %s", typ)
		}
	}
	// The registry serves it as a built-in with no warnings, and never the
	// TypeScript sources (they live outside the embedded folder).
	r, err := registry.OpenRegistry(registry.RegistryOptions{Builtin: uniques.FS(), UserDir: t.TempDir(), HostVersion: "0.1.0"})
	if err != nil {
		t.Fatal(err)
	}
	u, err := r.Get("graph")
	if err != nil || !u.Builtin || len(u.Warnings) > 0 {
		t.Fatalf("registry: %v %+v", err, u)
	}
	for _, p := range []string{"/ui/index.html", "/ui/app.js", "/ui/style.css", "/icon.svg"} {
		f, err := u.Open(p)
		if err != nil {
			t.Errorf("%s not served: %v", p, err)
			continue
		}
		f.Close()
	}
	for _, p := range []string{"/unique.json", "/GUIDE.md", "/_graph/main.ts"} {
		if f, err := u.Open(p); err == nil {
			f.Close()
			t.Errorf("%s is served to the unique's origin", p)
		}
	}
}

// TestGraphManifestRules: the eight rules on the graph manifest, each broken
// once (rule 5, unknown keys, is kept and accepted).
func TestGraphManifestRules(t *testing.T) {
	c, err := manifest.NewChecker(manifest.Options{HostVersion: "0.1.0"})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		rule int
		name string
		edit func(m map[string]any)
	}{
		{1, "a name with a capital", func(m map[string]any) { m["name"] = "Graph" }},
		{2, "entry outside the folder", func(m map[string]any) { m["entry"] = "../index.html" }},
		{2, "a missing entry", func(m map[string]any) { m["entry"] = "ui/nope.html" }},
		{3, "a reserved domain", func(m map[string]any) { m["domains"] = []any{"graph", "entity"} }},
		{4, "a command outside the domains", func(m map[string]any) {
			m["commands"].(map[string]any)["diagram.add"] = map[string]any{"summary": "x"}
		}},
		{6, "another lip major", func(m map[string]any) { m["lip"] = 2 }},
		{7, "a session type in another domain", func(m map[string]any) { m["session"].(map[string]any)["snapshot"] = "board.snapshot" }},
		{8, "exec as a string", func(m map[string]any) { m["permissions"].(map[string]any)["exec"] = "python" }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := c.LoadFS(graphFiles(t, tc.edit))
			var inv *manifest.InvalidError
			if !errors.As(err, &inv) {
				t.Fatalf("accepted (err %v)", err)
			}
			if !inv.HasRule(tc.rule) {
				t.Errorf("rule %d not named: %v", tc.rule, err)
			}
		})
	}
	t.Run("unknown keys are kept", func(t *testing.T) {
		m, _, err := c.LoadFS(graphFiles(t, func(m map[string]any) { m["x-future"] = map[string]any{"a": 1} }))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(m.UnknownKeys(), "x-future") {
			t.Errorf("unknown keys %v", m.UnknownKeys())
		}
	})
}

// TestGraphDataSchemas: samples of every event and command against the
// schemas the host enforces, good and bad (the bad one's error names the
// field, so Claude can fix it).
func TestGraphDataSchemas(t *testing.T) {
	m := graphManifest(t)
	node := `{"id":"n1","label":"Start","at":{"x":10,"y":-20},"shape":"round","color":"blue"}`
	nodes := `[` + node + `,{"id":"n2","label":"End","at":{"x":0,"y":100},"shape":"box"}]`
	edges := `[{"id":"e1","from":"n1","to":"n2","label":"then"}]`
	good := map[string][]string{
		"ev graph.node.select":  {`{"ids":["n1","n2"],"labels":["Start","End"]}`, `{"ids":[]}`},
		"ev graph.node.add":     {node, `{"id":"n3","label":"","at":{"x":0,"y":0},"shape":"box","from":"n1"}`},
		"ev graph.node.remove":  {`{"ids":["n1"],"labels":["Start"],"edges":["e1"]}`},
		"ev graph.edge.add":     {`{"id":"e1","from":"n1","to":"n2","fromLabel":"Start","toLabel":"End"}`},
		"ev graph.edge.remove":  {`{"ids":["e1"]}`},
		"ev graph.label.change": {`{"id":"n1","kind":"node","label":"Begin","before":"Start"}`, `{"id":"e1","kind":"edge","label":""}`},
		"ev graph.changed":      {`{"nodes":` + nodes + `,"edges":` + edges + `}`, `{"nodes":[],"edges":[],"_coalesced":3}`},
		"ev graph.export":       {`{"summary":"2 nodes","text":"A graph…","nodes":` + nodes + `,"edges":` + edges + `,"selection":["n1"],"viewport":{"x":-400,"y":-200,"zoom":1}}`},
		"ev graph.snapshot":     {`{"summary":"2 nodes","nodes":` + nodes + `,"edges":` + edges + `,"viewport":{"x":0,"y":0,"zoom":0.5}}`},
		"cmd graph.node.add":    {`{"label":"Retry"}`, `{"id":"c-retry","label":"Retry","near":"n1","shape":"diamond","color":"#aa33ff"}`, `{"label":"At","at":{"x":1.5,"y":2}}`},
		"cmd graph.node.update": {`{"id":"n1","label":"Begin","color":"green"}`, `{"id":"n1","at":{"x":0,"y":0},"shape":"note"}`},
		"cmd graph.node.remove": {`{"ids":["n1","n2"]}`, `{"id":"n1"}`},
		"cmd graph.edge.add":    {`{"from":"n1","to":"n2"}`, `{"id":"e9","from":"n1","to":"n2","label":"yes"}`},
		"cmd graph.edge.remove": {`{"ids":["e1"]}`, `{"id":"e1"}`, `{"from":"n1","to":"n2"}`},
		"cmd graph.select":      {`{"ids":[]}`, `{"ids":["n1"]}`},
		"cmd graph.layout":      {`{}`, `{"direction":"right"}`},
		"cmd graph.focus":       {`{"ids":["n2"]}`},
		"cmd graph.clear":       {`{}`},
		"cmd graph.load": {
			`{"nodes":` + nodes + `,"edges":` + edges + `,"viewport":{"x":0,"y":0,"zoom":1}}`,
			`{"nodes":[{"id":"a","label":"no position"}]}`,
			// A restore payload as the host saves it, session first.
			`{"session":{"id":"ss_1","handoff":true,"saved":true,"summary":"x"},"summary":"x","text":"y","nodes":` + nodes + `,"edges":` + edges + `,"selection":[]}`,
		},
	}
	bad := map[string][2]string{ // data, the field the error names
		"ev graph.node.select":  {`{"ids":"n1"}`, "ids"},
		"ev graph.node.add":     {`{"id":"n1","label":"x","at":{"x":0,"y":0},"shape":"hexagon"}`, "shape"},
		"ev graph.node.remove":  {`{"labels":["a"]}`, "ids"},
		"ev graph.edge.add":     {`{"id":"e1","from":"n 1","to":"n2"}`, "from"},
		"ev graph.edge.remove":  {`{}`, "ids"},
		"ev graph.label.change": {`{"id":"n1","kind":"graph","label":"x"}`, "kind"},
		"ev graph.changed":      {`{"nodes":[{"label":"no id"}],"edges":[]}`, "id"},
		"ev graph.export":       {`{"summary":"x","nodes":[],"edges":[]}`, "text"},
		"ev graph.snapshot":     {`{"summary":"` + strings.Repeat("x", 141) + `","nodes":[],"edges":[]}`, "summary"},
		"cmd graph.node.add":    {`{"lable":"typo"}`, "label"},
		"cmd graph.node.update": {`{"label":"who?"}`, "id"},
		"cmd graph.node.remove": {`{"node":"n1"}`, "node"},
		"cmd graph.edge.add":    {`{"from":"n1"}`, "to"},
		"cmd graph.edge.remove": {`{"from":"n1"}`, "data"},
		"cmd graph.select":      {`{"ids":[1]}`, "ids/0"},
		"cmd graph.layout":      {`{"direction":"sideways"}`, "direction"},
		"cmd graph.focus":       {`{"ids":[]}`, "ids"},
		"cmd graph.clear":       {`{"all":true}`, "all"},
		"cmd graph.load":        {`{"edges":[]}`, "nodes"},
	}
	check := func(key string) func(string, []byte) error {
		if strings.HasPrefix(key, "ev ") {
			return m.CheckEventData
		}
		return m.CheckCommandData
	}
	for _, typ := range graphEvents {
		if len(good["ev "+typ]) == 0 || bad["ev "+typ][0] == "" {
			t.Errorf("no samples for event %s", typ)
		}
	}
	for _, typ := range graphCommands {
		if len(good["cmd "+typ]) == 0 || bad["cmd "+typ][0] == "" {
			t.Errorf("no samples for command %s", typ)
		}
	}
	for key, samples := range good {
		typ := strings.Fields(key)[1]
		for _, data := range samples {
			if err := check(key)(typ, []byte(data)); err != nil {
				t.Errorf("%s %s refused: %v", key, data, err)
			}
		}
	}
	for key, c := range bad {
		typ := strings.Fields(key)[1]
		err := check(key)(typ, []byte(c[0]))
		if err == nil {
			t.Errorf("%s %s accepted", key, c[0])
			continue
		}
		if !strings.Contains(err.Error(), c[1]) {
			t.Errorf("%s %s: the error %q does not name %s", key, c[0], err, c[1])
		}
	}
}
