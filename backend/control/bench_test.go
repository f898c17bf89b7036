package control

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/lets-app/lets/backend/wire"
)

func BenchmarkUpdateExisting(b *testing.B) {
	p := newPlane(b)
	cmd := wire.StateCommand{Agent: cx("s"), State: wire.StateRunning, Metadata: meta("cwd", "/home/u/project", "model", "m")}
	p.Update(0, 1, cmd)
	now := 1.0
	b.ReportAllocs()
	for b.Loop() {
		now += 0.001
		p.Update(now, 1, cmd)
	}
}

func BenchmarkUpdateExistingWithReply(b *testing.B) {
	p := newPlane(b)
	cmd := wire.StateCommand{Agent: cx("s"), State: wire.StateRunning, Reply: true}
	p.Update(0, 1, cmd)
	now := 1.0
	b.ReportAllocs()
	for b.Loop() {
		now += 0.001
		p.Update(now, 1, cmd)
	}
}

// BenchmarkPressToDelivery: a press with 50 subscribers for the selected
// session (unscoped, not one-shot) until the ActionEvent is produced.
func BenchmarkPressToDelivery50(b *testing.B) {
	p := newPlane(b, debounce(0))
	update(p, 0, cx("s"), wire.StateRunning)
	for c := int64(0); c < 50; c++ {
		subscribe(p, 0, c, cx("s"), "", false, stop, retry)
	}
	now := 1.0
	b.ReportAllocs()
	for b.Loop() {
		now += 0.001
		if r := p.Press(now, stop); !r.Delivered {
			b.Fatal("not delivered")
		}
	}
}

func thousandSessions(b *testing.B) *Plane {
	p := newPlane(b, capacity(8))
	for i := 0; i < 1000; i++ {
		p.Update(float64(i), 1, wire.StateCommand{
			Agent:    cx(fmt.Sprintf("019f28ff-%04d-4000-8000-000000000000", i)),
			State:    wire.States()[i%7],
			Metadata: meta("cwd", fmt.Sprintf("/home/user/project-%d", i), "model", "gpt"),
		})
	}
	return p
}

func BenchmarkStatus1000(b *testing.B) {
	p := thousandSessions(b)
	b.ReportAllocs()
	for b.Loop() {
		st := p.Status()
		if len(st.Sessions) != 1000 {
			b.Fatal("wrong count")
		}
	}
}

func BenchmarkStatus1000Encoded(b *testing.B) {
	p := thousandSessions(b)
	b.ReportAllocs()
	for b.Loop() {
		_ = p.Status().AppendJSON(nil)
	}
}

// BenchmarkMemory1000Sessions reports the heap held by a plane with 1000
// sessions (each with two metadata entries) as bytes/plane and
// bytes/session.
func BenchmarkMemory1000Sessions(b *testing.B) {
	var perPlane float64
	for b.Loop() {
		b.StopTimer()
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		b.StartTimer()
		p := thousandSessions(b)
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&after)
		perPlane = float64(after.HeapAlloc) - float64(before.HeapAlloc)
		runtime.KeepAlive(p)
		b.StartTimer()
	}
	b.ReportMetric(perPlane, "bytes/plane")
	b.ReportMetric(perPlane/1000, "bytes/session")
}

func BenchmarkTick1000(b *testing.B) {
	p := thousandSessions(b)
	now := 1000.0
	b.ReportAllocs()
	for b.Loop() {
		now += 0.03
		p.Tick(now)
	}
}
