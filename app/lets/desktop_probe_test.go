package lets

import (
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lets-app/lets/backend/testenv/bustest"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// A session bus that answers is found; one that takes the connection and
// never answers is given up on within the probe's time, and the probe's
// connection is closed then: nothing of the probe outlives it.
func TestProbeBusAnswersOrGivesUpAndLetsGo(t *testing.T) {
	if err := probeBus(bustest.Start(t)); err != nil {
		t.Fatalf("a running session bus: %v", err)
	}

	dir, err := os.MkdirTemp("", "lb")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	sock := filepath.Join(dir, "bus")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	hungUp := make(chan struct{})
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		// Read (and never answer) until the probe closes its end.
		_, _ = io.Copy(io.Discard, c)
		close(hungUp)
	}()
	err = probeBus("unix:path=" + sock)
	if err == nil || !strings.Contains(err.Error(), "no answer within 2 s") {
		t.Fatalf("a bus that never answers: %v, want no answer within 2 s", err)
	}
	testutil.Wait(t, "the probe closes its connection", hungUp)
}
