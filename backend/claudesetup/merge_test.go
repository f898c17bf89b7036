package claudesetup

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// othersSettings is a settings file as people have them: other tools'
// hooks on the same events, tabs, CRLF line ends, non-ASCII text, HTML
// characters that must not be escaped, and keys Lets knows nothing about.
const othersSettings = "{\r\n" +
	"\t\"model\": \"opus\",\r\n" +
	"\t\"permissions\": {\"allow\": [\"Bash(git log:*)\"], \"deny\": []},\r\n" +
	"\t\"hooks\": {\r\n" +
	"\t\t\"PreToolUse\": [\r\n" +
	"\t\t\t{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"~/.claude/hooks/guard.sh <&> \\\"x\\\"\", \"timeout\": 30}]}\r\n" +
	"\t\t],\r\n" +
	"\t\t\"PermissionRequest\": [\r\n" +
	"\t\t\t{\"matcher\": \"Edit|Write\", \"hooks\": [{\"type\": \"command\", \"command\": \"notify-send 'Claude wartet — über 🚀'\"}]}\r\n" +
	"\t\t],\r\n" +
	"\t\t\"PreCompact\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"backup-transcript\"}]}]\r\n" +
	"\t},\r\n" +
	"\t\"env\": {\"GREETING\": \"grüß dich\"},\r\n" +
	"\t\"statusLine\": {\"type\": \"command\", \"command\": \"lets-status\"}\r\n" +
	"}\r\n"

const letsPath = "/home/ada/My Apps/lets"

func ours() HookSet { return Hooks(letsPath, 120*time.Second) }

func mustMerge(t *testing.T, in []byte, set HookSet) []byte {
	t.Helper()
	out, _, err := Merge(in, set)
	if err != nil {
		t.Fatalf("Merge: %v\n%s", err, in)
	}
	return out
}

func topKeys(t *testing.T, data []byte) []string {
	t.Helper()
	o, err := parseObject(data)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, m := range o {
		keys = append(keys, m.Key)
	}
	return keys
}

func commandsOf(t *testing.T, data []byte, event string) []string {
	t.Helper()
	hooks, err := readHooks(data)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, h := range hooks[event] {
		out = append(out, h.Command)
	}
	return out
}

func TestMergeKeepsEveryoneElseAndTheirOrder(t *testing.T) {
	out, changed, err := Merge([]byte(othersSettings), ours())
	if err != nil || !changed {
		t.Fatalf("Merge = %v, %v", changed, err)
	}
	text := string(out)
	if got := strings.Join(topKeys(t, out), ","); got != "model,permissions,hooks,env,statusLine" {
		t.Fatalf("top-level key order changed: %s", got)
	}
	if strings.Count(text, "\n") != strings.Count(text, "\r\n") {
		t.Fatal("CRLF line ends must stay CRLF")
	}
	for _, want := range []string{`"command": "~/.claude/hooks/guard.sh <&> \"x\""`, "über 🚀", "grüß dich", `"PreCompact"`} {
		if !strings.Contains(text, want) {
			t.Errorf("output lost %q:\n%s", want, text)
		}
	}
	if got := commandsOf(t, out, "PreToolUse"); strings.Join(got, "|") != `~/.claude/hooks/guard.sh <&> "x"|`+Command("/home/ada/My Apps/lets", PreToolUse) {
		t.Fatalf("PreToolUse: others first, ours appended: %q", got)
	}
	if got := commandsOf(t, out, "PermissionRequest"); len(got) != 2 || !strings.HasPrefix(got[0], "notify-send") {
		t.Fatalf("PermissionRequest: %q", got)
	}
	hooks, _ := readHooks(out)
	for _, e := range Events() {
		if len(hooks[string(e)]) == 0 {
			t.Errorf("%s not hooked", e)
		}
	}
	var settings map[string]any
	if err := json.Unmarshal(out, &settings); err != nil {
		t.Fatalf("output is not JSON: %v", err)
	}
}

func TestMergeTwiceChangesNothing(t *testing.T) {
	for _, in := range []string{othersSettings, "", "{}", "  \n", `{"hooks":{}}`} {
		once := mustMerge(t, []byte(in), ours())
		twice, changed, err := Merge(once, ours())
		if err != nil || changed || string(twice) != string(once) {
			t.Errorf("%q: second Merge changed=%v err=%v", in, changed, err)
		}
	}
}

func TestUnmergeRestoresExactlyTheOthers(t *testing.T) {
	merged := mustMerge(t, []byte(othersSettings), ours())
	back, changed, err := Unmerge(merged, ours())
	if err != nil || !changed {
		t.Fatalf("Unmerge = %v, %v", changed, err)
	}
	if !sameJSON(back, []byte(othersSettings)) {
		t.Fatalf("after setup and uninstall the settings differ:\n%s\nwant\n%s", back, othersSettings)
	}
	if got := strings.Join(topKeys(t, back), ","); got != "model,permissions,hooks,env,statusLine" {
		t.Fatalf("key order: %s", got)
	}
	again, changed, err := Unmerge(back, ours())
	if err != nil || changed || string(again) != string(back) {
		t.Fatalf("a second Unmerge must change nothing: %v %v", changed, err)
	}
	// A file that had no hooks at all gets none back.
	back, _, err = Unmerge(mustMerge(t, []byte(`{"model":"opus"}`), ours()), ours())
	if err != nil || !sameJSON(back, []byte(`{"model":"opus"}`)) {
		t.Fatalf("got %s, %v", back, err)
	}
}

