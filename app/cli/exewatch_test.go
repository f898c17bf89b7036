package cli

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

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
