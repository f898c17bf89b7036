package wire

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// This file is the Python-compatible encoder of spec §4: compact
// separators, ensure_ascii string escaping with lowercase \uXXXX and
// surrogate pairs, Python float repr, and members in the exact order of §7.

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string exactly like Python's
// json.dumps(s, ensure_ascii=True): printable ASCII literally except `"` and
// `\`; \b \f \n \r \t short escapes; other control characters, DEL and every
// non-ASCII code point as lowercase \uXXXX (surrogate pairs above U+FFFF).
// Bytes of s that are not valid UTF-8 are written as \ufffd.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
			i++
			continue
		}
		b = append(b, s[start:i]...)
		if c < utf8.RuneSelf {
			switch c {
			case '"':
				b = append(b, '\\', '"')
			case '\\':
				b = append(b, '\\', '\\')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = appendU4(b, rune(c))
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r >= 0x10000 {
			r -= 0x10000
			b = appendU4(b, 0xd800+(r>>10))
			b = appendU4(b, 0xdc00+(r&0x3ff))
		} else {
			b = appendU4(b, r) // includes utf8.RuneError for invalid bytes
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

func appendU4(b []byte, r rune) []byte {
	return append(b, '\\', 'u',
		hexDigits[(r>>12)&0xf], hexDigits[(r>>8)&0xf], hexDigits[(r>>4)&0xf], hexDigits[r&0xf])
}

// AppendPythonFloat appends f as Python's repr(float) does: 86400.0, 0.0,
// 10.5, 1e+16, 1.5e-05, inf, -inf, nan. (inf and nan are not JSON; callers
// reject non-finite values before encoding.)
func AppendPythonFloat(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "nan"...)
	case math.IsInf(f, 1):
		return append(b, "inf"...)
	case math.IsInf(f, -1):
		return append(b, "-inf"...)
	}
	abs := math.Abs(f)
	if f == 0 || (abs >= 1e-4 && abs < 1e16) {
		start := len(b)
		b = strconv.AppendFloat(b, f, 'f', -1, 64)
		for _, c := range b[start:] {
			if c == '.' {
				return b
			}
		}
		return append(b, '.', '0')
	}
	return strconv.AppendFloat(b, f, 'e', -1, 64)
}

// PythonFloat returns AppendPythonFloat as a string.
func PythonFloat(f float64) string { return string(AppendPythonFloat(nil, f)) }

func appendHead(b []byte, typ string) []byte {
	b = append(b, `{"protocol":1,"type":`...)
	return AppendString(b, typ)
}

func appendKey(b []byte, key string) []byte {
	b = append(b, ',', '"')
	b = append(b, key...)
	return append(b, '"', ':')
}

func appendStrField(b []byte, key, v string) []byte {
	return AppendString(appendKey(b, key), v)
}

func appendNullableStr(b []byte, key, v string) []byte {
	b = appendKey(b, key)
	if v == "" {
		return append(b, "null"...)
	}
	return AppendString(b, v)
}

func appendIntField(b []byte, key string, v int) []byte {
	return strconv.AppendInt(appendKey(b, key), int64(v), 10)
}

func appendNullableInt(b []byte, key string, v int, null bool) []byte {
	b = appendKey(b, key)
	if null {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, int64(v), 10)
}

func appendBoolField(b []byte, key string, v bool) []byte {
	b = appendKey(b, key)
	if v {
		return append(b, "true"...)
	}
	return append(b, "false"...)
}

func appendIdentity(b []byte, id Identity) []byte {
	b = append(b, `{"backend":`...)
	b = AppendString(b, id.Backend)
	b = append(b, `,"session_id":`...)
	b = AppendString(b, id.SessionID)
	return append(b, '}')
}

// appendMetadataMembers appends ,"k":"v" for every entry.
func appendMetadataMembers(b []byte, m Metadata) []byte {
	for _, e := range m {
		b = append(b, ',')
		b = AppendString(b, e.Key)
		b = append(b, ':')
		b = AppendString(b, e.Value)
	}
	return b
}

func appendMetadata(b []byte, m Metadata) []byte {
	if len(m) == 0 {
		return append(b, '{', '}')
	}
	b = append(b, '{')
	for i, e := range m {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, e.Key)
		b = append(b, ':')
		b = AppendString(b, e.Value)
	}
	return append(b, '}')
}

// frame finishes an encoded object with "\n" and enforces MaxEncodedBytes.
func frame(b []byte) ([]byte, error) {
	b = append(b, '\n')
	if len(b) > MaxEncodedBytes {
		return nil, ErrFrameTooLarge()
	}
	return b, nil
}

// EncodeReply encodes m; when m would exceed the frame limit it returns the
// frame_too_large error line instead (spec §4 "Size limit"), which is what
// the daemon sends to the connection whose message triggered it. The second
// result reports whether m itself was encoded.
func EncodeReply(m Message) ([]byte, bool) {
	line, err := m.Encode()
	if err == nil {
		return line, true
	}
	line, _ = ErrFrameTooLarge().Message().Encode()
	return line, false
}
