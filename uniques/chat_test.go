package uniques_test

import (
	"encoding/json"
	"errors"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/lets-app/lets/backend/manifest"
	"github.com/lets-app/lets/uniques"
)

// chatFiles copies the built-in chat unique into a MapFS, with unique.json
// changed by edit (nil keeps it).
func chatFiles(t *testing.T, edit func(m map[string]any)) fstest.MapFS {
	t.Helper()
	sub, err := fs.Sub(uniques.FS(), "chat")
	if err != nil {
		t.Fatal(err)
	}
	out := fstest.MapFS{}
	err = fs.WalkDir(sub, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(sub, p)
		if err != nil {
			return err
		}
		out[p] = &fstest.MapFile{Data: data, Mode: 0o644}
		return nil
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

func chatChecker(t *testing.T) *manifest.Checker {
	t.Helper()
	c, err := manifest.NewChecker(manifest.Options{HostVersion: "0.1.0"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestChatManifest: the chat unique is valid in every respect, like an
// installed one: schema, the eight rules, its files, a data schema per
// declared type, session types in its own domain.
func TestChatManifest(t *testing.T) {
	m, warnings, err := chatChecker(t).LoadFS(chatFiles(t, nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) > 0 {
		t.Errorf("warnings: %v", warnings)
	}
	if m.Name != "chat" || len(m.Domains) != 1 || m.Domains[0] != "talk" {
		t.Errorf("name %q domains %v", m.Name, m.Domains)
	}
	if m.Session.Export != "talk.export" || m.Session.Snapshot != "talk.snapshot" || m.Session.Restore != "talk.load" {
		t.Errorf("session %+v", m.Session)
	}
	for _, typ := range []string{"talk.export", "talk.snapshot", "talk.new"} {
		if info, ok := m.Event(typ); !ok || info.Schema == "" {
			t.Errorf("event %s: declared %v, schema %q", typ, ok, info.Schema)
		}
	}
	for _, typ := range []string{"talk.load", "talk.welcome"} {
		if info, ok := m.Command(typ); !ok || info.Schema == "" {
			t.Errorf("command %s: declared %v, schema %q", typ, ok, info.Schema)
		}
	}
	if !m.HasDataSchemas() {
		t.Error("no data schemas compiled")
	}
	if m.AllowsExec("python") || m.AllowsExec("shell") {
		t.Error("chat must not ask to run code (rule 8)")
	}
	for _, d := range m.Domains {
		if manifest.IsReservedDomain(d) {
			t.Errorf("domain %s is reserved", d)
		}
	}
}

// TestChatDataSchemas: what the page sends and what Claude may send are
// checked against the unique's schemas, including a restore payload as
// the host saved it (session first, summary and text beside messages).
func TestChatDataSchemas(t *testing.T) {
	m, _, err := chatChecker(t).LoadFS(chatFiles(t, nil))
	if err != nil {
		t.Fatal(err)
	}
	msgs := `[{"role":"human","text":"Help me plan my week","at":"2026-12-01T12:00:00.000Z"},` +
		`{"role":"claude","text":"Gladly! **What** matters most?","at":"2026-12-01T12:00:02.000Z"},` +
		`{"role":"human","kind":"choice","text":"Chose: Work","at":"2026-12-01T12:00:05.000Z"},` +
		`{"role":"human","text":"","at":"","attachments":[{"path":"/home/a/.lets/uploads/chat/01J.png","mime":"image/png"}]}]`
	good := []struct {
		event     bool
		typ, data string
	}{
		{true, "talk.export", `{"summary":"4 messages","text":"You: Help me plan my week","messages":` + msgs + `}`},
		{true, "talk.export", `{"summary":"1 message","text":"…","messages":[],"dropped":12}`},
		{true, "talk.snapshot", `{"summary":"4 messages","messages":` + msgs + `}`},
		{true, "talk.new", `{"cleared":4}`},
		{false, "talk.load", `{"messages":` + msgs + `}`},
		{false, "talk.load", `{"session":{"id":"ss_1","handoff":true,"saved":true,"summary":"x"},"summary":"x","text":"y","messages":` + msgs + `}`},
		{false, "talk.welcome", `{"text":"Hi Sam! Shall we sort out the trip?","suggestions":["Find trains","Pack a list"]}`},
		{false, "talk.welcome", `{"text":"Hello again."}`},
	}
	for _, c := range good {
		check := m.CheckCommandData
		if c.event {
			check = m.CheckEventData
		}
		if err := check(c.typ, []byte(c.data)); err != nil {
			t.Errorf("%s %s refused: %v", c.typ, c.data, err)
		}
	}
	bad := []struct {
		event            bool
		typ, data, field string
	}{
		{true, "talk.export", `{"summary":"x","messages":[]}`, "text"},
		{true, "talk.snapshot", `{"summary":"x","messages":[{"role":"robot","text":"beep"}]}`, "role"},
		{true, "talk.new", `{"cleared":-1}`, "cleared"},
		{false, "talk.load", `{}`, "messages"},
		{false, "talk.load", `{"messages":[{"role":"human"}]}`, "text"},
		{false, "talk.welcome", `{"suggestions":["a"]}`, "text"},
		{false, "talk.welcome", `{"text":"hi","suggestions":["1","2","3","4","5","6","7"]}`, "suggestions"},
	}
	for _, c := range bad {
		check := m.CheckCommandData
		if c.event {
			check = m.CheckEventData
		}
		err := check(c.typ, []byte(c.data))
		if err == nil {
			t.Errorf("%s %s accepted", c.typ, c.data)
			continue
		}
		if !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s %s: error %q does not name %s", c.typ, c.data, err, c.field)
		}
	}
}

// TestChatManifestRules: the eight rules on the chat manifest, each broken
// once. Rules 3, 4 and 7 are why the unique's domain is talk and not chat:
// chat is a reserved core domain (the shell's chat panel), so a unique can
// own neither chat.export nor chat.load.
func TestChatManifestRules(t *testing.T) {
	c := chatChecker(t)
	cases := []struct {
		rule int
		name string
		edit func(m map[string]any)
	}{
		{1, "upper-case name", func(m map[string]any) { m["name"] = "Chat" }},
		{2, "entry outside the folder", func(m map[string]any) { m["entry"] = "../x.html" }},
		{3, "the reserved chat domain", func(m map[string]any) { m["domains"] = []any{"chat"} }},
		{4, "an event outside the domains", func(m map[string]any) {
			ev := m["events"].(map[string]any)
			ev["chat.export"] = ev["talk.export"]
		}},
		{6, "another lip major", func(m map[string]any) { m["lip"] = 2 }},
		{7, "session export in the chat domain", func(m map[string]any) {
			m["session"].(map[string]any)["export"] = "chat.export"
		}},
		{7, "session restore in the chat domain", func(m map[string]any) {
			m["session"].(map[string]any)["restore"] = "chat.load"
		}},
		{8, "exec that is not a list", func(m map[string]any) {
			m["permissions"] = map[string]any{"exec": "python"}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := c.LoadFS(chatFiles(t, tc.edit))
			var inv *manifest.InvalidError
			if !errors.As(err, &inv) {
				t.Fatalf("accepted (err %v)", err)
			}
			if !inv.HasRule(tc.rule) {
				t.Errorf("rule %d not named: %v", tc.rule, err)
			}
		})
	}
	// Rule 5: an unknown top-level key is kept and ignored.
	m, _, err := c.LoadFS(chatFiles(t, func(m map[string]any) { m["layout"] = map[string]any{"chat": "main"} }))
	if err != nil {
		t.Fatalf("rule 5: unknown key refused: %v", err)
	}
	if keys := m.UnknownKeys(); len(keys) != 1 || keys[0] != "layout" {
		t.Errorf("rule 5: unknown keys %v", keys)
	}
	// Rule 8: a language Lets cannot run is a warning, and /lip/run refuses it.
	_, warnings, err := c.LoadFS(chatFiles(t, func(m map[string]any) { m["permissions"] = map[string]any{"exec": []any{"cobol"}} }))
	if err != nil || len(warnings) != 1 || !strings.Contains(warnings[0], "cobol") {
		t.Errorf("rule 8: unknown language: err %v warnings %v", err, warnings)
	}
	// Rule 7 defaults: without "session" the types are <domain>.export …
	m, _, err = c.LoadFS(chatFiles(t, func(m map[string]any) { delete(m, "session") }))
	if err != nil {
		t.Fatal(err)
	}
	if m.Session.Export != "talk.export" || m.Session.Snapshot != "talk.snapshot" || m.Session.Restore != "talk.load" {
		t.Errorf("rule 7 defaults %+v", m.Session)
	}
}
