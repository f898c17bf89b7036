package wire

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// This file is a small, order-preserving JSON parser with the semantics of
// Python's json.loads that the protocol depends on (spec §3.2):
//   - objects keep member order; a duplicate name keeps the position of its
//     first occurrence and takes the value of its last (Python dict);
//   - names are compared exactly (no case folding);
//   - numbers keep their literal so integers and floats can be classified
//     and rendered like Python; booleans are never numbers;
//   - only JSON whitespace (space, \t, \n, \r) may surround the value;
//   - NaN/Infinity, a BOM, trailing data, integer literals with more than
//     4300 digits and nesting deeper than maxNestingDepth are invalid.
// The caller validates UTF-8 first.

type jkind uint8

const (
	jNull jkind = iota
	jBool
	jNumber
	jString
	jArray
	jObject
)

// jvalue is one parsed JSON value.
type jvalue struct {
	kind  jkind
	b     bool     // jBool
	s     string   // jString: the text; jNumber: the literal
	isInt bool     // jNumber: no fraction and no exponent
	arr   []jvalue // jArray
	obj   []jmember
}

type jmember struct {
	key string
	val jvalue
}

// maxNestingDepth approximates Python's recursion limit: deeper documents
// crash the reference; we answer invalid JSON instead (spec §13.2).
const maxNestingDepth = 1000

// maxIntDigits is Python's integer string conversion limit (spec §13.2).
const maxIntDigits = 4300

// objectIndexThreshold is the member count above which duplicate detection
// uses a map.
const objectIndexThreshold = 8

// get returns the member named key of an object value.
func (v *jvalue) get(key string) (*jvalue, bool) {
	for i := range v.obj {
		if v.obj[i].key == key {
			return &v.obj[i].val, true
		}
	}
	return nil, false
}

// present reports whether key is present and not null.
func (v *jvalue) present(key string) (*jvalue, bool) {
	m, ok := v.get(key)
	if !ok || m.kind == jNull {
		return nil, false
	}
	return m, true
}

// float returns a number's value as Python float() would (overflow → ±Inf).
func (v *jvalue) float() float64 {
	// The literal is well-formed, so the only possible error is a range
	// error, for which ParseFloat already returns ±Inf or 0 like Python.
	f, _ := strconv.ParseFloat(v.s, 64)
	return f
}

type jparser struct {
	s     []byte
	i     int
	depth int
}

// parseJSON parses exactly one JSON value surrounded by optional JSON
// whitespace.
func parseJSON(s []byte) (jvalue, bool) {
	p := jparser{s: s}
	p.ws()
	v, ok := p.value()
	if !ok {
		return jvalue{}, false
	}
	p.ws()
	if p.i != len(p.s) {
		return jvalue{}, false
	}
	return v, true
}

func (p *jparser) ws() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jparser) literal(word string) bool {
	if len(p.s)-p.i >= len(word) && string(p.s[p.i:p.i+len(word)]) == word {
		p.i += len(word)
		return true
	}
	return false
}

func (p *jparser) value() (jvalue, bool) {
	if p.i >= len(p.s) {
		return jvalue{}, false
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		s, ok := p.str()
		return jvalue{kind: jString, s: s}, ok
	case c == 't':
		return jvalue{kind: jBool, b: true}, p.literal("true")
	case c == 'f':
		return jvalue{kind: jBool}, p.literal("false")
	case c == 'n':
		return jvalue{kind: jNull}, p.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	}
	return jvalue{}, false
}

func (p *jparser) enter() bool {
	p.depth++
	return p.depth <= maxNestingDepth
}

