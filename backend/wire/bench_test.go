package wire

import (
	"fmt"
	"testing"
)

const typicalStateLine = `{"protocol":1,"type":"state","state":"running","agent":{"backend":"codex","session_id":"019f28ff-3c1a","cwd":"/home/user/pad-lattice","label":"implementation"},"lease_id":"9f3c0d2e","reply":true}`

func BenchmarkDecodeStateLine(b *testing.B) {
	line := []byte(typicalStateLine)
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeLine(line); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeStateAck(b *testing.B) {
	a := ack("codex", "019f28ff-3c1a", StateRunning, 0, "cyan", true, true, "implementation")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := a.Encode(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeStatus8Sessions(b *testing.B) {
	s := emptyStatus()
	sel := Identity{"codex", "session-0"}
	s.Selected = &sel
	for i := 0; i < 8; i++ {
		s.Sessions = append(s.Sessions, StatusSession{
			Backend: "codex", SessionID: fmt.Sprintf("session-%d", i), State: StateRunning, Slot: i,
			Accent: IdentityAccents()[i], Selected: i == 0, Label: fmt.Sprintf("project-%d", i),
			Metadata: Metadata{{"cwd", fmt.Sprintf("/home/u/project-%d", i)}, {"model", "gpt-5"}, {"label", fmt.Sprintf("project-%d", i)}},
		})
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Encode(); err != nil {
			b.Fatal(err)
		}
	}
}
