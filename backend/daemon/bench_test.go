package daemon_test

import (
	"bufio"
	"context"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/control"
	"github.com/lets-app/lets/backend/daemon"
	"github.com/lets-app/lets/backend/daemon/daemontest"
	"github.com/lets-app/lets/backend/surface"
	"github.com/lets-app/lets/backend/wire"
)

// benchDaemon runs a daemon with the real clock for benchmarks.
func benchDaemon(b *testing.B, sf surface.Surface, cfg *control.Config) string {
	b.Helper()
	path, stop := runBenchDaemon(b, sf, cfg)
	b.Cleanup(stop)
	return path
}

// runBenchDaemon starts a daemon and returns its socket and a stop function.
func runBenchDaemon(b *testing.B, sf surface.Surface, cfg *control.Config) (string, func()) {
	b.Helper()
	dir, err := os.MkdirTemp("", "lb")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "s.sock")
	d, err := daemon.Listen(daemon.Options{SocketPath: path, Surface: sf, Control: cfg})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	return path, func() {
		cancel()
		if err := <-done; err != nil {
			b.Error(err)
		}
	}
}

func benchDial(b *testing.B, path string) (net.Conn, *bufio.Reader) {
	b.Helper()
	nc, err := net.Dial("unix", path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { nc.Close() })
	return nc, bufio.NewReaderSize(nc, 64<<10)
}

// stateLines returns n state lines cycling over 8 identities and states.
func stateLines(n int, reply bool) []byte {
	states := []string{"running", "waiting_for_reply", "user_typing", "running"}
	var sb strings.Builder
	extra := []string{}
	if reply {
		extra = append(extra, `"reply":true`)
	}
	for i := range n {
		sb.WriteString(stateMsg("codex", "bench-"+strconv.Itoa(i%8), states[i%len(states)], extra...))
		sb.WriteByte('\n')
	}
	return []byte(sb.String())
}

// BenchmarkStateNoReply: fire-and-forget state messages on one connection;
// a final ping proves every one was processed.
func BenchmarkStateNoReply(b *testing.B) {
	path := benchDaemon(b, daemon.NoSurface(), nil)
	nc, r := benchDial(b, path)
	const batch = 1024
	payload := stateLines(batch, false)
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for sent := 0; sent < b.N; sent += batch {
		n := min(batch, b.N-sent)
		chunk := payload
		if n < batch {
			chunk = stateLines(n, false)
		}
		if _, err := nc.Write(chunk); err != nil {
			b.Fatal(err)
		}
	}
	nc.Write([]byte(ping + "\n"))
	if line, err := r.ReadString('\n'); err != nil || line != pong+"\n" {
		b.Fatalf("final pong: %q %v", line, err)
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "msgs/s")
}

// BenchmarkStateReply: pipelined state messages with reply:true; a reader
// consumes every state_ack.
func BenchmarkStateReply(b *testing.B) {
	path := benchDaemon(b, daemon.NoSurface(), nil)
	nc, r := benchDial(b, path)
	const batch = 256
	payload := stateLines(batch, true)
	errc := make(chan error, 1)
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	go func() {
		for sent := 0; sent < b.N; sent += batch {
			chunk := payload
			if n := min(batch, b.N-sent); n < batch {
				chunk = stateLines(n, true)
			}
			if _, err := nc.Write(chunk); err != nil {
				errc <- err
				return
			}
		}
		errc <- nil
	}()
	for i := range b.N {
		line, err := r.ReadSlice('\n')
		if err != nil || !strings.HasPrefix(string(line), `{"protocol":1,"type":"state_ack"`) {
			b.Fatalf("ack %d: %q %v", i, line, err)
		}
	}
	if err := <-errc; err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "msgs/s")
}

func reportPercentiles(b *testing.B, lat []time.Duration, prefix string) {
	slices.Sort(lat)
	at := func(p float64) float64 {
		i := int(p * float64(len(lat)-1))
		return float64(lat[i].Nanoseconds()) / 1e3
	}
	b.ReportMetric(at(0.50), prefix+"p50-µs")
	b.ReportMetric(at(0.99), prefix+"p99-µs")
	b.ReportMetric(float64(lat[len(lat)-1].Nanoseconds())/1e3, prefix+"max-µs")
}