func TestMergeReplacesAnOlderLetsAndKeepsItsNeighbours(t *testing.T) {
	in := `{"hooks":{"Stop":[{"hooks":[
		{"type":"command","command":"say done"},
		{"type":"command","command":"/usr/local/bin/lets hook Stop","timeout":5},
		{"type":"command","command":"/usr/local/bin/lets hook Stop | tee /tmp/x"}]}],
	"PermissionRequest":[{"matcher":"*","hooks":[{"type":"command","command":"'/home/ada/My Apps/lets' hook PermissionRequest","timeout":70}]}]}}`
	out := mustMerge(t, []byte(in), ours())
	if got := commandsOf(t, out, "Stop"); strings.Join(got, "|") != "say done|/usr/local/bin/lets hook Stop | tee /tmp/x|"+Command("/home/ada/My Apps/lets", Stop) {
		t.Fatalf("Stop: %q", got)
	}
	if !strings.Contains(string(out), `"timeout": 130`) || strings.Contains(string(out), `"timeout": 70`) {
		t.Fatalf("a new approval timeout must replace the old entry:\n%s", out)
	}
	back, _, err := Unmerge(out, ours())
	if err != nil {
		t.Fatal(err)
	}
	if got := commandsOf(t, back, "Stop"); strings.Join(got, "|") != "say done|/usr/local/bin/lets hook Stop | tee /tmp/x" {
		t.Fatalf("after Unmerge, Stop: %q", got)
	}
	if got := commandsOf(t, back, "PermissionRequest"); len(got) != 0 {
		t.Fatalf("PermissionRequest should be gone: %q", got)
	}
}

// The lets program of this run counts as ours by its exact command even
// when it is not called lets (a renamed build, a test binary).
func TestOursByExactCommandWhateverTheProgramIsCalled(t *testing.T) {
	set := Hooks("/tmp/build/app.test", time.Minute)
	out := mustMerge(t, []byte(`{}`), set)
	if again, changed, _ := Merge(out, set); changed || string(again) != string(out) {
		t.Fatal("second Merge changed the file")
	}
	back, _, err := Unmerge(out, set)
	if err != nil || !sameJSON(back, []byte(`{}`)) {
		t.Fatalf("Unmerge = %s, %v", back, err)
	}
	// Without the exact set, a program not called lets is someone else's.
	kept, changed, _ := Unmerge(out, nil)
	if changed || string(kept) != string(out) {
		t.Fatal("Unmerge without the set must not remove a program that is not called lets")
	}
}

func TestBrokenSettingsAreRefusedNeverRewritten(t *testing.T) {
	cases := map[string]string{
		"{\n  // my settings\n  \"model\": \"opus\"\n}": "settings.json:2:3",
		`{"model": "opus",}`:                            "no trailing commas",
		`[]`:                                            "must be a JSON object",
		`null`:                                          "must be a JSON object",
		`"hooks"`:                                       "must be a JSON object",
		`{"hooks": []}`:                                 `"hooks" must be an object`,
		`{"hooks": null}`:                               `"hooks" must be an object`,
		`{"hooks": {"Stop": {}}}`:                       `"Stop"`,
		`{"hooks": {}, "hooks": {}}`:                    `"hooks" appears twice`,
		`{"hooks": {"Stop": [], "Stop": []}}`:           `"Stop" appears twice`,
		`{"model": "opus"} {"model": "sonnet"}`:         "more after",
		`{"model": "op`:                                 "ends too early",
		"\xef\xbb\xbf{}":                                "invalid character",
		`{"hooks": {"Stop": [{"hooks": [{"command": "x"}]}]}`:  "",
		`{"hooks": {"Stop": [{"hooks": [{"command": "x"}]}]}}`: "-", // valid
	}
	for in, want := range cases {
		_, _, err := Merge([]byte(in), ours())
		if want == "-" {
			if err != nil {
				t.Errorf("%q: %v", in, err)
			}
			continue
		}
		var se *SettingsError
		if !errors.As(err, &se) || !errors.Is(err, ErrInvalidSettings) {
			t.Errorf("%q: want a *SettingsError, got %v", in, err)
			continue
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %q should contain %q", in, err, want)
		}
		if _, _, uerr := Unmerge([]byte(in), ours()); !errors.Is(uerr, ErrInvalidSettings) && !strings.Contains(in, `"Stop": {}`) {
			t.Errorf("%q: Unmerge should refuse too, got %v", in, uerr)
		}
	}
}

func TestOthersOddEntriesAreLeftAsTheyAre(t *testing.T) {
	in := `{"hooks":{"Weird":"not a list","Stop":[42,{"hooks":"no"},{"matcher":"x"},{"hooks":[7,{"type":"http","url":"http://127.0.0.1/"}]}]}}`
	out := mustMerge(t, []byte(in), ours())
	back, _, err := Unmerge(out, ours())
	if err != nil || !sameJSON(back, []byte(in)) {
		t.Fatalf("odd entries not kept:\n%s\n%v", back, err)
	}
}
