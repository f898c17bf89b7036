package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/godbus/dbus/v5"

	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/hostapi"
	"github.com/lets-app/lets/backend/testenv/browsertest"
	"github.com/lets-app/lets/backend/testenv/claudestub"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/backend/wire"
)

// The end-to-end tests of issue #15 run "Chat with Claude" as a person
// meets it: the desktop Lets (`lets desktop`, what double-clicking Lets
// runs) on a real X display (Xvfb) with a session bus and a fake tray host;
// this build has no native windows, so a chat window opens in "the
// browser" — a fake xdg-open on PATH that writes the one-time URL down,
// which the test then loads in headless Chromium. The conversation's
// Claude Code is the real CLI (testutil.Claude) against claudestub's
// scripted Messages API on 127.0.0.1, started by Lets itself with `lets
// mcp` and Lets' hooks.

// chatE2E is one desktop Lets whose chat runs the real Claude Code.
type chatE2E struct {
	*e2eHost
	stub    *claudestub.Server // nil for the first-run screens
	opened  string             // the fake browser's list of URLs
	bus     *dbus.Conn
	watcher *fakeWatcher
	proc    *exec.Cmd // the running lets desktop
	// handed are the browser's URLs already returned by browserURL: after
	// a restart window ids start again at w1, and the opener hands the
	// browser its page a moment after `lets chat` answers, so the old
	// w1 line must not count as the new one.
	handed map[string]bool
}

// chatE2EOptions are the knobs of one chat rig.
type chatE2EOptions struct {
	approval time.Duration // approvalTimeoutS of the hooks' approval card
	// claudeDir goes on PATH before everything else: the real claude's
	// folder, or a folder of a fake one ("" for none at all).
	claudeDir string
	stub      *claudestub.Server
}

// startChatE2E starts the desktop session, the fake tray host and `lets
// desktop` with o's claude and stub.
func startChatE2E(t *testing.T, o chatE2EOptions) *chatE2E {
	t.Helper()
	ds := startDesktopSession(t)
	conn, watcher := startWatcher(t, ds.busAddr)
	h := newE2EHost(t, e2eConfig(o.approval))
	c := &chatE2E{e2eHost: h, stub: o.stub, bus: conn, watcher: watcher}
	if o.stub != nil {
		t.Cleanup(func() {
			if !t.Failed() {
				return
			}
			for i, req := range o.stub.MainRequests() {
				last := ""
				if n := len(req.Messages); n > 0 {
					for _, b := range req.Messages[n-1].Blocks() {
						last += b.Type + ":" + b.ResultText() + " "
					}
				}
				t.Logf("stub request %d: %d messages, the last: %.300s", i, len(req.Messages), last)
			}
		})
	}
	browser := filepath.Join(h.home, ".fake-browser")
	if err := os.MkdirAll(browser, 0o700); err != nil {
		t.Fatal(err)
	}
	c.opened = filepath.Join(browser, "opened")
	script := fakeBrowserScript(c.opened)
	if err := os.WriteFile(filepath.Join(browser, "xdg-open"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	path := browser + string(os.PathListSeparator)
	if o.claudeDir != "" {
		path += o.claudeDir + string(os.PathListSeparator)
	}
	path += os.Getenv("PATH")
	var base []string
	if o.stub != nil {
		base = o.stub.Env(h.home)
	} else {
		// No stub: the first-run screens never reach a model.
		base = []string{"HOME=" + h.home, "XDG_CONFIG_HOME=" + h.home + "/.config", "CLAUDE_CONFIG_DIR=" + h.home + "/.claude"}
	}
	h.env = append(base, "PATH="+path,
		config.HomeEnv+"="+h.letsHome, "PAD_LATTICE_SOCKET="+h.sock, "LANG=C.UTF-8",
		"DISPLAY="+ds.display, "WAYLAND_DISPLAY=", "LETS_LOG=debug", "DBUS_SESSION_BUS_ADDRESS="+ds.busAddr)
	c.start(t)
	return c
}

// start runs `lets desktop --port 0` in its own process group and waits
// until it serves (again after stop, for a restart).
func (c *chatE2E) start(t *testing.T) {
	t.Helper()
	out := &syncBuffer{}
	c.out = out
	cmd := exec.Command(c.bin, "desktop", "--port", "0")
	cmd.Env = c.env
	cmd.Dir = c.home
	cmd.Stdout, cmd.Stderr = out, out
	c.done, _ = startGroup(t, cmd, "lets desktop")
	c.pgid = cmd.Process.Pid
	c.proc = cmd
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("lets desktop output:\n%s", out.String())
			if log, err := os.ReadFile(config.Paths{Home: c.letsHome}.LogFile()); err == nil {
				t.Logf("lets.log:\n%s", log)
			}
		}
	})
	testutil.Eventually(t, "lets desktop serves (its host.json written, Press Ctrl+C printed)", func() bool {
		info, err := config.ReadHostInfo(config.Paths{Home: c.letsHome})
		if err == nil && info.PID == cmd.Process.Pid && strings.Contains(out.String(), "Press Ctrl+C") {
			c.info = info
			return true
		}
		return false
	})
}

