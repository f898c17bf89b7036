package cli

import (
	"bufio"
	"context"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/clock"
	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/logging"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// fakeExeWatch watches a temp file on a fake clock; looked receives once
// per look at the file.
func fakeExeWatch(t *testing.T, self func() (string, error)) (*exeWatch, *clock.Fake, string, <-chan struct{}, *testutil.SyncBuffer) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "lets")
	if err := os.WriteFile(path, []byte("program"), 0o755); err != nil {
		t.Fatal(err)
	}
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	looked := make(chan struct{}, 1)
	logs := &testutil.SyncBuffer{}
	w := &exeWatch{
		path:  path,
		clock: clk,
		every: exeWatchEvery,
		stat: func(p string) (fs.FileInfo, error) {
			fi, err := os.Stat(p)
			looked <- struct{}{}
			return fi, err
		},
		self: self,
		log:  logging.New(logs, nil, 0),
	}
	return w, clk, path, looked, logs
}

// tick moves the fake clock one period and waits for the look.
func tick(t *testing.T, clk *clock.Fake, looked <-chan struct{}) {
	t.Helper()
	clk.Advance(exeWatchEvery)
	testutil.Wait(t, "the watcher to look at the program file", looked)
}

// Issue #21: a running Lets whose program file is removed quits (its Run
// returns nil, which stops Lets as Quit does), after two looks in a row
// find it missing; while it is there, Lets runs on.
func TestExeWatchEndsWhenTheProgramIsRemoved(t *testing.T) {
	w, clk, path, looked, logs := fakeExeWatch(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	if err := clk.BlockUntil(ctx, 1); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		tick(t, clk, looked)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	tick(t, clk, looked)
	select {
	case err := <-done:
		t.Fatalf("ended after one missing look: %v", err)
	default:
	}
	tick(t, clk, looked)
	if err := testutil.Wait(t, "the watcher to end", done); err != nil {
		t.Fatalf("Run: %v, want nil (a clean stop)", err)
	}
	if !strings.Contains(logs.String(), "the Lets program was removed") || !strings.Contains(logs.String(), path) {
		t.Errorf("log: %s", logs.String())
	}
}

// A file missing for one look only (an installer replacing it) and an
// update (the running program's file was replaced: /proc/self/exe says
// "(deleted)" but the path is there) do not end Lets; the update is
// noted once. Context cancel ends Run with nil.
func TestExeWatchKeepsRunningThroughAnUpdate(t *testing.T) {
	w, clk, path, looked, logs := fakeExeWatch(t, func() (string, error) { return "/usr/bin/lets (deleted)", nil })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	if err := clk.BlockUntil(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path, path+".old"); err != nil {
		t.Fatal(err)
	}
	tick(t, clk, looked)
	if err := os.WriteFile(path, []byte("new program"), 0o755); err != nil {
		t.Fatal(err)
	}
	for range 4 {
		tick(t, clk, looked)
	}
	select {
	case err := <-done:
		t.Fatalf("ended: %v", err)
	default:
	}
	if n := strings.Count(logs.String(), "a new version of Lets was installed"); n != 1 {
		t.Errorf("update noted %d times, want once:\n%s", n, logs.String())
	}
	cancel()
	if err := testutil.Wait(t, "Run to end with its context", done); err != nil {
		t.Fatalf("Run: %v", err)
	}
}

// linkOrCopy puts the test binary at dst (a hard link when it can).
func linkOrCopy(t *testing.T, src, dst string) {
	t.Helper()
	if os.Link(src, dst) == nil {
		return
	}
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// Issue #21, end to end: `lets` runs from a program file that is then
// removed (as uninstalling the package does); it stops by itself, cleanly
// (exit 0, host.json and the pad socket gone), and says why in lets.log.
func TestLetsQuitsWhenItsProgramIsRemoved(t *testing.T) {
	testutil.ProcFS(t)
	bin := filepath.Join(t.TempDir(), "lets")
	linkOrCopy(t, os.Args[0], bin)
	home := filepath.Join(t.TempDir(), "home")
	sockDir, err := os.MkdirTemp("", "lt")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(sockDir)
	sock := filepath.Join(sockDir, "pad.sock")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(`{"web": {"port": 0}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	// No display: plain `lets` runs headless, which is still the desktop
	// app's start path.
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "LETS_RUN_AS_CLI=1", "LETS_HOME="+home, "PAD_LATTICE_SOCKET="+sock, "DISPLAY=", "WAYLAND_DISPLAY=", "DBUS_SESSION_BUS_ADDRESS=")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		_ = cmd.Process.Kill()
	}()
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	ready := make(chan struct{})
	var said testutil.SyncBuffer
	go func() {
		for l := range lines {
			said.Write([]byte(l + "\n"))
			if strings.Contains(l, "Press Ctrl+C") {
				close(ready)
			}
		}
	}()
	testutil.Wait(t, "lets to start", ready)
	if err := os.Remove(bin); err != nil {
		t.Fatal(err)
	}
	if err := testutil.Wait(t, "lets to quit after its program was removed", exited); err != nil {
		t.Fatalf("exit: %v\n%s", err, said.String())
	}
	paths := config.Paths{Home: home}
	if _, err := os.Stat(paths.HostFile()); !os.IsNotExist(err) {
		t.Error("host.json left behind")
	}
	if _, err := os.Stat(sock); !os.IsNotExist(err) {
		t.Error("pad socket left behind")
	}
	log, _ := os.ReadFile(paths.LogFile())
	if !strings.Contains(string(log), "the Lets program was removed") {
		t.Errorf("lets.log does not say why Lets quit:\n%s", log)
	}
	testutil.Eventually(t, "lets to say goodbye", func() bool { return strings.Contains(said.String(), "Lets stopped.") })
}
