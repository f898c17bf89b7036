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
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/backend/visual"
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
	ctx, cancel := context.WithTimeout(context.Background(), testutil.EventuallyTimeout)
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
		if _, err := s.WaitView(testutil.EventuallyTimeout, twoVisible); err != nil {
			t.Fatal(err)
		}
	}
	b.Select(1) // a press on the second member selects slot 1 for both
	selected := func(v control.View) bool { return len(v.Indicators) == 2 && v.Indicators[1].Selected }
	for _, s := range []*daemontest.Surface{a, b} {
		if _, err := s.WaitView(testutil.EventuallyTimeout, selected); err != nil {
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

// V41 (partly; the CLI flag handling is app's): `symbols` through the real
// daemon shows the seven glyphs in enum order on the surface, announces
// each state once, and ends the preview. (ttl = hold + 1 is checked where
// the request is built, in wireclient.)
func TestV41_SymbolsPreviewReachesTheCanvas(t *testing.T) {
	s := daemontest.NewSurface()
	dir, err := os.MkdirTemp("", "ls")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "s.sock")
	d, err := daemon.Listen(daemon.Options{SocketPath: path, Surface: s})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testutil.EventuallyTimeout)
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- d.Run(ctx) }()
	defer func() {
		d.Close()
		<-errc
	}()

	var printed []wire.State
	if err := wireclient.New(path).Symbols(ctx, 30*time.Millisecond, func(st wire.State) { printed = append(printed, st) }); err != nil {
		t.Fatal(err)
	}
	if _, err := s.WaitView(testutil.EventuallyTimeout, func(v control.View) bool { return !v.PreviewActive }); err != nil {
		t.Fatal(err)
	}
	if len(printed) != 7 {
		t.Fatalf("printed %v", printed)
	}
	var shown []wire.State
	counter := surface.NewCounter(s.Capacity())
	for _, v := range s.Views() {
		_, f := counter.Next(v)
		if !v.PreviewActive {
			continue
		}
		if len(shown) == 0 || shown[len(shown)-1] != v.Centre {
			shown = append(shown, v.Centre)
		}
		lit := 0
		for _, c := range visual.Glyph(v.Centre) {
			if f.State[c.Y][c.X] == visual.StatePrimary(v.Centre) {
				lit++
			}
		}
		if lit == 0 || lit != len(visual.Glyph(v.Centre)) {
			t.Fatalf("preview of %q drew %d glyph cells", v.Centre, lit)
		}
	}
	for i, st := range wire.States() {
		if printed[i] != st || i >= len(shown) || shown[i] != st {
			t.Fatalf("printed %v, shown %v, want enum order", printed, shown)
		}
	}
}
