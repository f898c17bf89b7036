package textsafe

import (
	"testing"
	"unicode/utf8"
)

func TestLine(t *testing.T) {
	for _, c := range []struct {
		name, in string
		max      int
		want     string
	}{
		{"plain", "fix the tests", 0, "fix the tests"},
		{"newlines become spaces", "line one\nline two\r\n\tthree", 0, "line one line two three"},
		{"escape sequences cannot recolour", "ok\x1b[31mred\x1b[0m", 0, "ok\uFFFD[31mred\uFFFD[0m"},
		{"bell", "ding\a", 0, "ding\uFFFD"},
		{"C1 CSI", "a\u009b2Jb", 0, "a\uFFFD2Jb"},
		{"bidi override dropped", "approve\u202Eevorppa", 0, "approveevorppa"},
		{"bidi isolates dropped", "\u2066x\u2069\u200F", 0, "x"},
		{"invalid utf-8", "a\xffb", 0, "a\uFFFDb"},
		{"trimmed", "  spaced  out  ", 0, "spaced out"},
		{"cut with ellipsis", "abcdefghij", 5, "abcd…"},
		{"exact fits", "abcde", 5, "abcde"},
		{"cut at a space", "abc defgh", 4, "abc…"},
		{"unicode kept", "café — ✓ 日本", 0, "café — ✓ 日本"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Line(c.in, c.max); got != c.want {
				t.Fatalf("Line(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
			}
		})
	}
}

func FuzzLine(f *testing.F) {
	for _, s := range []string{"", "a\nb", "\x1b[2J", "\u202Ex", "\xff\xfe", "  x  "} {
		f.Add(s, 10)
	}
	f.Fuzz(func(t *testing.T, s string, max int) {
		if max > 1000 || max < -1 {
			max = 10
		}
		got := Line(s, max)
		if !utf8.ValidString(got) {
			t.Fatalf("invalid UTF-8 out: %q", got)
		}
		if max > 0 && utf8.RuneCountInString(got) > max {
			t.Fatalf("%q longer than %d", got, max)
		}
		for _, r := range got {
			if r < 0x20 || r == 0x7F || (r >= 0x80 && r < 0xA0) || IsBidiControl(r) || r == '\n' {
				t.Fatalf("control %U left in %q", r, got)
			}
		}
	})
}
