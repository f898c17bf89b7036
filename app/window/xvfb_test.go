package window_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
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

	"github.com/lets-app/lets/app/window/guitest"
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

func TestMain(m *testing.M) {
	code := m.Run()
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
	xvfb := testutil.Command(tb, "Xvfb")
	testutil.Command(tb, "xwininfo")
	testutil.Command(tb, "import")
	dbusRun := testutil.Command(tb, "dbus-run-session")
	bin := buildGUI(tb)

	// Xvfb picks a free display itself and writes its number to fd 3.
	r, w, err := os.Pipe()
	if err != nil {
		tb.Fatal(err)
	}
	x := exec.Command(xvfb, "-displayfd", "3", "-screen", "0", "1280x800x24", "-nolisten", "tcp")
	x.ExtraFiles = []*os.File{w}
	if err := x.Start(); err != nil {
		tb.Fatalf("start Xvfb: %v", err)
	}
	w.Close()
	tb.Cleanup(func() { _ = x.Process.Kill(); _ = x.Wait() })
	num := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		num <- strings.TrimSpace(line)
		r.Close()
	}()
	var display string
	select {
	case n := <-num:
		if n == "" {
			tb.Fatal("Xvfb did not say which display it took")
		}
		display = ":" + n
	case <-time.After(15 * time.Second):
		tb.Fatal("Xvfb did not start within 15 s")
	}

	g := &guiRig{tb: tb, bin: bin, display: display, home: tb.TempDir(), logs: &bytes.Buffer{}}
	g.env = append(os.Environ(), "DISPLAY="+display, "LETS_HOME="+g.home, "WAYLAND_DISPLAY=", "LETS_LOG=debug",
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
	deadline := time.Now().Add(20 * time.Second)
	for {
		info, err := config.ReadHostInfo(config.Paths{Home: g.home})
		if err == nil {
			g.info = info
			break
		}
		if time.Now().After(deadline) {
			tb.Fatalf("lets serve wrote no host.json within 20 s:\n%s", g.logText())
		}
		time.Sleep(25 * time.Millisecond)
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
		Window  string `json:"window"`
		URL     string `json:"url"`
		Browser string `json:"browser"`
	}
	if err := json.Unmarshal([]byte(out), &ans); err != nil {
		g.tb.Fatalf("lets open --json: %v\n%s", err, out)
	}
	if ans.URL != "" || ans.Browser != "launched by Lets" {
		g.tb.Fatalf("lets open handed the window to a browser instead of a native window: %s", out)
	}
	deadline := start.Add(15 * time.Second)
	var mapped, connected bool
	for time.Now().Before(deadline) {
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
		if mapped && connected {
			return ans.Window, time.Since(start)
		}
		time.Sleep(15 * time.Millisecond)
	}
	g.tb.Fatalf("window %s: on screen %v, shell connected %v after 15 s\n%s", ans.Window, mapped, connected, g.logText())
	return "", 0
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
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
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
				return e.Data["reason"], time.UnixMilli(e.TS)
			}
		}
	}
	g.tb.Fatalf("no session.closed for %s within 10 s", win)
	return "", time.Time{}
}

// waitGone waits until pid has ended (or is a zombie being reaped) and
// returns how long that took from since.
func waitGone(tb testing.TB, pid int, since time.Time, within time.Duration) time.Duration {
	tb.Helper()
	for time.Since(since) < within+2*time.Second {
		if zombie(pid) {
			return time.Since(since)
		}
		time.Sleep(10 * time.Millisecond)
	}
	tb.Fatalf("window process %d still runs %v after it was closed", pid, time.Since(since))
	return 0
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
	// The shell's first frame needs a moment to paint after it connects.
	time.Sleep(700 * time.Millisecond)
	shot := filepath.Join(browsertest.ScreenshotDir(t), "window-hello.png")
	if out, err := g.x("import", "-window", "root", shot); err != nil {
		t.Fatalf("screenshot: %v\n%s", err, out)
	}
	t.Logf("screenshot: %s", shot)
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
	// process.
	start := time.Now()
	g.lets("close", win)
	waitGone(t, pid, start, 2*time.Second)
	endedAt := time.Now()
	reason, closedAt := g.closed(win)
	if reason != "claude" {
		t.Fatalf("session.closed reason %q, want claude", reason)
	}
	// endedAt is when polling saw the process gone, so it is late by up
	// to one poll (10 ms).
	lag := endedAt.Sub(closedAt)
	t.Logf("lets close → process gone: %v; session.closed → process gone: %v", endedAt.Sub(start), lag)
	if lag > time.Second {
		t.Errorf("the window process ended %v after session.closed, over 1 s", lag)
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
	start = time.Now()
	g.closeLikeAPerson(helloTitle)
	waitGone(t, pid3, start, 5*time.Second)
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
	start = time.Now()
	if err := syscall.Kill(g.servePID(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitGone(t, pid4, start, 2*time.Second)
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
func BenchmarkWindowOpen(b *testing.B) {
	const perRound = 3
	var opens []time.Duration
	var first, extra, cpu []float64
	for range b.N {
		b.StopTimer()
		g := startGUIRig(b)
		var pids []int
		for range perRound {
			before := g.windowPIDs()
			b.StartTimer()
			_, took := g.open()
			b.StopTimer()
			opens = append(opens, took)
			pid := onlyNew(b, before, g.windowPIDs())
			cpu = append(cpu, treeCPU(b, pid).Seconds()*1000)
			pids = append(pids, pid)
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
