package visual

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/lets-app/lets/backend/testenv/conformance"
	"github.com/lets-app/lets/backend/wire"
)

// The Demo stage example of Web Surface Protocol 1 §8.3, byte for byte.
func TestSurfaceMessageSpecExample(t *testing.T) {
	v := View{
		Selected: wire.StateWaitingForApproval,
		Frame:    1,
		Sessions: []Indicator{
			{Slot: 0, State: wire.StateRunning, Accent: "cyan", Label: "Builder"},
			{Slot: 1, State: wire.StateWaitingForApproval, Selected: true, Accent: "magenta", Label: "Reviewer"},
			{Slot: 2, State: wire.StateError, Accent: "lime", Label: "Tests"},
		},
		Available: Actions(wire.ActionReject, wire.ActionApprove),
	}
	want := `{"protocol":1,"type":"surface","visual_protocol":1,"view":{"selected_state":"waiting_for_approval","frame":1,"sessions":[{"slot":0,"state":"running","selected":false,"accent":"cyan","label":"Builder"},{"slot":1,"state":"waiting_for_approval","selected":true,"accent":"magenta","label":"Reviewer"},{"slot":2,"state":"error","selected":false,"accent":"lime","label":"Tests"}],"available_actions":["approve","reject"],"overflow_count":0,"activity_motion":false},"visual_frame":{"state":[["off","off","off","state:waiting_for_approval:primary","off","off","off"],["off","off","off","state:waiting_for_approval:primary","off","off","off"],["off","off","off","state:waiting_for_approval:primary","off","off","off"],["off","off","off","state:waiting_for_approval:primary","off","off","off"],["off","off","off","state:waiting_for_approval:primary","off","off","off"],["off","off","off","off","off","off","off"],["off","off","off","off","off","off","off"],["off","off","off","state:waiting_for_approval:primary","off","off","off"]],"selectors":["accent:cyan:unselected","accent:magenta:selected","accent:lime:unselected","off","off","off","off","off"],"statuses":["state:running:summary","state:waiting_for_approval:summary","state:error:summary","off","off","off","off","off"],"actions":{"approve":"action:approve:enabled","reject":"action:reject:enabled","stop":"off","retry":"off"},"overflow":"off"}}`
	if got := string(AppendSurfaceMessage(nil, v, 8)); got != want {
		t.Fatalf("surface message\n got %s\nwant %s", got, want)
	}
	// The first render of the daemon: nothing but the idle dash.
	first := string(AppendSurfaceMessage(nil, View{}, 8))
	if !strings.HasPrefix(first, `{"protocol":1,"type":"surface","visual_protocol":1,"view":{"selected_state":null,"frame":0,"sessions":[],"available_actions":[],"overflow_count":0,"activity_motion":false},"visual_frame":{`) {
		t.Fatalf("first render %s", first)
	}
	if strings.Count(first, `"idle"`) != 3 {
		t.Fatalf("first render lights %d idle cells", strings.Count(first, `"idle"`))
	}
}

func TestV39_BrowserLabelSanitised(t *testing.T) {
	v := View{
		Selected:  wire.StateWaitingForApproval,
		Sessions:  []Indicator{{Slot: 0, State: wire.StateWaitingForApproval, Selected: true, Accent: "cyan", Label: "  Reviewer\nagent  "}},
		Available: Actions(wire.ActionApprove, wire.ActionReject),
	}
	var msg struct {
		View struct {
			Sessions []map[string]any `json:"sessions"`
		} `json:"view"`
		VisualFrame struct {
			Actions map[string]string `json:"actions"`
		} `json:"visual_frame"`
	}
	if err := json.Unmarshal(AppendSurfaceMessage(nil, v, 8), &msg); err != nil {
		t.Fatal(err)
	}
	s := msg.View.Sessions[0]
	if s["label"] != "Reviewer agent" {
		t.Errorf("label %q", s["label"])
	}
	if _, ok := s["session_id"]; ok {
		t.Error("session_id exposed")
	}
	if len(s) != 5 {
		t.Errorf("session keys %v", s)
	}
	if msg.VisualFrame.Actions["approve"] != "action:approve:enabled" {
		t.Errorf("approve %q", msg.VisualFrame.Actions["approve"])
	}
}

