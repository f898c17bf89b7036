package midi

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lets-app/lets/backend/wire"
)

func TestCaseM01_BuiltinCatalog(t *testing.T) {
	cat, err := LoadCatalog(CatalogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var ids, statuses []string
	for _, p := range cat.Profiles {
		ids = append(ids, p.ID)
		statuses = append(statuses, p.Status)
	}
	if !equalStrings(ids, profileIDs) {
		t.Fatalf("ids %v", ids)
	}
	if !equalStrings(statuses, []string{"experimental", "supported", "experimental"}) {
		t.Fatalf("statuses %v", statuses)
	}
	p, _ := cat.Lookup("novation/launchpad/pro-mk1")
	if p.Name != "Novation Launchpad Pro Mk1" {
		t.Fatalf("name %q", p.Name)
	}
}

func TestCaseM02_BundledGeometry(t *testing.T) {
	for _, id := range profileIDs {
		p := builtin(t, id)
		if p.SelectorCapacity() != 8 {
			t.Fatalf("%s capacity %d", id, p.SelectorCapacity())
		}
		for i := 0; i < 8; i++ {
			if p.Selectors[i] != (Address{KindCC, uint8(89 - 10*i), 0}) {
				t.Fatalf("%s selector %d = %v", id, i, p.Selectors[i])
			}
			if p.Statuses[i] != (Address{KindNote, uint8(88 - 10*i), 0}) {
				t.Fatalf("%s status %d = %v", id, i, p.Statuses[i])
			}
			if p.ShowTop[i] != (Address{KindCC, uint8(91 + i), 0}) || p.ShowRight[i] != p.Selectors[i] {
				t.Fatalf("%s showcase %d", id, i)
			}
		}
		if p.StateRegion != (Region{0, 0, 7, 8}) {
			t.Fatalf("%s region %v", id, p.StateRegion)
		}
		if !equalStrings(p.Levels, []string{"actions", "core-state", "multi-agent"}) {
			t.Fatalf("%s levels %v", id, p.Levels)
		}
		if !equalStrings(p.AccentNames(), wire.IdentityAccents()) {
			t.Fatalf("%s accents %v", id, p.AccentNames())
		}
	}
}

func TestCaseM03_ProMk1(t *testing.T) {
	p := builtin(t, "novation/launchpad/pro-mk1")
	if !strings.Contains(p.InputPatterns[0], "Standalone Port") {
		t.Fatal(p.InputPatterns)
	}
	if !reflect.DeepEqual(p.Startup[0].Data, []byte{0, 32, 41, 2, 16, 33, 1}) || !reflect.DeepEqual(p.Startup[1].Data, []byte{0, 32, 41, 2, 16, 44, 3}) {
		t.Fatal(p.Startup)
	}
	if !reflect.DeepEqual(p.Shutdown[len(p.Shutdown)-1].Data, []byte{0, 32, 41, 2, 16, 33, 0}) {
		t.Fatal(p.Shutdown)
	}
	if p.RGB == nil || !reflect.DeepEqual(p.RGB.Prefix, []byte{0, 32, 41, 2, 16, 11}) || p.RGB.ChannelMax != 63 || p.RGB.BatchSize != 78 {
		t.Fatal(p.RGB)
	}
}

func TestCaseM04_ActionAddresses(t *testing.T) {
	want := map[wire.Action]uint8{wire.ActionApprove: 91, wire.ActionReject: 92, wire.ActionRetry: 97, wire.ActionStop: 98}
	for _, id := range profileIDs {
		p := builtin(t, id)
		if len(p.Controls) != 4 {
			t.Fatal(p.Controls)
		}
		for i, c := range p.Controls {
			if c.Action != wire.Actions()[i] || c.Address != (Address{KindCC, want[c.Action], 0}) {
				t.Fatalf("%s %v", id, c)
			}
		}
	}
}

func TestCaseM05_MiniMk3(t *testing.T) {
	p := builtin(t, "novation/launchpad/mini-mk3")
	if len(p.Startup) != 1 || !reflect.DeepEqual(p.Startup[0].Data, []byte{0, 32, 41, 2, 13, 14, 1}) {
		t.Fatal(p.Startup)
	}
	if len(p.Shutdown) != 1 || !reflect.DeepEqual(p.Shutdown[0].Data, []byte{0, 32, 41, 2, 13, 14, 0}) {
		t.Fatal(p.Shutdown)
	}
	if p.RGB != nil {
		t.Fatal("mini mk3 has no show_rgb")
	}
}

func TestCaseM06_ProMk3(t *testing.T) {
	p := builtin(t, "novation/launchpad/pro-mk3")
	if p.Status != StatusExperimental {
		t.Fatal(p.Status)
	}
	if !reflect.DeepEqual(p.Startup[0].Data, []byte{0, 32, 41, 2, 14, 14, 1}) || !reflect.DeepEqual(p.Shutdown[0].Data, []byte{0, 32, 41, 2, 14, 14, 0}) {
		t.Fatal(p.Startup, p.Shutdown)
	}
}

// Our authored profiles describe the same devices as the reference files:
// every parsed property is equal (the golden MIDI tests then prove equal
// bytes).
func TestOwnProfilesEqualReference(t *testing.T) {
	for _, id := range profileIDs {
		ours, ref := builtin(t, id), reference(t, id)
		ours.Source, ref.Source = "", ""
		ours.inputs, ref.inputs, ours.outputs, ref.outputs = nil, nil, nil, nil
		if !reflect.DeepEqual(ours, ref) {
			t.Errorf("%s differs from the reference:\nours %+v\nref  %+v", id, ours, ref)
		}
		if !reflect.DeepEqual(ours.InputPatterns, ref.InputPatterns) {
			t.Errorf("%s patterns differ", id)
		}
	}
}

func TestProfileFilesAreOurOwn(t *testing.T) {
	for _, id := range profileIDs {
		ref, err := os.ReadFile(filepathFromConformance(t, id))
		if err != nil {
			t.Fatal(err)
		}
		if string(builtinRaw(t, id)) == string(ref) {
			t.Fatalf("%s is a copy of the reference file; the product ships its own", id)
		}
	}
}

func filepathFromConformance(t *testing.T, id string) string {
	p := reference(t, id)
	return p.Source
}

func proMk1(t testing.TB) []byte { return builtinRaw(t, "novation/launchpad/pro-mk1") }

func TestCaseM16_InvalidJSON(t *testing.T) {
	path := writeTemp(t, "bad.json", []byte("not-json"))
	_, err := LoadProfileFile(path)
	if err == nil || !strings.Contains(err.Error(), "invalid JSON") || !strings.HasPrefix(err.Error(), path) || !IsProfileError(err) {
		t.Fatalf("err = %v", err)
	}
}

// Mutations of the Pro Mk1 profile and the error fragment the parser must
// report (§1.2; checklist M18–M29).
func TestProfileErrors(t *testing.T) {
	cases := []struct {
		caseID string
		mut    func(m map[string]any)
		want   string
	}{
		{"M18", func(m map[string]any) { m["driver"] = "third-party.untrusted" }, "unknown driver"},
		{"M19", func(m map[string]any) { m["id"] = "Launchpad Pro" }, "manufacturer/family/model"},
		{"M20", func(m map[string]any) {
			s := sub(m, "surface")
			l := s["agent_statuses"].([]any)
			s["agent_statuses"] = l[:len(l)-1]
		}, "equal lengths"},
		{"M21", func(m map[string]any) { m["model"] = "Different Model" }, "does not match profile metadata"},
		{"M22", func(m map[string]any) {
			rows := sub(m, "grid")["rows"].([]any)
			r0 := rows[0].([]any)
			r0[1] = r0[0]
		}, "duplicate MIDI address"},
		{"M23", func(m map[string]any) {
			a := m["accents"].([]any)
			m["accents"] = a[:len(a)-1]
		}, "exactly 8 named color pairs"},
		{"M24", func(m map[string]any) { m["visual_protocol"] = json.Number("9") }, "unsupported visual_protocol"},
		{"M25", func(m map[string]any) {
			sub(m, "surface", "actions")["approve"] = map[string]any{"kind": "note", "number": json.Number("71")}
		}, "state region overlaps"},
		{"M26", func(m map[string]any) { delete(sub(m, "surface", "indicators"), "overflow") }, "requires an overflow indicator"},
		{"M28", func(m map[string]any) {
			a := m["accents"].([]any)
			for i, j := 0, len(a)-1; i < j; i, j = i+1, j-1 {
				a[i], a[j] = a[j], a[i]
			}
		}, "must use Visual Protocol order"},
		{"M28", func(m map[string]any) { m["schema_version"] = json.Number("1.0") }, "schema_version must be an integer"},
		{"M29", func(m map[string]any) { sub(m, "surface", "state_region")["x"] = json.Number("1") }, "state region overlaps"},
		{"M29", func(m map[string]any) { sub(m, "surface", "state_region")["y"] = json.Number("1") }, "exceeds the grid"},
		// Further steps of §1.2.
		{"", func(m map[string]any) { m["schema_version"] = json.Number("2") }, "unsupported schema_version 2; expected 1"},
		{"", func(m map[string]any) { m["schema_version"] = true }, "schema_version must be an integer"},
		{"", func(m map[string]any) { m["status"] = "beta" }, "unsupported status: 'beta'"},
		{"", func(m map[string]any) { sub(m, "ports")["input"] = []any{"(unclosed"} }, "ports.input[0]: invalid regular expression"},
		{"", func(m map[string]any) { sub(m, "ports")["output"] = []any{} }, "ports.output must be a non-empty string array"},
		{"", func(m map[string]any) {
			rows := sub(m, "grid")["rows"].([]any)
			rows[2] = rows[2].([]any)[:7]
		}, "grid.rows must all have the same width"},
		{"", func(m map[string]any) {
			rows := sub(m, "grid")["rows"].([]any)
			sub(m, "grid")["rows"] = rows[:7]
		}, "grid must be 8x8"},
		{"", func(m map[string]any) { sub(m, "surface", "state_region")["width"] = json.Number("6") }, "must be 7x8 for Visual Protocol 1"},
		{"", func(m map[string]any) {
			a := sub(m, "surface", "actions")
			a["zoom"], a["alpha"] = a["approve"], a["approve"]
		}, "surface.actions contains unknown actions: alpha, zoom"},
		{"", func(m map[string]any) {
			s := sub(m, "surface")
			s["agent_selectors"], s["agent_statuses"] = []any{}, []any{}
		}, "at least one selector/status pair is required"},
		{"", func(m map[string]any) {
			s := sub(m, "surface")
			sel := s["agent_selectors"].([]any)
			st := s["agent_statuses"].([]any)
			s["agent_selectors"] = append(sel, map[string]any{"kind": "cc", "number": json.Number("1")})
			s["agent_statuses"] = append(st, map[string]any{"kind": "cc", "number": json.Number("2")})
		}, "at most eight selector slots are supported"},
		{"", func(m map[string]any) { sub(m, "surface", "indicators")["blink"] = true }, "surface.indicators contains unknown indicators: blink"},
		{"", func(m map[string]any) {
			sc := sub(m, "surface", "showcase")
			sc["top"] = sc["top"].([]any)[:7]
		}, "must define eight top and eight right lights"},
		{"", func(m map[string]any) {
			sub(m, "surface", "indicators")["overflow"] = map[string]any{"kind": "cc", "number": json.Number("91")}
		}, "surface: duplicate MIDI address: cc 91 channel 0"},
		{"", func(m map[string]any) { sub(m, "palette")["extra"] = json.Number("1") }, "palette contains unknown sections: extra"},
		{"", func(m map[string]any) { delete(sub(m, "palette", "states"), "error") }, "palette.states.error must be a JSON object"},
		{"", func(m map[string]any) { sub(m, "palette", "states")["sleeping"] = map[string]any{} }, "palette.states contains unknown states: sleeping"},
		{"", func(m map[string]any) { sub(m, "palette")["off"] = json.Number("128") }, "palette.off must be an integer between 0 and 127"},
		{"", func(m map[string]any) { m["conformance"] = []any{"multi-agent"} }, "core-state"},
		{"", func(m map[string]any) { m["conformance"] = []any{} }, "conformance must be a non-empty string array"},
		{"", func(m map[string]any) { m["conformance"] = []any{"core-state", "flashy"} }, "unknown levels: flashy"},
		{"", func(m map[string]any) { delete(sub(m, "surface", "actions"), "stop") }, "actions conformance requires mappings for: stop"},
		{"", func(m map[string]any) { sub(m, "capabilities", "show_rgb")["gamma"] = json.Number("2") }, "capabilities.show_rgb contains unknown fields: gamma"},
		{"", func(m map[string]any) { sub(m, "capabilities", "show_rgb")["batch_size"] = json.Number("0") }, "batch_size must be an integer between 1 and 127"},
		{"", func(m map[string]any) { sub(m, "capabilities")["text_scroll"] = "yes" }, "capabilities.text_scroll must be a boolean"},
		{"", func(m map[string]any) {
			sub(m, "surface", "showcase")["top"].([]any)[0] = map[string]any{"kind": "note", "number": json.Number("81")}
		}, "direct RGB requires unique numeric show addresses"},
		{"", func(m map[string]any) {
			sub(m, "messages")["startup"] = []any{map[string]any{"type": "pitchbend"}}
		}, "type must be 'sysex', 'note', or 'cc'"},
		{"", func(m map[string]any) {
			sub(m, "messages")["startup"] = []any{map[string]any{"type": "sysex", "data": []any{json.Number("200")}}}
		}, "messages.startup[0].data[0] must be an integer between 0 and 127"},
	}
	for i, c := range cases {
		data := mutate(t, proMk1(t), c.mut)
		_, err := ParseProfile(data, "")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("case %d %s: err = %v, want %q", i, c.caseID, err, c.want)
			continue
		}
		if !strings.HasPrefix(err.Error(), InlineSource+": ") {
			t.Errorf("case %d: error does not start with the source: %v", i, err)
		}
	}
	if _, err := ParseProfile([]byte("[1]"), "x.json"); err == nil || err.Error() != "x.json: top-level profile must be a JSON object" {
		t.Errorf("top level: %v", err)
	}
}

