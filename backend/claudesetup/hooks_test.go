package claudesetup

import (
	"encoding/json"
	"testing"
	"time"
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
		if h.Type != "command" || h.Command != "'/opt/My Apps/lets' hook "+string(e) {
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
	if string(b) != `[{"matcher":"*","hooks":[{"type":"command","command":"'/opt/My Apps/lets' hook PermissionRequest","timeout":130}]}]` {
		t.Fatalf("PermissionRequest entry = %s", b)
	}
	b, _ = json.Marshal(set[Stop])
	if string(b) != `[{"hooks":[{"type":"command","command":"'/opt/My Apps/lets' hook Stop","timeout":5}]}]` {
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
