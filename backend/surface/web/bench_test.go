package web

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/control"
	"github.com/lets-app/lets/backend/wire"
)

// receipt is one surface message arriving at one benchmark browser.
type receipt struct {
	at   time.Time
	data []byte
}

// browsers connects n authenticated admin browsers that forward every
// surface message they read to out.
func (e *env) browsers(tb testing.TB, n int, out chan<- receipt) {
	tb.Helper()
	for range n {
		c, _, err := e.dialOpts(dialOptions{})
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { c.Close() })
		wc := &wsClient{t: tb, c: c}
		wc.auth(testAdminToken)
		wc.expect(TypeAuthenticated)
		wc.drainSnapshot()
		go func() {
			for {
				c.SetReadDeadline(time.Time{})
				_, data, err := c.ReadMessage()
				if err != nil {
					return
				}
				if bytes.Contains(data, []byte(`"type":"surface"`)) {
					out <- receipt{at: time.Now(), data: data}
				}
			}
		}()
	}
}

// BenchmarkRenderTo50Browsers: one Render call until all 50 connected
// browsers have read the surface message (p99 of the slowest browser).
func BenchmarkRenderTo50Browsers(b *testing.B) {
	const n = 50
	e := newEnv(b, envOptions{maxConns: 64})
	out := make(chan receipt, 4*n)
	e.browsers(b, n, out)
	view := control.View{Centre: wire.StateRunning, Indicators: []control.Indicator{{Slot: 0, State: wire.StateRunning, Selected: true, Accent: "cyan", Label: "Builder"}}}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		view.OverflowCount = i
		start := time.Now()
		e.s.Render(view)
		var last time.Time
		for range n {
			r := <-out
			if r.at.After(last) {
				last = r.at
			}
		}
		lat = append(lat, last.Sub(start))
	}
	b.StopTimer()
	reportPercentiles(b, lat)
}

// BenchmarkStateChangeTo50Browsers: an agent's Wire state line until all
// 50 browsers have read the surface message showing it, through the real
// daemon.
func BenchmarkStateChangeTo50Browsers(b *testing.B) {
	const n = 50
	e := newEnv(b, envOptions{maxConns: 64})
	de := startDaemon(b, e.s)
	ag := de.agent(b)
	ag.send(`{"protocol":1,"type":"state","state":"running","agent":{"backend":"codex","session_id":"s1","label":"L-start"}}`)
	out := make(chan receipt, 16*n)
	e.browsers(b, n, out)
	time.Sleep(50 * time.Millisecond)
	for len(out) > 0 {
		<-out
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		label := "L" + strconv.Itoa(i)
		marker := []byte(`"label":"` + label + `"`)
		start := time.Now()
		ag.send(`{"protocol":1,"type":"state","state":"running","agent":{"backend":"codex","session_id":"s1","label":"` + label + `"}}`)
		var last time.Time
		for got := 0; got < n; {
			r := <-out
			if bytes.Contains(r.data, marker) {
				got++
				if r.at.After(last) {
					last = r.at
				}
			}
		}
		lat = append(lat, last.Sub(start))
	}
	b.StopTimer()
	reportPercentiles(b, lat)
}

// rawBrowser is a minimal hand-written WebSocket client, so that measuring
// the server's memory per connection counts almost nothing on the client
// side.
func rawBrowser(addr string) (net.Conn, error) {
	nc, err := net.DialTimeout("tcp4", addr, ioTimeout)
	if err != nil {
		return nil, err
	}
	nc.SetDeadline(time.Now().Add(ioTimeout))
	fmt.Fprintf(nc, "GET /ws HTTP/1.1\r\nHost: %s\r\nOrigin: http://%s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", addr, addr)
	br := bufio.NewReaderSize(nc, 512)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			nc.Close()
			return nil, err
		}
		if line == "\r\n" {
			break
		}
	}
	payload := []byte(`{"protocol":1,"type":"authenticate","credential":"` + testAdminToken + `"}`)
	frame := append([]byte{0x81, 0x80 | byte(len(payload)), 0, 0, 0, 0}, payload...) // zero mask key
	if _, err := nc.Write(frame); err != nil {
		nc.Close()
		return nil, err
	}
	for range 2 { // authenticated, experience_state
		var h [2]byte
		if _, err := io.ReadFull(br, h[:]); err != nil {
			nc.Close()
			return nil, err
		}
		n := int(h[1] & 0x7f)
		if n == 126 {
			var l [2]byte
			io.ReadFull(br, l[:])
			n = int(binary.BigEndian.Uint16(l[:]))
		}
		if _, err := io.CopyN(io.Discard, br, int64(n)); err != nil {
			nc.Close()
			return nil, err
		}
	}
	nc.SetDeadline(time.Time{})
	return nc, nil
}

// idleBytesPerConnection opens n idle authenticated connections and
// returns the growth of heap and stacks divided by n.
func idleBytesPerConnection(tb testing.TB, n int) float64 {
	e := newEnv(tb, envOptions{maxConns: n + 8, listenerCap: n + 8})
	addr := "127.0.0.1:" + strconv.Itoa(e.port)
	// Warm up pools and goroutine stacks.
	warm, err := rawBrowser(addr)
	if err != nil {
		tb.Fatal(err)
	}
	warm.Close()
	e.waitIdle()
	measure := func() uint64 {
		var ms runtime.MemStats
		for range 3 {
			runtime.GC()
		}
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc + ms.StackInuse
	}
	before := measure()
	conns := make([]net.Conn, 0, n)
	var mu sync.Mutex
	for range n {
		nc, err := rawBrowser(addr)
		if err != nil {
			tb.Fatal(err)
		}
		mu.Lock()
		conns = append(conns, nc)
		mu.Unlock()
	}
	time.Sleep(50 * time.Millisecond)
	after := measure()
	runtime.KeepAlive(conns)
	for _, c := range conns {
		c.Close()
	}
	return float64(int64(after)-int64(before)) / float64(n)
}

// BenchmarkIdleConnectionMemory reports the server memory one idle
// authenticated browser costs (heap + goroutine stacks).
func BenchmarkIdleConnectionMemory(b *testing.B) {
	per := idleBytesPerConnection(b, 200)
	for b.Loop() {
	}
	b.ReportMetric(per, "B/conn")
}

func TestIdleConnectionMemoryUnder64KiB(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector inflates memory")
	}
	if per := idleBytesPerConnection(t, 100); per > 64<<10 {
		t.Fatalf("%.0f bytes per idle connection, want ≤ 64 KiB", per)
	} else {
		t.Logf("%.0f bytes per idle connection", per)
	}
}

func BenchmarkDecodeClientMessage(b *testing.B) {
	msg := []byte(`{"protocol":1,"type":"select_session","slot":2}`)
	for b.Loop() {
		DecodeClientMessage(msg)
	}
}

func BenchmarkEncodeSurface(b *testing.B) {
	e := newEnv(b, envOptions{})
	view := control.View{Centre: wire.StateWaitingForApproval, Available: []wire.Action{wire.ActionApprove, wire.ActionReject}}
	for i := range 8 {
		view.Indicators = append(view.Indicators, control.Indicator{Slot: i, State: wire.StateRunning, Accent: wire.IdentityAccents()[i], Label: "Agent " + strconv.Itoa(i)})
	}
	b.ReportAllocs()
	for b.Loop() {
		e.s.Render(view)
	}
}
