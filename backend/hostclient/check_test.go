package hostclient

import (
	"errors"
	"net/http"
	"os"
	"testing"

	"github.com/lets-app/lets/backend/config"
)

func TestCheckReadsTheHostFileWithoutSending(t *testing.T) {
	paths := config.Paths{Home: t.TempDir()}
	c := New(paths, Options{})
	if err := c.Check(); !errors.Is(err, ErrNotRunning) || !errors.Is(err, config.ErrHostNotRunning) {
		t.Fatalf("no host.json: got %v, want ErrNotRunning (and config.ErrHostNotRunning)", err)
	}
	// host.json names a host: Check is content, and sends nothing.
	f := newFakeHost(t, "tok")
	writeHostFile(t, paths, f.port(), "tok")
	if err := c.Check(); err != nil {
		t.Fatalf("host.json present: %v", err)
	}
	if n := len(f.requests()); n != 0 {
		t.Fatalf("Check sent %d requests, want none", n)
	}
	// A host.json others can read cannot be used.
	if err := os.Chmod(paths.HostFile(), 0o644); err != nil {
		t.Fatal(err)
	}
	var he *HostFileError
	if err := c.Check(); !errors.As(err, &he) || he.Path != paths.HostFile() {
		t.Fatalf("host.json readable by others: got %v, want *HostFileError", err)
	}
}

func TestCheckOfALocalClientIsContent(t *testing.T) {
	c := NewLocal(http.NotFoundHandler(), Options{})
	if err := c.Check(); err != nil {
		t.Fatalf("a local client has its host: %v", err)
	}
}
