package app

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/config"
)

func TestDoctorReportsEachCheck(t *testing.T) {
	e := newTestEnv(t)
	if code := e.run("doctor"); code != 0 {
		t.Fatalf("doctor on a fresh machine should not fail: %d\n%s", code, e.out.String())
	}
	out := e.out.String()
	for _, want := range []string{"data folder", "config.json", "host", "not running", "pad socket", "packages"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor output should mention %q:\n%s", want, out)
		}
	}
}

func TestDoctorFindsProblems(t *testing.T) {
	home := t.TempDir()
	paths := config.Paths{Home: home}
	if err := os.WriteFile(paths.ConfigFile(), []byte("{oops"), 0o600); err != nil {
		t.Fatal(err)
	}
	// host.json pointing at a port nobody listens on.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close()
	if err := config.WriteHostInfo(paths, config.HostInfo{Port: port, PID: 99999, Token: "t"}); err != nil {
		t.Fatal(err)
	}
	// A socket file with no listener.
	sock := filepath.Join(t.TempDir(), "pad.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	_ = l.Close()

	e := newTestEnv(t)
	e.Env.Getenv = func(k string) string {
		return map[string]string{"LETS_HOME": home, "PAD_LATTICE_SOCKET": sock}[k]
	}
	d := &doctor{
		paths:        paths,
		env:          e.Env,
		pkgInstalled: func(p string) (bool, bool) { return p != "chromium", true },
		timeout:      500 * time.Millisecond,
	}
	results := d.run(context.Background())
	failed := printChecks(e.out, results)
	out := e.out.String()
	if failed != 1 {
		t.Errorf("want exactly one failure (host not answering), got %d:\n%s", failed, out)
	}
	for _, want := range []string{"config.json:1:", "does not answer", "nothing answers", "missing chromium", "make deps"} {
		if !strings.Contains(out, want) {
			t.Errorf("output should contain %q:\n%s", want, out)
		}
	}
}

func TestDoctorPingsALiveDaemon(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "pad.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		buf := make([]byte, 256)
		n, _ := c.Read(buf)
		if strings.Contains(string(buf[:n]), `"type":"ping"`) {
			_, _ = c.Write([]byte(`{"protocol":1,"type":"pong"}` + "\n"))
		}
	}()
	d := &doctor{env: &Env{Getenv: func(string) string { return "" }}, timeout: 2 * time.Second}
	r := d.checkSocket(sock)
	if r.level != checkOK {
		t.Fatalf("got %+v", r)
	}
}

// TestDoctorChecksWhatMakeDepsInstalls keeps the two package lists equal.
func TestDoctorChecksWhatMakeDepsInstalls(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(data), "\\\n", " ")
	var fromMake []string
	for _, line := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(line, "APT_PACKAGES := "); ok {
			fromMake = strings.Fields(rest)
		}
	}
	if strings.Join(fromMake, " ") != strings.Join(aptPackages, " ") {
		t.Fatalf("Makefile installs %v but doctor checks %v", fromMake, aptPackages)
	}
}
