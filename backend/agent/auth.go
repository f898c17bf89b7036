package agent

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ErrNotInstalled says the claude binary is not there.
var ErrNotInstalled = errors.New("agent: Claude Code (claude) is not installed")

// AuthState is whether claude can talk to Anthropic.
type AuthState int

const (
	AuthUnknown AuthState = iota
	LoggedIn
	LoggedOut
	NotInstalled
)

func (s AuthState) String() string {
	switch s {
	case LoggedIn:
		return "logged-in"
	case LoggedOut:
		return "logged-out"
	case NotInstalled:
		return "not-installed"
	}
	return "unknown"
}

// AuthStatusError says `claude auth status` printed nothing Lets could read.
type AuthStatusError struct {
	Output []byte // at most 500 bytes
	Err    error
}

func (e *AuthStatusError) Error() string {
	return fmt.Sprintf("agent: could not read `claude auth status` (%v): %q", e.Err, e.Output)
}
func (e *AuthStatusError) Unwrap() error { return e.Err }

// ParseAuthStatus reads the JSON `claude auth status` prints
// ({"loggedIn":true|false,…}); it matches the field, not the text.
func ParseAuthStatus(out []byte) (AuthState, error) {
	var st struct {
		LoggedIn *bool `json:"loggedIn"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(out), &st); err != nil {
		return AuthUnknown, &AuthStatusError{Output: clip(out, 500), Err: err}
	}
	if st.LoggedIn == nil {
		return AuthUnknown, &AuthStatusError{Output: clip(out, 500), Err: errors.New("no loggedIn field")}
	}
	if *st.LoggedIn {
		return LoggedIn, nil
	}
	return LoggedOut, nil
}

// AuthStatus runs `claude auth status` (env is its whole environment; nil
// means os.Environ()). A missing binary is NotInstalled with
// ErrNotInstalled. claude exits 1 when logged out; the JSON decides.
func AuthStatus(ctx context.Context, claude string, env []string) (AuthState, error) {
	if claude == "" {
		return NotInstalled, ErrNotInstalled
	}
	if _, err := os.Stat(claude); err != nil {
		return NotInstalled, fmt.Errorf("%w: %v", ErrNotInstalled, err)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, claude, "auth", "status")
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var out bytes.Buffer
	cmd.Stdout = &limitedBuffer{b: &out, n: 64 << 10}
	err := cmd.Run()
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			if errors.Is(err, os.ErrNotExist) {
				return NotInstalled, fmt.Errorf("%w: %v", ErrNotInstalled, err)
			}
			return AuthUnknown, fmt.Errorf("agent: run `claude auth status`: %w", err)
		}
	}
	return ParseAuthStatus(out.Bytes())
}

type limitedBuffer struct {
	b *bytes.Buffer
	n int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.n - l.b.Len(); room > 0 {
		if len(p) > room {
			l.b.Write(p[:room])
		} else {
			l.b.Write(p)
		}
	}
	return len(p), nil
}

// LoginError says `claude auth login` did not sign in.
type LoginError struct {
	Output string // what claude printed (last 2000 bytes)
	Err    error
}

func (e *LoginError) Error() string {
	return fmt.Sprintf("agent: signing in to Claude did not work (%v): %s", e.Err, e.Output)
}
func (e *LoginError) Unwrap() error { return e.Err }

// ErrNoLoginURL: claude auth login ended or timed out before it printed a
// sign-in link.
var ErrNoLoginURL = errors.New("agent: claude did not give a sign-in link")

// Login drives `claude auth login`: it reads the sign-in link claude prints
// ("If the browser didn't open, visit: <url>"), lets the person paste the
// code claude asks for ("Paste code here if prompted >"), and reports the
// outcome.
type Login struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	url   chan string
	done  chan struct{}
	mu    sync.Mutex
	out   bytes.Buffer
	err   error
}

// StartLogin starts `claude auth login` (extra args e.g. "--console";
// env nil means os.Environ()). BROWSER is set to "true" so no browser
// opens from here: Lets shows the link itself.
func StartLogin(ctx context.Context, claude string, env []string, extra ...string) (*Login, error) {
	if _, err := os.Stat(claude); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotInstalled, err)
	}
	cmd := exec.Command(claude, append([]string{"auth", "login"}, extra...)...)
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = append(append([]string(nil), env...), "BROWSER=true")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("agent: claude auth login: %w", err)
	}
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("agent: start claude auth login: %w", err)
	}
	l := &Login{cmd: cmd, stdin: stdin, url: make(chan string, 1), done: make(chan struct{})}
	go l.scan(pr)
	go func() {
		err := cmd.Wait()
		_ = pw.Close()
		l.mu.Lock()
		l.err = err
		l.mu.Unlock()
		close(l.done)
	}()
	go func() {
		select {
		case <-ctx.Done():
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		case <-l.done:
		}
	}()
	return l, nil
}

func (l *Login) scan(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	sent := false
	for sc.Scan() {
		line := sc.Text()
		l.mu.Lock()
		l.out.WriteString(line + "\n")
		if l.out.Len() > 8192 {
			l.out.Next(l.out.Len() - 8192)
		}
		l.mu.Unlock()
		if u := LoginURL(line); u != "" && !sent {
			l.url <- u
			sent = true
		}
	}
	_, _ = io.Copy(io.Discard, r)
}

// LoginURL is the sign-in link in one line of `claude auth login`'s
// output, or "".
func LoginURL(line string) string {
	i := strings.Index(line, "https://")
	if i < 0 {
		return ""
	}
	u := line[i:]
	if j := strings.IndexAny(u, " \t\x1b"); j >= 0 {
		u = u[:j]
	}
	if !strings.Contains(u, "/oauth/") && !strings.Contains(u, "authorize") {
		return ""
	}
	return u
}

// URL waits for the sign-in link.
func (l *Login) URL(ctx context.Context) (string, error) {
	select {
	case u := <-l.url:
		l.url <- u
		return u, nil
	case <-l.done:
		select {
		case u := <-l.url:
			l.url <- u
			return u, nil
		default:
		}
		return "", &LoginError{Output: l.output(), Err: ErrNoLoginURL}
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// SubmitCode writes the code the person pasted from the sign-in page.
func (l *Login) SubmitCode(code string) error {
	code = strings.TrimSpace(code)
	if code == "" || strings.ContainsAny(code, "\r\n") {
		return errors.New("agent: the sign-in code is empty or has a line break")
	}
	if _, err := io.WriteString(l.stdin, code+"\n"); err != nil {
		return fmt.Errorf("agent: give claude the sign-in code: %w", err)
	}
	return nil
}

// Wait waits for claude auth login to end: nil when it signed in, else a
// *LoginError with what claude said.
func (l *Login) Wait(ctx context.Context) error {
	select {
	case <-l.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	l.mu.Lock()
	err := l.err
	l.mu.Unlock()
	if err != nil {
		return &LoginError{Output: l.output(), Err: err}
	}
	return nil
}

// Cancel stops claude auth login.
func (l *Login) Cancel() {
	_ = syscall.Kill(-l.cmd.Process.Pid, syscall.SIGKILL)
	<-l.done
}

func (l *Login) output() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.out.String()
	if len(s) > 2000 {
		s = s[len(s)-2000:]
	}
	return strings.TrimSpace(s)
}
