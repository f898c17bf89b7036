package claudehook_test

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/lets-app/lets/backend/claudehook"
)

// One full PreToolUse hook (decode stdin, Wire state to a real in-process
// daemon, host report to a fake) — the hook Claude runs on every tool
// call. The process start is measured by the app's benchmark.
func BenchmarkHookPreToolUse(b *testing.B) {
	td := startDaemon(b)
	host := newFakeHost(b)
	o := options(td, host, nil)
	stdin := stdinOf(b, claudehook.EventPreToolUse)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := claudehook.Run(ctx, o, claudehook.EventPreToolUse, bytes.NewReader(stdin), io.Discard); err != nil {
			b.Fatal(err)
		}
		host.mu.Lock()
		host.reports = host.reports[:0]
		host.mu.Unlock()
	}
}

// The prompt hook's rendering of a full batch of pending events.
func BenchmarkPromptContext(b *testing.B) {
	var p claudehook.PendingEvents
	for i := 1; i <= claudehook.PendingMax; i++ {
		p.Events = append(p.Events, ev(uint64(i), "chat.message", `{"text":"a message typed in the chat window, with <b>markup</b> & more"}`))
	}
	b.ReportAllocs()
	for b.Loop() {
		if claudehook.PromptContext(p) == "" {
			b.Fatal("empty")
		}
	}
}
