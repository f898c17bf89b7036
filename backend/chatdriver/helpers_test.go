package chatdriver

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/conversations"
	"github.com/lets-app/lets/backend/host"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/schemas"
)

const testToken = "chatdriver-test-token-0123456789abcdef"

// testHost is a real host in-process on loopback, with host.json written
// as the app writes it; OnOpen keeps each window's one-time URL.
type testHost struct {
	srv   *host.Server
	paths config.Paths
	mu    sync.Mutex
	urls  map[string]string
	opens chan string
}

func startHost(t testing.TB) *testHost { t.Helper(); return startHostWith(t, true) }

// startHostWith starts a host; native false is a headless host, whose open
// answers carry the window's one-time URL.
func startHostWith(t testing.TB, native bool) *testHost {
	t.Helper()
	home := t.TempDir()
	paths := config.Paths{Home: home}
	if err := config.Ensure(paths, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	h := &testHost{paths: paths, urls: map[string]string{}, opens: make(chan string, 16)}
	opts := host.Options{Token: testToken, Version: "0.1.0-test", DataDir: home, Addr: "127.0.0.1:0",
		OnOpen: func(l host.WindowLaunch) error {
			h.mu.Lock()
			h.urls[l.Window] = l.URL
			h.mu.Unlock()
			h.opens <- l.Window
			return nil
		}}
	if !native {
		opts.OnOpen = nil
	}
	srv, err := host.Listen(opts)
	if err != nil {
		t.Fatal(err)
	}
	h.srv = srv
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	if err := config.WriteHostInfo(paths, config.HostInfo{Port: srv.Port(), PID: os.Getpid(), Token: testToken, Version: "0.1.0-test", StartedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
		}
	})
	return h
}

func (h *testHost) url(t testing.TB, window string) string {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	u := h.urls[window]
	if u == "" {
		t.Fatalf("no URL for window %s", window)
	}
	return u
}

// fakeAgent records what the driver asks of it; the test plays its events.
type fakeAgent struct {
	opts       AgentOptions
	pid        int
	events     chan Event
	done       chan struct{}
	sent       chan []Block
	interrupts chan struct{}
	answers    chan fakeAnswer
	closed     atomic.Bool
	closeOnce  sync.Once
}

type fakeAnswer struct {
	RequestID string
	Allow     bool
	Input     json.RawMessage
	Message   string
}

func (a *fakeAgent) Send(ctx context.Context, b []Block) error {
	a.sent <- b
	return nil
}
func (a *fakeAgent) Interrupt(ctx context.Context) error { a.interrupts <- struct{}{}; return nil }
func (a *fakeAgent) AnswerPermission(id string, allow bool, input json.RawMessage, msg string) error {
	a.answers <- fakeAnswer{id, allow, input, msg}
	return nil
}
func (a *fakeAgent) Events() <-chan Event  { return a.events }
func (a *fakeAgent) PID() int              { return a.pid }
func (a *fakeAgent) SessionID() string     { return a.opts.SessionID }
func (a *fakeAgent) Done() <-chan struct{} { return a.done }
func (a *fakeAgent) Close() error {
	a.closeOnce.Do(func() { a.closed.Store(true); close(a.done) })
	return nil
}
func (a *fakeAgent) emit(t testing.TB, e Event) {
	t.Helper()
	select {
	case a.events <- e:
	case <-time.After(5 * time.Second):
		t.Fatalf("the driver did not take %T", e)
	}
}

// agents starts fake agents and hands each to the test.
type agents struct {
	n       atomic.Int32
	started chan *fakeAgent
}

func newAgents() *agents { return &agents{started: make(chan *fakeAgent, 8)} }

func (s *agents) start(ctx context.Context, o AgentOptions) (Agent, error) {
	n := s.n.Add(1)
	a := &fakeAgent{opts: o, pid: 40000 + int(n), events: make(chan Event, 256), done: make(chan struct{}),
		sent: make(chan []Block, 8), interrupts: make(chan struct{}, 4), answers: make(chan fakeAnswer, 4)}
	s.started <- a
	return a, nil
}

