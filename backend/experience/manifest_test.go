package experience_test

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/lets-app/lets/backend/experience"
	"github.com/lets-app/lets/backend/testenv/conformance"
	"github.com/lets-app/lets/schemas"
)

// refBytes reads a reference file (test data only; skips loudly when the
// conformance folder is absent).
func refBytes(t testing.TB, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(conformance.File(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func refDemo(t testing.TB) *experience.Demo {
	t.Helper()
	d, err := experience.ParseDemoManifest(refBytes(t, "experiences/demo-v1.json"))
	if err != nil {
		t.Fatalf("reference Demo: %v", err)
	}
	return d
}

func refShow(t testing.TB) *experience.Performance {
	t.Helper()
	p, err := experience.ParsePerformanceManifest(refBytes(t, "experiences/constellation-v1.json"))
	if err != nil {
		t.Fatalf("reference Show: %v", err)
	}
	return p
}

// doc decodes JSON into a generic value for mutation.
func doc(t testing.TB, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

func enc(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// at walks a path of keys and indexes.
func at(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			v = v.(map[string]any)[k]
		case int:
			v = v.([]any)[k]
		}
	}
	return v
}

// set assigns the last element of path.
func set(root any, val any, path ...any) {
	parent := at(root, path[:len(path)-1]...)
	switch k := path[len(path)-1].(type) {
	case string:
		parent.(map[string]any)[k] = val
	case int:
		parent.([]any)[k] = val
	}
}

func del(root any, path ...any) {
	delete(at(root, path[:len(path)-1]...).(map[string]any), path[len(path)-1].(string))
}

func TestCase001_LoadReferencePerformance(t *testing.T) {
	p := refShow(t)
	if len(p.Cues) != 80 || p.DurationMS != 43100 || p.Duration().Seconds() != 43.1 {
		t.Fatalf("cues %d, duration %d ms", len(p.Cues), p.DurationMS)
	}
	if p.Title != "A Spark Becomes a Constellation" || len(p.Palette) != 551 || p.Audio.Asset != "audio/constellation-v1.wav" {
		t.Fatalf("title %q, palette %d, asset %q", p.Title, len(p.Palette), p.Audio.Asset)
	}
	for i, want := range []int{0, 2300, 5000, 9930, 14690, 19890, 29180, 33780} {
		first := -1
		for c := range p.Cues {
			if p.Cues[c].Act == i {
				first = c
				break
			}
		}
		if p.Start(first) != want {
			t.Errorf("act %d starts at %d, want %d", i, p.Start(first), want)
		}
	}
}

func TestCase002_LoadReferenceDemo(t *testing.T) {
	d := refDemo(t)
	if len(d.Stages) != 6 || d.InitialStage != "select_reviewer" || d.Initial() != 0 {
		t.Fatalf("stages %d, initial %q", len(d.Stages), d.InitialStage)
	}
	g := d.Stages[0].GuideTarget
	if g == nil || g.Event != experience.EventSelect || g.Slot != 1 {
		t.Fatalf("guide target %+v", g)
	}
	if d.Title != "Three Agents, One Surface" || !d.Stages[5].Terminal {
		t.Fatalf("title %q", d.Title)
	}
}

func TestCase003_004_CaptionRule(t *testing.T) {
	p := refShow(t)
	question := -1
	for i, c := range p.Cues {
		if c.Caption == "A question" {
			question = i
		}
	}
	for _, tc := range []struct {
		cue  int
		want string
	}{
		{question + 1, "A question"}, // case 3
		{3, "An Idea"},               // case 4: act fallback
		{0, "Alone"}, {1, "Alone"},
		{7, "The Search"},
		{79, "No light alone"},
	} {
		if got := p.CaptionAt(tc.cue); got != tc.want {
			t.Errorf("caption_at(%d) = %q, want %q", tc.cue, got, tc.want)
		}
	}
}

// mutation is one malformed variant of a reference manifest.
type mutation struct {
	name   string
	mutate func(m map[string]any)
	want   string // substring of the error
}

func runMutations(t *testing.T, base []byte, parse func([]byte) error, cases []mutation) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := doc(t, base)
			tc.mutate(m)
			err := parse(enc(t, m))
			if err == nil {
				t.Fatal("accepted")
			}
			if !errors.Is(err, experience.ErrInvalidManifest) {
				t.Errorf("error %v does not wrap ErrInvalidManifest", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not contain %q", err, tc.want)
			}
		})
	}
}

func parsePerf(b []byte) error { _, err := experience.ParsePerformanceManifest(b); return err }
func parseDemo(b []byte) error { _, err := experience.ParseDemoManifest(b); return err }

