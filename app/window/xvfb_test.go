package window_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lets-app/lets/app/window"
	"github.com/lets-app/lets/app/window/guitest"
	"github.com/lets-app/lets/app/window/spawn"
	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/testenv/browsertest"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// The real window under Xvfb: a Lets binary built with the desktop tags,
// `lets serve` with a display, `lets open hello`, and the window process
// that it starts.

// helloTitle is the built-in hello unique's title, the window's title.
const helloTitle = "Hello — say hi to Claude"

// gui builds the GUI binary once per test run.
var gui = guitest.Builder{
	ModuleRoot: "../..",
	Command:    testutil.Command,
	Missing: func(tb testing.TB, what, fix string) {
		tb.Helper()
		testutil.Missing(tb, testutil.RequireToolsEnv, what, fix)
	},
}

// display is the package's one Xvfb, shared by its tests (each starts its
// own `lets serve` on it).
var display = guitest.Display{Command: testutil.Command}

func TestMain(m *testing.M) {
	code := m.Run()
	display.Stop()
	gui.Cleanup()
	os.Exit(code)
}

// buildGUI builds the Lets binary with the desktop tags once per test run.
func buildGUI(tb testing.TB) string {
	tb.Helper()
	return gui.Build(tb)
}

// guiRig is Xvfb, a session bus and `lets serve` built with windows.
type guiRig struct {
	tb      testing.TB
	bin     string
	display string
	home    string
	env     []string
	serve   *exec.Cmd
	logs    *bytes.Buffer
	info    config.HostInfo
}

func startGUIRig(tb testing.TB) *guiRig {
	tb.Helper()
	testutil.Command(tb, "xwininfo")
	testutil.Command(tb, "import")
	dbusRun := testutil.Command(tb, "dbus-run-session")
	bin := buildGUI(tb)
	disp := display.Name(tb)

	g := &guiRig{tb: tb, bin: bin, display: disp, home: tb.TempDir(), logs: &bytes.Buffer{}}
	// The desktop browser of this session only writes down what Lets asks
	// it to open (the address inside the opener's redirect page): a home
	// link Lets shows itself (POST /lip/home-link answers only where it
	// went, issue #23) is read from there.
	browser := filepath.Join(g.home, ".fake-browser")
	if err := os.MkdirAll(browser, 0o700); err != nil {
		tb.Fatal(err)
	}
	script := "#!/bin/sh\na=\"$1\"\ncase \"$a\" in file://*) a=$(sed -n 's/^<meta http-equiv=\"refresh\" content=\"0;url=\\(.*\\)\">$/\\1/p' \"${a#file://}\" | sed 's/&amp;/\\&/g') ;; esac\nprintf '%s\\n' \"$a\" >> '" + filepath.Join(browser, "opened") + "'\n"
	if err := os.WriteFile(filepath.Join(browser, "xdg-open"), []byte(script), 0o755); err != nil {
		tb.Fatal(err)
	}
	g.env = append(os.Environ(), "PATH="+browser+string(os.PathListSeparator)+os.Getenv("PATH"), "DISPLAY="+disp, "LETS_HOME="+g.home, "WAYLAND_DISPLAY=", "LETS_LOG=debug",
		// Whatever the outer session says, windows talk to this display.
		"XDG_SESSION_TYPE=x11", "GDK_BACKEND=x11",
		// The test's bus is new: without this, GTK's first window would
		// wait for the accessibility bus to be started on it, which a
		// desktop session has running long before Lets opens a window.
		"NO_AT_BRIDGE=1")
	g.serve = exec.Command(dbusRun, "--", bin, "serve", "--port", "0", "--no-pad")
	g.serve.Env = g.env
	g.serve.Stdout = &lockedWriter{w: g.logs}
	g.serve.Stderr = g.serve.Stdout
	g.serve.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := g.serve.Start(); err != nil {
		tb.Fatalf("start lets serve: %v", err)
	}
	tb.Cleanup(g.stop)
	if !testutil.Poll(testutil.EventuallyTimeout, func() bool {
		info, err := config.ReadHostInfo(config.Paths{Home: g.home})
		g.info = info
		return err == nil
	}) {
		tb.Fatalf("lets serve wrote no host.json within %v:\n%s", testutil.EventuallyTimeout, g.logText())
	}
	return g
}

func (g *guiRig) logText() string {
	lw := g.serve.Stdout.(*lockedWriter)
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return g.logs.String()
}