// letsCmd runs one lets command against this Lets and returns its stdout.
func (c *chatE2E) letsCmd(t *testing.T, within time.Duration, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.bin, args...)
	cmd.Env = c.env
	cmd.Dir = c.home
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("lets %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.String())
	}
	return out
}

// openChat runs `lets chat --json` (with --conversation when conv is set)
// and returns the window and its one-time URL: from the answer when it
// carries one, else from the fake browser the desktop Lets opened it in.
func (c *chatE2E) openChat(t *testing.T, conv string) (window, url string) {
	t.Helper()
	args := []string{"chat", "--json"}
	if conv != "" {
		args = append(args, "--conversation", conv)
	}
	began := time.Now()
	out := c.letsCmd(t, 90*time.Second, args...)
	var a struct {
		Window string `json:"window"`
		URL    string `json:"url"`
	}
	if err := json.Unmarshal(out, &a); err != nil || a.Window == "" {
		t.Fatalf("lets chat --json printed %s (%v)", out, err)
	}
	t.Logf("lets chat opened window %s in %v", a.Window, time.Since(began).Round(time.Millisecond))
	if a.URL != "" {
		return a.Window, a.URL
	}
	return a.Window, c.browserURL(t, a.Window)
}

// browserURL waits for the fake browser to be given window's URL ("" for
// any window) and returns it.
func (c *chatE2E) browserURL(t *testing.T, window string) string {
	t.Helper()
	want := "/w/"
	if window != "" {
		want = "/w/" + window + "/"
	}
	var url string
	testutil.EventuallyNoError(t, "the chat window's one-time URL reaches the browser", func() error {
		data, _ := os.ReadFile(c.opened)
		for _, line := range strings.Split(string(data), "\n") {
			if line = strings.TrimSpace(line); strings.Contains(line, want) && !c.handed[line] {
				url = line
			}
		}
		if url == "" {
			return fmt.Errorf("the browser was given %q (and %d addresses before)", data, len(c.handed))
		}
		return nil
	})
	if c.handed == nil {
		c.handed = map[string]bool{}
	}
	c.handed[url] = true
	return url
}

// conversations is `lets chat --list --json`, newest first.
func (c *chatE2E) conversations(t *testing.T) []hostapi.ChatInfo {
	t.Helper()
	var got struct {
		Conversations []hostapi.ChatInfo `json:"conversations"`
	}
	out := c.letsCmd(t, 30*time.Second, "chat", "--list", "--json")
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("lets chat --list --json: %v\n%s", err, out)
	}
	return got.Conversations
}