func TestCaseM28_ParserDefaults(t *testing.T) {
	data := mutate(t, proMk1(t), func(m map[string]any) {
		delete(sub(m, "grid"), "channel")
		delete(m, "messages")
		delete(m, "capabilities")
		delete(sub(m, "surface"), "actions")
		delete(sub(m, "surface"), "indicators")
		m["conformance"] = []any{"core-state", "core-state"}
		m["unknown_top_level"] = "ignored"
	})
	p, err := ParseProfile(data, "")
	if err != nil {
		t.Fatal(err)
	}
	if p.GridChannel != 0 || !p.TextScroll || p.RGB != nil || len(p.Startup) != 0 || len(p.Controls) != 0 || p.Overflow != nil {
		t.Fatalf("defaults: %+v", p)
	}
}

func TestCaseM27_DuplicateProfileID(t *testing.T) {
	p := builtin(t, "novation/launchpad/pro-mk1")
	_, err := NewCatalog([]*Profile{p, p})
	if err == nil || !strings.Contains(err.Error(), "duplicate profile id 'novation/launchpad/pro-mk1'") {
		t.Fatal(err)
	}
	// A user profile can never replace a built-in.
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "pad-lattice", "profiles", "x"), 0o700)
	os.WriteFile(filepath.Join(dir, "pad-lattice", "profiles", "x", "p.json"), proMk1(t), 0o600)
	env := map[string]string{EnvXDGConfigHome: dir}
	_, err = LoadCatalog(CatalogOptions{User: true, Getenv: func(k string) string { return env[k] }, Home: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "duplicate profile id") {
		t.Fatal(err)
	}
}