func (p *jparser) object() (jvalue, bool) {
	if !p.enter() {
		return jvalue{}, false
	}
	defer func() { p.depth-- }()
	p.i++ // {
	v := jvalue{kind: jObject}
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return v, true
	}
	var index map[string]int
	for {
		p.ws()
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return jvalue{}, false
		}
		key, ok := p.str()
		if !ok {
			return jvalue{}, false
		}
		p.ws()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return jvalue{}, false
		}
		p.i++
		p.ws()
		val, ok := p.value()
		if !ok {
			return jvalue{}, false
		}
		// Python dict semantics: first position, last value.
		dup := -1
		if index != nil {
			if j, ok := index[key]; ok {
				dup = j
			}
		} else {
			for j := range v.obj {
				if v.obj[j].key == key {
					dup = j
					break
				}
			}
		}
		if dup >= 0 {
			v.obj[dup].val = val
		} else {
			v.obj = append(v.obj, jmember{key: key, val: val})
			if index != nil {
				index[key] = len(v.obj) - 1
			} else if len(v.obj) > objectIndexThreshold {
				index = make(map[string]int, 2*len(v.obj))
				for j, m := range v.obj {
					index[m.key] = j
				}
			}
		}
		p.ws()
		if p.i >= len(p.s) {
			return jvalue{}, false
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return v, true
		default:
			return jvalue{}, false
		}
	}
}

func (p *jparser) array() (jvalue, bool) {
	if !p.enter() {
		return jvalue{}, false
	}
	defer func() { p.depth-- }()
	p.i++ // [
	v := jvalue{kind: jArray}
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		v.arr = []jvalue{}
		return v, true
	}
	for {
		p.ws()
		el, ok := p.value()
		if !ok {
			return jvalue{}, false
		}
		v.arr = append(v.arr, el)
		p.ws()
		if p.i >= len(p.s) {
			return jvalue{}, false
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			return v, true
		default:
			return jvalue{}, false
		}
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (p *jparser) number() (jvalue, bool) {
	start := p.i
	if p.s[p.i] == '-' {
		p.i++
	}
	if p.i >= len(p.s) || !isDigit(p.s[p.i]) {
		return jvalue{}, false
	}
	if p.s[p.i] == '0' {
		p.i++
	} else {
		for p.i < len(p.s) && isDigit(p.s[p.i]) {
			p.i++
		}
	}
	intEnd := p.i
	isInt := true
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		if p.i >= len(p.s) || !isDigit(p.s[p.i]) {
			return jvalue{}, false
		}
		for p.i < len(p.s) && isDigit(p.s[p.i]) {
			p.i++
		}
		isInt = false
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if p.i >= len(p.s) || !isDigit(p.s[p.i]) {
			return jvalue{}, false
		}
		for p.i < len(p.s) && isDigit(p.s[p.i]) {
			p.i++
		}
		isInt = false
	}
	if isInt {
		digits := intEnd - start
		if p.s[start] == '-' {
			digits--
		}
		if digits > maxIntDigits {
			return jvalue{}, false
		}
	}
	return jvalue{kind: jNumber, s: string(p.s[start:p.i]), isInt: isInt}, true
}

func hexVal(c byte) rune {
	switch {
	case c >= '0' && c <= '9':
		return rune(c - '0')
	case c >= 'a' && c <= 'f':
		return rune(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return rune(c-'A') + 10
	}
	return -1
}

func (p *jparser) hex4() (rune, bool) {
	if len(p.s)-p.i < 4 {
		return 0, false
	}
	var r rune
	for k := 0; k < 4; k++ {
		h := hexVal(p.s[p.i+k])
		if h < 0 {
			return 0, false
		}
		r = r<<4 | h
	}
	p.i += 4
	return r, true
}

// str parses a string starting at the opening quote.
func (p *jparser) str() (string, bool) {
	p.i++ // "
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == '"' {
			s := string(p.s[start:p.i])
			p.i++
			return s, true
		}
		if c == '\\' || c < 0x20 {
			break
		}
		p.i++
	}
	buf := append([]byte(nil), p.s[start:p.i]...)
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return string(buf), true
		case c < 0x20:
			return "", false // control characters must be escaped
		case c != '\\':
			buf = append(buf, c)
			p.i++
			continue
		}
		p.i++ // backslash
		if p.i >= len(p.s) {
			return "", false
		}
		e := p.s[p.i]
		p.i++
		switch e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return "", false
			}
			if utf16.IsSurrogate(r) {
				// A lone surrogate becomes U+FFFD (Go behaviour; spec §13.3).
				dec := utf8.RuneError
				if r < 0xdc00 && len(p.s)-p.i >= 6 && p.s[p.i] == '\\' && p.s[p.i+1] == 'u' {
					save := p.i
					p.i += 2
					r2, ok := p.hex4()
					if ok && r2 >= 0xdc00 && r2 <= 0xdfff {
						dec = utf16.DecodeRune(r, r2)
					} else {
						p.i = save
					}
				}
				r = dec
			}
			buf = utf8.AppendRune(buf, r)
		default:
			return "", false
		}
	}
	return "", false
}

