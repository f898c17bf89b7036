package cli

import (
	"bufio"
	"encoding/json"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// mcpDriver runs app/testdata/mcpclient/drive.mjs: the npm MCP client
// (@modelcontextprotocol/sdk) with `lets mcp` as its stdio server.
type mcpDriver struct {
	t     *testing.T
	in    io.WriteCloser
	lines chan string
}

func startMCPDriver(t *testing.T, h *e2eHost) *mcpDriver {
	t.Helper()
	node := testutil.Command(t, "node")
	sdk := testutil.MCPSDK(t)
	script, err := filepath.Abs(filepath.Join("testdata", "mcpclient", "drive.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, script, sdk, h.bin, "mcp")
	cmd.Env = h.env
	cmd.Dir = h.home
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	startGroup(t, cmd, "the MCP client")
	d := &mcpDriver{t: t, in: in, lines: make(chan string, 64)}
	go func() {
		defer close(d.lines)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 4<<20)
		for sc.Scan() {
			d.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("MCP client stderr:\n%s", stderr.String())
		}
	})
	var hello struct {
		OK, Connected bool
		Server        struct{ Name, Version string }
	}
	d.read(&hello, 20*time.Second)
	if !hello.Connected {
		t.Fatalf("the MCP client did not connect (stderr: %s)", stderr.String())
	}
	t.Logf("connected to MCP server %q %q", hello.Server.Name, hello.Server.Version)
	return d
}

func (d *mcpDriver) read(v any, within time.Duration) {
	d.t.Helper()
	select {
	case line, ok := <-d.lines:
		if !ok {
			d.t.Fatal("the MCP client ended")
		}
		if err := json.Unmarshal([]byte(line), v); err != nil {
			d.t.Fatalf("MCP client line %q: %v", line, err)
		}
	case <-time.After(within):
		d.t.Fatalf("no answer from the MCP client within %v", within)
	}
}

func (d *mcpDriver) request(req map[string]any, v any, within time.Duration) {
	d.t.Helper()
	b, _ := json.Marshal(req)
	if _, err := d.in.Write(append(b, '\n')); err != nil {
		d.t.Fatalf("write to the MCP client: %v", err)
	}
	d.read(v, within)
}

// mcpTool is a tool as the client lists it.
type mcpTool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
}

// mcpResult is a tools/call result as the client returns it.
type mcpResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent map[string]any `json:"structuredContent"`
	IsError           bool           `json:"isError"`
}

func (r mcpResult) text() string {
	var parts []string
	for _, c := range r.Content {
		parts = append(parts, c.Text)
	}
	return strings.Join(parts, "\n")
}

// callRaw calls a tool and returns its result, tool errors included.
func (d *mcpDriver) callRaw(name string, args map[string]any) mcpResult {
	d.t.Helper()
	var ans struct {
		OK     bool      `json:"ok"`
		Error  string    `json:"error"`
		Result mcpResult `json:"result"`
	}
	d.request(map[string]any{"op": "call", "name": name, "arguments": args}, &ans, 70*time.Second)
	if !ans.OK {
		d.t.Fatalf("tools/call %s %v failed in the client: %s", name, args, ans.Error)
	}
	return ans.Result
}

// call calls a tool that must succeed.
func (d *mcpDriver) call(name string, args map[string]any) mcpResult {
	d.t.Helper()
	res := d.callRaw(name, args)
	if res.IsError {
		d.t.Fatalf("tools/call %s %v is a tool error: %s", name, args, res.text())
	}
	return res
}

