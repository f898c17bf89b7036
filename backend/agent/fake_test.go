package agent

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The test binary doubles as a fake `claude` when AGENT_FAKE_CLAUDE is set:
// it speaks the stream-json protocol as recorded from 2.1.332 (one init per
// turn, text deltas, assistant, result; can_use_tool; interrupt), and
// `auth status` / `auth login` as the real CLI prints them.
func TestMain(m *testing.M) {
	if os.Getenv("AGENT_FAKE_CLAUDE") != "" {
		os.Exit(fakeClaude(os.Args[1:]))
	}
	os.Exit(m.Run())
}

func fakeClaude(args []string) int {
	if f := os.Getenv("AGENT_FAKE_ARGS"); f != "" {
		if w, err := os.OpenFile(f, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			fmt.Fprintln(w, strings.Join(args, " "))
			_ = w.Close()
		}
	}
	if len(args) >= 2 && args[0] == "auth" {
		return fakeAuth(args[1])
	}
	if os.Getenv("AGENT_FAKE_IGNORE_TERM") != "" {
		signal.Ignore(syscall.SIGTERM)
	}
	session := ""
	for i, a := range args {
		if (a == "--session-id" || a == "--resume") && i+1 < len(args) {
			session = args[i+1]
		}
	}
	out := bufio.NewWriter(os.Stdout)
	emit := func(v any) {
		b, _ := json.Marshal(v)
		out.Write(append(b, '\n'))
		out.Flush()
	}
	delta := func(text string) {
		emit(map[string]any{"type": "stream_event", "api_message_id": "msg_1", "session_id": session,
			"event": map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": text}}})
	}
	result := func(text string) {
		emit(map[string]any{"type": "result", "subtype": "success", "is_error": false, "result": text, "session_id": session, "num_turns": 1})
	}
	lines := make(chan []byte)
	go func() {
		sc := bufio.NewScanner(os.Stdin)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			lines <- append([]byte(nil), sc.Bytes()...)
		}
		close(lines)
	}()
	type msg struct {
		Type      string `json:"type"`
		RequestID string `json:"request_id"`
		Request   struct {
			Subtype string `json:"subtype"`
		} `json:"request"`
		Response json.RawMessage `json:"response"`
		Message  struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"message"`
	}
	for line := range lines {
		var m msg
		if err := json.Unmarshal(line, &m); err != nil {
			fmt.Fprintln(os.Stderr, "fake claude: bad line", string(line))
			return 2
		}
		if m.Type != "user" {
			fmt.Fprintln(os.Stderr, "fake claude: unexpected line", string(line))
			continue
		}
		text := m.Message.Content[0].Text
		emit(map[string]any{"type": "system", "subtype": "init", "session_id": session, "model": "fake", "tools": []string{"Bash"}})
		switch {
		case text == "crash":
			delta("about to")
			return 3
		case text == "huge":
			emit(map[string]any{"type": "other", "pad": strings.Repeat("a", 2<<20)})
			delta("after huge")
			result("after huge")
		case strings.HasPrefix(text, "flood "):
			var n int
			fmt.Sscanf(text, "flood %d", &n)
			for i := 0; i < n; i++ {
				delta(fmt.Sprintf("w%d ", i))
			}
			result("flooded")
		case text == "slow":
			delta("Once upon a time")
			for l := range lines {
				if err := json.Unmarshal(l, &m); err == nil && m.Type == "control_request" && m.Request.Subtype == "interrupt" {
					emit(map[string]any{"type": "control_response", "response": map[string]any{"subtype": "success", "request_id": m.RequestID, "response": map[string]any{}}})
					emit(map[string]any{"type": "result", "subtype": "error_during_execution", "is_error": true, "terminal_reason": "aborted_streaming", "session_id": session})
					break
				}
			}
		case text == "ask":
			emit(map[string]any{"type": "control_request", "request_id": "perm-1", "request": map[string]any{"subtype": "can_use_tool", "tool_name": "Bash", "input": map[string]any{"command": "ls"}, "tool_use_id": "toolu_1"}})
			for l := range lines {
				if err := json.Unmarshal(l, &m); err == nil && m.Type == "control_response" {
					emit(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "content": string(m.Response)}}}})
					break
				}
			}
			result("asked")
		default:
			delta("echo: " + text)
			result("echo: " + text)
		}
	}
	if os.Getenv("AGENT_FAKE_IGNORE_EOF") != "" {
		// Stay until a signal ends the process (SIGKILL; SIGTERM too unless
		// ignored). The limit only keeps a fake that a crashed test left
		// behind from living on; no test waits for it.
		never := make(chan os.Signal, 1)
		signal.Notify(never, syscall.SIGUSR1)
		select {
		case <-never:
		case <-time.After(time.Minute):
		}
	}
	return 0
}

func fakeAuth(sub string) int {
	switch sub {
	case "status":
		if os.Getenv("AGENT_FAKE_LOGGED_IN") != "" {
			fmt.Println(`{"loggedIn": true, "authMethod": "claude.ai"}`)
			return 0
		}
		fmt.Println("{\n  \"loggedIn\": false,\n  \"authMethod\": \"none\"\n}")
		return 1
	case "login":
		fmt.Println("Opening browser to sign in…")
		fmt.Println("If the browser didn't open, visit:")
		fmt.Println("https://claude.ai/oauth/authorize?code=true&client_id=fake&state=s1")
		fmt.Print("Paste code here if prompted > ")
		sc := bufio.NewScanner(os.Stdin)
		if !sc.Scan() {
			return 1
		}
		if sc.Text() == "good-code#s1" {
			fmt.Println("\nLogin successful.")
			return 0
		}
		fmt.Fprintln(os.Stderr, "\nCouldn't log in: invalid code")
		return 1
	}
	return 2
}