func TestCase005_008_PerformanceRejected(t *testing.T) {
	base := refBytes(t, "experiences/constellation-v1.json")
	n := func(s string) json.Number { return json.Number(s) }
	runMutations(t, base, parsePerf, []mutation{
		{"case005 grid 7x8", func(m map[string]any) { set(m, []any{n("7"), n("8")}, "dimensions", "grid") }, "8x8 grid"},
		{"case005 top 9", func(m map[string]any) { set(m, n("9"), "dimensions", "top") }, "8x8 grid"},
		{"case005 extra key", func(m map[string]any) { set(m, n("8"), "dimensions", "left") }, "8x8 grid"},
		{"case006 index = palette length", func(m map[string]any) {
			set(m, n("551"), "cues", 0, "frame", "grid", 0, 0)
		}, "outside the palette"},
		{"case006 rail index huge", func(m map[string]any) { set(m, n("99999"), "cues", 3, "frame", "right", 7) }, "outside the palette"},
		{"case007 duration != sum", func(m map[string]any) { set(m, n("43101"), "duration_ms") }, "add up to"},
		{"case007 audio duration", func(m map[string]any) { set(m, n("43000"), "audio", "duration_ms") }, "audio.duration_ms"},
		{"case007 mime", func(m map[string]any) { set(m, "audio/mpeg", "audio", "mime_type") }, "audio/wav"},
		{"case008 dotdot", func(m map[string]any) { set(m, "../x.wav", "audio", "asset") }, ".."},
		{"case008 absolute", func(m map[string]any) { set(m, "/x.wav", "audio", "asset") }, "absolute"},
		{"case008 inner dotdot", func(m map[string]any) { set(m, "audio/../../x.wav", "audio", "asset") }, ".."},
		{"asset only dots", func(m map[string]any) { set(m, "./.", "audio", "asset") }, "names no file"},
		{"blank title", func(m map[string]any) { set(m, " \t", "title") }, "visible text"},
		{"float duration", func(m map[string]any) { set(m, n("43100.0"), "duration_ms") }, "integer"},
		{"boolean schema version", func(m map[string]any) { set(m, true, "schema_version") }, "integer"},
		{"schema version 2", func(m map[string]any) { set(m, n("2"), "schema_version") }, "Performance Manifest 1"},
		{"kind demo", func(m map[string]any) { set(m, "demo", "kind") }, `"performance"`},
		{"duplicate act", func(m map[string]any) { set(m, "Prelude - Alone", "acts", 1) }, "unique"},
		{"blank act", func(m map[string]any) { set(m, "  ", "acts", 1) }, "visible text"},
		{"act out of range", func(m map[string]any) { set(m, n("8"), "cues", 0, "act") }, "only 8 acts"},
		{"rgb 256", func(m map[string]any) { set(m, n("256"), "palette", 0, "rgb", 1) }, "0 to 255"},
		{"rgb two channels", func(m map[string]any) { set(m, []any{n("1"), n("2")}, "palette", 0, "rgb") }, "3 to 3"},
		{"blank fallback", func(m map[string]any) { set(m, " ", "palette", 0, "fallback") }, "visible text"},
		{"zero cue duration", func(m map[string]any) { set(m, n("0"), "cues", 0, "duration_ms") }, "from 1"},
		{"blank caption", func(m map[string]any) { set(m, "", "cues", 0, "caption") }, "caption"},
		{"short row", func(m map[string]any) { set(m, []any{n("0")}, "cues", 0, "frame", "grid", 2) }, "8 to 8"},
		{"missing audio", func(m map[string]any) { del(m, "audio") }, "missing key(s) audio"},
		{"unknown cue key", func(m map[string]any) { set(m, "x", "cues", 0, "note") }, `unknown key(s) "note"`},
		{"no cues", func(m map[string]any) { set(m, []any{}, "cues") }, "1 to 4096"},
	})
}

