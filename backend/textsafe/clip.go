package textsafe

import (
	"strings"
	"unicode/utf8"
)

// The clipping helpers below shorten text for a message, a log line, a
// title or a card. Unlike Line they leave control characters alone: they
// only measure and cut. Two measures are in use and each is named for
// it: runes (what a person counts as characters: titles, summaries) and
// bytes (limits of a file or protocol field, short quotes in an error).
// None of them ever cuts a UTF-8 sequence in half.

// Ellipsis marks text that was cut.
const Ellipsis = "…"

// Collapse turns every run of whitespace (newlines and tabs included) into
// one space and trims both ends, so the text reads as one line.
func Collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// Clip returns s cut to at most max runes, the last of them "…" when
// anything was cut (max <= 0: no limit).
func Clip(s string, max int) string {
	if max <= 0 || utf8.RuneCountInString(s) <= max {
		return s
	}
	return string([]rune(s)[:max-1]) + Ellipsis
}

// OneLine is Clip of Collapse(s): s as one line of at most max runes.
func OneLine(s string, max int) string { return Clip(Collapse(s), max) }

// CutRunes returns the first n runes of s, without a mark (n <= 0: "").
func CutRunes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	i := 0
	for at := range s {
		if i == n {
			return s[:at]
		}
		i++
	}
	return s
}

// CutBytes returns the longest start of s that is at most n bytes long and
// does not end inside a UTF-8 sequence (n <= 0: "").
func CutBytes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// ClipBytes returns s when it is at most n bytes long, else CutBytes(s, n)
// followed by "…": the mark comes on top of the n bytes.
func ClipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return CutBytes(s, n) + Ellipsis
}
