package cli

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/config"
)

// TestMain lets the test binary act as the real `lets` command when
// LETS_RUN_AS_CLI is set, so process-level behaviour (signals, exit codes)
// is tested on the real entry point without a separate build.
func TestMain(m *testing.M) {
	if os.Getenv("LETS_RUN_AS_CLI") == "1" {
		os.Exit(Main(append([]string{"lets"}, os.Args[1:]...)))
	}
	code := m.Run()
	guiBuild.Cleanup()   // desktop_window_test.go's GUI binary
	sharedDisplay.Stop() // desktop_test.go's Xvfb
	os.Exit(code)
}

func letsCommand(t *testing.T, home, sock string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "LETS_RUN_AS_CLI=1", "LETS_HOME="+home, "PAD_LATTICE_SOCKET="+sock)
	return cmd
}

// TestServeStopsCleanlyOnSignals starts `lets serve` as a real process and
// stops it with SIGTERM and SIGINT: it must exit 0 within 2 s and leave no
// host.json or socket behind.
func TestServeStopsCleanlyOnSignals(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			home := filepath.Join(t.TempDir(), "home")
			sockDir, err := os.MkdirTemp("", "lt")
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(sockDir)
			sock := filepath.Join(sockDir, "pad.sock")
			cmd := letsCommand(t, home, sock, "serve")
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = cmd.Process.Kill() }()
			ready := make(chan bool, 1)
			go func() {
				sc := bufio.NewScanner(out)
				for sc.Scan() {
					if strings.Contains(sc.Text(), "Press Ctrl+C") {
						ready <- true
					}
				}
			}()
			select {
			case <-ready:
			case <-time.After(15 * time.Second):
				t.Fatal("lets serve did not start")
			}
			if _, err := config.ReadHostInfo(config.Paths{Home: home}); err != nil {
				t.Fatalf("host.json while running: %v", err)
			}
			begin := time.Now()
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			waited := make(chan error, 1)
			go func() { waited <- cmd.Wait() }()
			select {
			case err := <-waited:
				if err != nil {
					t.Fatalf("exit after %v: %v", sig, err)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("did not exit within 5 s of %v", sig)
			}
			if d := time.Since(begin); d > 2*time.Second {
				t.Errorf("took %v to stop; the limit is 2 s", d)
			}
			if _, err := os.Stat(filepath.Join(home, "host.json")); !os.IsNotExist(err) {
				t.Error("host.json left behind")
			}
			if _, err := os.Stat(sock); !os.IsNotExist(err) {
				t.Error("pad socket left behind")
			}
		})
	}
}

func TestProcessExitCodes(t *testing.T) {
	home := t.TempDir()
	for args, want := range map[string]int{"version": 0, "bogus": 2, "status": 1, "status --nope": 2} {
		cmd := letsCommand(t, home, filepath.Join(home, "x.sock"), strings.Fields(args)...)
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != want {
			t.Errorf("lets %s: exit %d, want %d", args, code, want)
		}
	}
}