// stop ends lets serve (it ends its windows) and the session bus.
func (g *guiRig) stop() {
	if g.serve.Process == nil {
		return
	}
	_ = syscall.Kill(-g.serve.Process.Pid, syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = g.serve.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-g.serve.Process.Pid, syscall.SIGKILL)
		<-done
	}
	// On a test display every window must start the first time: a window
	// that Lets had to start again (its GTK could not open the display) is
	// a fault of the test's set-up, which a retry would hide.
	if strings.Contains(g.logText(), spawn.RetryMessage) {
		g.tb.Errorf("a window process had to be started a second time (%q in the log of lets serve)", spawn.RetryMessage)
	}
	if g.tb.Failed() {
		g.tb.Logf("lets serve output:\n%s", g.logText())
	}
}

// lets runs one CLI command against the rig's host.
func (g *guiRig) lets(args ...string) string {
	g.tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, g.bin, args...)
	cmd.Env = g.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		g.tb.Fatalf("lets %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

type listedWindow struct {
	Window    string `json:"window"`
	Unique    string `json:"unique"`
	Title     string `json:"title"`
	Connected bool   `json:"connected"`
}

// windows asks the host directly (GET /lip/windows): polling through the
// CLI would start a process every few milliseconds and skew the timing.
func (g *guiRig) windows() []listedWindow {
	g.tb.Helper()
	req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/lip/windows", g.info.Port), nil)
	req.Header.Set("Authorization", "Bearer "+g.info.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		g.tb.Fatalf("GET /lip/windows: %v", err)
	}
	defer resp.Body.Close()
	var body struct {
		Windows []listedWindow `json:"windows"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		g.tb.Fatalf("GET /lip/windows: %v", err)
	}
	return body.Windows
}

// open runs `lets open hello` and waits until the window is on screen
// (xwininfo lists it under its title, mapped) and its shell connected to
// the host. It returns the window id and how long that took.
func (g *guiRig) open() (string, time.Duration) {
	g.tb.Helper()
	before := g.windowPIDs()
	start := time.Now()
	out := g.lets("open", "hello", "--json")
	var ans struct {
		Window string `json:"window"`
		URL    string `json:"url"`
		Shown  string `json:"shown"`
	}
	if err := json.Unmarshal([]byte(out), &ans); err != nil {
		g.tb.Fatalf("lets open --json: %v\n%s", err, out)
	}
	// "window": Lets showed it itself (the new lets-window process is
	// checked below); never a link in the answer.
	if ans.URL != "" || ans.Shown != "window" {
		g.tb.Fatalf("lets open did not show the window itself: %s", out)
	}
	var mapped, connected bool
	if !testutil.Poll(testutil.EventuallyTimeout, func() bool {
		if !mapped {
			mapped = g.titleOnScreen(before)
		}
		if !connected {
			for _, w := range g.windows() {
				if w.Window == ans.Window && w.Connected {
					connected = true
				}
			}
		}
		return mapped && connected
	}) {
		g.tb.Fatalf("window %s: on screen %v, shell connected %v after %v\n%s", ans.Window, mapped, connected, testutil.EventuallyTimeout, g.logText())
	}
	return ans.Window, time.Since(start)
}

// titleOnScreen says whether a viewable top-level window with the hello
// title belongs to a window process started after before was taken.
func (g *guiRig) titleOnScreen(before map[int]bool) bool {
	out, err := g.x("xwininfo", "-root", "-tree")
	if err != nil || !strings.Contains(out, `"`+helloTitle+`"`) {
		return false
	}
	for pid := range g.windowPIDs() {
		if !before[pid] {
			return true
		}
	}
	return false
}

// placeOnScreen is the size and place ("WxH+X+Y") xwininfo shows for
// the window with title.
func (g *guiRig) placeOnScreen(title string) string {
	g.tb.Helper()
	out, err := g.x("xwininfo", "-root", "-tree")
	if err != nil {
		g.tb.Fatalf("xwininfo: %v\n%s", err, out)
	}
	for _, line := range strings.Split(out, "\n") {
		if _, after, ok := strings.Cut(line, `"`+title+`":`); ok {
			if f := strings.Fields(after); len(f) >= 3 {
				return f[len(f)-2]
			}
		}
	}
	g.tb.Fatalf("no window titled %q:\n%s", title, out)
	return ""
}

func (g *guiRig) x(name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = g.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// windowPIDs lists the running `lets window` processes of this rig's
// binary.
func (g *guiRig) windowPIDs() map[int]bool {
	pids := map[int]bool{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		if len(args) == 2 && args[0] == g.bin && args[1] == "window" && !zombie(pid) {
			pids[pid] = true
		}
	}
	return pids
}

func zombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] == 'Z'
}

// onlyNew returns the one pid in now that is not in before.
func onlyNew(tb testing.TB, before, now map[int]bool) int {
	tb.Helper()
	var found []int
	for pid := range now {
		if !before[pid] {
			found = append(found, pid)
		}
	}
	if len(found) != 1 {
		tb.Fatalf("want one new window process, found %v", found)
	}
	return found[0]
}

// closedReason waits for session.closed of win and returns its reason.
func (g *guiRig) closedReason(win string) string {
	g.tb.Helper()
	r, _ := g.closed(win)
	return r
}

// closed waits for session.closed of win and returns its reason and when
// the host published it.
func (g *guiRig) closed(win string) (string, time.Time) {
	g.tb.Helper()
	var reason string
	var at time.Time
	// Each `lets listen` waits up to 2 s for the event itself.
	if testutil.Poll(testutil.EventuallyTimeout, func() bool {
		var res struct {
			Events []struct {
				Type string            `json:"type"`
				TS   int64             `json:"ts"`
				Win  string            `json:"win"`
				Data map[string]string `json:"data"`
			} `json:"events"`
		}
		out := g.lets("listen", "--cursor", "xvfb-test", "--wait", "2s", "--types", "session.closed", "--json")
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			g.tb.Fatalf("lets listen --json: %v\n%s", err, out)
		}
		for _, e := range res.Events {
			if e.Type == "session.closed" && e.Win == win {
				reason, at = e.Data["reason"], time.UnixMilli(e.TS)
				return true
			}
		}
		return false
	}) {
		return reason, at
	}
	g.tb.Fatalf("no session.closed for %s within %v", win, testutil.EventuallyTimeout)
	return "", time.Time{}
}

// waitGone waits until pid has ended (or is a zombie being reaped).
func waitGone(tb testing.TB, pid int) {
	tb.Helper()
	testutil.Eventually(tb, fmt.Sprintf("window process %d ends", pid), func() bool { return zombie(pid) })
}

// screenshot saves the screen as name once the page on it has painted
// (the shell paints its first frame a moment after it connects).
func (g *guiRig) screenshot(name string) string {
	g.tb.Helper()
	shot := filepath.Join(browsertest.ScreenshotDir(g.tb), name)
	last := "no screenshot taken"
	if !testutil.Poll(testutil.EventuallyTimeout, func() bool {
		out, err := g.x("import", "-window", "root", shot)
		if err != nil {
			last = fmt.Sprintf("import: %v\n%s", err, out)
			return false
		}
		painted, err := guitest.Painted(shot)
		last = fmt.Sprintf("painted %v, err %v", painted, err)
		return painted
	}) {
		g.tb.Fatalf("the window's page did not paint within %v (%s)", testutil.EventuallyTimeout, last)
	}
	return shot
}

// treeCPU sums the CPU time (user + system) pid and its descendants have
// used so far: what a window costs regardless of how busy the machine is.
func treeCPU(tb testing.TB, pid int) time.Duration {
	tb.Helper()
	var total time.Duration
	for _, p := range descendants(pid) {
		f := procStat(p)
		if len(f) < 13 {
			continue
		}
		utime, _ := strconv.ParseInt(f[11], 10, 64)
		stime, _ := strconv.ParseInt(f[12], 10, 64)
		// Clock ticks are 1/100 s on Linux (USER_HZ).
		total += time.Duration(utime+stime) * 10 * time.Millisecond
	}
	return total
}

// procStat is the fields of /proc/<pid>/stat after the command name
// (state, ppid, …), or nil when the process is gone.
func procStat(pid int) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(s[i+1:])
}

// descendants is pid and every process below it.
func descendants(pid int) []int {
	children := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		fields := procStat(p)
		if len(fields) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(fields[1])
		children[ppid] = append(children[ppid], p)
	}
	out := []int{pid}
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out
}

// treePSS sums the proportional set size of pid and all its descendants
// (the window process and the WebKit processes it started), in bytes.
func treePSS(tb testing.TB, pid int) (total int64, procs int) {
	tb.Helper()
	for _, p := range descendants(pid) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", p))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if rest, ok := strings.CutPrefix(line, "Pss:"); ok {
				kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
				total += kb << 10
				procs++
			}
		}
	}
	return total, procs
}

type lockedWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestRealWindowUnderXvfb: `lets open hello` against `lets serve` with a
// display opens a native window process (never the browser); its window
// appears under the unique's title and its shell connects to the host; a
// screenshot is saved; closing it through the host ends the process
// within 1 s with session.closed, and its place is remembered; a second
// window killed with SIGKILL is reported as a crash; a third one closed
// the way a person does (WM_DELETE_WINDOW) is reported as human.
func TestRealWindowUnderXvfb(t *testing.T) {
	if testing.Short() {
		t.Skip("builds Lets with the desktop tags and runs WebKit; not in -short")
	}
	g := startGUIRig(t)
	// Where hello's window was last time: it opens there again.
	remembered := `{"version":1,"windows":{"hello":{"x":60,"y":50,"width":900,"height":640}}}`
	if err := os.MkdirAll(filepath.Join(g.home, "state"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(g.home, "state", "windows.json"), []byte(remembered), 0o600); err != nil {
		t.Fatal(err)
	}

	before := g.windowPIDs()
	win, took := g.open()
	pid := onlyNew(t, before, g.windowPIDs())
	// The 1.5 s budget is measured by BenchmarkWindowOpen on a quiet
	// machine; here other tests share the CPU.
	t.Logf("open → window on screen with its shell connected: %v (CPU used by the window's processes: %v)", took, treeCPU(t, pid))
	t.Logf("screenshot: %s", g.screenshot("window-hello.png"))
	if got := g.placeOnScreen(helloTitle); got != "900x640+60+50" {
		t.Errorf("the window opened at %s, not at its remembered place 900x640+60+50", got)
	}
	pss, procs := treePSS(t, pid)
	t.Logf("window PSS: %.1f MB over %d processes (lets window + WebKit)", float64(pss)/(1<<20), procs)

	// The one-time URL is never on a command line.
	cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if strings.Contains(string(cmdline), "?t=") || strings.Contains(string(cmdline), "127.0.0.1") {
		t.Fatalf("window command line %q carries the URL", cmdline)
	}

	// Claude closes it through the host: session.close goes to the shell,
	// the shell goes, the host reports session.closed and ends the
	// process. (How fast, against the one-second promise, is
	// BenchmarkWindowOpen's ms-closed-to-gone.)
	g.lets("close", win)
	waitGone(t, pid)
	if reason := g.closedReason(win); reason != "claude" {
		t.Fatalf("session.closed reason %q, want claude", reason)
	}
	geo := filepath.Join(g.home, "state", "windows.json")
	fi, err := os.Stat(geo)
	if err != nil {
		t.Fatalf("the window's place was not remembered: %v", err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("windows.json mode %o, want 600", fi.Mode().Perm())
	}
	b, _ := os.ReadFile(geo)
	var saved struct {
		Windows map[string]struct{ X, Y, Width, Height int }
	}
	if err := json.Unmarshal(b, &saved); err != nil {
		t.Fatalf("windows.json: %v\n%s", err, b)
	}
	if h := saved.Windows["hello"]; h.Width != 900 || h.Height != 640 || h.X != 60 || h.Y != 50 {
		t.Fatalf("windows.json after closing keeps hello at %+v, want where it was (900x640+60+50):\n%s", h, b)
	}

	// A second window crashes.
	before = g.windowPIDs()
	win2, _ := g.open()
	pid2 := onlyNew(t, before, g.windowPIDs())
	if err := syscall.Kill(pid2, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if r := g.closedReason(win2); r != "crash" {
		t.Fatalf("session.closed reason %q after SIGKILL, want crash", r)
	}

	// A third window is closed by the person (the window's close button,
	// as a window manager sends it): the process ends by itself and the
	// host says "human".
	before = g.windowPIDs()
	win3, _ := g.open()
	pid3 := onlyNew(t, before, g.windowPIDs())
	g.closeLikeAPerson(helloTitle)
	waitGone(t, pid3)
	if r := g.closedReason(win3); r != "human" {
		t.Fatalf("session.closed reason %q after the person closed the window, want human", r)
	}
	for _, w := range g.windows() {
		if w.Window == win || w.Window == win2 || w.Window == win3 {
			t.Fatalf("window %s is still listed after it ended", w.Window)
		}
	}

	// Quitting Lets ends the windows that are still open.
	before = g.windowPIDs()
	g.open()
	pid4 := onlyNew(t, before, g.windowPIDs())
	start := time.Now()
	if err := syscall.Kill(g.servePID(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitGone(t, pid4)
	t.Logf("quit → open window gone: %v", time.Since(start))
}

// servePID is the `lets serve` process under dbus-run-session.
func (g *guiRig) servePID() int {
	g.tb.Helper()
	for _, p := range descendants(g.serve.Process.Pid) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p))
		if err == nil && strings.HasPrefix(string(b), g.bin+"\x00serve\x00") {
			return p
		}
	}
	g.tb.Fatal("lets serve is not running")
	return 0
}

// BenchmarkWindowOpen measures, under Xvfb, how long `lets open hello`
// takes until the native window is on screen with its shell connected
// (budget 1.5 s), and the memory of each window: the total PSS of the
// `lets window` process and the WebKit processes it started, from
// /proc/<pid>/smaps_rollup. Because the wall time depends on how busy the
// machine is, it also reports the CPU time the window's processes used
// until then. Each iteration opens three windows and keeps
// them open, so the second and third show what an extra window costs.
// Then it closes them through the host (`lets close`) and reports how long
// after session.closed each process was gone (the host promises one
// second).
func BenchmarkWindowOpen(b *testing.B) {
	const perRound = 3
	var opens []time.Duration
	var first, extra, cpu, closes []float64
	for range b.N {
		b.StopTimer()
		g := startGUIRig(b)
		var pids []int
		var wins []string
		for range perRound {
			before := g.windowPIDs()
			b.StartTimer()
			win, took := g.open()
			b.StopTimer()
			opens = append(opens, took)
			pid := onlyNew(b, before, g.windowPIDs())
			cpu = append(cpu, treeCPU(b, pid).Seconds()*1000)
			pids = append(pids, pid)
			wins = append(wins, win)
		}
		time.Sleep(time.Second) // let the pages settle before measuring memory
		for i, pid := range pids {
			pss, _ := treePSS(b, pid)
			mb := float64(pss) / (1 << 20)
			if i == 0 {
				first = append(first, mb)
			} else {
				extra = append(extra, mb)
			}
		}
		for i, win := range wins {
			g.lets("close", win)
			// Polled every millisecond (finer than testutil's 5 ms): this
			// is the measurement.
			for limit := time.Now().Add(testutil.EventuallyTimeout); !zombie(pids[i]); time.Sleep(time.Millisecond) {
				if time.Now().After(limit) {
					b.Fatalf("window %s still runs %v after lets close", win, testutil.EventuallyTimeout)
				}
			}
			gone := time.Now()
			_, closedAt := g.closed(win)
			closes = append(closes, float64(gone.Sub(closedAt).Milliseconds()))
		}
		g.stop()
	}
	var sum, worst time.Duration
	for _, d := range opens {
		sum += d
		worst = max(worst, d)
	}
	b.ReportMetric(float64(sum.Milliseconds())/float64(len(opens)), "ms-open-to-painted")
	b.ReportMetric(float64(worst.Milliseconds()), "ms-worst-open")
	b.ReportMetric(mean(cpu), "ms-CPU-to-painted")
	b.ReportMetric(mean(first), "MB-PSS-first-window")
	b.ReportMetric(mean(extra), "MB-PSS-extra-window")
	b.ReportMetric(mean(closes), "ms-closed-to-gone")
	b.ReportMetric(0, "ns/op") // the time per op is the open metric above
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// TestWindowWithoutADisplayServerExitsNoGTK: a window process whose
// DISPLAY names no X server cannot start GTK; it says so and exits with
// window.ExitNoGTK, the one status Lets starts a window again for (not
// the status 2 of a panic inside Wails, which Lets reports as a crash).
func TestWindowWithoutADisplayServerExitsNoGTK(t *testing.T) {
	if testing.Short() {
		t.Skip("builds Lets with the desktop tags; not in -short")
	}
	bin := buildGUI(t)
	// A display number no server has: neither its socket file nor its
	// abstract socket answers.
	var none string
	for n := 1999; n < 2100 && none == ""; n++ {
		path := fmt.Sprintf("/tmp/.X11-unix/X%d", n)
		if _, err := os.Stat(path); err == nil {
			continue
		}
		if c, err := net.Dial("unix", "@"+path); err == nil {
			c.Close()
			continue
		}
		none = fmt.Sprintf(":%d", n)
	}
	if none == "" {
		t.Fatal("every display from :1999 to :2099 has a server")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "window")
	cmd.Env = append(os.Environ(), "DISPLAY="+none, "WAYLAND_DISPLAY=", "XDG_SESSION_TYPE=x11", "GDK_BACKEND=x11", "NO_AT_BRIDGE=1", "LETS_HOME="+t.TempDir())
	cmd.Stdin = strings.NewReader(`{"window":"w1","unique":"hello","title":"Hello","url":"http://127.0.0.1:1/w/w1/?t=x"}` + "\n")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != window.ExitNoGTK {
		t.Fatalf("lets window on %s: %v, want exit status %d\n%s", none, err, window.ExitNoGTK, out)
	}
	if !strings.Contains(string(out), "GTK could not start") {
		t.Fatalf("lets window did not say GTK could not start:\n%s", out)
	}
}