// e2eWindowInfo is one entry of GET /lip/windows.
type e2eWindowInfo struct {
	Window    string `json:"window"`
	Unique    string `json:"unique"`
	Connected bool   `json:"connected"`
	ClaudePID int    `json:"claude_pid"`
}

// windows is GET /lip/windows.
func (c *chatE2E) windows(t *testing.T) []e2eWindowInfo {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base()+"/lip/windows", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+c.info.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET /lip/windows: %v", err)
	}
	defer resp.Body.Close()
	var ans struct {
		Windows []e2eWindowInfo `json:"windows"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&ans); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /lip/windows: %d %v", resp.StatusCode, err)
	}
	return ans.Windows
}

// window returns the entry of one window, failing when it is not open.
func (c *chatE2E) window(t *testing.T, id string) e2eWindowInfo {
	t.Helper()
	for _, w := range c.windows(t) {
		if w.Window == id {
			return w
		}
	}
	t.Fatalf("window %s is not in GET /lip/windows", id)
	return e2eWindowInfo{}
}

// chatClaudePID is the pid of the claude the chat window is bound to.
func (c *chatE2E) chatClaudePID(t *testing.T, window string) int {
	t.Helper()
	pid := c.window(t, window).ClaudePID
	if pid <= 0 {
		t.Fatalf("the chat window %s is bound to no claude process", window)
	}
	return pid
}

// waitState waits until the Wire daemon shows a claude session in state.
func (c *chatE2E) waitState(t *testing.T, state wire.State) wire.StatusSession {
	t.Helper()
	cl := c.wire()
	var got wire.StatusSession
	testutil.Eventually(t, fmt.Sprintf("a claude session is %s", state), func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		st, err := cl.Status(ctx)
		cancel()
		for _, s := range st.Sessions {
			if err == nil && s.Backend == "claude" && s.State == state {
				got = s
				return true
			}
		}
		return false
	})
	return got
}

// timedSay is a script step that answers text (one word per delta, each
// after delay) and tells when it handed the turn out.
func timedSay(text string, delay time.Duration, handed chan<- time.Time) claudestub.Step {
	return func(claudestub.Request) claudestub.Turn {
		handed <- time.Now()
		return claudestub.Turn{Text: text, WordDelay: delay}
	}
}

// requestStep hands the request that asked for the turn to the test and
// answers turn.
func requestStep(got chan<- claudestub.Request, turn claudestub.Turn) claudestub.Step {
	return func(req claudestub.Request) claudestub.Turn {
		got <- req
		return turn
	}
}

// chatPage is a chat window loaded in headless Chromium.
type chatPage struct {
	t      *testing.T
	ctx    context.Context
	mu     sync.Mutex
	worlds map[string]string // origin → JavaScript world (the unique runs cross-origin)
	frames []wsFrame         // LIP frames the shell page received, in order
}

// wsFrame is one WebSocket frame the shell page received.
type wsFrame struct {
	at   time.Time
	data string
}

// received returns the frames so far whose payload contains s.
func (p *chatPage) received(s string) []wsFrame {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []wsFrame
	for _, f := range p.frames {
		if strings.Contains(f.data, s) {
			out = append(out, f)
		}
	}
	return out
}

// logPrompts logs what went over the shell's channel about prompts,
// talk and messages, for a failing test.
func (p *chatPage) logPrompts() {
	for _, f := range p.received("") {
		if strings.Contains(f.data, "shell.") || strings.Contains(f.data, "talk.") || strings.Contains(f.data, "chat.message") || strings.Contains(f.data, `"done":true`) {
			p.t.Logf("%s the shell's channel: %.400s", f.at.Format("15:04:05.000"), f.data)
		}
	}
}

// openChatPage starts Chromium and loads the chat window's URL.
func openChatPage(t *testing.T, url, scheme string) *chatPage {
	t.Helper()
	ctx := browsertest.New(t, browsertest.Options{Width: 900, Height: 760, Timeout: 6 * time.Minute})
	p := &chatPage{t: t, ctx: ctx, worlds: map[string]string{}}
	chromedp.ListenTarget(ctx, func(ev any) {
		if e, ok := ev.(*network.EventWebSocketFrameReceived); ok {
			p.mu.Lock()
			p.frames = append(p.frames, wsFrame{at: time.Now(), data: e.Response.PayloadData})
			p.mu.Unlock()
		}
		if e, ok := ev.(*network.EventWebSocketClosed); ok {
			p.mu.Lock()
			p.frames = append(p.frames, wsFrame{at: time.Now(), data: "CLOSED shell. websocket " + string(e.RequestID)})
			p.mu.Unlock()
		}
		if e, ok := ev.(*network.EventWebSocketFrameSent); ok {
			p.mu.Lock()
			p.frames = append(p.frames, wsFrame{at: time.Now(), data: "SENT " + e.Response.PayloadData})
			p.mu.Unlock()
		}
		if e, ok := ev.(*runtime.EventExecutionContextCreated); ok {
			var aux struct {
				IsDefault bool `json:"isDefault"`
			}
			_ = json.Unmarshal(e.Context.AuxData, &aux)
			if aux.IsDefault {
				p.mu.Lock()
				p.worlds[e.Context.Origin] = e.Context.UniqueID
				p.mu.Unlock()
			}
		}
	})
	t.Cleanup(func() {
		if t.Failed() {
			p.logPrompts()
		}
	})
	if err := chromedp.Run(ctx, network.Enable(), browsertest.Media("prefers-color-scheme", scheme)); err != nil {
		t.Fatal(err)
	}
	p.load(url)
	return p
}

// load navigates to a chat window's URL and waits until the shell is
// online with its docked chat.
func (p *chatPage) load(url string) {
	p.t.Helper()
	if err := chromedp.Run(p.ctx,
		chromedp.Navigate(url),
		chromedp.WaitVisible(`#lets-shell[data-state="online"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#lets-chat[data-docked="true"] #lets-chat-input`, chromedp.ByQuery),
	); err != nil {
		p.t.Fatalf("the chat window %s did not come up: %v", url, err)
	}
}

