package daemon

import (
	"bytes"
	"strings"
	"testing"
)

// feedAll feeds data in reads of at most chunk bytes, like the socket does.
func feedAll(f *framer, data []byte, chunk int) (lines []string, overflow bool) {
	for len(data) > 0 {
		n := min(chunk, len(data))
		got, over := f.feed(data[:n])
		data = data[n:]
		for _, l := range got {
			lines = append(lines, string(l))
		}
		if over {
			return lines, true
		}
	}
	return lines, false
}

func TestFramer(t *testing.T) {
	ping := `{"protocol":1,"type":"ping"}`
	cases := []struct {
		name     string
		caseNo   int
		data     string
		chunk    int
		lines    []string
		overflow bool
		pending  int
	}{
		{name: "one line", caseNo: 1, data: ping + "\n", chunk: ReadChunk, lines: []string{ping}},
		{name: "blank and CRLF lines skipped", caseNo: 12, data: " \t\r\n\r\n\v\f\n", chunk: ReadChunk},
		{name: "CR before LF kept for the decoder", caseNo: 13, data: ping + "\r\n", chunk: ReadChunk, lines: []string{ping + "\r"}},
		{name: "pipelined", caseNo: 14, data: ping + "\n" + `{"protocol":1,"type":"nope"}` + "\n" + ping + "\n", chunk: ReadChunk,
			lines: []string{ping, `{"protocol":1,"type":"nope"}`, ping}},
		{name: "split across reads", caseNo: 15, data: ping + "\n", chunk: 5, lines: []string{ping}},
		{name: "unterminated held", caseNo: 16, data: ping, chunk: ReadChunk, pending: len(ping)},
		{name: "65537 unterminated overflows", caseNo: 17, data: strings.Repeat("x", 65537), chunk: ReadChunk, overflow: true},
		{name: "65536 plus newline accepted", caseNo: 18, data: strings.Repeat(" ", 65536-len(ping)) + ping + "\n", chunk: ReadChunk,
			lines: []string{strings.Repeat(" ", 65536-len(ping)) + ping}},
		{name: "65537 terminated then ping", caseNo: 19, data: strings.Repeat("x", 65537) + "\n" + ping + "\n", chunk: ReadChunk,
			lines: []string{strings.Repeat("x", 65537), ping}},
		{name: "70000 terminated overflows", caseNo: 20, data: strings.Repeat("x", 70000) + "\n", chunk: ReadChunk, overflow: true},
		{name: "65536 unterminated held", caseNo: 21, data: strings.Repeat("x", 65536), chunk: ReadChunk, pending: 65536},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var f framer
			lines, over := feedAll(&f, []byte(tc.data), tc.chunk)
			if over != tc.overflow {
				t.Fatalf("case %d: overflow = %v, want %v", tc.caseNo, over, tc.overflow)
			}
			if len(lines) != len(tc.lines) {
				t.Fatalf("case %d: got %d lines, want %d", tc.caseNo, len(lines), len(tc.lines))
			}
			for i := range lines {
				if lines[i] != tc.lines[i] {
					t.Fatalf("case %d: line %d = %.40q…, want %.40q…", tc.caseNo, i, lines[i], tc.lines[i])
				}
			}
			if !tc.overflow && f.pending() != tc.pending {
				t.Fatalf("case %d: pending = %d, want %d", tc.caseNo, f.pending(), tc.pending)
			}
		})
	}
}

func TestFramerOverflowThresholdFollowsFullReads(t *testing.T) {
	// §3.1: with full 4096-byte reads the buffer first exceeds the limit at
	// 69632 bytes, so terminated lines up to 69631 bytes arrive complete.
	for _, n := range []int{65537, 66000, 69000, 69631} {
		var f framer
		lines, over := feedAll(&f, []byte(strings.Repeat("x", n)+"\n"), ReadChunk)
		if over || len(lines) != 1 {
			t.Errorf("%d-byte line: overflow=%v lines=%d, want it delivered", n, over, len(lines))
		}
	}
	for _, n := range []int{69632, 70000, 200000} {
		var f framer
		_, over := feedAll(&f, []byte(strings.Repeat("x", n)+"\n"), ReadChunk)
		if !over {
			t.Errorf("%d-byte line: no overflow", n)
		}
	}
}

func TestFramerTailAfterNewlineKept(t *testing.T) {
	var f framer
	lines, _ := f.feed([]byte("a\nbc"))
	if len(lines) != 1 || string(lines[0]) != "a" || f.pending() != 2 {
		t.Fatalf("lines=%q pending=%d", lines, f.pending())
	}
	lines, _ = f.feed([]byte("d\n"))
	if len(lines) != 1 || string(lines[0]) != "bcd" || f.pending() != 0 {
		t.Fatalf("lines=%q pending=%d", lines, f.pending())
	}
}

// FuzzFramer checks the framer against a direct model of §3.1 for any
// bytes and any read size.
func FuzzFramer(f *testing.F) {
	f.Add([]byte("{\"protocol\":1,\"type\":\"ping\"}\n"), uint16(4096))
	f.Add([]byte(" \r\n\n\nabc\ndef"), uint16(1))
	f.Add(bytes.Repeat([]byte("x"), 70000), uint16(4096))
	f.Fuzz(func(t *testing.T, data []byte, chunk uint16) {
		c := int(chunk%ReadChunk) + 1
		var fr framer
		var got [][]byte
		var model []byte
		var want [][]byte
		for rest := data; len(rest) > 0; {
			n := min(c, len(rest))
			part := rest[:n]
			rest = rest[n:]
			lines, over := fr.feed(part)
			got = append(got, lines...)
			// The model: append, check overflow, cut lines.
			model = append(model, part...)
			if len(model) > MaxFrame && bytes.IndexByte(model, '\n') < 0 {
				if !over {
					t.Fatalf("model overflowed, framer did not")
				}
				break
			}
			if over {
				t.Fatalf("framer overflowed, model did not")
			}
			for {
				i := bytes.IndexByte(model, '\n')
				if i < 0 {
					break
				}
				if line := model[:i]; len(bytes.TrimLeft(line, " \t\n\r\v\f")) > 0 {
					want = append(want, bytes.Clone(line))
				}
				model = model[i+1:]
			}
			if fr.pending() != len(model) {
				t.Fatalf("pending %d, model %d", fr.pending(), len(model))
			}
		}
		if len(got) != len(want) {
			t.Fatalf("got %d lines, want %d", len(got), len(want))
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("line %d differs", i)
			}
		}
	})
}