// BenchmarkStateAckRoundTrip: one state with reply:true, wait for its ack,
// repeat; reports latency percentiles.
func BenchmarkStateAckRoundTrip(b *testing.B) {
	path := benchDaemon(b, daemon.NoSurface(), nil)
	nc, r := benchDial(b, path)
	line := []byte(stateMsg("codex", "rt", "running", `"reply":true`) + "\n")
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		if _, err := nc.Write(line); err != nil {
			b.Fatal(err)
		}
		if _, err := r.ReadSlice('\n'); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	reportPercentiles(b, lat, "")
}

// BenchmarkPressToAction: a surface press until the subscriber has read the
// action line.
func BenchmarkPressToAction(b *testing.B) {
	surface := daemontest.NewSurface()
	cfg := control.DefaultConfig(0)
	cfg.ActionDebounce = 0 // every press is delivered
	path := benchDaemon(b, surface, &cfg)
	nc, r := benchDial(b, path)
	nc.Write([]byte(stateMsg("codex", "p", "running") + "\n" + subscribeMsg("codex", "p", []string{"stop"}) + "\n" + ping + "\n"))
	if line, err := r.ReadString('\n'); err != nil || line != pong+"\n" {
		b.Fatalf("setup: %q %v", line, err)
	}
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		surface.Press(wire.ActionStop)
		line, err := r.ReadSlice('\n')
		if err != nil || !strings.Contains(string(line), `"action":"stop"`) {
			b.Fatalf("action: %q %v", line, err)
		}
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	reportPercentiles(b, lat, "")
}

func rssBytes() float64 { return rssOf("self") }

// rssOf reads VmRSS of /proc/<pid>/status in bytes (-1 when unknown).
func rssOf(pid string) float64 {
	data, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
			return kb * 1024
		}
	}
	return -1
}

// BenchmarkMemory1000Sessions1000Conns: memory of the daemon holding 1 000
// sessions (with metadata) and 1 000 idle connections. Reports the heap
// and stack growth and the process RSS growth, which also counts the test's
// own 1 000 client connections. Run it with -benchtime=1x: later iterations
// reuse memory the first one obtained from the system.
func BenchmarkMemory1000Sessions1000Conns(b *testing.B) {
	for range b.N {
		func() {
			runtime.GC()
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			rss0 := rssBytes()

			path, stop := runBenchDaemon(b, daemon.NoSurface(), nil)
			defer stop()
			nc, err := net.Dial("unix", path)
			if err != nil {
				b.Fatal(err)
			}
			defer nc.Close()
			r := bufio.NewReader(nc)
			var sb strings.Builder
			for i := range 1000 {
				sid := "019f28ff-3c1a-" + strconv.Itoa(i)
				sb.WriteString(`{"protocol":1,"type":"state","state":"running","agent":{"backend":"codex","session_id":"` + sid + `","cwd":"/home/user/projects/p` + strconv.Itoa(i) + `","label":"task ` + strconv.Itoa(i) + `"}}` + "\n")
			}
			sb.WriteString(ping + "\n")
			nc.Write([]byte(sb.String()))
			if line, err := r.ReadString('\n'); err != nil || line != pong+"\n" {
				b.Fatalf("%q %v", line, err)
			}
			conns := make([]net.Conn, 0, 1000)
			for range 1000 {
				conns = append(conns, dialRetry(b, path))
			}
			// Every connection is registered once a ping through the last
			// one is answered.
			last := conns[len(conns)-1]
			last.Write([]byte(ping + "\n"))
			lr := bufio.NewReader(last)
			if line, err := lr.ReadString('\n'); err != nil || line != pong+"\n" {
				b.Fatalf("%q %v", line, err)
			}
			time.Sleep(50 * time.Millisecond)
			runtime.GC()
			runtime.ReadMemStats(&m1)
			rss1 := rssBytes()
			b.ReportMetric(float64(int64(m1.HeapInuse)-int64(m0.HeapInuse))/(1<<20), "heap-delta-MB")
			b.ReportMetric(float64(int64(m1.StackInuse)-int64(m0.StackInuse))/(1<<20), "stack-delta-MB")
			b.ReportMetric((rss1-rss0)/(1<<20), "rss-delta-MB")
			b.ReportMetric(rss1/(1<<20), "rss-total-MB")
			b.ReportMetric(float64(runtime.NumGoroutine()), "goroutines")
			for _, c := range conns {
				c.Close()
			}
		}()
	}
}
