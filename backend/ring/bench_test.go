package ring

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"sort"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/clock"
	"github.com/lets-app/lets/backend/lip"
)

func benchEvent(typ, win string) lip.Envelope {
	return lip.Envelope{LIP: 1, ID: "ev_01J9Q0Z8M3K7X4N2AAAAAAAAAA", TS: 1_760_000_000_000, Dir: lip.Up,
		From: "unique:graph#" + win, Type: typ, Win: win, Data: json.RawMessage(`{"ids":["n3"]}`)}
}

// BenchmarkAppend: steady state of a full ring of 2000 (every append evicts).
func BenchmarkAppend(b *testing.B) {
	r := New(Config{Epoch: "e", Clock: clock.NewFake(t0)})
	e := benchEvent("graph.node.select", "w1")
	for range DefaultCapacity {
		r.Append(e)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		r.Append(e)
	}
}

// BenchmarkAppendCoalescing: a stream of graph.changed that keeps replacing
// the survivor (nobody reads).
func BenchmarkAppendCoalescing(b *testing.B) {
	r := New(Config{Epoch: "e", Clock: clock.NewFake(t0)})
	for range DefaultCapacity {
		r.Append(benchEvent("graph.node.select", "w1"))
	}
	e := benchEvent("graph.changed", "w1")
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		r.Append(e)
	}
}

// rewind puts a cursor back (tests and benchmarks only).
func (r *Ring) rewind(name string, pos uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.cursorLocked(name, r.clock.Now())
	c.pos, c.ent, c.rank0 = pos, nil, r.evicted
	if i := r.live.search(pos - 1); pos > 0 && i < r.live.len() && r.live.at(i).seq == pos {
		c.ent = r.live.at(i)
	}
}

// BenchmarkListen: a full ring with 16 cursors. Each listen returns
// `returned` events; the cost follows the number returned, not the ring size
// or how many events the filter skips.
func BenchmarkListen(b *testing.B) {
	for _, size := range []int{2000, 20000} {
		for _, returned := range []int{1, 10, 100, 1000} {
			if returned > size {
				continue
			}
			b.Run(fmt.Sprintf("ring=%d/unfiltered/returned=%d", size, returned), func(b *testing.B) {
				benchListen(b, size, returned, false)
			})
		}
		for _, returned := range []int{1, 10} {
			b.Run(fmt.Sprintf("ring=%d/sparse-type-1pct/returned=%d", size, returned), func(b *testing.B) {
				benchListen(b, size, returned, true)
			})
		}
	}
}

func benchListen(b *testing.B, size, returned int, sparse bool) {
	r := New(Config{Capacity: size, Epoch: "e", Clock: clock.NewFake(t0)})
	for i := range size {
		typ := "graph.node.select"
		if sparse && i%100 == 0 {
			typ = "graph.rare"
		}
		r.Append(benchEvent(typ, fmt.Sprintf("w%d", i%4)))
	}
	names := make([]string, 16)
	for i := range names {
		names[i] = fmt.Sprintf("c%d", i)
	}
	oldest := r.Stats().Oldest
	q := Query{Max: returned}
	if sparse {
		q.Types = []string{"graph.rare"}
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		q.Cursor = names[i%16]
		i++
		r.rewind(q.Cursor, oldest-1)
		res, err := r.Listen(ctx, q)
		if err != nil || len(res.Events) != returned {
			b.Fatalf("%v: %d events", err, len(res.Events))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(returned), "ns/event")
}

// BenchmarkWakeLatency: time from Append to a blocked Listen returning with
// the event (in process, real clock). Reports p50 and p99.
func BenchmarkWakeLatency(b *testing.B) {
	for _, listeners := range []int{1, 16} {
		b.Run(fmt.Sprintf("listeners=%d", listeners), func(b *testing.B) {
			r := New(Config{Epoch: "e"})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan time.Time, listeners)
			for l := range listeners {
				go func() {
					name := fmt.Sprintf("l%d", l)
					for ctx.Err() == nil {
						res, err := r.Listen(ctx, Query{Cursor: name, Wait: 10 * time.Second})
						if err != nil {
							return
						}
						if len(res.Events) > 0 {
							done <- time.Now()
						}
					}
				}()
			}
			lat := make([]time.Duration, 0, b.N)
			e := benchEvent("graph.node.select", "w1")
			b.ResetTimer()
			for range b.N {
				for {
					r.mu.Lock()
					w := r.waiting
					r.mu.Unlock()
					if w == listeners {
						break
					}
					runtime.Gosched()
				}
				start := time.Now()
				r.Append(e)
				var last time.Time
				for range listeners {
					last = <-done
				}
				lat = append(lat, last.Sub(start))
			}
			b.StopTimer()
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
		})
	}
}