// eval evaluates expr in the shell page.
func (p *chatPage) eval(expr string, out any) {
	p.t.Helper()
	if err := chromedp.Run(p.ctx, chromedp.Evaluate(expr, out)); err != nil {
		p.t.Fatalf("in the shell, %s: %v", expr, err)
	}
}

// until waits for expr to be true in the shell page.
func (p *chatPage) until(expr string, within time.Duration) {
	p.t.Helper()
	if !testutil.Poll(within, func() bool { return p.holds(expr) }) {
		var log string
		_ = chromedp.Run(p.ctx, chromedp.Evaluate(`document.getElementById("lets-chat-log")?.innerText ?? ""`, &log))
		p.t.Fatalf("in the shell, %s never became true within %v; the chat log reads:\n%s", expr, within, log)
	}
}

// holds reports whether expr is true in the shell page now.
func (p *chatPage) holds(expr string) bool {
	var ok bool
	return chromedp.Run(p.ctx, chromedp.Evaluate("!!("+expr+")", &ok)) == nil && ok
}

// noModal is true when no modal dialog (an approval card) is open: while
// one is, the rest of the page is inert and keys go to the dialog.
const noModal = `!document.querySelector("dialog[open]")`

// say types text into the chat's box and presses Enter, once the box can
// take keys: no approval card is open and the box has the focus. It then
// waits until the message shows as sent.
func (p *chatPage) say(text string) {
	p.t.Helper()
	p.until(noModal, 30*time.Second)
	if err := chromedp.Run(p.ctx, chromedp.Focus(`#lets-chat-input`, chromedp.ByQuery)); err != nil {
		p.t.Fatalf("focus the chat's box: %v", err)
	}
	p.until(`document.activeElement === document.getElementById("lets-chat-input") && document.getElementById("lets-chat-input").value === ""`, 30*time.Second)
	if err := chromedp.Run(p.ctx, chromedp.SendKeys(`#lets-chat-input`, text+"\r", chromedp.ByQuery)); err != nil {
		p.t.Fatalf("type %q: %v", text, err)
	}
	sent := fmt.Sprintf(`[...document.querySelectorAll("#lets-chat-log .chat-msg.me")].some(e => e.innerText.trim() === %q)`, text)
	if !testutil.Poll(testutil.EventuallyTimeout, func() bool { return p.holds(sent) }) {
		var box, focus string
		p.eval(`document.getElementById("lets-chat-input").value`, &box)
		p.eval(`(document.activeElement?.tagName ?? "") + "#" + (document.activeElement?.id ?? "")`, &focus)
		p.t.Fatalf("typing %q did not send it: the box holds %q, the focus is on %s, a dialog is open: %v", text, box, focus, !p.holds(noModal))
	}
}

