package visual

import (
	"testing"

	"github.com/lets-app/lets/backend/wire"
)

func TestTokenGrammar(t *testing.T) {
	for _, tc := range []struct {
		tok  Token
		want TokenInfo
	}{
		{"off", TokenInfo{Kind: KindOff}},
		{"idle", TokenInfo{Kind: KindIdle}},
		{"activity", TokenInfo{Kind: KindActivity}},
		{"system:overflow", TokenInfo{Kind: KindOverflow}},
		{"state:running:primary", TokenInfo{Kind: KindStatePrimary, State: wire.StateRunning}},
		{"state:cancelled:summary", TokenInfo{Kind: KindStateSummary, State: wire.StateCancelled}},
		{"action:retry:enabled", TokenInfo{Kind: KindActionEnabled, Action: wire.ActionRetry}},
		{"accent:sky:selected", TokenInfo{Kind: KindAccentSelected, Accent: "sky"}},
		{"accent:rose:unselected", TokenInfo{Kind: KindAccentUnselected, Accent: "rose"}},
	} {
		got, err := tc.tok.Parse()
		if err != nil || got != tc.want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", tc.tok, got, err, tc.want)
		}
		if !tc.tok.Valid() {
			t.Errorf("%q not valid", tc.tok)
		}
	}
	for _, bad := range []Token{"", "Off", "on", "state:running", "state:sleeping:primary", "state:running:glow",
		"action:launch:enabled", "action:stop:disabled", "accent:plaid:selected", "accent:cyan:dim",
		"accent:cyan:selected:x", "system:underflow", "colour:red:bright"} {
		if _, err := bad.Parse(); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}

func TestTokenConstructors(t *testing.T) {
	for _, s := range wire.States() {
		if StatePrimary(s) != Token("state:"+string(s)+":primary") || StateSummary(s) != Token("state:"+string(s)+":summary") {
			t.Errorf("state tokens of %s", s)
		}
	}
	for _, a := range wire.Actions() {
		if ActionEnabled(a) != Token("action:"+string(a)+":enabled") {
			t.Errorf("action token of %s", a)
		}
	}
	for _, a := range wire.IdentityAccents() {
		if AccentToken(a, true) != Token("accent:"+a+":selected") || AccentToken(a, false) != Token("accent:"+a+":unselected") {
			t.Errorf("accent tokens of %s", a)
		}
	}
	// Unknown names still follow the grammar's shape (and fail Parse).
	if StatePrimary("x") != "state:x:primary" || StateSummary("x") != "state:x:summary" ||
		ActionEnabled("x") != "action:x:enabled" || AccentToken("x", true) != "accent:x:selected" || AccentToken("x", false) != "accent:x:unselected" {
		t.Error("constructors for unknown names")
	}
	if ActionOrder() != [4]wire.Action{"approve", "reject", "stop", "retry"} {
		t.Error("action order")
	}
	for i, a := range ActionOrder() {
		if ActionIndex(a) != i {
			t.Errorf("ActionIndex(%s) = %d", a, ActionIndex(a))
		}
	}
}

