package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/host"
	"github.com/lets-app/lets/backend/hostclient"
)

// realHost is a host started in-process on loopback in a temp data folder
// (the built-in uniques, among them hello), with host.json written as the
// app writes it.
type realHost struct {
	srv    *host.Server
	paths  config.Paths
	token  string
	cancel context.CancelFunc
	done   chan error
}

func startRealHost(t testing.TB, home string, token string) *realHost {
	t.Helper()
	paths := config.Paths{Home: home}
	if err := config.Ensure(paths, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	srv, err := host.Listen(host.Options{Token: token, Version: "0.1.0-test", DataDir: home, Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h := &realHost{srv: srv, paths: paths, token: token, cancel: cancel, done: make(chan error, 1)}
	go func() { h.done <- srv.Run(ctx) }()
	if err := config.WriteHostInfo(paths, config.HostInfo{Port: srv.Port(), PID: os.Getpid(), Token: token, Version: "0.1.0-test", StartedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.stop)
	return h
}

func (h *realHost) stop() {
	if h.cancel == nil {
		return
	}
	h.cancel()
	h.cancel = nil
	select {
	case <-h.done:
	case <-time.After(5 * time.Second):
	}
}

// session is an MCP client connected in memory to a server for the host in
// home.
type session struct {
	cs     *mcp.ClientSession
	client *hostclient.Client
}

func connect(t testing.TB, opts Options, paths config.Paths) *session {
	t.Helper()
	c := hostclient.New(paths, hostclient.Options{Timeout: 5 * time.Second})
	if opts.Host == nil {
		opts.Host = c
	}
	if opts.Version == "" {
		opts.Version = "0.1.0-test"
	}
	srv := New(opts)
	ct, st := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close(); _ = ss.Wait() })
	return &session{cs: cs, client: c}
}

// toolResult is a decoded tool result.
type toolResult struct {
	IsError    bool
	Text       string
	Structured map[string]any
	Chars      int
}

func (s *session) call(t testing.TB, name string, args map[string]any) toolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if args == nil {
		args = map[string]any{}
	}
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	var out toolResult
	out.IsError = res.IsError
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			out.Text += tc.Text
		}
	}
	out.Chars = len([]rune(out.Text))
	if res.StructuredContent != nil {
		raw, _ := json.Marshal(res.StructuredContent)
		out.Chars += len([]rune(string(raw)))
		_ = json.Unmarshal(raw, &out.Structured)
	}
	return out
}

// shell is a window's shell channel, opened as the shell page opens it.
type shell struct {
	t      testing.TB
	ws     *websocket.Conn
	mu     sync.Mutex
	frames chan json.RawMessage
	n      int
}

// personShows gets a waiting window's one-time URL the way the person
// does: the home page signed in from a home link, then its Open button.
func personShows(t testing.TB, srv *host.Server, window string) string {
	t.Helper()
	link, err := srv.HomeLink()
	if err != nil {
		t.Fatal(err)
	}
	_, key, _ := strings.Cut(link, "#k=")
	post := func(path, tok string, body any, out any) {
		t.Helper()
		data, _ := json.Marshal(body)
		req, _ := http.NewRequest("POST", srv.URL()+path, bytes.NewReader(data))
		req.Header.Set("Content-Type", "application/json")
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != 200 {
			raw, _ := io.ReadAll(resp.Body)
			t.Fatalf("POST %s: %d %s", path, resp.StatusCode, raw)
		}
		_ = json.NewDecoder(resp.Body).Decode(out)
	}
	var claimed struct {
		Token string `json:"token"`
	}
	post("/home/api/claim", "", map[string]string{"key": key}, &claimed)
	var shown struct {
		URL string `json:"url"`
	}
	post("/home/api/windows/"+window+"/show", claimed.Token, struct{}{}, &shown)
	return shown.URL
}

