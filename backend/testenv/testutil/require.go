package testutil

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The environment variables that turn a missing precondition from a loud
// skip into a failure. `make test` and .ci/run set both to 1, so CI can
// never pass by skipping; a developer running `go test` by hand without a
// tool still gets a clear skip that says what to install.
const (
	// RequireToolsEnv covers programs and machine features: git, python3,
	// node, chromium, loopback aliases, /proc.
	RequireToolsEnv = "LETS_REQUIRE_TOOLS"
	// RequireSharedEnv covers the shared conformance data beside the
	// repository (../shared).
	RequireSharedEnv = "LETS_REQUIRE_SHARED"
)

// installHint says how to get a program the tests run. Every one is
// installed by `make deps` (build and run) or `make deps-test` (tests).
func installHint(program string) string {
	switch program {
	case "git":
		return "install the apt package git (`make deps` does)"
	case "python3":
		return "install the apt package python3 (`make deps-test` does)"
	case "node":
		return "install the apt package nodejs (`make deps-test` does)"
	case "chromium":
		return "install the apt package chromium (`make deps-test` does)"
	case "desktop-file-validate":
		return "install the apt package desktop-file-utils (`make deps-test` does)"
	case "dpkg-deb":
		return "install the apt package dpkg (Debian and Ubuntu always have it)"
	case "sh":
		return "install a POSIX shell (Debian's dash or bash)"
	}
	return "install it (`make deps-test` installs everything the tests use)"
}

// Missing stops a test whose precondition is not met on this machine. It
// prints a loud line to stderr (go test hides skip messages unless -v) and
// skips, or fails with the same message when the environment variable
// requireEnv is "1". Every tool and data check in the tests goes through
// here so `make test` can be trusted to have run everything.
func Missing(tb testing.TB, requireEnv, what, fix string) {
	tb.Helper()
	missing(tb, os.Getenv, os.Stderr, requireEnv, what, fix)
}

// missing is Missing with its environment and loud output passed in, for
// the helper's own tests.
func missing(tb testing.TB, getenv func(string) string, loud io.Writer, requireEnv, what, fix string) {
	tb.Helper()
	msg := fmt.Sprintf("%s — %s", what, fix)
	if getenv(requireEnv) == "1" {
		tb.Fatalf("cannot run this test: %s (%s=1 means a test that cannot run fails instead of skipping)", msg, requireEnv)
		return
	}
	fmt.Fprintf(loud, "!!! SKIPPING %s: %s\n", tb.Name(), msg)
	tb.Skipf("SKIPPING: %s (set %s=1 to make this a failure)", msg, requireEnv)
}

// Degraded is Missing for a test that can still check something useful
// without the precondition (e.g. against our own schemas when the reference
// ones are absent): it notes the gap loudly and lets the test go on, or
// fails the test under requireEnv=1.
func Degraded(tb testing.TB, requireEnv, what, fix string) {
	tb.Helper()
	degraded(tb, os.Getenv, os.Stderr, requireEnv, what, fix)
}

func degraded(tb testing.TB, getenv func(string) string, loud io.Writer, requireEnv, what, fix string) {
	tb.Helper()
	msg := fmt.Sprintf("%s — %s", what, fix)
	if getenv(requireEnv) == "1" {
		tb.Fatalf("cannot run all of this test: %s (%s=1 means a test that cannot run fails)", msg, requireEnv)
		return
	}
	fmt.Fprintf(loud, "!!! PARTLY SKIPPING %s: %s\n", tb.Name(), msg)
	tb.Logf("PARTLY SKIPPED: %s (set %s=1 to make this a failure)", msg, requireEnv)
}

// Command returns the path of the first of names found on PATH. When none
// is installed the test skips loudly, or fails under LETS_REQUIRE_TOOLS=1.
func Command(tb testing.TB, names ...string) string {
	tb.Helper()
	return command(tb, exec.LookPath, os.Getenv, os.Stderr, names...)
}

func command(tb testing.TB, lookPath func(string) (string, error), getenv func(string) string, loud io.Writer, names ...string) string {
	tb.Helper()
	if len(names) == 0 {
		tb.Fatal("testutil.Command needs at least one program name")
		return ""
	}
	for _, name := range names {
		if p, err := lookPath(name); err == nil {
			return p
		}
	}
	missing(tb, getenv, loud, RequireToolsEnv, fmt.Sprintf("%s is not installed (looked for %s on PATH)", names[0], strings.Join(names, ", ")), installHint(names[0]))
	return ""
}

// LoopbackAlias checks that this machine answers on addr (an IPv4
// loopback address other than 127.0.0.1, e.g. "127.0.0.2", used to play a
// phone or a LAN interface). Linux routes all of 127.0.0.0/8 to lo; other
// systems need an alias. Without it the test skips loudly, or fails under
// LETS_REQUIRE_TOOLS=1.
func LoopbackAlias(tb testing.TB, addr string) {
	tb.Helper()
	loopbackAlias(tb, net.Listen, os.Getenv, os.Stderr, addr)
}

func loopbackAlias(tb testing.TB, listen func(network, addr string) (net.Listener, error), getenv func(string) string, loud io.Writer, addr string) {
	tb.Helper()
	ip := net.ParseIP(addr)
	if ip == nil || ip.To4() == nil || !ip.IsLoopback() {
		tb.Fatalf("testutil.LoopbackAlias(%q): tests may only use IPv4 loopback addresses", addr)
		return
	}
	ln, err := listen("tcp4", net.JoinHostPort(addr, "0"))
	if err != nil {
		missing(tb, getenv, loud, RequireToolsEnv, fmt.Sprintf("this machine has no loopback address %s (%v)", addr, err),
			"on Linux 127.0.0.0/8 is loopback already; elsewhere add an alias (e.g. `sudo ifconfig lo0 alias "+addr+"`)")
		return
	}
	_ = ln.Close()
}

// ProcFS checks that /proc is mounted (Linux), for tests that read a
// process's memory or open files. Without it the test skips loudly, or
// fails under LETS_REQUIRE_TOOLS=1.
func ProcFS(tb testing.TB) {
	tb.Helper()
	if _, err := os.Stat("/proc/self/status"); err != nil {
		Missing(tb, RequireToolsEnv, fmt.Sprintf("/proc is not available (%v)", err), "run this test on Linux with /proc mounted")
	}
}
