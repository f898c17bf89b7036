package agent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/testenv/testutil"
)

func fakeEnv(extra ...string) []string {
	return append([]string{"AGENT_FAKE_CLAUDE=1"}, extra...)
}

func self(t *testing.T) string {
	t.Helper()
	p, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestParseAuthStatus(t *testing.T) {
	for in, want := range map[string]AuthState{
		`{"loggedIn": false, "authMethod": "none"}`:                    LoggedOut,
		"{\n  \"loggedIn\": true,\n  \"authMethod\": \"api_key\"\n}\n": LoggedIn,
	} {
		got, err := ParseAuthStatus([]byte(in))
		if err != nil || got != want {
			t.Errorf("%s: %v %v", in, got, err)
		}
	}
	for _, bad := range []string{``, `Not logged in`, `{}`, `{"loggedIn":"no"}`} {
		var se *AuthStatusError
		if _, err := ParseAuthStatus([]byte(bad)); !errors.As(err, &se) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestAuthStatusFake(t *testing.T) {
	ctx := context.Background()
	if st, err := AuthStatus(ctx, self(t), fakeEnv()); err != nil || st != LoggedOut {
		t.Errorf("logged out: %v %v", st, err)
	}
	if st, err := AuthStatus(ctx, self(t), fakeEnv("AGENT_FAKE_LOGGED_IN=1")); err != nil || st != LoggedIn {
		t.Errorf("logged in: %v %v", st, err)
	}
	st, err := AuthStatus(ctx, filepath.Join(t.TempDir(), "claude"), nil)
	if st != NotInstalled || !errors.Is(err, ErrNotInstalled) {
		t.Errorf("missing: %v %v", st, err)
	}
	if st, err := AuthStatus(ctx, "", nil); st != NotInstalled || !errors.Is(err, ErrNotInstalled) {
		t.Errorf("empty: %v %v", st, err)
	}
	// A program that prints something else: unknown, with a typed error.
	sh := filepath.Join(t.TempDir(), "claude")
	if err := os.WriteFile(sh, []byte("#!/bin/sh\necho 'Something went wrong'\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var se *AuthStatusError
	if st, err := AuthStatus(ctx, sh, nil); st != AuthUnknown || !errors.As(err, &se) {
		t.Errorf("garbage: %v %v", st, err)
	}
	for s, want := range map[AuthState]string{LoggedIn: "logged-in", LoggedOut: "logged-out", NotInstalled: "not-installed", AuthUnknown: "unknown"} {
		if s.String() != want {
			t.Errorf("%d: %s", s, s)
		}
	}
}

func TestLoginURL(t *testing.T) {
	for line, want := range map[string]string{
		// As claude 2.1.332 printed it with a temporary HOME.
		"https://claude.ai/oauth/authorize?z-pR2EUMALufx888vMaZphPcHEhMwIx8iUEWGH98QPv4E": "https://claude.ai/oauth/authorize?z-pR2EUMALufx888vMaZphPcHEhMwIx8iUEWGH98QPv4E",
		"  https://claude.ai/oauth/authorize?code=true&client_id=x \x1b[0m":               "https://claude.ai/oauth/authorize?code=true&client_id=x",
		"If the browser didn't open, visit:":                                              "",
		"See https://docs.anthropic.com/en/docs/claude-code for help":                     "",
		"Couldn't log in: getaddrinfo ENOTFOUND platform.claude.com":                      "",
	} {
		if got := LoginURL(line); got != want {
			t.Errorf("%q: %q, want %q", line, got, want)
		}
	}
}

func TestLoginFake(t *testing.T) {
	for _, tc := range []struct {
		code string
		ok   bool
	}{{"good-code#s1", true}, {"wrong", false}} {
		ctx, cancel := context.WithTimeout(context.Background(), ioTimeout)
		l, err := StartLogin(ctx, self(t), fakeEnv())
		if err != nil {
			t.Fatal(err)
		}
		u, err := l.URL(ctx)
		if err != nil || u != "https://claude.ai/oauth/authorize?code=true&client_id=fake&state=s1" {
			t.Errorf("url %q %v", u, err)
		}
		if err := l.SubmitCode(tc.code); err != nil {
			t.Fatal(err)
		}
		err = l.Wait(ctx)
		var le *LoginError
		if tc.ok && err != nil {
			t.Errorf("good code: %v", err)
		}
		if !tc.ok && (!errors.As(err, &le) || !strings.Contains(le.Output, "invalid code")) {
			t.Errorf("wrong code: %v", err)
		}
		cancel()
	}
	l, err := StartLogin(context.Background(), self(t), fakeEnv())
	if err != nil {
		t.Fatal(err)
	}
	if err := l.SubmitCode("two\nlines"); err == nil {
		t.Error("a code with a line break was accepted")
	}
	l.Cancel()
	if _, err := StartLogin(context.Background(), filepath.Join(t.TempDir(), "claude"), nil); !errors.Is(err, ErrNotInstalled) {
		t.Errorf("missing claude: %v", err)
	}
}

// TestLoginReal reads the sign-in link from the real `claude auth login`
// with a fresh HOME. Any network use is sent to a closed loopback proxy.
func TestLoginReal(t *testing.T) {
	claude := testutil.Claude(t)
	home := t.TempDir()
	env := []string{"HOME=" + home, "CLAUDE_CONFIG_DIR=" + home + "/.claude", "PATH=" + os.Getenv("PATH"),
		"DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"HTTPS_PROXY=http://127.0.0.1:9", "HTTP_PROXY=http://127.0.0.1:9", "NO_PROXY="}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	l, err := StartLogin(ctx, claude, env)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Cancel()
	u, err := l.URL(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(u, "https://claude.ai/oauth/authorize") && !strings.HasPrefix(u, "https://") {
		t.Errorf("url %q", u)
	}
	t.Logf("sign-in link: %s", u)
}
