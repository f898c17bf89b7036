package web

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/clock"
	"github.com/lets-app/lets/backend/control"
	"github.com/lets-app/lets/backend/daemon"
	"github.com/lets-app/lets/backend/daemon/daemontest"
	"github.com/lets-app/lets/backend/surface"
	"github.com/lets-app/lets/backend/wireclient"
)

// daemonEnv runs the real Wire daemon with a surface.
type daemonEnv struct {
	d      *daemon.Daemon
	path   string
	clock  *clock.Fake
	cancel context.CancelFunc
	errc   chan error
}

func startDaemon(tb testing.TB, s surface.Surface) *daemonEnv {
	tb.Helper()
	dir, err := os.MkdirTemp("", "lw")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	de := &daemonEnv{path: filepath.Join(dir, "s.sock"), clock: clock.NewFake(epoch), errc: make(chan error, 1)}
	d, err := daemon.Listen(daemon.Options{SocketPath: de.path, Surface: s, Clock: de.clock})
	if err != nil {
		tb.Fatal(err)
	}
	de.d = d
	ctx, cancel := context.WithCancel(context.Background())
	de.cancel = cancel
	go func() { de.errc <- d.Run(ctx) }()
	tb.Cleanup(func() {
		cancel()
		select {
		case <-de.errc:
		case <-time.After(ioTimeout):
			tb.Error("daemon did not stop")
		}
	})
	return de
}

// agent is a raw Wire Protocol 1 client.
type agent struct {
	tb testing.TB
	nc net.Conn
	r  *bufio.Reader
}

func (de *daemonEnv) agent(tb testing.TB) *agent {
	tb.Helper()
	nc, err := net.DialTimeout("unix", de.path, ioTimeout)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { nc.Close() })
	return &agent{tb: tb, nc: nc, r: bufio.NewReader(nc)}
}

func (a *agent) send(line string) {
	a.tb.Helper()
	if _, err := a.nc.Write([]byte(line + "\n")); err != nil {
		a.tb.Fatal(err)
	}
}

func (a *agent) line() string {
	a.tb.Helper()
	a.nc.SetReadDeadline(time.Now().Add(ioTimeout))
	l, err := a.r.ReadString('\n')
	if err != nil {
		a.tb.Fatalf("agent read: %v", err)
	}
	return strings.TrimSpace(l)
}

const reviewer = `{"backend":"codex","session_id":"s1","label":"Reviewer"}`

// waitSurface reads surface messages until pred holds.
func (c *wsClient) waitSurface(pred func(view map[string]any) bool) map[string]any {
	c.t.Helper()
	for range 100 {
		m := c.read()
		if m["type"] != TypeSurface {
			continue
		}
		if pred(m["view"].(map[string]any)) {
			return m
		}
	}
	c.t.Fatal("the expected surface never came")
	return nil
}

func approveLit(v map[string]any) bool {
	acts, _ := v["available_actions"].([]any)
	return len(acts) > 0 && acts[0] == "approve"
}

// The browser behind the real daemon: it renders agents, a tap reaches the
// one subscribed agent as a Wire action, and status describes the browser.
func TestDaemonTapReachesWireSubscriber(t *testing.T) {
	e := newEnv(t, envOptions{})
	de := startDaemon(t, e.s)
	ag := de.agent(t)
	ag.send(`{"protocol":1,"type":"subscribe_actions","agent":` + reviewer + `,"actions":["approve","reject"]}`)
	ag.send(`{"protocol":1,"type":"state","state":"waiting_for_approval","agent":` + reviewer + `}`)
	a := e.dial(dialOptions{})
	a.auth(testAdminToken)
	a.expect(TypeAuthenticated)
	m := a.waitSurface(approveLit)
	s := m["view"].(map[string]any)["sessions"].([]any)[0].(map[string]any)
	if s["label"] != "Reviewer" || s["selected"] != true {
		t.Fatalf("%v", s)
	}
	a.send(map[string]any{"type": "action", "action": "approve"})
	if l := ag.line(); l != `{"protocol":1,"type":"action","action":"approve","agent":{"backend":"codex","session_id":"s1"}}` {
		t.Fatalf("agent got %s", l)
	}
	st, err := wireclient.New(de.path).Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	port := itoaPort(e.port)
	if st.Profile != "virtual/browser" || st.Input != "Browser controls ("+port+")" || len(st.Surfaces) != 1 ||
		st.Surfaces[0].Kind != "web" || st.Surfaces[0].Output != "Browser display ("+port+")" {
		t.Fatalf("status %+v", st)
	}
	// The daemon closing the surface is the server shutdown.
	de.cancel()
	a.expectClose(1001, "server shutting down")
}

