// Package bustest starts private D-Bus session buses for tests: the
// desktop, tray, window and notification tests each need one of their own,
// so nothing a test owns on the bus (a tray watcher, a notification
// service) is left for the next.
package bustest

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lets-app/lets/backend/testenv/testutil"
)

// config is a session bus that starts no installed services (a test
// starts the ones it wants), lets anyone own any name, and lets a test
// read back what was sent (BecomeMonitor, eavesdropping).
const config = `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir=DIR</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`

// Start starts a private session bus, stopped when the test ends, and
// returns its address. Under `make test` a missing dbus-daemon fails the
// test (testutil.Command).
func Start(tb testing.TB) string {
	tb.Helper()
	daemon := testutil.Command(tb, "dbus-daemon")
	// A short folder: the bus's socket path must fit in 108 bytes, which
	// a test's own temp folder (named after the test) may not.
	dir, err := os.MkdirTemp("", "ltbus")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = os.RemoveAll(dir) })
	conf := filepath.Join(dir, "bus.conf")
	if err := os.WriteFile(conf, []byte(strings.ReplaceAll(config, "DIR", dir)), 0o600); err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(daemon, "--config-file="+conf, "--nofork", "--print-address=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatalf("start dbus-daemon: %v", err)
	}
	tb.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		lines <- strings.TrimSpace(line)
	}()
	addr := testutil.Wait(tb, "the test session bus's address from dbus-daemon", lines)
	if addr == "" {
		tb.Fatal("dbus-daemon printed no address")
	}
	return addr
}