func (s *agents) next(t testing.TB) *fakeAgent {
	t.Helper()
	return testutil.Wait(t, "an agent to start", s.started)
}

// rig is a manager running against a real host.
type rig struct {
	h      *testHost
	m      *Manager
	store  *conversations.Store
	agents *agents
	cancel context.CancelFunc
}

func newRig(t testing.TB, tweak func(*Options)) *rig {
	t.Helper()
	return newRigOn(t, startHost(t), tweak)
}

// newRigOn is newRig on a host of the test's.
func newRigOn(t testing.TB, h *testHost, tweak func(*Options)) *rig {
	t.Helper()
	store := conversations.New(conversations.Options{Root: filepath.Join(h.paths.Home, "conversations"), DefaultDir: filepath.Join(h.paths.Home, "Lets")})
	ag := newAgents()
	opts := Options{Paths: h.paths, Store: store, Start: ag.start, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		// The pad daemon a test started (startPadDaemon) is named in the
		// test host's host.json; Lets' own root passes its daemon's.
		WireSocket: func() string {
			info, err := config.ReadHostInfo(h.paths)
			if err != nil {
				return ""
			}
			return info.WireSocket
		}}
	if testing.Verbose() {
		opts.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	if tweak != nil {
		tweak(&opts)
	}
	m, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	r := &rig{h: h, m: m, store: store, agents: ag, cancel: cancel}
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Error("the manager did not stop")
		}
	})
	// Run sets its context on its own goroutine: wait for it.
	testutil.Eventually(t, "the manager runs", func() bool {
		m.mu.Lock()
		defer m.mu.Unlock()
		return m.ctx != nil
	})
	return r
}

func (r *rig) open(t testing.TB, convID string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	win, err := r.m.Open(ctx, convID)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	return win
}

// frame is a down-envelope the shell received.
type frame struct {
	ID   string          `json:"id"`
	Type string          `json:"type"`
	Re   string          `json:"re"`
	Data json.RawMessage `json:"data"`
	at   time.Time
}

// fakeShell is a window's shell channel opened as the shell page opens
// it; every frame it receives is checked against the LIP schemas (and the
// chat unique's own command schemas).
type fakeShell struct {
	t      testing.TB
	ws     *websocket.Conn
	mu     sync.Mutex
	n      int
	frames chan frame
	bad    chan string
}

var (
	schemaOnce sync.Once
	lipSchema  *jsonschema.Schema
	talkSchema map[string]*jsonschema.Schema
	schemaErr  error
)

func compileSchemas() {
	lipSchema, schemaErr = schemas.Compile("lip-messages.schema.json")
	if schemaErr != nil {
		return
	}
	talkSchema = map[string]*jsonschema.Schema{}
	c := jsonschema.NewCompiler()
	for typ, file := range map[string]string{"talk.load": "commands/load.json", "talk.welcome": "commands/welcome.json", "talk.agent": "commands/agent.json", "talk.stop": "events/stop.json"} {
		p, _ := filepath.Abs(filepath.Join("..", "..", "uniques", "chat", "schemas", file))
		s, err := c.Compile(p)
		if err != nil {
			schemaErr = err
			return
		}
		talkSchema[typ] = s
	}
}

func validate(t testing.TB, raw []byte, typ string, data json.RawMessage) string {
	schemaOnce.Do(compileSchemas)
	if schemaErr != nil {
		t.Fatalf("schemas: %v", schemaErr)
	}
	if err := schemas.ValidateJSON(lipSchema, raw); err != nil {
		return typ + ": " + err.Error()
	}
	if s := talkSchema[typ]; s != nil {
		if err := schemas.ValidateJSON(s, data); err != nil {
			return typ + " data: " + err.Error()
		}
	}
	return ""
}

