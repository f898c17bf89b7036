package chatdriver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/agent"
	"github.com/lets-app/lets/backend/claudefind"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// scriptedAuth answers Auth from a state the test changes.
type scriptedAuth struct {
	mu    sync.Mutex
	state AuthState
	calls atomic.Int32
}

func (a *scriptedAuth) set(s AuthState) { a.mu.Lock(); a.state = s; a.mu.Unlock() }
func (a *scriptedAuth) auth(ctx context.Context) (AuthState, error) {
	a.calls.Add(1)
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.state, nil
}

// fakeLogin is a `claude auth login` that accepts one code.
type fakeLogin struct {
	url      string
	codes    chan string
	ok       chan bool
	canceled atomic.Bool
	onOK     func()
}

func (l *fakeLogin) URL(ctx context.Context) (string, error) { return l.url, nil }
func (l *fakeLogin) SubmitCode(code string) error {
	l.codes <- code
	return nil
}
func (l *fakeLogin) Wait(ctx context.Context) error {
	select {
	case ok := <-l.ok:
		if !ok {
			return errors.New("login: bad code")
		}
		l.onOK()
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
func (l *fakeLogin) Cancel() { l.canceled.Store(true) }

func componentIDs(t *testing.T, sh *fakeShell, n int) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for len(out) < n {
		f := sh.next("component.create", 5*time.Second, nil)
		d := dataMap(f)
		out[d["id"].(string)] = d
	}
	return out
}

// TestNotInstalledScreen: without Claude Code (and no installer) the
// window says so without any terminal command and offers "Check again";
// checking again while it is still missing says so; once it is there (and
// signed in) the agent starts in a window bound to it.
func TestNotInstalledScreen(t *testing.T) {
	sa := &scriptedAuth{state: NotInstalled}
	r := newRig(t, func(o *Options) { o.Auth = sa.auth })
	win := r.open(t, "")
	sh := dialShell(t, r.h, win)
	cs := componentIDs(t, sh, 2)
	if strings.Contains(toJSON(cs), "npm install") || strings.Contains(toJSON(cs), "terminal") {
		t.Fatalf("the install screen still sends the person to a terminal: %v", cs)
	}
	check := cs[idSetupCheck]
	if check == nil || !strings.Contains(toJSON(check), "Check again") || cs[idSetupNote] == nil {
		t.Fatalf("components: %v", cs)
	}
	select {
	case <-r.agents.started:
		t.Fatal("an agent started without Claude Code")
	default:
	}
	// A message now gets a kind pointer to the steps.
	re := sh.emit("chat.message", "shell", map[string]any{"text": "hello?"})
	if f := sh.next("chat.say", 5*time.Second, nil); f.Re != re || !strings.Contains(dataMap(f)["text"].(string), "ready first") {
		t.Fatalf("reply without claude: %s", f.Data)
	}

	sh.emit("component.action", "shell", map[string]any{"id": idSetupCheck, "action": "select", "value": "check"})
	if f := sh.next("ui.toast", 5*time.Second, nil); !strings.Contains(dataMap(f)["text"].(string), "not there yet") {
		t.Fatalf("toast %s", f.Data)
	}
	sa.set(LoggedIn)
	sh.emit("component.action", "shell", map[string]any{"id": idSetupCheck, "action": "select", "value": "check"})
	a := r.agents.next(t)
	// The same window now belongs to the new claude: no flash of a
	// closing and reopening window right after signing in.
	sh.next("talk.welcome", 5*time.Second, func(f frame) bool { return strings.Contains(string(f.Data), "all set") })
	if got := boundPID(t, r.h, win); got != a.pid {
		t.Fatalf("the window is bound to pid %d, want the new claude's %d", got, a.pid)
	}
	if w := r.m.Window(r.m.List()[0].ID); w != win {
		t.Fatalf("the conversation moved to window %q, want it to stay in %q", w, win)
	}
	sh.emit("chat.message", "shell", map[string]any{"text": "now?"})
	if b := testutil.Wait(t, "the message to reach the agent", a.sent); b[0].Text != "now?" {
		t.Fatalf("blocks %+v", b)
	}
}

// TestSignInScreen: not signed in → the sign-in link as a button and as
// copyable text, and a field for the code; a wrong code says so, the
// right one signs in and starts the agent.
func TestSignInScreen(t *testing.T) {
	sa := &scriptedAuth{state: LoggedOut}
	var opened atomic.Value
	var logins atomic.Int32
	var cur atomic.Pointer[fakeLogin]
	r := newRig(t, func(o *Options) {
		o.Auth = sa.auth
		o.Login = func(ctx context.Context) (Login, error) {
			logins.Add(1)
			l := &fakeLogin{url: "https://claude.ai/oauth/authorize?code=true&state=abc", codes: make(chan string, 1), ok: make(chan bool, 1), onOK: func() { sa.set(LoggedIn) }}
			cur.Store(l)
			return l, nil
		}
		o.OpenURL = func(u string) error { opened.Store(u); return nil }
	})
	win := r.open(t, "")
	sh := dialShell(t, r.h, win)
	cs := componentIDs(t, sh, 2)
	if cs[idSignInForm]["type"] != "form" || cs[idSignInOpen]["type"] != "options" {
		t.Fatalf("sign-in components %v", cs)
	}
	sh.emit("component.action", "shell", map[string]any{"id": idSignInOpen, "action": "select", "value": "open"})
	testutil.Eventually(t, "the browser to open", func() bool { u, _ := opened.Load().(string); return u == cur.Load().url })
	// The link to copy, when asked for.
	sh.emit("component.action", "shell", map[string]any{"id": idSignInOpen, "action": "select", "value": "link"})
	if f := sh.next("component.create", 5*time.Second, nil); dataMap(f)["props"].(map[string]any)["code"] != cur.Load().url {
		t.Fatalf("link component %s", f.Data)
	}

	l := cur.Load()
	sh.emit("component.action", "shell", map[string]any{"id": idSignInForm, "action": "submit", "value": map[string]any{"code": "WRONG"}})
	if c := testutil.Wait(t, "a code to reach the login", l.codes); c != "WRONG" {
		t.Fatalf("code %q", c)
	}
	l.ok <- false
	sh.next("ui.toast", 5*time.Second, func(f frame) bool { return strings.Contains(string(f.Data), "did not work") })
	componentIDs(t, sh, 2) // the screen again, with a fresh login
	testutil.Eventually(t, "a second login", func() bool { return logins.Load() == 2 && l.canceled.Load() })

	l = cur.Load()
	sh.emit("component.action", "shell", map[string]any{"id": idSignInForm, "action": "submit", "value": map[string]any{"code": "GOOD"}})
	if c := testutil.Wait(t, "a code to reach the login", l.codes); c != "GOOD" {
		t.Fatalf("code %q", c)
	}
	l.ok <- true
	a := r.agents.next(t)
	if a.opts.Dir == "" {
		t.Fatal("no working folder")
	}
	// Signed in: the same window carries on with the new claude.
	sh.next("talk.welcome", 5*time.Second, func(f frame) bool { return strings.Contains(string(f.Data), "all set") })
	if got := boundPID(t, r.h, win); got != a.pid {
		t.Fatalf("after signing in the window is bound to pid %d, want %d", got, a.pid)
	}
}

// TestAuthFailedMidTurn: a turn refused with authentication_failed ends
// with a kind line and the sign-in screen; the agent is stopped.
func TestAuthFailedMidTurn(t *testing.T) {
	r := newRig(t, func(o *Options) {
		o.Login = func(ctx context.Context) (Login, error) {
			return &fakeLogin{url: "https://claude.ai/oauth/authorize?x=1", codes: make(chan string, 1), ok: make(chan bool, 1)}, nil
		}
	})
	win := r.open(t, "")
	a := r.agents.next(t)
	sh := dialShell(t, r.h, win)
	sh.emit("chat.message", "shell", map[string]any{"text": "hi"})
	testutil.Wait(t, "the message to reach the agent", a.sent)
	a.emit(t, Assistant{Error: "authentication_failed", Blocks: []Block{{Type: "text", Text: "Invalid API key · Please run /login"}}})
	a.emit(t, Result{IsError: true, Error: agent.ErrCodeAuthenticationFailed, Text: "Invalid API key"})
	f := sh.next("chat.say", 5*time.Second, func(f frame) bool { return dataMap(f)["done"] == true })
	if txt := dataMap(f)["text"].(string); !strings.Contains(txt, "sign in") || strings.Contains(txt, "Invalid API key") {
		t.Fatalf("auth failure chunk %q", txt)
	}
	cs := componentIDs(t, sh, 2)
	if cs[idSignInForm] == nil {
		t.Fatalf("no sign-in form: %v", cs)
	}
	testutil.Eventually(t, "the agent to stop", func() bool { return a.closed.Load() })
}

// TestFirstRunWithFakeClaude: ClaudeAuth with a fake `claude` on PATH that
// says {"loggedIn":false} and exits 1 shows the sign-in screen; with no
// claude at all, the install screen.
func TestFirstRunWithFakeClaude(t *testing.T) {
	bin := t.TempDir()
	home := t.TempDir()
	script := "#!/bin/sh\nif [ \"$1 $2\" = \"auth status\" ]; then echo '{\"loggedIn\":false,\"authMethod\":\"none\",\"apiProvider\":\"firstParty\"}'; exit 1; fi\nexit 2\n"
	if err := os.WriteFile(filepath.Join(bin, "claude"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + bin + ":/usr/bin:/bin", "HOME=" + home}
	for _, c := range []struct {
		name  string
		path  string
		want  AuthState
		first string
	}{
		{"logged out", bin + ":/usr/bin:/bin", LoggedOut, idSetupNote},
		{"not installed", "/usr/bin:/bin", NotInstalled, idSetupCheck},
	} {
		t.Run(c.name, func(t *testing.T) {
			getenv := func(k string) string {
				switch k {
				case "PATH":
					return c.path
				case "HOME":
					return home
				}
				return ""
			}
			find := func() (string, error) {
				f, err := claudefind.Find(context.Background(), claudefind.Options{Getenv: getenv, SkipVersion: true})
				if err != nil {
					return "", fmt.Errorf("%w: %w", agent.ErrNotInstalled, err)
				}
				return f.Path, nil
			}
			auth, _ := ClaudeAuth(find, env)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if s, _ := auth(ctx); s != c.want {
				t.Fatalf("auth = %v, want %v", s, c.want)
			}
			r := newRig(t, func(o *Options) {
				o.Auth = auth
				// Login stays nil here: the sign-in screen then offers
				// "Check again" instead of a link.
			})
			sh := dialShell(t, r.h, r.open(t, ""))
			cs := componentIDs(t, sh, 2)
			if cs[c.first] == nil {
				t.Fatalf("components %v", cs)
			}
			if c.want == NotInstalled && !strings.Contains(toJSON(cs[idSetupNote]), "not on this computer") {
				t.Fatalf("install note %v", cs[idSetupNote])
			}
			if c.want == LoggedOut && !strings.Contains(toJSON(cs[idSetupNote]), "Sign in") {
				t.Fatalf("sign-in note %v", cs[idSetupNote])
			}
		})
	}
}

// TestFindClaudeMissingShowsInstall: auth said yes but FindClaude finds no
// claude (removed meanwhile): the install screen, not an error.
func TestFindClaudeMissingShowsInstall(t *testing.T) {
	r := newRig(t, func(o *Options) {
		o.FindClaude = func() (string, error) { return "", agent.ErrNotInstalled }
	})
	sh := dialShell(t, r.h, r.open(t, ""))
	if cs := componentIDs(t, sh, 2); cs[idSetupCheck] == nil || !strings.Contains(toJSON(cs[idSetupNote]), "not on this computer") {
		t.Fatalf("components %v", cs)
	}
}
