package lip

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/schemas"
)

func ptrU(v uint64) *uint64   { return &v }
func ptrF(v float64) *float64 { return &v }

// sampleMessages has one typed value per core type, built the way the host
// builds them.
func sampleMessages(t *testing.T) []Message {
	t.Helper()
	note, err := NewComponent("c1", NoteProps{Title: "Hi", Text: "Some text", Tone: LevelInfo}, SlotDock, nil)
	if err != nil {
		t.Fatal(err)
	}
	upd, err := UpdateComponent("c1", ProgressProps{Value: ptrF(0.5)})
	if err != nil {
		t.Fatal(err)
	}
	persona := EntityPersona{Name: "pip", Traits: map[string]any{"speed": 1.2, "distance": 40}}
	theme := UITheme{Name: ThemeDark, Vars: map[string]string{"--lets-accent": "#ff8800"}}
	return []Message{
		Hello{Shell: "lets-shell", Version: "0.1.0", Window: "w1", Resume: ptrU(4), Medium: "screen", Caps: []string{"components", "media.image"}},
		Welcome{Host: "lets", Version: "0.1.0", Window: "w1", Unique: UniqueInfo{Name: "graph", Version: "0.1.0", Title: "Graph"},
			Session: &SessionInfo{ID: "ss_01J9Q0Z8M3K7X4N2AAAAAAAAAA", Summary: "a graph", Handoff: true, Resumed: true},
			Persona: &persona, Theme: &theme, Limits: DefaultLimits()},
		Ready{},
		Ack{IDs: []string{"cm_1", "cm_2"}},
		ErrorData{Code: CodeUndeclaredType, Message: "graph.x is not declared", Re: "cm_1"},
		Expired{IDs: []string{"cm_3"}},
		Ping{}, Pong{},
		SessionOpen{Unique: "graph", Window: "w1", Resumed: "ss_1"},
		SessionClose{Reason: ReasonHandoff},
		SessionClosed{Reason: ReasonCrash},
		SessionFocus{}, SessionBlur{},
		SessionSaved{ID: "ss_1", Unique: "graph", Summary: "nodes a, b", Handoff: true},
		EntitySummon{X: 10, Y: 20.5, Context: json.RawMessage(`{"node":"n3"}`)},
		EntityDismiss{},
		EntityClick{X: 1, Y: 2},
		EntityPick{ID: "s1", Label: "Explain"},
		EntityProfile{Pace: 320, ClickRate: 4, Dwell: 900, Regions: []Region{{Row: 1, Col: 2, Ms: 4000}}, IdleMs: 1000, SessionMs: 60000, Keys: 30},
		EntitySecret{Name: "konami"},
		EntitySay{Text: "Hello!", Mood: "happy", TTL: 6000},
		EntityMood{Mood: "thinking"},
		EntitySuggest{Items: []Suggestion{{ID: "a", Label: "Explain", Hint: "what this does"}}, Replace: true},
		MoveTo(100, 200),
		EntityShow{}, EntityHide{},
		persona,
		EntityReact{Name: "spin", Ms: 800},
		ChatMessage{Text: "hi", Attachments: []Attachment{{Path: "/home/u/.lets/uploads/graph/x.png", Mime: "image/png"}}},
		ChatOpen{}, ChatClose{},
		ChatSay{Text: "chunk", Seq: 2, Done: true},
		ChatTyping{On: true},
		note, upd,
		ComponentRemove{ID: "c1"},
		ComponentAction{ID: "c1", Action: ActionChange, Value: json.RawMessage(`0.4`)},
		MediaImage{Path: "/home/u/.lets/uploads/graph/01J.png", W: 640, H: 480, Mime: "image/png", Bytes: 12345, Source: "paste", ComponentID: "drop1"},
		UIToast{Text: "Saved", Level: LevelOK, TTL: 4000},
		theme,
	}
}

