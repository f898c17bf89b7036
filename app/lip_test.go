package app

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/lets-app/lets/backend/config"
)

// startLIPServe runs `lets serve` in-process on a free port and waits for
// host.json.
func startLIPServe(t *testing.T) (*testEnv, config.HostInfo) {
	t.Helper()
	e := newTestEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() { done <- Run(ctx, e.Env, []string{"serve", "--port", "0", "--no-pad"}) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Error("lets serve did not stop")
		}
	})
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if info, err := config.ReadHostInfo(config.Paths{Home: e.home}); err == nil && strings.Contains(e.out.String(), "Press Ctrl+C") {
			e.out.Reset()
			return e, info
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("lets serve did not write host.json: %s", e.err.String())
	return nil, config.HostInfo{}
}

func runCmd(e *testEnv, f func(context.Context, *Env, []string) error, args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return f(ctx, e.Env, args)
}

// TestOpenListenSendAgainstServe drives the LIP commands against a real
// `lets serve`: open the built-in hello unique, listen for session.open,
// send a declared command, and see it arrive on the window's channel.
func TestOpenListenSendAgainstServe(t *testing.T) {
	e, info := startLIPServe(t)
	fi, err := os.Stat(config.Paths{Home: e.home}.HostFile())
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("host.json must be 0600: %v %v", fi, err)
	}

	if err := runCmd(e, runOpen, "hello", "--print-url"); err != nil {
		t.Fatalf("open: %v (%s)", err, e.err.String())
	}
	url := strings.TrimSpace(e.out.String())
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.Contains(url, "/w/w1/?t=") || strings.Contains(url, info.Token) {
		t.Fatalf("--print-url printed %q", url)
	}
	wtok := url[strings.Index(url, "?t=")+3:]

	e.out.Reset()
	if err := runCmd(e, runListen, "--wait", "2s", "--types", "session.open", "--json"); err != nil {
		t.Fatalf("listen: %v", err)
	}
	var ans listenAnswer
	if err := json.Unmarshal([]byte(e.out.String()), &ans); err != nil || len(ans.Events) != 1 || ans.Epoch == "" {
		t.Fatalf("listen --json: %v %s", err, e.out.String())
	}

	// The window's shell channel, as the shell page opens it.
	port := info.Port
	ws, _, err := websocket.DefaultDialer.Dial("ws://127.0.0.1:"+itoaPort(port)+"/lip/ws?t="+wtok, http.Header{"Origin": {"http://127.0.0.1:" + itoaPort(port)}})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	defer ws.Close()
	_ = ws.WriteJSON(map[string]any{"lip": 1, "id": "h1", "type": "lip.hello", "from": "shell", "data": map[string]any{"window": "w1"}})
	_ = ws.WriteJSON(map[string]any{"lip": 1, "id": "r1", "type": "lip.ready", "from": "shell", "data": map[string]any{}})

	e.out.Reset()
	if err := runCmd(e, runSend, "w1", "hello.show", `{"text":"from the CLI"}`); err != nil {
		t.Fatalf("send: %v %s", err, e.err.String())
	}
	if !strings.Contains(e.out.String(), "Queued cm_") {
		t.Fatalf("send printed %q", e.out.String())
	}
	_ = ws.SetReadDeadline(time.Now().Add(3 * time.Second))
	got := false
	for !got {
		_, data, err := ws.ReadMessage()
		if err != nil {
			t.Fatalf("no command arrived: %v", err)
		}
		got = strings.Contains(string(data), `"type":"hello.show"`) && strings.Contains(string(data), "from the CLI")
	}

	// An undeclared type is refused with exit code 1 and a reason.
	e.err.Reset()
	err = runCmd(e, runSend, "w1", "hello.explode")
	if ee, ok := err.(exitError); !ok || ee.code != 1 || !strings.Contains(e.err.String(), "undeclared_type") {
		t.Fatalf("undeclared send: %v, stderr %q", err, e.err.String())
	}
	// The unique's event, in the plain listing.
	_ = ws.WriteJSON(map[string]any{"lip": 1, "id": "ev_x1", "type": "hello.wave", "from": "unique", "data": map[string]any{"n": 1}})
	e.out.Reset()
	if err := runCmd(e, runListen, "--wait", "3s", "--types", "hello.wave", "--window", "w1"); err != nil {
		t.Fatal(err)
	}
	if line := e.out.String(); !strings.Contains(line, "\tw1\thello.wave\tunique:hello#w1\t{\"n\":1}") {
		t.Fatalf("listen line %q", line)
	}
	// Unknown uniques and usage mistakes are explained.
	if err := runCmd(e, runOpen, "nope"); err == nil || !strings.Contains(err.Error(), "not installed") {
		t.Fatalf("open nope: %v", err)
	}
	if err := runCmd(e, runSend, "w1"); err == nil {
		t.Fatal("send without a type must be a usage error")
	}
	if err := runCmd(e, runListen, "--wait", "60s"); err == nil {
		t.Fatal("--wait 60s must be refused")
	}
	// The host token never reaches the output.
	if strings.Contains(e.out.String()+e.err.String(), info.Token) {
		t.Fatal("the host token was printed")
	}
}

// TestLIPCommandsWithoutHost say how to start Lets.
func TestLIPCommandsWithoutHost(t *testing.T) {
	e := newTestEnv(t)
	for name, f := range map[string]func(context.Context, *Env, []string) error{"open": runOpen, "listen": runListen, "send": runSend} {
		args := map[string][]string{"open": {"hello"}, "listen": {"--wait", "0s"}, "send": {"w1", "ui.toast"}}[name]
		err := runCmd(e, f, args...)
		if err == nil || !strings.Contains(err.Error(), "not running") {
			t.Errorf("%s without a host: %v", name, err)
		}
	}
}

func itoaPort(p int) string {
	b, _ := json.Marshal(p)
	return string(b)
}
