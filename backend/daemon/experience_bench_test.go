package daemon_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gorilla/websocket"

	"github.com/lets-app/lets/backend/daemon"
	"github.com/lets-app/lets/backend/experience"
	"github.com/lets-app/lets/backend/surface"
	"github.com/lets-app/lets/backend/surface/web"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// actShow is one act of Lets' Show as a Show of its own, with the
// manifest's own cue timing (the benchmark plays the fastest act).
func actShow(tb testing.TB, act int) *experience.Performance {
	tb.Helper()
	var m map[string]any
	if err := json.Unmarshal(experience.ShowJSON(), &m); err != nil {
		tb.Fatal(err)
	}
	var cues []any
	total := 0.0
	for _, c := range m["cues"].([]any) {
		cm := c.(map[string]any)
		if cm["act"].(float64) == float64(act) {
			cm["act"] = 0.0
			cues = append(cues, cm)
			total += cm["duration_ms"].(float64)
		}
	}
	m["cues"] = cues
	m["acts"] = []any{m["acts"].([]any)[act]}
	m["duration_ms"] = total
	m["audio"].(map[string]any)["duration_ms"] = total
	b, _ := json.Marshal(m)
	p, err := experience.ParsePerformanceManifest(b)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// BenchmarkShowFanOutTo20Browsers plays the Show's fastest act (Act V,
// 110–190 ms cues) through the real daemon to 20 authenticated browsers
// (Go WebSocket clients; two browser surfaces of 10 behind one composite,
// since one browser surface admits 16 connections). Reported:
//   - jitter: per browser and cue, |(arrival − arrival of the first
//     frame) − (cue start − first cue start)|; p50, p99, max;
//   - spread: per cue, last browser's arrival − first browser's;
//   - skipped: frames a browser never received (the daemon only ever
//     sends the current cue).
func BenchmarkShowFanOutTo20Browsers(b *testing.B) {
	const perServer, servers = 10, 2
	show := actShow(b, 5)
	var members []surface.Surface
	for range servers {
		srv, err := web.New(web.Options{App: fstest.MapFS{"index.html": {Data: []byte("pad")}}, AdminToken: webAdminToken})
		if err != nil {
			b.Fatal(err)
		}
		members = append(members, srv)
	}
	comp, err := surface.NewComposite(members...)
	if err != nil {
		b.Fatal(err)
	}
	dir := shortDir(b)
	d, err := daemon.Listen(daemon.Options{SocketPath: dir + "/s.sock", Surface: comp, Show: show})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	defer func() { cancel(); <-done }()

	type browserLog struct {
		mu     sync.Mutex
		frames []time.Time
		ended  chan struct{}
	}
	var logs []*browserLog
	var admin *websocket.Conn
	for _, m := range members {
		srv := m.(*web.Server)
		deadline := time.Now().Add(5 * time.Second)
		for srv.Port() == 0 && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		host := "127.0.0.1:" + strconv.Itoa(srv.Port())
		for range perServer {
			c, _, err := websocket.DefaultDialer.Dial("ws://"+host+"/ws", http.Header{"Origin": {"http://" + host}})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			c.WriteMessage(websocket.TextMessage, []byte(`{"protocol":1,"type":"authenticate","credential":"`+webAdminToken+`"}`))
			l := &browserLog{ended: make(chan struct{})}
			logs = append(logs, l)
			if admin == nil {
				admin = c
			}
			go func() {
				defer close(l.ended)
				for {
					_, data, err := c.ReadMessage()
					if err != nil {
						return
					}
					now := time.Now()
					var head struct{ Type, Status string }
					json.Unmarshal(data, &head)
					switch {
					case head.Type == "performance_frame":
						l.mu.Lock()
						l.frames = append(l.frames, now)
						l.mu.Unlock()
					case head.Type == "experience_state" && head.Status == "idle" && len(l.frames) > 0:
						return
					}
				}
			}()
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, l := range logs {
			l.mu.Lock()
			l.frames = nil
			l.mu.Unlock()
		}
		admin.WriteMessage(websocket.TextMessage, []byte(`{"protocol":1,"type":"start_experience","kind":"show"}`))
		for _, l := range logs {
			select {
			case <-l.ended:
			case <-time.After(show.Duration() + 10*time.Second):
				b.Fatal("a browser never saw the end of the Show")
			}
		}
	}
	b.StopTimer()
	var jitter, spread []time.Duration
	skipped := 0
	cues := len(show.Cues)
	for _, l := range logs {
		skipped += cues - len(l.frames)
		for k := 1; k < len(l.frames) && k < cues; k++ {
			want := time.Duration(show.Start(k)) * time.Millisecond
			j := l.frames[k].Sub(l.frames[0]) - want
			jitter = append(jitter, max(j, -j))
		}
	}
	for k := 0; k < cues; k++ {
		var first, last time.Time
		for _, l := range logs {
			if k >= len(l.frames) {
				continue
			}
			t := l.frames[k]
			if first.IsZero() || t.Before(first) {
				first = t
			}
			if t.After(last) {
				last = t
			}
		}
		spread = append(spread, last.Sub(first))
	}
	pct := func(ds []time.Duration, p float64) float64 {
		s := slices.Clone(ds)
		slices.Sort(s)
		return float64(s[min(len(s)-1, int(p*float64(len(s))))]) / float64(time.Millisecond)
	}
	b.ReportMetric(pct(jitter, 0.5), "p50-jitter-ms")
	b.ReportMetric(pct(jitter, 0.99), "p99-jitter-ms")
	b.ReportMetric(pct(jitter, 1), "max-jitter-ms")
	b.ReportMetric(pct(spread, 0.99), "p99-spread-ms")
	b.ReportMetric(float64(skipped), "skipped-frames")
	b.ReportMetric(float64(cues), "cues")
	p99 := pct(jitter, 0.99)
	testutil.TimeBudget(b, p99 > 15, "p99 jitter %.2f ms exceeds 15 ms (%d browsers, %d cues)", p99, len(logs), cues)
}