// `lets pad daemon --web` composes web first, then the pad.
func TestDaemonCompositeWebFirst(t *testing.T) {
	e := newEnv(t, envOptions{})
	pad := daemontest.NewSurfaceCapacity(8)
	c, err := surface.NewComposite(e.s, pad)
	if err != nil {
		t.Fatal(err)
	}
	de := startDaemon(t, c)
	ag := de.agent(t)
	ag.send(`{"protocol":1,"type":"subscribe_actions","agent":` + reviewer + `,"actions":["approve"]}`)
	ag.send(`{"protocol":1,"type":"state","state":"waiting_for_approval","agent":` + reviewer + `}`)
	a := e.dial(dialOptions{})
	a.auth(testAdminToken)
	a.expect(TypeAuthenticated)
	a.waitSurface(approveLit)
	if _, err := pad.WaitView(ioTimeout, func(v control.View) bool { return len(v.Available) > 0 }); err != nil {
		t.Fatal(err) // the pad shows the same view
	}
	a.send(map[string]any{"type": "action", "action": "approve"})
	if l := ag.line(); !strings.Contains(l, `"action":"approve"`) {
		t.Fatal(l)
	}
	st, err := wireclient.New(de.path).Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(st.Surfaces)
	if len(st.Surfaces) != 2 || st.Surfaces[0].Kind != "web" || st.Surfaces[0].Input != "Browser controls ("+itoaPort(e.port)+")" ||
		st.Profile != "virtual/browser+"+daemontest.Profile || !strings.HasPrefix(st.Input, "Browser controls") {
		t.Fatalf("status %s / %+v", raw, st)
	}
}

// BenchmarkTapToWireAction measures a browser tap (WebSocket send) until
// the subscribed agent reads the action line, through the real daemon.
// The daemon's clock moves 1 s per tap so the 0.25 s debounce never drops
// one.
func BenchmarkTapToWireAction(b *testing.B) {
	e := newEnv(b, envOptions{})
	de := startDaemon(b, e.s)
	ag := de.agent(b)
	ag.send(`{"protocol":1,"type":"subscribe_actions","agent":` + reviewer + `,"actions":["approve"]}`)
	ag.send(`{"protocol":1,"type":"state","state":"waiting_for_approval","agent":` + reviewer + `}`)
	c, _, err := e.dialOpts(dialOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	wc := &wsClient{t: b, c: c}
	wc.auth(testAdminToken)
	wc.expect(TypeAuthenticated)
	wc.waitSurface(approveLit)
	go func() { // keep reading broadcasts
		for {
			if _, _, err := c.ReadMessage(); err != nil {
				return
			}
		}
	}()
	msg := []byte(`{"protocol":1,"type":"action","action":"approve"}`)
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		de.clock.Advance(time.Second)
		if i%15 == 14 {
			de.clock.Advance(time.Second) // stay under the browser's 20 commands per second
			e.advance(1.1)
		}
		start := time.Now()
		if err := c.WriteMessage(1, msg); err != nil {
			b.Fatal(err)
		}
		ag.nc.SetReadDeadline(time.Now().Add(ioTimeout))
		if _, err := ag.r.ReadString('\n'); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	reportPercentiles(b, lat)
}

func reportPercentiles(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	p := func(q float64) float64 {
		return float64(lat[min(len(lat)-1, int(q*float64(len(lat))))].Microseconds()) / 1000
	}
	b.ReportMetric(p(0.5), "p50-ms")
	b.ReportMetric(p(0.99), "p99-ms")
	b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "max-ms")
}
