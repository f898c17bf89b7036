// Package textsafe makes agent-supplied strings (session labels, titles,
// notes) safe to show to a person: on a terminal, in a tray menu, on a pad
// page. The stored value stays exactly as the agent sent it (Wire keeps it);
// only what is shown is cleaned.
//
// Shown text must not be able to move the cursor or recolour a terminal
// (ESC, CSI and the other C0/C1 controls), ring the bell (BEL), start a new
// line that looks like Lets' own output, or reorder what follows it with
// the Unicode bidirectional controls (the "Trojan Source" trick: an
// override makes "approve" display as something else).
package textsafe

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Replacement stands in for a control character that carried no meaning a
// person could see.
const Replacement = '\uFFFD'

// IsBidiControl reports whether r changes the display order of the text
// around it: the embeddings and overrides U+202A–U+202E, the isolates
// U+2066–U+2069, and the marks U+200E, U+200F and U+061C.
func IsBidiControl(r rune) bool {
	switch {
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0x200E, r == 0x200F, r == 0x061C:
		return true
	}
	return false
}

// Line returns s as one line a person can read safely: every run of
// whitespace (newlines and tabs included) becomes one space, the ends are
// trimmed, bidirectional controls are dropped, other control characters
// (C0, DEL, C1) and invalid UTF-8 become U+FFFD, and the result is at most
// max runes long, ending in "…" when cut (max <= 0: no limit).
func Line(s string, max int) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	n := 0
	cut := false
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			r = Replacement
		}
		i += size
		switch {
		case unicode.IsSpace(r):
			space = n > 0
			continue
		case IsBidiControl(r):
			continue
		case r < 0x20, r == 0x7F, r >= 0x80 && r < 0xA0:
			r = Replacement
		}
		if space {
			if max > 0 && n+1 >= max {
				cut = true
				break
			}
			b.WriteByte(' ')
			n++
			space = false
		}
		if max > 0 && n >= max {
			cut = true
			break
		}
		b.WriteRune(r)
		n++
	}
	if !cut {
		return b.String()
	}
	// Make room for the ellipsis.
	out := []rune(b.String())
	if len(out) >= max {
		out = out[:max-1]
	}
	return strings.TrimRight(string(out), " ") + "…"
}

// IsJSONControl reports whether r is a character JSON lets pass raw inside
// a string but a reader of the text may act on: DEL, the C1 controls
// U+0080–U+009F (NEL, U+0085, is a line break for some terminals and
// line readers), the line and paragraph separators U+2028 and U+2029, and
// the bidi controls (IsBidiControl).
func IsJSONControl(r rune) bool {
	return (r >= 0x7F && r <= 0x9F) || r == 0x2028 || r == 0x2029 || IsBidiControl(r)
}

// EscapeJSONControls returns JSON text with every IsJSONControl character
// written as a \uXXXX escape: the same JSON value, so a decoder reads the
// same strings, but no such character reaches a terminal or a
// line-delimited stream raw. Such characters can only stand inside JSON
// strings, where an escape means the same, so it works on any piece of a
// JSON stream that does not cut a UTF-8 sequence. Everything else,
// invalid UTF-8 included, is left byte for byte. When nothing needs
// escaping, data itself is returned.
func EscapeJSONControls(data []byte) []byte {
	first := -1
	for i := 0; i < len(data); {
		if data[i] < 0x7F {
			i++
			continue
		}
		r, size := utf8.DecodeRune(data[i:])
		if IsJSONControl(r) {
			first = i
			break
		}
		i += size
	}
	if first < 0 {
		return data
	}
	out := make([]byte, 0, len(data)+16)
	out = append(out, data[:first]...)
	for i := first; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if IsJSONControl(r) {
			out = append(out, '\\', 'u', hexDigit(r>>12), hexDigit(r>>8), hexDigit(r>>4), hexDigit(r))
		} else {
			out = append(out, data[i:i+size]...)
		}
		i += size
	}
	return out
}

func hexDigit(r rune) byte {
	return "0123456789abcdef"[r&0xF]
}