func TestCase010_016_DemoRejected(t *testing.T) {
	base := refBytes(t, "experiences/demo-v1.json")
	n := func(s string) json.Number { return json.Number(s) }
	runMutations(t, base, parseDemo, []mutation{
		{"case010 missing next stage", func(m map[string]any) { set(m, "missing", "stages", 0, "transitions", 0, "next_stage") }, "unknown stage"},
		{"case011 guide target slot 2", func(m map[string]any) { set(m, n("2"), "stages", 0, "guide_target", "slot") }, "guide target"},
		{"case012 sessions[1].slot 2", func(m map[string]any) { set(m, n("2"), "stages", 0, "view", "sessions", 1, "slot") }, "slot order"},
		{"case013 terminal with transition", func(m map[string]any) {
			set(m, at(m, "stages", 4, "transitions"), "stages", 5, "transitions")
		}, "terminal but has transitions"},
		{"case013 non-terminal without transition", func(m map[string]any) {
			set(m, []any{}, "stages", 4, "transitions")
		}, "no transitions but is not terminal"},
		{"terminal with guide target", func(m map[string]any) {
			set(m, at(m, "stages", 4, "guide_target"), "stages", 5, "guide_target")
		}, "null on a terminal stage"},
		{"non-terminal without guide target", func(m map[string]any) { set(m, nil, "stages", 0, "guide_target") }, "guide_target"},
		{"case014 unreachable stage", func(m map[string]any) {
			// recover_reviewer is reached only through reject.
			ts := at(m, "stages", 1, "transitions").([]any)
			set(m, ts[:1], "stages", 1, "transitions")
		}, "cannot be reached"},
		{"case015 two selected", func(m map[string]any) { set(m, true, "stages", 0, "view", "sessions", 1, "selected") }, "both selected"},
		{"case016 select absent slot", func(m map[string]any) {
			set(m, n("2"), "stages", 0, "transitions", 0, "slot")
			set(m, n("2"), "stages", 0, "guide_target", "slot")
			ss := at(m, "stages", 0, "view", "sessions").([]any)
			set(m, ss[:2], "stages", 0, "view", "sessions")
		}, "no session there"},
		{"case016 action not available", func(m map[string]any) {
			set(m, []any{"approve"}, "stages", 1, "view", "available_actions")
		}, "not in the stage's available_actions"},
		{"duplicate stage id", func(m map[string]any) { set(m, "select_reviewer", "stages", 1, "id") }, "unique"},
		{"unknown initial stage", func(m map[string]any) { set(m, "nowhere", "initial_stage") }, "unknown stage"},
		{"select with action", func(m map[string]any) { set(m, "approve", "stages", 0, "transitions", 0, "action") }, "must be null for a select"},
		{"action with slot", func(m map[string]any) { set(m, n("1"), "stages", 1, "transitions", 0, "slot") }, "must be null for an action"},
		{"select without slot", func(m map[string]any) { set(m, nil, "stages", 0, "transitions", 0, "slot") }, "needs a slot"},
		{"bad event", func(m map[string]any) { set(m, "press", "stages", 0, "transitions", 0, "event") }, `"select" or "action"`},
		{"bad state", func(m map[string]any) { set(m, "sleeping", "stages", 0, "view", "sessions", 0, "state") }, "must be one of running"},
		{"bad action", func(m map[string]any) { set(m, []any{"approve", "pause"}, "stages", 1, "view", "available_actions") }, "approve, reject, stop, retry"},
		{"accent not an identity accent", func(m map[string]any) { set(m, "gold", "stages", 0, "view", "sessions", 0, "accent") }, "identity accent"},
		{"slot 1.0", func(m map[string]any) { set(m, n("1.0"), "stages", 0, "transitions", 0, "slot") }, "integer"},
		{"slot true", func(m map[string]any) { set(m, true, "stages", 0, "transitions", 0, "slot") }, "integer"},
		{"slot 8", func(m map[string]any) { set(m, n("8"), "stages", 0, "view", "sessions", 0, "slot") }, "0 to 7"},
		{"blank label", func(m map[string]any) { set(m, "\u2003", "stages", 0, "view", "sessions", 0, "label") }, "visible text"},
		{"blank audio", func(m map[string]any) { set(m, " ", "stages", 0, "enter_audio") }, "visible text"},
		{"missing enter_audio", func(m map[string]any) { del(m, "stages", 0, "enter_audio") }, "missing key(s) enter_audio"},
		{"extra prompt key", func(m map[string]any) { set(m, "x", "stages", 0, "prompt", "footer") }, `unknown key(s) "footer"`},
		{"nine sessions", func(m map[string]any) {
			ss := at(m, "stages", 0, "view", "sessions").([]any)
			set(m, append(append(append([]any{}, ss...), ss...), ss...), "stages", 0, "view", "sessions")
		}, "0 to 8"},
		{"no stages", func(m map[string]any) { set(m, []any{}, "stages") }, "1 to 64"},
		{"kind show", func(m map[string]any) { set(m, "show", "kind") }, `"demo"`},
	})
}