// ---- Python rendering of values for error texts (spec §3.2, §8) ----

// pyStr renders v like Python's str(): strings as is, everything else like
// repr. A missing value is rendered by the caller as None.
func pyStr(v *jvalue) string {
	if v == nil {
		return "None"
	}
	if v.kind == jString {
		return v.s
	}
	var sb strings.Builder
	pyRepr(&sb, v)
	return sb.String()
}

// pyReprString renders v like Python's repr(); nil is None.
func pyReprString(v *jvalue) string {
	if v == nil {
		return "None"
	}
	var sb strings.Builder
	pyRepr(&sb, v)
	return sb.String()
}

func pyRepr(sb *strings.Builder, v *jvalue) {
	switch v.kind {
	case jNull:
		sb.WriteString("None")
	case jBool:
		if v.b {
			sb.WriteString("True")
		} else {
			sb.WriteString("False")
		}
	case jNumber:
		if v.isInt {
			if v.s == "-0" {
				sb.WriteString("0")
			} else {
				sb.WriteString(v.s)
			}
			return
		}
		sb.Write(AppendPythonFloat(nil, v.float()))
	case jString:
		pyReprStr(sb, v.s)
	case jArray:
		sb.WriteByte('[')
		for i := range v.arr {
			if i > 0 {
				sb.WriteString(", ")
			}
			pyRepr(sb, &v.arr[i])
		}
		sb.WriteByte(']')
	case jObject:
		sb.WriteByte('{')
		for i := range v.obj {
			if i > 0 {
				sb.WriteString(", ")
			}
			pyReprStr(sb, v.obj[i].key)
			sb.WriteString(": ")
			pyRepr(sb, &v.obj[i].val)
		}
		sb.WriteByte('}')
	}
}

// pyReprStr renders s like Python's repr(str): single quotes unless s
// contains ' and no ", backslash escapes for the quote, \, \t, \n, \r,
// \xNN for other control characters, and \xNN/\uNNNN/\UNNNNNNNN for
// non-printable non-ASCII code points (unicode.IsPrint approximates
// str.isprintable).
func pyReprStr(sb *strings.Builder, s string) {
	quote := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		quote = '"'
	}
	sb.WriteByte(quote)
	for _, r := range s {
		switch {
		case r == rune(quote) || r == '\\':
			sb.WriteByte('\\')
			sb.WriteRune(r)
		case r == '\t':
			sb.WriteString(`\t`)
		case r == '\n':
			sb.WriteString(`\n`)
		case r == '\r':
			sb.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			sb.WriteString(`\x`)
			sb.WriteByte(hexDigits[r>>4])
			sb.WriteByte(hexDigits[r&0xf])
		case r < 0x7f || unicode.IsPrint(r):
			sb.WriteRune(r)
		case r <= 0xff:
			sb.WriteString(`\x`)
			sb.WriteByte(hexDigits[r>>4])
			sb.WriteByte(hexDigits[r&0xf])
		case r <= 0xffff:
			sb.WriteString(`\u`)
			for sh := 12; sh >= 0; sh -= 4 {
				sb.WriteByte(hexDigits[(r>>sh)&0xf])
			}
		default:
			sb.WriteString(`\U`)
			for sh := 28; sh >= 0; sh -= 4 {
				sb.WriteByte(hexDigits[(r>>sh)&0xf])
			}
		}
	}
	sb.WriteByte(quote)
}
