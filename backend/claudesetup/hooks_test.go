package claudesetup

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/testenv/testutil"
)

func TestHooksAreCommandHooksForEveryEvent(t *testing.T) {
	set := Hooks("/opt/My Apps/lets", 120*time.Second)
	if len(set) != 10 {
		t.Fatalf("want 10 events, got %d", len(set))
	}
	for _, e := range Events() {
		groups := set[e]
		if len(groups) != 1 || len(groups[0].Hooks) != 1 {
			t.Fatalf("%s: want one group with one hook, got %+v", e, groups)
		}
		g := groups[0]
		h := g.Hooks[0]
		if h.Type != "command" || h.Command != "[ -x '/opt/My Apps/lets' ] || exit 0; exec '/opt/My Apps/lets' hook "+string(e) {
			t.Errorf("%s: hook %+v", e, h)
		}
		wantMatcher := ""
		if e == PreToolUse || e == PostToolUse || e == PostToolUseFailure || e == PermissionRequest {
			wantMatcher = "*"
		}
		if g.Matcher != wantMatcher {
			t.Errorf("%s: matcher %q, want %q", e, g.Matcher, wantMatcher)
		}
		wantTimeout := 5
		if e == PermissionRequest {
			wantTimeout = 130
		}
		if h.Timeout != wantTimeout {
			t.Errorf("%s: timeout %d, want %d", e, h.Timeout, wantTimeout)
		}
	}
	// The exact JSON Claude Code reads.
	b, err := json.Marshal(set[PermissionRequest])
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `[{"matcher":"*","hooks":[{"type":"command","command":"[ -x '/opt/My Apps/lets' ] || exit 0; exec '/opt/My Apps/lets' hook PermissionRequest","timeout":130}]}]` {
		t.Fatalf("PermissionRequest entry = %s", b)
	}
	b, _ = json.Marshal(set[Stop])
	if string(b) != `[{"hooks":[{"type":"command","command":"[ -x '/opt/My Apps/lets' ] || exit 0; exec '/opt/My Apps/lets' hook Stop","timeout":5}]}]` {
		t.Fatalf("Stop entry = %s", b)
	}
	if got := Hooks("/usr/bin/lets", 1500*time.Millisecond)[PermissionRequest][0].Hooks[0].Timeout; got != 12 {
		t.Fatalf("a fractional wait rounds up: %d", got)
	}
}

func TestShellQuote(t *testing.T) {
	cases := map[string]string{
		"/usr/local/bin/lets":  "/usr/local/bin/lets",
		"/home/ada/My Apps/l":  "'/home/ada/My Apps/l'",
		"/tmp/it's/lets":       `'/tmp/it'\''s/lets'`,
		"/a/$HOME/lets":        "'/a/$HOME/lets'",
		"":                     "''",
		"/opt/lets-1.2_x+y/ok": "/opt/lets-1.2_x+y/ok",
		"/opt/ünï/lets":        "'/opt/ünï/lets'",
	}
	for in, want := range cases {
		got := ShellQuote(in)
		if got != want {
			t.Errorf("ShellQuote(%q) = %q, want %q", in, got, want)
		}
		if in == "" {
			continue
		}
		if back, ok := shellWord(got); !ok || back != in {
			t.Errorf("shellWord(%q) = %q, %v; want %q", got, back, ok, in)
		}
	}
}

func TestParseLetsHookKnowsEveryLetsAndOnlyLets(t *testing.T) {
	ours := map[string]string{
		"/usr/bin/lets hook Stop":                           "/usr/bin/lets",
		"'/home/ada/My Apps/lets' hook PermissionRequest":   "/home/ada/My Apps/lets",
		`"/home/ada/old place/lets" hook SessionStart`:      "/home/ada/old place/lets",
		`/home/ada/old\ place/lets hook PreToolUse`:         "/home/ada/old place/lets",
		"lets hook Notification":                            "lets",
		"  ~/go/bin/lets   hook UserPromptSubmit  ":         "~/go/bin/lets",
		`"$HOME/bin/lets" hook SessionEnd`:                  "$HOME/bin/lets",
		"/tmp/it'\\''s/lets hook Stop":                      "", // an unclosed quote
		"/opt/lets/lets hook SomeFutureEvent":               "/opt/lets/lets",
		"'/tmp/it'\\''s/lets' hook StopFailure":             "/tmp/it's/lets",
		"/usr/bin/lets hook PostToolUseFailure":             "/usr/bin/lets",
		"/snap/bin/lets hook PostToolUse":                   "/snap/bin/lets",
		"'/opt/ünï/lets' hook Stop":                         "/opt/ünï/lets",
		"/usr/bin/lets\thook Stop":                          "",
		"/usr/local/bin/lets hook Stop extra":               "",
		"/usr/bin/lets-helper hook Stop":                    "",
		"/usr/bin/lets hook Stop | tee /tmp/log":            "",
		"echo lets hook Stop":                               "",
		"/usr/bin/lets hook stop-now":                       "",
		"/usr/bin/lets hook ":                               "",
		"bash -c 'lets hook Stop'":                          "",
		"/usr/bin/lets; rm -rf / hook Stop":                 "",
		"/usr/bin/letsgo hook Stop":                         "",
		"'/usr/bin/lets hook Stop":                          "",
		"/home/ada/.claude/hooks/notify.sh":                 "",
		"npx some-tool hook Stop":                           "",
		"/usr/bin/lets hook Stop && /usr/bin/lets hook Foo": "",
		// Command's guarded form, and guards that are not it.
		"[ -x /usr/bin/lets ] || exit 0; exec /usr/bin/lets hook Stop":                     "/usr/bin/lets",
		"[ -x '/opt/My Apps/lets' ] || exit 0; exec '/opt/My Apps/lets' hook PreToolUse":   "/opt/My Apps/lets",
		"[ -x /usr/bin/lets ] || exit 0; exec /usr/local/bin/lets hook Stop":               "",
		"[ -x /usr/bin/lets ] || rm -rf ~; exec /usr/bin/lets hook Stop":                   "",
		"[ -x /usr/bin/lets ] || exit 0; exec /usr/bin/lets hook Stop; rm x":               "",
		"[ -x /usr/bin/lets ] || exit 0; exec /usr/bin/lets; /usr/bin/lets hook Stop":      "",
		"[ -x /usr/bin/lets; exec /usr/bin/lets ] || exit 0; exec /usr/bin/lets hook Stop": "",
	}
	for cmd, want := range ours {
		prog, _, ok := ParseLetsHook(cmd)
		if ok != (want != "") || prog != want {
			t.Errorf("ParseLetsHook(%q) = %q, %v; want %q", cmd, prog, ok, want)
		}
	}
	if _, ev, _ := ParseLetsHook("/usr/bin/lets hook PermissionRequest"); ev != PermissionRequest {
		t.Fatalf("event = %q", ev)
	}
}

