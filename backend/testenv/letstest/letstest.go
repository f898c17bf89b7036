// Package letstest holds what the tests of app/cli and app/lets share: a
// person's environment in a fresh data folder, without the real one's
// variables, devices or ports.
package letstest

import (
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/lets-app/lets/backend/testenv/testutil"
)

// Env is the test side of a person's environment (app/lets.Env): its
// output, its variables and its data folder.
type Env struct {
	Out, Err *testutil.SyncBuffer
	Getenv   func(string) string
	// Home is the data folder (LETS_HOME); it holds a config.json that
	// gives the browser pad port 0, so tests never fight over 8765.
	Home string
}

// New makes a fresh environment for one test: its own data folder, HOME
// and pad socket (under a short folder: Unix socket paths must stay under
// 108 bytes, and test names make t.TempDir() too long).
func New(t *testing.T) Env {
	t.Helper()
	home := filepath.Join(t.TempDir(), "lets-home")
	sockDir, err := os.MkdirTemp("", "lt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(sockDir) })
	vars := map[string]string{
		"LETS_HOME":          home,
		"HOME":               t.TempDir(),
		"PAD_LATTICE_SOCKET": filepath.Join(sockDir, "pad.sock"),
	}
	// Port 0 for the browser pad, so tests never fight over 8765.
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(`{"web": {"port": 0}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	return Env{
		Out:    &testutil.SyncBuffer{},
		Err:    &testutil.SyncBuffer{},
		Getenv: func(k string) string { return vars[k] },
		Home:   home,
	}
}

// BusyPort holds a free loopback port for the rest of the test, so a
// part asked to listen there finds it taken.
func BusyPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	return ln.Addr().(*net.TCPAddr).Port
}