func TestValidateRejectsBadFrames(t *testing.T) {
	good := Compile(View{Selected: wire.StateRunning, Sessions: []Indicator{{Slot: 0, State: wire.StateRunning, Accent: "cyan"}}}, 2)
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	var zero Frame
	if zero.Validate() == nil {
		t.Error("zero frame valid")
	}
	for name, mut := range map[string]func(*Frame){
		"capacity":         func(f *Frame) { f.Capacity = 9 },
		"summary on grid":  func(f *Frame) { f.State[0][0] = "state:running:summary" },
		"lit beyond cap":   func(f *Frame) { f.Selectors[5] = "accent:cyan:selected" },
		"status as accent": func(f *Frame) { f.Statuses[0] = "accent:cyan:selected" },
		"wrong action":     func(f *Frame) { f.Actions[0] = "action:stop:enabled" },
		"overflow":         func(f *Frame) { f.Overflow = Idle },
		"garbage":          func(f *Frame) { f.State[7][6] = "bright" },
	} {
		f := good
		mut(&f)
		if f.Validate() == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// §6.1: the palette of the bundled Launchpad profiles.
func TestLaunchpadPalette(t *testing.T) {
	if n := len(PaletteTokens()); n != 22 {
		t.Fatalf("%d palette tokens", n)
	}
	seen := map[Token]bool{}
	for _, tok := range PaletteTokens() {
		if seen[tok] || !tok.Valid() {
			t.Errorf("palette token %q duplicate or invalid", tok)
		}
		seen[tok] = true
	}
	want := map[Token]uint8{
		"off": 0, "idle": 1, "activity": 3, "system:overflow": 9,
		"action:approve:enabled": 21, "action:reject:enabled": 5, "action:stop:enabled": 5, "action:retry:enabled": 45,
		"state:running:primary": 45, "state:running:summary": 47,
		"state:waiting_for_reply:primary": 3, "state:waiting_for_reply:summary": 1,
		"state:user_typing:primary": 37, "state:user_typing:summary": 39,
		"state:waiting_for_approval:primary": 9, "state:waiting_for_approval:summary": 11,
		"state:success:primary": 21, "state:success:summary": 23,
		"state:error:primary": 5, "state:error:summary": 7,
		"state:cancelled:primary": 2, "state:cancelled:summary": 2,
		"accent:cyan:selected": 37, "accent:cyan:unselected": 39,
		"accent:magenta:selected": 53, "accent:magenta:unselected": 55,
		"accent:lime:selected": 17, "accent:lime:unselected": 19,
		"accent:orange:selected": 9, "accent:orange:unselected": 11,
		"accent:violet:selected": 49, "accent:violet:unselected": 51,
		"accent:teal:selected": 29, "accent:teal:unselected": 31,
		"accent:rose:selected": 57, "accent:rose:unselected": 59,
		"accent:sky:selected": 41, "accent:sky:unselected": 43,
	}
	for tok, idx := range want {
		got, ok := LaunchpadColor(tok)
		if !ok || got != idx {
			t.Errorf("LaunchpadColor(%q) = %d, %v; want %d", tok, got, ok, idx)
		}
	}
	if _, ok := LaunchpadColor("accent:plaid:selected"); ok {
		t.Error("unknown accent resolved")
	}
}

// §6.2: accent RGB, the computed unselected values and browser colours.
func TestColours(t *testing.T) {
	rgb := map[string][2][3]uint8{
		"cyan": {{0, 174, 187}, {0, 84, 90}}, "magenta": {{200, 62, 201}, {96, 30, 96}},
		"lime": {{112, 185, 45}, {54, 89, 22}}, "orange": {{230, 126, 34}, {110, 60, 16}},
		"violet": {{118, 86, 199}, {57, 41, 96}}, "teal": {{0, 155, 131}, {0, 74, 63}},
		"rose": {{217, 76, 118}, {104, 36, 57}}, "sky": {{55, 136, 216}, {26, 65, 104}},
	}
	for name, w := range rgb {
		got, ok := AccentRGB(name)
		if !ok || got != w[0] || UnselectedRGB(got) != w[1] {
			t.Errorf("%s: %v → %v, want %v → %v", name, got, UnselectedRGB(got), w[0], w[1])
		}
	}
	if _, ok := AccentRGB("plaid"); ok {
		t.Error("unknown accent has RGB")
	}
	for tok, want := range map[Token]string{
		"off": "#11171c", "bogus": "#11171c", "idle": "#46535c", "activity": "#a9d5ff", "system:overflow": "#f0b63f",
		"state:running:primary": "#3389e8", "state:running:summary": "#245f9d",
		"state:waiting_for_reply:summary": "#8e99a2", "state:cancelled:primary": "#84909a",
		"action:approve:enabled": "#55c76a", "action:reject:enabled": "#ef5b64", "action:retry:enabled": "#3389e8", "action:stop:enabled": "#ef5b64",
		"accent:cyan:selected": "rgb(0 174 187)", "accent:sky:unselected": "rgb(26 65 104)",
	} {
		if got := BrowserColor(tok); got != want {
			t.Errorf("BrowserColor(%q) = %s, want %s", tok, got, want)
		}
	}
	if AccentSwatch("cyan", true) != "\x1b[48;2;0;174;187m  \x1b[0m" || AccentSwatch("cyan", false) != "[]" || AccentSwatch("plaid", true) != "[]" {
		t.Error("accent swatch")
	}
}
