package chatdriver

import (
	"sort"
	"testing"
	"time"
)

// BenchmarkDeltaToWindow: the first text delta of a reply from the agent
// to the chat.say frame at the window's shell channel, through the driver
// and a real host (fake agent, fake shell).
func BenchmarkDeltaToWindow(b *testing.B) {
	r := newRig(b, nil)
	win := r.open(b, "")
	a := r.agents.next(b)
	sh := dialShell(b, r.h, win)
	sh.next("talk.agent", 5*time.Second, nil)
	lats := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sh.emit("chat.message", "shell", map[string]any{"text": "hi"})
		<-a.sent
		start := time.Now()
		a.emit(b, TextDelta{Text: "Hello"})
		f := sh.next("chat.say", 5*time.Second, nil)
		lats = append(lats, f.at.Sub(start))
		a.emit(b, Result{})
		sh.next("chat.say", 5*time.Second, func(f frame) bool { return dataMap(f)["done"] == true })
	}
	b.StopTimer()
	sort.Slice(lats, func(i, j int) bool { return lats[i] < lats[j] })
	b.ReportMetric(float64(lats[len(lats)/2].Microseconds())/1000, "ms/median-delta-to-window")
	b.ReportMetric(float64(lats[len(lats)*99/100].Microseconds())/1000, "ms/p99-delta-to-window")
}