// uniqueEval evaluates expr in the chat unique's own frame (its band with
// the Stop button).
func (p *chatPage) uniqueEval(expr string, out any) {
	p.t.Helper()
	var origin string
	p.eval(`new URL(document.getElementById("lets-unique").src).origin`, &origin)
	var id string
	testutil.Eventually(p.t, "the unique at "+origin+" has a JavaScript world", func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		id = p.worlds[origin]
		return id != ""
	})
	err := chromedp.Run(p.ctx, chromedp.ActionFunc(func(ctx context.Context) error {
		res, exc, err := runtime.Evaluate(expr).WithUniqueContextID(id).WithReturnByValue(true).Do(ctx)
		if err != nil {
			return err
		}
		if exc != nil {
			return fmt.Errorf("%s", exc.Text)
		}
		if out != nil && res != nil {
			return json.Unmarshal(res.Value, out)
		}
		return nil
	}))
	if err != nil {
		p.t.Fatalf("in the unique, %s: %v", expr, err)
	}
}

// uniqueUntil waits for expr to be true in the unique's frame.
func (p *chatPage) uniqueUntil(expr string, within time.Duration) {
	p.t.Helper()
	testutil.EventuallyWithin(p.t, within, "in the unique, "+expr, func() bool {
		var ok bool
		p.uniqueEval("!!("+expr+")", &ok)
		return ok
	})
}

// watchReply starts recording every text the next reply bubble shows (a
// MutationObserver on the chat log), and when it first showed text
// (epoch ms, sub-millisecond). Call it before the message is sent.
func (p *chatPage) watchReply() {
	p.t.Helper()
	var ok bool
	p.eval(`(() => {
		const log = document.getElementById("lets-chat-log");
		if (window.__e2eObserver) window.__e2eObserver.disconnect();
		const skip = log.querySelectorAll(".chat-bubble[data-re]").length;
		const w = window.__e2eReply = {states: [], first: 0, done: false};
		const rec = () => {
			const b = log.querySelectorAll(".chat-bubble[data-re]")[skip];
			if (!b) return;
			const s = b.innerText.trim();
			if (s && !w.first) w.first = performance.timeOrigin + performance.now();
			if (s && w.states[w.states.length - 1] !== s) w.states.push(s);
			w.done = b.dataset.done === "true";
		};
		window.__e2eObserver = new MutationObserver(rec);
		window.__e2eObserver.observe(log, {subtree: true, childList: true, characterData: true, attributes: true});
		return true;
	})()`, &ok)
}

// replySeen is what watchReply recorded so far.
type replySeen struct {
	States []string `json:"states"`
	First  float64  `json:"first"`
	Done   bool     `json:"done"`
}

func (p *chatPage) reply() replySeen {
	p.t.Helper()
	var r replySeen
	p.eval(`window.__e2eReply`, &r)
	return r
}

