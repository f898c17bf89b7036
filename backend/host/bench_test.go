package host

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// benchWindows opens n windows of board with connected, ready shells.
func benchWindows(b *testing.B, th *testHost, n int) ([]testWindow, []*shellClient) {
	b.Helper()
	wins := make([]testWindow, n)
	shells := make([]*shellClient, n)
	for i := range n {
		wins[i] = th.open(b, "board", "")
		shells[i] = th.dialShell(b, wins[i], nil)
		shells[i].sendEnv("lip.ready", map[string]any{}, "shell")
	}
	return wins, shells
}

// BenchmarkWSIngest measures up-events ingested per second through /lip/ws
// from 10 windows (one envelope per frame, and batches of 50). The per-window
// rate limit (200/s) is lifted: this measures the path's capacity.
func BenchmarkWSIngest(b *testing.B) {
	for _, per := range []int{1, 50} {
		b.Run("frame="+strconv.Itoa(per), func(b *testing.B) {
			th := startLIPHost(b, func(o *Options) {
				o.RingCapacity = 1 << 16
				o.timing = &wsTiming{ping: pingInterval, write: writeDeadline, hello: helloDeadline, unlimited: true}
			})
			_, shells := benchWindows(b, th, 10)
			frames := make([][]byte, 10)
			for i := range frames {
				var batch []map[string]any
				for j := range per {
					batch = append(batch, map[string]any{"lip": 1, "id": fmt.Sprintf("e%d_%d", i, j), "type": "board.note", "data": map[string]any{"i": j, "text": "a short note"}, "from": "unique"})
				}
				if per == 1 {
					frames[i], _ = json.Marshal(batch[0])
				} else {
					frames[i], _ = json.Marshal(batch)
				}
			}
			start := th.rng.Stats().Newest
			b.ResetTimer()
			t0 := time.Now()
			total := b.N * per
			var wg sync.WaitGroup
			for i, sc := range shells {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for k := i; k < b.N; k += len(shells) {
						if err := sc.ws.WriteMessage(websocket.TextMessage, frames[i]); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			deadline := time.Now().Add(30 * time.Second)
			for th.rng.Stats().Newest-start < uint64(total) && time.Now().Before(deadline) {
				time.Sleep(100 * time.Microsecond)
			}
			el := time.Since(t0)
			b.StopTimer()
			if got := th.rng.Stats().Newest - start; got < uint64(total) {
				b.Fatalf("ingested %d of %d", got, total)
			}
			b.ReportMetric(float64(total)/el.Seconds(), "events/s")
		})
	}
}

func percentile(d []time.Duration, p float64) time.Duration {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[min(len(d)-1, int(float64(len(d))*p))]
}

// BenchmarkEventToListen measures from a shell writing an event to a
// blocked GET /lip/listen returning it (target p99 ≤ 5 ms).
func BenchmarkEventToListen(b *testing.B) {
	th := startLIPHost(b)
	_, shells := benchWindows(b, th, 1)
	sc := shells[0]
	client := &http.Client{}
	var lat []time.Duration
	b.ResetTimer()
	for i := range b.N {
		got := make(chan time.Time, 1)
		ready := make(chan struct{})
		go func() {
			req, _ := http.NewRequest("GET", th.URL()+"/lip/listen?cursor=bench&types=board.note&wait_ms=5000", nil)
			req.Header.Set("Authorization", "Bearer "+testHostToken)
			close(ready)
			resp, err := client.Do(req)
			if err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			got <- time.Now()
		}()
		<-ready
		waitBlocked(b, th)
		t0 := time.Now()
		sc.sendEnv("board.note", map[string]any{"i": i}, "unique")
		lat = append(lat, (<-got).Sub(t0))
	}
	b.StopTimer()
	b.ReportMetric(float64(percentile(lat, 0.50).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(percentile(lat, 0.99).Microseconds())/1000, "p99-ms")
}

// waitBlocked waits until the listen request blocks in the ring (its
// Stats count the waiting listeners), so the measured time starts there.
func waitBlocked(b *testing.B, th *testHost) {
	testutil.Eventually(b, "the listen request blocks in the ring", func() bool { return th.rng.Stats().Waiting > 0 })
}

// BenchmarkSendToShell measures POST /lip/send until the shell's socket
// receives the command (target p99 ≤ 5 ms).
func BenchmarkSendToShell(b *testing.B) {
	th := startLIPHost(b)
	wins, shells := benchWindows(b, th, 1)
	sc := shells[0]
	body := []byte(`{"lip":1,"type":"board.add","win":"` + wins[0].Window + `","data":{"label":"x"}}`)
	client := &http.Client{}
	var lat []time.Duration
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		req, _ := http.NewRequest("POST", th.URL()+"/lip/send", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+testHostToken)
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		cmds := sc.commands(1, ioTimeout)
		lat = append(lat, time.Since(t0))
		sc.ack(cmds...)
	}
	b.StopTimer()
	b.ReportMetric(float64(percentile(lat, 0.50).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(percentile(lat, 0.99).Microseconds())/1000, "p99-ms")
}