func dialShell(t testing.TB, h *testHost, window string) *fakeShell {
	t.Helper()
	resp, err := http.Get(h.url(t, window))
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
		t.Fatalf("load the window page: %d, no window token", resp.StatusCode)
	}
	port := strconv.Itoa(h.srv.Port())
	ws, _, err := websocket.DefaultDialer.Dial("ws://127.0.0.1:"+port+"/lip/ws?t="+cfg.Token, http.Header{"Origin": {"http://127.0.0.1:" + port}})
	if err != nil {
		t.Fatalf("dial the shell channel: %v", err)
	}
	s := &fakeShell{t: t, ws: ws, frames: make(chan frame, 4096), bad: make(chan string, 64)}
	t.Cleanup(func() { _ = ws.Close() })
	go func() {
		defer close(s.frames)
		for {
			_, data, err := ws.ReadMessage()
			if err != nil {
				return
			}
			now := time.Now()
			var list []json.RawMessage
			if len(data) > 0 && data[0] == '[' {
				_ = json.Unmarshal(data, &list)
			} else {
				list = []json.RawMessage{data}
			}
			var ids []string
			for _, raw := range list {
				var f frame
				_ = json.Unmarshal(raw, &f)
				f.at = now
				if msg := validate(t, raw, f.Type, f.Data); msg != "" {
					select {
					case s.bad <- msg:
					default:
					}
				}
				if f.ID != "" && !strings.HasPrefix(f.Type, "lip.") {
					ids = append(ids, f.ID)
				}
				s.frames <- f
			}
			if len(ids) > 0 {
				s.writeQuiet(map[string]any{"lip": 1, "id": "ack-" + strconv.FormatInt(now.UnixNano(), 36), "type": "lip.ack", "from": "shell", "data": map[string]any{"ids": ids}})
			}
		}
	}()
	s.write(map[string]any{"lip": 1, "id": "hello-1", "type": "lip.hello", "from": "shell", "data": map[string]any{"shell": "test", "version": "0", "window": window, "medium": "screen", "caps": []string{}}})
	s.write(map[string]any{"lip": 1, "id": "ready-1", "type": "lip.ready", "from": "shell", "data": map[string]any{}})
	t.Cleanup(func() {
		select {
		case msg := <-s.bad:
			t.Errorf("a frame does not match its schema: %s", msg)
		default:
		}
	})
	return s
}

func (s *fakeShell) write(v any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.ws.SetWriteDeadline(time.Now().Add(2 * time.Second))
	if err := s.ws.WriteJSON(v); err != nil {
		s.t.Errorf("write to the shell channel: %v", err)
	}
}

// writeQuiet writes without failing the test (the acks of a closing
// channel).
func (s *fakeShell) writeQuiet(v any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.ws.SetWriteDeadline(time.Now().Add(2 * time.Second))
	_ = s.ws.WriteJSON(v)
}

// emit sends an up-event; it returns the envelope id.
func (s *fakeShell) emit(typ, from string, data any) string {
	s.mu.Lock()
	s.n++
	id := "up-" + strconv.Itoa(s.n)
	s.mu.Unlock()
	s.write(map[string]any{"lip": 1, "id": id, "type": typ, "from": from, "data": data})
	return id
}

// next returns the next frame of typ (skipping others); match, when set,
// must accept it too.
func (s *fakeShell) next(typ string, within time.Duration, match func(frame) bool) frame {
	s.t.Helper()
	return s.nextWhere(typ, within, func(f frame) bool { return f.Type == typ && (match == nil || match(f)) })
}

// nextWhere returns the next frame match accepts (skipping others), for
// frames whose order between them is not fixed.
func (s *fakeShell) nextWhere(what string, within time.Duration, match func(frame) bool) frame {
	s.t.Helper()
	timer := time.NewTimer(within)
	defer timer.Stop()
	for {
		select {
		case f, ok := <-s.frames:
			if !ok {
				s.t.Fatalf("the shell channel closed before %s", what)
			}
			if f.Type == "lip.error" {
				s.t.Logf("lip.error: %s", f.Data)
			}
			if match(f) {
				return f
			}
		case <-timer.C:
			s.t.Fatalf("no %s within %v", what, within)
			return frame{}
		}
	}
}

func dataMap(f frame) map[string]any {
	var m map[string]any
	_ = json.Unmarshal(f.Data, &m)
	return m
}

func moodIs(m string) func(frame) bool {
	return func(f frame) bool { return dataMap(f)["mood"] == m }
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
