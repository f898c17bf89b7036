package visual

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/lets-app/lets/backend/wire"
)

// fuzzView builds a view from fuzz input: sessions are 4 bytes each (slot as
// a signed byte, state index, selected flag, accent index; indexes past the
// known names give unknown names), every session gets label.
func fuzzView(selected string, frame, overflow int, motion bool, available uint8, sessions []byte, label string) View {
	v := View{Selected: wire.State(selected), Frame: frame, OverflowCount: overflow, ActivityMotion: motion, Available: ActionSet(available)}
	if st, ok := wire.ParseState(selected); !ok && len(selected) == 1 {
		v.Selected = wire.States()[int(selected[0])%7] // short strings pick a real state
	} else if ok {
		v.Selected = st
	}
	for i := 0; i+4 <= len(sessions) && i < 64; i += 4 {
		in := Indicator{Slot: int(int8(sessions[i])), Selected: sessions[i+2]&1 != 0, Label: label}
		if k := int(sessions[i+1]); k < 7 {
			in.State = wire.States()[k]
		} else {
			in.State = wire.State(label)
		}
		if k := int(sessions[i+3]); k < 8 {
			in.Accent = wire.IdentityAccents()[k]
		} else {
			in.Accent = label
		}
		v.Sessions = append(v.Sessions, in)
	}
	return v
}

// FuzzCompile: compiling never panics and always gives a valid frame whose
// JSON is well-formed, ASCII, within the browser limit and of the right
// shape; compiling twice gives the same frame.
func FuzzCompile(f *testing.F) {
	f.Add("", 0, 0, false, uint8(0), 8, []byte{}, "")
	f.Add("running", 2, 1, true, uint8(0x0f), 8, []byte{0, 0, 1, 0, 1, 3, 0, 1}, "  Reviewer\nagent ")
	f.Add("x", -7, -1, true, uint8(0xff), 3, []byte{0xff, 9, 1, 200, 8, 1, 0, 0, 2, 2, 2, 2}, "\U0001F600\x00<")
	f.Add("sleeping", 1<<62, 1<<40, false, uint8(4), -4, []byte{3, 6, 1, 7}, strings.Repeat("é ", 60))
	f.Fuzz(func(t *testing.T, selected string, frame, overflow int, motion bool, available uint8, capacity int, sessions []byte, label string) {
		v := fuzzView(selected, frame, overflow, motion, available, sessions, label)
		fr := Compile(v, capacity)
		if err := fr.Validate(); err != nil {
			t.Fatalf("invalid frame: %v", err)
		}
		if fr != Compile(v, capacity) {
			t.Fatal("not deterministic")
		}
		l := fr.Lights()
		lit := 0
		for y := 0; y < GridSize; y++ {
			for x := 0; x < GridSize; x++ {
				if l.Grid[y][x] == "" {
					t.Fatal("empty grid token")
				}
				if x < CanvasWidth && l.Grid[y][x] != Off {
					lit++
				}
			}
			if l.Top[y] == "" || l.Right[y] == "" {
				t.Fatal("empty rail token")
			}
		}
		if lit < 3 || lit > 18 {
			t.Fatalf("%d canvas cells lit", lit)
		}
		for _, reserved := range []int{2, 3, 5} {
			if l.Top[reserved] != Off {
				t.Fatalf("reserved top %d lit", reserved)
			}
		}
		msg := AppendSurfaceMessage(nil, v, capacity)
		if len(msg) > MaxMessageBytes {
			t.Fatalf("message of %d bytes", len(msg))
		}
		for _, c := range msg {
			if c >= 0x80 {
				t.Fatal("non-ASCII output")
			}
		}
		var m struct {
			View struct {
				Sessions []struct {
					Slot  int    `json:"slot"`
					Label string `json:"label"`
				} `json:"sessions"`
				Frame    int `json:"frame"`
				Overflow int `json:"overflow_count"`
			} `json:"view"`
			Frame struct {
				State     [][]string `json:"state"`
				Selectors []string   `json:"selectors"`
				Statuses  []string   `json:"statuses"`
			} `json:"visual_frame"`
		}
		if err := json.Unmarshal(msg, &m); err != nil {
			t.Fatalf("bad JSON %v: %s", err, msg)
		}
		if len(m.Frame.State) != CanvasHeight || len(m.Frame.Selectors) != fr.Capacity || len(m.Frame.Statuses) != fr.Capacity || m.View.Frame < 0 || m.View.Overflow < 0 {
			t.Fatalf("shape: %s", msg)
		}
		last := -1
		for _, s := range m.View.Sessions {
			if s.Slot <= last || s.Slot >= fr.Capacity || s.Label == "" || utf8.RuneCountInString(s.Label) > MaxLabelRunes {
				t.Fatalf("session %+v after slot %d", s, last)
			}
			last = s.Slot
		}
		// The fast path of SanitizeLabel agrees with the general rule.
		if got, want := SanitizeLabel(label, 0), slowSanitize(label, 0); got != want {
			t.Fatalf("SanitizeLabel(%q) = %q, want %q", label, got, want)
		}
	})
}

func slowSanitize(label string, slot int) string {
	s := strings.Join(strings.FieldsFunc(label, isPySpace), " ")
	if s == "" {
		return "Session " + string(rune('1'+slot))
	}
	r := []rune(s)
	if len(r) > MaxLabelRunes {
		// Invalid bytes became U+FFFD in []rune; cut the original by runes.
		n, i := 0, 0
		for i = range s {
			if n == MaxLabelRunes {
				break
			}
			n++
		}
		return s[:i]
	}
	return s
}
