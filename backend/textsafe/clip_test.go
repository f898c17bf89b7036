package textsafe

import (
	"testing"
	"unicode/utf8"
)

func TestCollapse(t *testing.T) {
	if got := Collapse("  one\n\ttwo  three\r\n"); got != "one two three" {
		t.Fatalf("Collapse = %q", got)
	}
	if got := Collapse(" \n "); got != "" {
		t.Fatalf("Collapse of blanks = %q", got)
	}
}

func TestClip(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"abcdef", 0, "abcdef"},
		{"abcdef", -1, "abcdef"},
		{"abcdef", 6, "abcdef"},
		{"abcdef", 5, "abcd…"},
		{"abcdef", 1, "…"},
		{"héllo wörld", 5, "héll…"},
		{"日本語テキスト", 4, "日本語…"},
		{"line\nbreak", 20, "line\nbreak"}, // Clip does not collapse
	} {
		if got := Clip(c.in, c.max); got != c.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}

func TestOneLine(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"  fix\n the\ttests ", 80, "fix the tests"},
		{"fix\nthe tests", 7, "fix th…"},
		{"a  b", 3, "a b"},
		{"ünï\ncödé", 5, "ünï …"},
	} {
		if got := OneLine(c.in, c.max); got != c.want {
			t.Errorf("OneLine(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}

func TestCutRunes(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"abc", 0, ""},
		{"abc", 2, "ab"},
		{"abc", 3, "abc"},
		{"abc", 9, "abc"},
		{"日本語", 2, "日本"},
	} {
		if got := CutRunes(c.in, c.n); got != c.want {
			t.Errorf("CutRunes(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

func TestCutAndClipBytes(t *testing.T) {
	for _, c := range []struct {
		in      string
		n       int
		cut, cl string
	}{
		{"abcdef", 6, "abcdef", "abcdef"},
		{"abcdef", 4, "abcd", "abcd…"},
		{"abcdef", 0, "", "…"},
		{"aé", 2, "a", "a…"},    // é is 2 bytes: never half of it
		{"a日本", 3, "a", "a…"},   // 日 is 3 bytes
		{"a日本", 4, "a日", "a日…"}, // exactly one whole rune fits
	} {
		if got := CutBytes(c.in, c.n); got != c.cut {
			t.Errorf("CutBytes(%q, %d) = %q, want %q", c.in, c.n, got, c.cut)
		}
		if got := ClipBytes(c.in, c.n); got != c.cl {
			t.Errorf("ClipBytes(%q, %d) = %q, want %q", c.in, c.n, got, c.cl)
		}
	}
}

func FuzzClipHelpers(f *testing.F) {
	for _, s := range []string{"", "abc", "日本語", "a\xffb", "x\ny\tz"} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n > 1000 || n < -1 {
			n = 7
		}
		if n > 0 {
			if got := Clip(s, n); utf8.RuneCountInString(got) > n {
				t.Fatalf("Clip(%q, %d) = %q: more than %d runes", s, n, got, n)
			}
			if got := OneLine(s, n); utf8.RuneCountInString(got) > n {
				t.Fatalf("OneLine(%q, %d) = %q: more than %d runes", s, n, got, n)
			}
		}
		if got := CutBytes(s, n); len(got) > max(n, 0) || (utf8.ValidString(s) && !utf8.ValidString(got)) {
			t.Fatalf("CutBytes(%q, %d) = %q", s, n, got)
		}
		if got := CutRunes(s, n); utf8.RuneCountInString(got) > max(n, 0) {
			t.Fatalf("CutRunes(%q, %d) = %q", s, n, got)
		}
	})
}