// loadWindow loads a window's one-time URL and connects its shell channel.
func loadWindow(t testing.TB, port int, url, window string) *shell {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	_, rest, ok := strings.Cut(string(page), `<script type="application/json" id="lets-config">`)
	cfgText, _, ok2 := strings.Cut(rest, "</script>")
	var cfg struct {
		Token string `json:"token"`
	}
	if resp.StatusCode != 200 || !ok || !ok2 || json.Unmarshal([]byte(cfgText), &cfg) != nil || cfg.Token == "" {
		t.Fatalf("load %s: %d, no window token in the page", url, resp.StatusCode)
	}
	origin := "http://127.0.0.1:" + strconv.Itoa(port)
	ws, _, err := websocket.DefaultDialer.Dial("ws://127.0.0.1:"+strconv.Itoa(port)+"/lip/ws?t="+cfg.Token, http.Header{"Origin": {origin}})
	if err != nil {
		t.Fatalf("dial the shell channel: %v", err)
	}
	sh := &shell{t: t, ws: ws, frames: make(chan json.RawMessage, 1024)}
	t.Cleanup(func() { _ = ws.Close() })
	go func() {
		defer close(sh.frames)
		for {
			_, data, err := ws.ReadMessage()
			if err != nil {
				return
			}
			var list []json.RawMessage
			if len(data) > 0 && data[0] == '[' {
				_ = json.Unmarshal(data, &list)
			} else {
				list = []json.RawMessage{data}
			}
			for _, e := range list {
				select {
				case sh.frames <- e:
				default:
				}
			}
		}
	}()
	sh.write(map[string]any{"lip": 1, "id": "hello-1", "type": "lip.hello", "from": "shell", "data": map[string]any{"shell": "test", "version": "0", "window": window, "medium": "screen", "caps": []string{}}})
	sh.write(map[string]any{"lip": 1, "id": "ready-1", "type": "lip.ready", "from": "shell", "data": map[string]any{}})
	return sh
}

func (sh *shell) write(v any) {
	sh.t.Helper()
	sh.mu.Lock()
	defer sh.mu.Unlock()
	_ = sh.ws.SetWriteDeadline(time.Now().Add(2 * time.Second))
	if err := sh.ws.WriteJSON(v); err != nil {
		sh.t.Fatalf("write to the shell channel: %v", err)
	}
}

// emit sends an up-event as the unique would.
func (sh *shell) emit(typ string, data any) {
	sh.t.Helper()
	sh.n++
	sh.write(map[string]any{"lip": 1, "id": "ev-" + strconv.Itoa(sh.n), "type": typ, "from": "unique", "data": data})
}

// waitCommand reads frames until a command of type typ arrives.
func (sh *shell) waitCommand(typ string, within time.Duration) map[string]any {
	sh.t.Helper()
	timer := time.NewTimer(within)
	defer timer.Stop()
	for {
		select {
		case raw, ok := <-sh.frames:
			if !ok {
				sh.t.Fatalf("the shell channel closed before %s arrived", typ)
			}
			var e map[string]any
			_ = json.Unmarshal(raw, &e)
			if e["type"] == typ {
				// Acknowledge, as the shell does.
				sh.write(map[string]any{"lip": 1, "id": "ack-" + strconv.Itoa(int(time.Now().UnixNano()%1e9)), "type": "lip.ack", "from": "shell", "data": map[string]any{"ids": []any{e["id"]}}})
				return e
			}
		case <-timer.C:
			sh.t.Fatalf("no %s command within %v", typ, within)
			return nil
		}
	}
}

// events returns the structured events of a listen result.
func events(t testing.TB, r toolResult) []map[string]any {
	t.Helper()
	list, _ := r.Structured["events"].([]any)
	out := make([]map[string]any, 0, len(list))
	for _, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			t.Fatalf("event is %T", e)
		}
		out = append(out, m)
	}
	return out
}

func dataOf(e map[string]any) map[string]any {
	d, _ := e["data"].(map[string]any)
	return d
}
