package agent

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/testenv/claudestub"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// recorder runs the real claude against a stub and keeps every stdout line.
type recorder struct {
	t     *testing.T
	cmd   *exec.Cmd
	stdin interface {
		Write([]byte) (int, error)
		Close() error
	}
	lines chan string
	all   []string
	home  string
}

func startRecorder(t *testing.T, stub *claudestub.Server, extra ...string) *recorder {
	return startRecorderEnv(t, stub, nil, extra...)
}

func startRecorderEnv(t *testing.T, stub *claudestub.Server, env []string, extra ...string) *recorder {
	t.Helper()
	claude := testutil.Claude(t)
	home := t.TempDir()
	project := filepath.Join(home, "project")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose", "--include-partial-messages", "--strict-mcp-config"}, extra...)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	cmd := exec.CommandContext(ctx, claude, args...)
	cmd.Dir = project
	cmd.Env = append(append(stub.Env(home), "PATH="+os.Getenv("PATH")), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.Stderr = testWriter{t}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &recorder{t: t, cmd: cmd, stdin: stdin, lines: make(chan string, 4096), home: home}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			r.lines <- sc.Text()
		}
		close(r.lines)
	}()
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	return r
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log("stderr: " + strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func (r *recorder) send(line string) {
	r.t.Helper()
	r.t.Log("stdin: " + line)
	if _, err := r.stdin.Write([]byte(line + "\n")); err != nil {
		r.t.Fatalf("write: %v", err)
	}
}

// until reads lines until one contains all of subs; it returns that line.
func (r *recorder) until(subs ...string) string {
	r.t.Helper()
	timeout := time.After(60 * time.Second)
	for {
		select {
		case l, ok := <-r.lines:
			if !ok {
				r.t.Fatalf("claude ended before a line with %q", subs)
			}
			r.all = append(r.all, l)
			r.t.Log("stdout: " + l)
			match := true
			for _, s := range subs {
				if !strings.Contains(l, s) {
					match = false
				}
			}
			if match {
				return l
			}
		case <-timeout:
			r.t.Fatalf("no line with %q within 60s", subs)
		}
	}
}

// drain reads until claude exits.
func (r *recorder) drain() {
	timeout := time.After(30 * time.Second)
	for {
		select {
		case l, ok := <-r.lines:
			if !ok {
				return
			}
			r.all = append(r.all, l)
			r.t.Log("stdout: " + l)
		case <-timeout:
			r.t.Fatal("claude did not exit")
		}
	}
}

func (r *recorder) save(name string) {
	dir := os.Getenv("LETS_RECORD_AGENT")
	if dir == "" {
		return
	}
	text := strings.Join(r.all, "\n") + "\n"
	text = strings.ReplaceAll(text, r.home, "/home/user")
	if err := os.WriteFile(filepath.Join(dir, name+".jsonl"), []byte(text), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func requestID(t *testing.T, line string) string {
	var m struct {
		RequestID string `json:"request_id"`
	}
	if err := json.Unmarshal([]byte(line), &m); err != nil || m.RequestID == "" {
		t.Fatalf("no request_id in %s", line)
	}
	return m.RequestID
}

// TestRecordStream records the stdout of the real CLI for the golden tests:
// LETS_RECORD_AGENT=backend/agent/testdata/recorded go test -run TestRecordStream ./backend/agent/
func TestRecordStream(t *testing.T) {
	if os.Getenv("LETS_RECORD_AGENT") == "" {
		t.Skip("set LETS_RECORD_AGENT=<dir> to record")
	}
	userTurn := func(text string) string {
		b, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": text}}}})
		return string(b)
	}
	t.Run("two-turns", func(t *testing.T) {
		stub := claudestub.Start(t, claudestub.Say("Hello there, friend."), claudestub.Say("Second answer."))
		r := startRecorder(t, stub)
		r.send(userTurn("Hi"))
		r.until(`"type":"result"`)
		r.send(userTurn("Again"))
		r.until(`"type":"result"`)
		_ = r.stdin.Close()
		r.drain()
		r.save("two-turns")
	})
	t.Run("permission", func(t *testing.T) {
		stub := claudestub.Start(t,
			claudestub.Call("Bash", map[string]any{"command": "touch allowed.txt", "description": "Create a file"}),
			claudestub.Call("Bash", map[string]any{"command": "touch denied.txt", "description": "Create another file"}),
			claudestub.Say("Done."))
		r := startRecorder(t, stub, "--permission-prompt-tool", "stdio")
		r.send(userTurn("Make files"))
		l := r.until(`"can_use_tool"`)
		var m struct {
			Request struct {
				Input json.RawMessage `json:"input"`
			} `json:"request"`
		}
		_ = json.Unmarshal([]byte(l), &m)
		r.send(`{"type":"control_response","response":{"subtype":"success","request_id":"` + requestID(t, l) + `","response":{"behavior":"allow","updatedInput":` + string(m.Request.Input) + `}}}`)
		l = r.until(`"can_use_tool"`)
		r.send(`{"type":"control_response","response":{"subtype":"success","request_id":"` + requestID(t, l) + `","response":{"behavior":"deny","message":"The person said no in Lets."}}}`)
		r.until(`"type":"result"`)
		_ = r.stdin.Close()
		r.drain()
		r.save("permission")
		reqs := stub.MainRequests()
		t.Logf("last request: %s", reqs[len(reqs)-1].Body)
	})
	t.Run("interrupt", func(t *testing.T) {
		release := make(chan struct{})
		entered := make(chan struct{}, 1)
		stub := claudestub.Start(t, func(claudestub.Request) claudestub.Turn {
			entered <- struct{}{}
			select {
			case <-release:
			case <-time.After(20 * time.Second):
			}
			return claudestub.Turn{Text: "too late"}
		}, claudestub.Say("After the interrupt."))
		r := startRecorder(t, stub)
		r.send(userTurn("Tell a long story"))
		r.until(`"type":"system","subtype":"init"`)
		// Interrupt once the model has the turn (the stub holds it).
		testutil.Wait(t, "the turn to reach the model", entered)
		r.send(`{"type":"control_request","request_id":"lets-1","request":{"subtype":"interrupt"}}`)
		r.until(`"type":"result"`)
		close(release)
		r.send(userTurn("Still there?"))
		r.until(`"type":"result"`)
		_ = r.stdin.Close()
		r.drain()
		r.save("interrupt")
	})
	t.Run("auth-failed", func(t *testing.T) {
		fail := claudestub.Fixed(claudestub.Turn{Fail: &claudestub.APIError{Status: 401, Type: "authentication_error", Message: "invalid x-api-key"}})
		steps := make([]claudestub.Step, 20) // claude retries a 401 several times
		for i := range steps {
			steps[i] = fail
		}
		stub := claudestub.Start(t, steps...)
		r := startRecorderEnv(t, stub, []string{"CLAUDE_CODE_MAX_RETRIES=0"})
		r.send(userTurn("Hi"))
		r.until(`"type":"result"`)
		_ = r.stdin.Close()
		r.drain()
		r.save("auth-failed")
	})
	t.Run("image", func(t *testing.T) {
		stub := claudestub.Start(t, claudestub.Say("A red pixel."))
		r := startRecorder(t, stub)
		png := "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
		r.send(`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"What is this?"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + png + `"}}]}}`)
		r.until(`"type":"result"`)
		_ = r.stdin.Close()
		r.drain()
		r.save("image")
	})
}