func TestDemoLoaderToleratesDuplicateActions(t *testing.T) {
	m := doc(t, refBytes(t, "experiences/demo-v1.json"))
	set(m, []any{"approve", "reject", "approve"}, "stages", 1, "view", "available_actions")
	d, err := experience.ParseDemoManifest(enc(t, m))
	if err != nil {
		t.Fatalf("§2.2 rule 10: duplicates are tolerated: %v", err)
	}
	if len(d.Stages[1].Available) != 2 {
		t.Fatalf("available %v", d.Stages[1].Available)
	}
}

func TestNotJSONRejected(t *testing.T) {
	for _, b := range []string{"", "{", "[]", "null", `{"schema_version":1}{}`, "\xff"} {
		if parseDemo([]byte(b)) == nil || parsePerf([]byte(b)) == nil {
			t.Errorf("%q accepted", b)
		}
	}
}

// Case 9: both reference manifests validate against the reference schemas;
// ours are at least as strict for them and accept them too; Lets' own
// content validates against both.
func TestCase009_ManifestsValidateAgainstSchemas(t *testing.T) {
	refDemoSchema := conformance.Schema(t, "demo-manifest-v1.json")
	refPerfSchema := conformance.Schema(t, "performance-manifest-v1.json")
	ourDemoSchema, err := schemas.Compile("demo-manifest-1.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	ourPerfSchema, err := schemas.Compile("performance-manifest-1.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	// Lets' own content is checked even without ../shared (then against our
	// schemas alone: conformance.Schema falls back to them).
	demos := map[string][]byte{"ours": experience.DemoJSON()}
	shows := map[string][]byte{"ours": experience.ShowJSON()}
	if p, ok := conformance.OptionalFile(t, "experiences/demo-v1.json", "demo-manifest-1.schema.json"); ok {
		demos["reference"] = readFile(t, p)
	}
	if p, ok := conformance.OptionalFile(t, "experiences/constellation-v1.json", "performance-manifest-1.schema.json"); ok {
		shows["reference"] = readFile(t, p)
	}
	for name, b := range demos {
		if err := schemas.ValidateJSON(refDemoSchema, b); err != nil {
			t.Errorf("%s Demo vs reference schema: %v", name, err)
		}
		if err := schemas.ValidateJSON(ourDemoSchema, b); err != nil {
			t.Errorf("%s Demo vs our schema: %v", name, err)
		}
	}
	for name, b := range shows {
		if err := schemas.ValidateJSON(refPerfSchema, b); err != nil {
			t.Errorf("%s Show vs reference schema: %v", name, err)
		}
		if err := schemas.ValidateJSON(ourPerfSchema, b); err != nil {
			t.Errorf("%s Show vs our schema: %v", name, err)
		}
	}
}

// Our schemas reject what they can express of the loader rules.
func TestOurSchemasRejectMalformed(t *testing.T) {
	ourDemo, _ := schemas.Compile("demo-manifest-1.schema.json")
	ourPerf, _ := schemas.Compile("performance-manifest-1.schema.json")
	n := func(s string) json.Number { return json.Number(s) }
	for _, tc := range []struct {
		name   string
		perf   bool
		mutate func(m map[string]any)
	}{
		{"blank title", false, func(m map[string]any) { set(m, "  ", "title") }},
		{"accent gold", false, func(m map[string]any) { set(m, "gold", "stages", 0, "view", "sessions", 0, "accent") }},
		{"select with action", false, func(m map[string]any) { set(m, "approve", "stages", 0, "transitions", 0, "action") }},
		{"terminal with transitions", false, func(m map[string]any) {
			last := len(at(m, "stages").([]any)) - 1
			set(m, at(m, "stages", 0, "transitions"), "stages", last, "transitions")
		}},
		{"non-terminal without guide", false, func(m map[string]any) { set(m, nil, "stages", 0, "guide_target") }},
		{"grid 7x8", true, func(m map[string]any) { set(m, []any{n("7"), n("8")}, "dimensions", "grid") }},
		{"asset ..", true, func(m map[string]any) { set(m, "../x.wav", "audio", "asset") }},
		{"asset absolute", true, func(m map[string]any) { set(m, "/x.wav", "audio", "asset") }},
		{"mime", true, func(m map[string]any) { set(m, "audio/mpeg", "audio", "mime_type") }},
		{"index 4096", true, func(m map[string]any) { set(m, n("4096"), "cues", 0, "frame", "top", 0) }},
	} {
		base, s := experience.DemoJSON(), ourDemo
		if tc.perf {
			base, s = experience.ShowJSON(), ourPerf
		}
		m := doc(t, base)
		tc.mutate(m)
		if schemas.ValidateJSON(s, enc(t, m)) == nil {
			t.Errorf("%s: our schema accepted it", tc.name)
		}
	}
}