func TestUserProfiles(t *testing.T) {
	home := t.TempDir()
	extra := t.TempDir()
	custom := mutate(t, proMk1(t), func(m map[string]any) {
		m["id"], m["model"], m["name"], m["status"] = "acme/pads/one", "One", "Acme One", "experimental"
		m["manufacturer"], m["family"] = "ACME", "Pads"
	})
	os.MkdirAll(filepath.Join(home, ".config", "pad-lattice", "profiles"), 0o700)
	os.WriteFile(filepath.Join(extra, "one.json"), custom, 0o600)
	env := map[string]string{EnvProfilePath: "~/nowhere:" + extra}
	cat, err := LoadCatalog(CatalogOptions{User: true, Getenv: func(k string) string { return env[k] }, Home: home})
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Profiles) != 4 || cat.Profiles[0].ID != "acme/pads/one" {
		t.Fatalf("%v", cat.Profiles)
	}
	roots := UserProfileRoots(func(k string) string { return env[k] }, home)
	if roots[0] != filepath.Join(home, ".config", "pad-lattice", "profiles") || roots[1] != filepath.Join(home, "nowhere") || roots[2] != extra {
		t.Fatal(roots)
	}
	// An invalid user profile fails the whole load.
	os.WriteFile(filepath.Join(extra, "two.json"), []byte("{"), 0o600)
	if _, err := LoadCatalog(CatalogOptions{User: true, Getenv: func(k string) string { return env[k] }, Home: home}); err == nil {
		t.Fatal("invalid user profile accepted")
	}
}

func TestDerivedProperties(t *testing.T) {
	p := builtin(t, "novation/launchpad/pro-mk1")
	if p.Width() != 8 || p.Height() != 8 || p.GridAddress(0, 0).Number != 81 || p.GridAddress(7, 7).Number != 18 {
		t.Fatal("geometry")
	}
	for _, tok := range []string{"off", "idle", "activity", "system:overflow", "state:running:primary", "action:retry:enabled"} {
		if _, err := p.Color(tok); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := p.Color("state:sleeping:primary"); err == nil || err.Error() != "novation/launchpad/pro-mk1: unknown color token: state:sleeping:primary" {
		t.Fatal(err)
	}
	if _, err := p.AccentPair("gold"); err == nil || err.Error() != "novation/launchpad/pro-mk1: unknown session accent: gold" {
		t.Fatal(err)
	}
	if v, _ := p.Resolve("accent:magenta:selected"); v != 53 {
		t.Fatal(v)
	}
	if v, _ := p.Resolve("accent:magenta:whatever"); v != 55 {
		t.Fatal(v)
	}
	if Slug("Pro Mk1") != "pro-mk1" || Slug("  Novation!! ") != "novation" {
		t.Fatal("slug")
	}
}
