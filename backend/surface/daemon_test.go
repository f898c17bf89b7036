package surface_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/control"
	"github.com/lets-app/lets/backend/daemon"
	"github.com/lets-app/lets/backend/daemon/daemontest"
	"github.com/lets-app/lets/backend/surface"
	"github.com/lets-app/lets/backend/wire"
	"github.com/lets-app/lets/backend/wireclient"
)

// A composite of two surfaces behind the real daemon: both are opened and
// rendered, a selection on the second member reaches the control plane,
// status reports the joined identity and one descriptor per member, and
// both are closed when the daemon stops.
func TestCompositeBehindDaemon(t *testing.T) {
	a, b := daemontest.NewSurface(), daemontest.NewSurface()
	c, err := surface.NewComposite(a, b)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "ls")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "s.sock")
	d, err := daemon.Listen(daemon.Options{SocketPath: path, Surface: c})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- d.Run(ctx) }()

	cl := wireclient.New(path)
	for _, sid := range []string{"one", "two"} {
		if err := cl.ReportState(ctx, wire.StateCommand{Agent: wire.Identity{Backend: "codex", SessionID: sid}, State: wire.StateRunning}); err != nil {
			t.Fatal(err)
		}
	}
	twoVisible := func(v control.View) bool { return len(v.Indicators) == 2 }
	for _, s := range []*daemontest.Surface{a, b} {
		if _, err := s.WaitView(5*time.Second, twoVisible); err != nil {
			t.Fatal(err)
		}
	}
	b.Select(1) // a press on the second member selects slot 1 for both
	selected := func(v control.View) bool { return len(v.Indicators) == 2 && v.Indicators[1].Selected }
	for _, s := range []*daemontest.Surface{a, b} {
		if _, err := s.WaitView(5*time.Second, selected); err != nil {
			t.Fatal(err)
		}
	}
	st, err := cl.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Profile != daemontest.Profile+"+"+daemontest.Profile || st.Input != daemontest.Input+"; "+daemontest.Input ||
		st.Output != daemontest.Output+"; "+daemontest.Output || len(st.Surfaces) != 2 {
		t.Fatalf("status profile %q input %q output %q surfaces %v", st.Profile, st.Input, st.Output, st.Surfaces)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if a.Opens() != 1 || b.Opens() != 1 || a.Closes() != 1 || b.Closes() != 1 {
		t.Fatalf("opens %d %d closes %d %d", a.Opens(), b.Opens(), a.Closes(), b.Closes())
	}
}
