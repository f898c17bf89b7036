package visual

import (
	"testing"

	"github.com/lets-app/lets/backend/wire"
)

// fullView lights everything: 8 sessions, all actions, overflow, motion.
func fullView() View {
	v := View{Selected: wire.StateRunning, Frame: 5, ActivityMotion: true, OverflowCount: 3, Available: Actions(wire.Actions()...)}
	for i := 0; i < 8; i++ {
		v.Sessions = append(v.Sessions, Indicator{Slot: i, State: wire.States()[i%7], Selected: i == 0, Accent: wire.IdentityAccents()[i], Label: "Agent"})
	}
	return v
}

// BenchmarkCompileFullFrame is one full-frame repaint: 56 canvas cells, 8
// selectors, 8 statuses, 4 actions and the overflow light (target ≤ 100 µs).
func BenchmarkCompileFullFrame(b *testing.B) {
	v := fullView()
	b.ReportAllocs()
	var f Frame
	for i := 0; i < b.N; i++ {
		v.Frame = i
		f = Compile(v, 8)
	}
	if f.Capacity != 8 {
		b.Fatal("bad frame")
	}
}

// BenchmarkSurfaceMessage is the browser's JSON form of a full frame.
func BenchmarkSurfaceMessage(b *testing.B) {
	v := fullView()
	buf := make([]byte, 0, 8192)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		buf = AppendSurfaceMessage(buf[:0], v, 8)
	}
	b.SetBytes(int64(len(buf)))
}

// BenchmarkLights lays a compiled frame out on the 80-light reference grid.
func BenchmarkLights(b *testing.B) {
	f := Compile(fullView(), 8)
	b.ReportAllocs()
	var l Lights
	for i := 0; i < b.N; i++ {
		l = f.Lights()
	}
	_ = l
}