// cardVisible reports whether an approval card's Allow button shows.
const cardVisible = `(() => { const b = document.querySelector('[data-choice="allow"]'); return !!b && b.offsetParent !== null; })()`

// cardText is the text of the approval card on screen.
func (p *chatPage) cardText() string {
	p.t.Helper()
	var s string
	p.eval(`document.querySelector('[data-choice="allow"]').closest("[role]")?.innerText ?? document.body.innerText`, &s)
	return s
}

// cardDetails is the text under the approval card's Details toggle (the
// tool and the raw request), open or not.
func (p *chatPage) cardDetails() string {
	p.t.Helper()
	var s string
	p.eval(`document.querySelector('[data-choice="allow"]')?.closest("dialog")?.querySelector("details")?.textContent ?? ""`, &s)
	return s
}

// click clicks the first element matching sel in the shell.
func (p *chatPage) click(sel string) {
	p.t.Helper()
	if err := chromedp.Run(p.ctx, chromedp.Click(sel, chromedp.ByQuery)); err != nil {
		p.t.Fatalf("click %s: %v", sel, err)
	}
}

// alive reports whether pid still runs.
func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

// nowMS is the wall clock in epoch milliseconds, as the page's
// performance.timeOrigin + performance.now() counts.
func nowMS(t time.Time) float64 { return float64(t.UnixNano()) / 1e6 }

// trayItem waits for this Lets' tray icon (the newest registration, after
// a restart) on the fake tray host.
func (c *chatE2E) trayItem(t *testing.T) registration {
	t.Helper()
	pid := c.proc.Process.Pid
	var item registration
	testutil.Eventually(t, fmt.Sprintf("the tray icon of lets (pid %d) registers with the tray host", pid), func() bool {
		for _, r := range c.watcher.registered() {
			var owner uint32
			if c.bus.BusObject().Call("org.freedesktop.DBus.GetConnectionUnixProcessID", 0, r.sender).Store(&owner) == nil && int(owner) == pid {
				item = r
			}
		}
		return item.sender != ""
	})
	return item
}

// quit picks "Quit Lets" in the tray and waits until Lets has exited.
func (c *chatE2E) quit(t *testing.T) {
	t.Helper()
	item := c.trayItem(t)
	layout, err := getLayout(c.bus, item)
	if err != nil {
		t.Fatal(err)
	}
	q, ok := layout.Find("Quit Lets")
	if !ok {
		t.Fatalf("no Quit in the tray menu:\n%s", strings.Join(layout.Shown(""), "\n"))
	}
	call := c.bus.Object(item.sender, dbus.ObjectPath(item.path+"/menu")).Call("com.canonical.dbusmenu.Event", 0, q.ID, "clicked", dbus.MakeVariant(""), uint32(time.Now().Unix()))
	if de, isDBus := call.Err.(dbus.Error); call.Err != nil && (!isDBus || de.Name != "org.freedesktop.DBus.Error.NoReply") {
		t.Fatalf("click Quit Lets: %v", call.Err)
	}
	testutil.Wait(t, "lets to exit after Quit Lets", c.done)
}

// clickLabelWhenShown clicks the tray item whose label starts with prefix
// once the menu shows it: right after the icon registers, its menu may
// still be empty on a loaded machine.
func clickLabelWhenShown(t *testing.T, conn *dbus.Conn, item registration, prefix string) {
	t.Helper()
	testutil.EventuallyNoError(t, fmt.Sprintf("the tray menu shows %q", prefix), func() error {
		layout, err := getLayout(conn, item)
		if err != nil {
			return err
		}
		n, found := layout.Find(prefix)
		if !found {
			return fmt.Errorf("the menu reads:\n%s", strings.Join(layout.Shown(""), "\n"))
		}
		clickMenu(t, conn, item, n.ID)
		return nil
	})
}