// TestMCPClientDrivesLetsMCP runs `lets mcp` under the real npm MCP client
// (issue #13 acceptance): it lists the tools with their schemas, and calls
// status, uniques, open (hello), listen (a human chat.message sent through
// the window's shell channel arrives), send (the shell receives the
// command), a failing open (a tool error that says what to do), sessions
// and close, against a real `lets serve`.
func TestMCPClientDrivesLetsMCP(t *testing.T) {
	testutil.Command(t, "node")
	testutil.MCPSDK(t) // before anything starts
	h := startE2EHost(t, `{"web": {"port": 0}}`)
	d := startMCPDriver(t, h)

	var list struct {
		OK    bool      `json:"ok"`
		Error string    `json:"error"`
		Tools []mcpTool `json:"tools"`
	}
	d.request(map[string]any{"op": "list"}, &list, 20*time.Second)
	if !list.OK {
		t.Fatalf("tools/list: %s", list.Error)
	}
	byName := map[string]mcpTool{}
	for _, tool := range list.Tools {
		byName[tool.Name] = tool
	}
	for _, name := range []string{"status", "uniques", "open", "listen", "send", "close", "sessions"} {
		tool, ok := byName[name]
		if !ok {
			t.Errorf("tools/list lacks %s (has %d tools)", name, len(list.Tools))
			continue
		}
		var schema struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(tool.InputSchema, &schema) != nil || schema.Type != "object" || tool.Description == "" {
			t.Errorf("tool %s: description %q, input schema %s", name, tool.Description, tool.InputSchema)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	var openSchema struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := json.Unmarshal(byName["open"].InputSchema, &openSchema); err != nil || openSchema.Properties["unique"] == nil {
		t.Errorf("open's input schema has no unique: %s", byName["open"].InputSchema)
	}

	st := d.call("status", nil)
	if st.StructuredContent == nil || !strings.Contains(st.text(), "running") {
		t.Errorf("status: %q %v", st.text(), st.StructuredContent)
	}
	un := d.call("uniques", nil)
	if !strings.Contains(un.text(), "hello") {
		t.Errorf("uniques does not list hello: %q", un.text())
	}

	op := d.call("open", map[string]any{"unique": "hello"})
	win, _ := op.StructuredContent["window"].(string)
	// Issue #23: the agent gets no window link; the person opens it.
	if win == "" || op.StructuredContent["url"] != nil || strings.Contains(op.text(), "/w/") || !strings.Contains(op.text(), "Opened hello as window "+win) {
		t.Fatalf("open hello: %q %v", op.text(), op.StructuredContent)
	}
	shell := dialE2EShell(t, h, h.personShows(t, win), win)

	// A person types in the window's chat: listen returns it.
	shell.send("chat.message", map[string]any{"text": "hello from a person"})
	var got []any
	testutil.Eventually(t, "listen returns the person's chat.message", func() bool {
		ls := d.call("listen", map[string]any{"wait_ms": 5000, "types": []string{"chat.message"}})
		evs, _ := ls.StructuredContent["events"].([]any)
		for _, e := range evs {
			m, _ := e.(map[string]any)
			data, _ := m["data"].(map[string]any)
			if m["type"] == "chat.message" && data["text"] == "hello from a person" {
				got = append(got, e)
				if !strings.Contains(ls.text(), "hello from a person") {
					t.Errorf("listen's text does not show the message: %q", ls.text())
				}
			}
		}
		return len(got) > 0
	})
	if len(got) != 1 {
		t.Fatalf("listen never returned the person's chat.message (got %v)", got)
	}

	// Claude answers: the window receives the commands.
	sent := d.call("send", map[string]any{"window": win, "type": "hello.show", "data": map[string]any{"text": "hi back"}})
	if !strings.Contains(strings.ToLower(sent.text()), "accepted") && sent.StructuredContent["accepted"] == nil {
		t.Errorf("send: %q %v", sent.text(), sent.StructuredContent)
	}
	cmd := shell.next("hello.show", 10*time.Second)
	if cmd.Data["text"] != "hi back" {
		t.Fatalf("the window got hello.show %v", cmd.Data)
	}
	d.call("send", map[string]any{"window": win, "type": "chat.say", "data": map[string]any{"text": "Nice to meet you.", "done": true}})
	if say := shell.next("chat.say", 10*time.Second); say.Data["text"] != "Nice to meet you." {
		t.Fatalf("the window got chat.say %v", say.Data)
	}

	// A tool error names the LIP error code and what to do, and the client
	// sees it as a tool error (isError), not a protocol failure.
	bad := d.callRaw("open", map[string]any{"unique": "no-such-unique"})
	if !bad.IsError || !strings.Contains(bad.text(), "Lets could not do this") || !strings.Contains(bad.text(), "What to do") {
		t.Errorf("open of a missing unique: %+v", bad)
	}
	d.call("sessions", map[string]any{"unique": "hello"})
	closed := d.call("close", map[string]any{"window": win})
	if closed.text() == "" {
		t.Errorf("close answered no text: %+v", closed)
	}
	if sc := shell.next("session.close", 10*time.Second); sc.Data["reason"] != "claude" {
		t.Errorf("the window was asked to close with %v", sc.Data)
	}
}

// TestMCPClientSurvivesAHostRestart: Lets restarts (new port, new token in
// host.json) while the MCP client stays connected to the same `lets mcp`;
// the next tool calls work without the client noticing.
func TestMCPClientSurvivesAHostRestart(t *testing.T) {
	testutil.Command(t, "node")
	testutil.MCPSDK(t) // before anything starts
	h := startE2EHost(t, `{"web": {"port": 0}, "wire": {"midi": false}}`)
	d := startMCPDriver(t, h)
	d.call("status", nil)
	before := h.info
	h.stop(t)
	h.serve(t)
	if h.info.Token == before.Token {
		t.Fatal("the restarted host kept its token; the test proves nothing")
	}
	st := d.call("status", nil)
	if !strings.Contains(st.text(), "running") {
		t.Errorf("status after the restart: %q", st.text())
	}
	op := d.call("open", map[string]any{"unique": "hello"})
	if home, _ := op.StructuredContent["home"].(string); home != h.base()+"/" {
		t.Errorf("open after the restart points at %q, want the new host %s", home, h.base())
	}
}

// TestMCPClientStartsLetsWhenNoneRuns: with no Lets running (and no
// display), `lets mcp` starts `lets serve` itself and the first tool call
// works.
func TestMCPClientStartsLetsWhenNoneRuns(t *testing.T) {
	testutil.Command(t, "node")
	testutil.MCPSDK(t) // before anything starts
	h := newE2EHost(t, `{"web": {"port": 0}, "wire": {"midi": false}}`)
	// The host lets mcp starts is not in any process group of ours: end it
	// by the pid it wrote to host.json.
	t.Cleanup(func() {
		info, err := config.ReadHostInfo(config.Paths{Home: h.letsHome})
		if err != nil || info.PID <= 0 {
			return
		}
		_ = syscall.Kill(info.PID, syscall.SIGTERM)
		if testutil.Poll(5*time.Second, func() bool { return syscall.Kill(info.PID, 0) != nil }) {
			return
		}
		t.Logf("the host lets mcp started (pid %d) did not stop within 5 s of SIGTERM; killing it", info.PID)
		_ = syscall.Kill(info.PID, syscall.SIGKILL)
	})
	d := startMCPDriver(t, h)
	begin := time.Now()
	st := d.call("status", nil)
	if !strings.Contains(st.text(), "running") {
		t.Errorf("status: %q", st.text())
	}
	info, err := config.ReadHostInfo(config.Paths{Home: h.letsHome})
	if err != nil || syscall.Kill(info.PID, 0) != nil {
		t.Fatalf("no running host after the first tool call: %+v %v", info, err)
	}
	t.Logf("the first tool call, host start included, took %v", time.Since(begin))
}