func TestEveryCoreMessageValidatesAgainstTheSchemas(t *testing.T) {
	s, err := schemas.Compile("lip-messages.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	env, err := schemas.Compile("lip-envelope.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	check, err := NewChecker()
	if err != nil {
		t.Fatal(err)
	}
	ids := NewIDs(nil)
	now := time.UnixMilli(1_760_000_000_000)
	covered := map[string]bool{}
	for _, m := range sampleMessages(t) {
		var e Envelope
		if IsCoreEvent(m.LIPType()) {
			e, err = NewEvent(ids, now, Source{Kind: KindShell, Unique: "graph", Window: "w1"}, m)
		} else {
			e, err = NewCommand(ids, now, Source{Kind: KindClaude}, "w1", m)
		}
		if err != nil {
			t.Fatal(err)
		}
		covered[e.Type] = true
		b := e.AppendJSON(nil)
		if err := schemas.ValidateJSON(env, b); err != nil {
			t.Errorf("%s envelope: %v\n%s", e.Type, err, b)
		}
		if err := schemas.ValidateJSON(s, b); err != nil {
			t.Errorf("%s: %v\n%s", e.Type, err, b)
		}
		if err := check.Check(&e); err != nil {
			t.Errorf("checker %s: %v", e.Type, err)
		}
		if err := Validate(&e); err != nil {
			t.Errorf("validate %s: %v", e.Type, err)
		}
	}
	for _, typ := range CoreTypes() {
		if !covered[typ] {
			t.Errorf("no sample for %s", typ)
		}
	}
	// The schema has a $defs entry for every core type and no other.
	raw, _ := schemas.Raw("lip-messages.schema.json")
	var doc struct {
		Defs map[string]json.RawMessage `json:"$defs"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	for _, typ := range CoreTypes() {
		if doc.Defs[typ] == nil {
			t.Errorf("schema lacks $defs/%s", typ)
		}
	}
	if len(doc.Defs) != len(CoreTypes()) {
		t.Errorf("schema has %d defs, core types %d", len(doc.Defs), len(CoreTypes()))
	}
}

func TestEveryBuiltinComponentValidates(t *testing.T) {
	check, err := NewChecker()
	if err != nil {
		t.Fatal(err)
	}
	comps, err := schemas.Compile("lip-components.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	props := []Props{
		NoteProps{Text: "plain note"},
		OptionsProps{Label: "Pick", Items: []Option{{ID: "a", Label: "A"}, {ID: "b", Label: "B", Hint: "second"}}, Multi: true, Selected: []string{"a"}},
		SliderProps{Label: "Size", Min: 0, Max: 10, Step: 0.5, Value: ptrF(3), Unit: "px"},
		ToggleProps{Label: "Snap", Value: true},
		FormProps{Title: "About you", Fields: []FormField{
			{Name: "name", Label: "Name", Required: true},
			{Name: "age", Kind: FieldNumber, Value: 3},
			{Name: "color", Kind: FieldSelect, Options: []FieldChoice{{Value: "r", Label: "Red"}}},
			{Name: "notes", Kind: FieldTextarea, Placeholder: "…"},
			{Name: "ok", Kind: FieldCheckbox},
		}, Submit: "Send", Cancel: "Cancel"},
		ImageDropProps{Label: "Drop a screenshot", Accept: []string{"image/png"}, Multiple: true},
		ProgressProps{Label: "Working", Value: ptrF(40), Max: 100},
		CodeProps{Title: "main.go", Code: "package main", Language: "go"},
	}
	seen := map[string]bool{}
	ids := NewIDs(nil)
	for i, p := range props {
		c, err := NewComponent("c"+string(rune('0'+i)), p, SlotFloat, &Point{X: 10, Y: 20})
		if err != nil {
			t.Fatal(err)
		}
		seen[c.Type] = true
		data, _ := json.Marshal(c)
		if err := schemas.ValidateJSON(comps, data); err != nil {
			t.Errorf("%s: %v\n%s", c.Type, err, data)
		}
		e, _ := NewCommand(ids, time.Now(), Source{Kind: KindClaude}, "w1", c)
		if err := check.Check(&e); err != nil {
			t.Errorf("%s: %v", c.Type, err)
		}
	}
	for _, b := range BuiltinComponents() {
		if !seen[b] || !IsBuiltinComponent(b) {
			t.Errorf("built-in %s not covered", b)
		}
	}
	if IsBuiltinComponent("chart") {
		t.Error("chart is not built in")
	}
}

func TestCheckerRefusesBadCoreData(t *testing.T) {
	check, err := NewChecker()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ typ, data, want string }{
		{"entity.mood", `{"mood":"angry"}`, "/data/mood"},
		{"entity.say", `{}`, "text"},
		{"entity.move", `{"x":1}`, ""},
		{"chat.typing", `{"on":"yes"}`, "/data/on"},
		{"session.close", `{"reason":"human"}`, "/data/reason"},
		{"media.image", `{"path":"relative.png","w":1,"h":1,"mime":"image/png","bytes":1,"source":"paste"}`, "/data/path"},
		{"component.create", `{"id":"c1","type":"slider","props":{"label":"no bounds"}}`, "/data/props"},
		{"component.create", `{"id":"c1","type":"note","props":{"text":"x"},"slot":"sky"}`, "/data/slot"},
		{"lip.error", `{"code":"oops","message":"x"}`, "/data/code"},
		{"ui.toast", `{"text":"x","level":"fatal"}`, "/data/level"},
	}
	for _, c := range cases {
		e := Envelope{LIP: 1, ID: "cm_1", Type: c.typ, Data: json.RawMessage(c.data)}
		err := check.Check(&e)
		if err == nil || err.Code != CodeBadEnvelope || !strings.Contains(err.Message, c.want) {
			t.Errorf("%s %s: %v", c.typ, c.data, err)
		}
	}
	// Unknown component types and unknown message types pass (additive).
	for _, e := range []Envelope{
		{LIP: 1, ID: "x", Type: "component.create", Data: json.RawMessage(`{"id":"c","type":"chart","props":{"series":[1]}}`)},
		{LIP: 1, ID: "x", Type: "graph.node.add", Data: json.RawMessage(`{"anything":true}`)},
		{LIP: 1, ID: "x", Type: "entity.say", Data: json.RawMessage(`{"text":"x","future":1}`)},
	} {
		if err := check.Check(&e); err != nil {
			t.Errorf("%s: %v", e.Type, err)
		}
	}
}

func TestCase039_ThemeVarsFilteredOneByOne(t *testing.T) {
	in := UITheme{Name: ThemeDark, Vars: map[string]string{
		"--lets-bg":     "url(x)",
		"--lets-fg":     "#102030",
		"--lets-radius": "calc(4px + 2px)",
		"--lets-font":   `"Inter", sans-serif`,
		"--other":       "red",
		"--lets-x":      "red; background: url(y)",
		"--lets-y":      "expression(alert(1))",
		"--lets-z":      "a{b}",
		"--lets-w":      `\75rl(x)`,
	}}
	out, refused := FilterTheme(in)
	if len(out.Vars) != 3 || out.Vars["--lets-fg"] != "#102030" || out.Vars["--lets-radius"] == "" || out.Vars["--lets-font"] == "" {
		t.Fatalf("kept %v", out.Vars)
	}
	if len(refused) != 6 {
		t.Fatalf("refused %v", refused)
	}
	if out.Name != ThemeDark {
		t.Error("name dropped")
	}
}

func TestErrorEnvelope(t *testing.T) {
	e := ErrorEnvelope(NewIDs(nil), time.UnixMilli(1e12), "w1", Errorf(CodeRateLimited, "slow down"), "ev_9")
	if e.Type != TypeError || e.Re != "ev_9" || e.Win != "w1" || e.From != "host" || e.Dir != Down {
		t.Fatalf("%+v", e)
	}
	var d ErrorData
	if err := DecodeData(&e, &d); err != nil || d.Code != CodeRateLimited || d.Re != "ev_9" {
		t.Fatalf("%+v %v", d, err)
	}
}