// Point (#21): once Lets is uninstalled, its hooks left in Claude Code's
// settings end at once, with status 0 and no output, instead of failing on
// every tool call; while it is there, the hook runs it with the hook's
// input and hands back its exit status. Paths with spaces and quotes stay
// one word. Run through sh -c, as Claude Code runs hook commands.
func TestHookCommandIsHarmlessWhenLetsIsGone(t *testing.T) {
	sh := testutil.Command(t, "sh")
	dir := filepath.Join(t.TempDir(), "My \"odd\" Apps")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	lets := filepath.Join(dir, "lets")
	run := func(stdin string) (string, string, int) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), testutil.EventuallyTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, sh, "-c", Command(lets, PreToolUse))
		cmd.Stdin = strings.NewReader(stdin)
		var out, errOut strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return out.String(), errOut.String(), code
	}
	// Gone: nothing at the path.
	if out, errOut, code := run(`{"hook_event_name":"PreToolUse"}`); code != 0 || out != "" || errOut != "" {
		t.Errorf("with lets gone the hook exited %d and said %q %q; want 0 and nothing", code, out, errOut)
	}
	// There: a stand-in lets that echoes its arguments and input, exit 3.
	script := "#!/bin/sh\nprintf '%s|' \"$@\"\ncat\nexit 3\n"
	if err := os.WriteFile(lets, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, _, code := run("input"); code != 3 || out != "hook|PreToolUse|input" {
		t.Errorf("with lets there the hook exited %d and said %q; want 3 and hook|PreToolUse|input", code, out)
	}
	// There but not runnable (a broken upgrade): harmless too.
	if err := os.Chmod(lets, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := run("input"); code != 0 || out != "" || errOut != "" {
		t.Errorf("with lets not executable the hook exited %d and said %q %q", code, out, errOut)
	}
}

// Point (#21): running setup again upgrades the bare hooks an older Lets
// wrote to the guarded ones, and a third run changes nothing.
func TestMergeUpgradesBareHooksToGuardedOnes(t *testing.T) {
	lets := "/home/ada/My Apps/lets"
	var old strings.Builder
	old.WriteString(`{"hooks":{`)
	for i, e := range Events() {
		if i > 0 {
			old.WriteString(",")
		}
		fmt.Fprintf(&old, `%q:[{"hooks":[{"type":"command","command":%q,"timeout":5}]}]`, e, ShellQuote(lets)+" hook "+string(e))
	}
	old.WriteString(`}}`)
	ours := Hooks(lets, 120*time.Second)
	out, changed, err := Merge([]byte(old.String()), ours)
	if err != nil || !changed {
		t.Fatalf("Merge = %v, %v", changed, err)
	}
	for _, e := range Events() {
		var cmds []string
		var doc struct {
			Hooks map[string][]Group `json:"hooks"`
		}
		if err := json.Unmarshal(out, &doc); err != nil {
			t.Fatal(err)
		}
		for _, g := range doc.Hooks[string(e)] {
			for _, h := range g.Hooks {
				cmds = append(cmds, h.Command)
			}
		}
		if len(cmds) != 1 || cmds[0] != Command(lets, e) {
			t.Errorf("%s after setup: %q, want only %q", e, cmds, Command(lets, e))
		}
	}
	if again, changed, err := Merge(out, ours); err != nil || changed || string(again) != string(out) {
		t.Errorf("a second setup changed the settings (%v, %v)", changed, err)
	}
}