func TestSanitizeLabel(t *testing.T) {
	long := strings.Repeat("é", 90)
	for _, tc := range []struct {
		in   string
		slot int
		want string
	}{
		{"  Reviewer\nagent  ", 0, "Reviewer agent"},
		{"", 2, "Session 3"},
		{" \t\r\n\u00a0\u2003\x1c\x1d\x1e\x1f ", 7, "Session 8"},
		{"a\x1fb", 0, "a b"},
		{"a\u200bb", 0, "a\u200bb"}, // zero-width space is not whitespace in Python either
		{long, 0, strings.Repeat("é", 80)},
		{strings.Repeat("ab ", 40), 0, strings.TrimSuffix(strings.Repeat("ab ", 27), " ")[:80]},
	} {
		got := SanitizeLabel(tc.in, tc.slot)
		if got != tc.want {
			t.Errorf("SanitizeLabel(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if utf8.RuneCountInString(got) > MaxLabelRunes {
			t.Errorf("too long: %d runes", utf8.RuneCountInString(got))
		}
	}
}

func TestV40_ShowColorHex(t *testing.T) {
	c, err := NewShowColor("accent:sky:selected", 1, 127, 255)
	if err != nil {
		t.Fatal(err)
	}
	if c.Hex() != "#017fff" {
		t.Fatalf("hex %s", c.Hex())
	}
	var f ShowFrame
	for y := range f.Grid {
		for x := range f.Grid[y] {
			f.Grid[y][x] = c
		}
		f.Top[y], f.Right[y] = c, c
	}
	for y := range f.Grid {
		for x := range f.Grid[y] {
			if f.Grid[y][x].Hex() != "#017fff" {
				t.Fatal("grid colour")
			}
		}
	}
	if _, err := NewShowColor("", 0, 0, 0); err == nil {
		t.Error("empty fallback accepted")
	}
	if _, err := NewShowColor("off", 0, 256, 0); err == nil {
		t.Error("channel 256 accepted")
	}
	if _, err := NewShowColor("off", -1, 0, 0); err == nil {
		t.Error("channel -1 accepted")
	}
}

// Every surface message validates against the reference schema, and stays
// under the browser's outbound limit even with hostile labels.
func TestSurfaceMessageValidatesAgainstReferenceSchema(t *testing.T) {
	schema := conformance.Schema(t, "web-surface-protocol-v1.json")
	hostile := strings.Repeat("\U0001F600\u2028<>\"\\\x00", 40)
	views := []View{
		{},
		{Selected: wire.StateRunning, Frame: 4, ActivityMotion: true, Available: Actions(wire.ActionStop)},
		{Selected: wire.StateError, OverflowCount: 3, Available: Actions(wire.Actions()...)},
	}
	full := View{Selected: wire.StateCancelled, Frame: 1 << 40}
	for i := 0; i < 8; i++ {
		full.Sessions = append(full.Sessions, Indicator{Slot: i, State: wire.States()[i%7], Selected: i == 3, Accent: wire.IdentityAccents()[i], Label: hostile})
	}
	views = append(views, full)
	// Inputs the producer never makes are still written validly.
	views = append(views, View{Selected: "bogus", Frame: -5, OverflowCount: -2, Available: 0xff,
		Sessions: []Indicator{{Slot: 9, State: wire.StateRunning}, {Slot: 1, State: "bogus"}, {Slot: 2, State: wire.StateSuccess, Accent: "plaid"}}})
	for i, v := range views {
		msg := AppendSurfaceMessage(nil, v, 8)
		if len(msg) > MaxMessageBytes {
			t.Errorf("view %d: message of %d bytes", i, len(msg))
		}
		for _, c := range msg {
			if c >= 0x80 {
				t.Fatalf("view %d: non-ASCII byte in %s", i, msg)
			}
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(msg))
		if err != nil {
			t.Fatalf("view %d: not JSON: %v\n%s", i, err, msg)
		}
		if err := schema.Validate(inst); err != nil {
			t.Errorf("view %d: schema: %v\n%s", i, err, msg)
		}
	}
}

func TestFrameJSONRoundTrip(t *testing.T) {
	f := Compile(View{Selected: wire.StateRunning, ActivityMotion: true, Frame: 1, OverflowCount: 1,
		Sessions: []Indicator{{Slot: 0, State: wire.StateRunning, Selected: true, Accent: "teal"}}, Available: Actions(wire.ActionStop)}, 8)
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		State     [][]string        `json:"state"`
		Selectors []string          `json:"selectors"`
		Statuses  []string          `json:"statuses"`
		Actions   map[string]string `json:"actions"`
		Overflow  string            `json:"overflow"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	if len(got.State) != 8 || len(got.State[0]) != 7 || got.State[3][3] != "activity" || got.State[3][1] != "state:running:primary" {
		t.Errorf("state %v", got.State)
	}
	if got.Selectors[0] != "accent:teal:selected" || got.Statuses[0] != "state:running:summary" || got.Actions["stop"] != "action:stop:enabled" || got.Overflow != "system:overflow" {
		t.Errorf("decoded %+v", got)
	}
	if !strings.Contains(string(b), `"actions":{"approve":"off","reject":"off","stop":"action:stop:enabled","retry":"off"}`) {
		t.Errorf("action key order: %s", b)
	}
}
