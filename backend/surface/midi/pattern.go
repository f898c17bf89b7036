package midi

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// Port patterns are Python `re` expressions searched case-insensitively
// (§3.1). Go's regexp (RE2) has no lookahead, which the Pro Mk3 profile
// uses, so this file is a small backtracking matcher for the Python subset a
// port pattern plausibly needs: literals and escapes, `.`, classes `[…]`
// and `\d \D \w \W \s \S`, anchors `^ $ \A \Z \b \B`, groups `(…)`,
// `(?:…)`, `(?P<name>…)`, alternation, greedy and lazy `* + ? {m,n}`, and
// lookahead `(?=…)` / `(?!…)`. Anything else (backreferences, lookbehind,
// possessive quantifiers, inline flags other than a leading `(?i)`) is
// rejected when the profile is parsed, never silently ignored.

// Pattern is a compiled port pattern.
type Pattern struct {
	src  string
	root node
}

// String returns the pattern source.
func (p *Pattern) String() string { return p.src }

// Limits that keep a hostile user profile from hurting the daemon.
const (
	maxPatternLen   = 4096
	maxPatternDepth = 64
	maxRepeat       = 1000
	maxMatchSteps   = 200000
)

type nodeKind uint8

const (
	nLit nodeKind = iota
	nAny
	nClass
	nBegin     // ^ or \A
	nEnd       // $ (end or before a final newline)
	nEndStrict // \Z
	nWordB     // \b
	nNotWordB  // \B
	nSeq
	nAlt
	nRepeat
	nLookahead
	nNegLookahead
)

type classItem struct {
	lo, hi rune
	esc    byte // 'd','D','w','W','s','S' or 0 for a range
}

type node struct {
	kind     nodeKind
	r        rune
	items    []classItem
	negate   bool
	subs     []node
	min, max int // max < 0 = unbounded
	lazy     bool
}

// CompilePattern compiles a Python-dialect port pattern.
func CompilePattern(src string) (*Pattern, error) {
	if len(src) > maxPatternLen {
		return nil, fmt.Errorf("pattern longer than %d bytes", maxPatternLen)
	}
	c := &compiler{src: []rune(src)}
	if strings.HasPrefix(src, "(?i)") {
		c.pos = 4 // already case-insensitive
	}
	n, err := c.alt(0)
	if err != nil {
		return nil, err
	}
	if c.pos < len(c.src) {
		return nil, fmt.Errorf("unbalanced parenthesis at position %d", c.pos)
	}
	return &Pattern{src: src, root: n}, nil
}

type compiler struct {
	src []rune
	pos int
}

func (c *compiler) more() bool { return c.pos < len(c.src) }
func (c *compiler) peek() rune { return c.src[c.pos] }

func (c *compiler) alt(depth int) (node, error) {
	if depth > maxPatternDepth {
		return node{}, errors.New("pattern nested too deeply")
	}
	var branches []node
	for {
		seq, err := c.seq(depth)
		if err != nil {
			return node{}, err
		}
		branches = append(branches, seq)
		if c.more() && c.peek() == '|' {
			c.pos++
			continue
		}
		break
	}
	if len(branches) == 1 {
		return branches[0], nil
	}
	return node{kind: nAlt, subs: branches}, nil
}

func (c *compiler) seq(depth int) (node, error) {
	var items []node
	for c.more() {
		ch := c.peek()
		if ch == '|' || ch == ')' {
			break
		}
		atom, err := c.atom(depth)
		if err != nil {
			return node{}, err
		}
		atom, err = c.quantifier(atom)
		if err != nil {
			return node{}, err
		}
		items = append(items, atom)
	}
	return node{kind: nSeq, subs: items}, nil
}

func (c *compiler) atom(depth int) (node, error) {
	start := c.pos
	ch := c.peek()
	c.pos++
	switch ch {
	case '.':
		return node{kind: nAny}, nil
	case '^':
		return node{kind: nBegin}, nil
	case '$':
		return node{kind: nEnd}, nil
	case '*', '+', '?':
		return node{}, fmt.Errorf("nothing to repeat at position %d", start)
	case '{':
		if _, _, ok := c.braces(start); ok {
			return node{}, fmt.Errorf("nothing to repeat at position %d", start)
		}
		return node{kind: nLit, r: '{'}, nil
	case '[':
		return c.class()
	case '\\':
		return c.escape(false)
	case '(':
		kind := nSeq
		if c.more() && c.peek() == '?' {
			c.pos++
			if !c.more() {
				return node{}, errors.New("unexpected end of pattern")
			}
			switch c.peek() {
			case ':':
				c.pos++
			case '=':
				c.pos++
				kind = nLookahead
			case '!':
				c.pos++
				kind = nNegLookahead
			case 'P':
				c.pos++
				if !c.more() || c.peek() != '<' {
					return node{}, fmt.Errorf("unsupported group syntax at position %d", start)
				}
				end := -1
				for i := c.pos + 1; i < len(c.src); i++ {
					if c.src[i] == '>' {
						end = i
						break
					}
				}
				if end < 0 {
					return node{}, fmt.Errorf("missing > in group name at position %d", start)
				}
				if end == c.pos+1 {
					return node{}, errors.New("missing group name")
				}
				c.pos = end + 1
			default:
				return node{}, fmt.Errorf("unsupported group syntax (?%c at position %d (lookbehind, inline flags and conditionals are not supported in port patterns)", c.peek(), start)
			}
		}
		inner, err := c.alt(depth + 1)
		if err != nil {
			return node{}, err
		}
		if !c.more() || c.peek() != ')' {
			return node{}, fmt.Errorf("missing ), unterminated subpattern at position %d", start)
		}
		c.pos++
		if kind == nSeq {
			return inner, nil
		}
		return node{kind: kind, subs: []node{inner}}, nil
	case ')':
		return node{}, fmt.Errorf("unbalanced parenthesis at position %d", start)
	}
	return node{kind: nLit, r: ch}, nil
}

// braces parses {m}, {m,}, {,n}, {m,n} after the '{' at start; ok=false
// means the brace is a literal, as in Python.
func (c *compiler) braces(start int) (int, int, bool) {
	end := -1
	for i := start + 1; i < len(c.src); i++ {
		if c.src[i] == '}' {
			end = i
			break
		}
	}
	if end < 0 {
		return 0, 0, false
	}
	body := string(c.src[start+1 : end])
	lo, hi, found := strings.Cut(body, ",")
	isNum := func(s string) bool {
		if s == "" {
			return true
		}
		for _, r := range s {
			if r < '0' || r > '9' {
				return false
			}
		}
		return true
	}
	if !isNum(lo) || !isNum(hi) || (lo == "" && !found) {
		return 0, 0, false
	}
	min, max := 0, -1
	if lo != "" {
		v, err := strconv.Atoi(lo)
		if err != nil || v > maxRepeat {
			return maxRepeat + 1, 0, true
		}
		min = v
	}
	if !found {
		max = min
	} else if hi != "" {
		v, err := strconv.Atoi(hi)
		if err != nil || v > maxRepeat {
			return maxRepeat + 1, 0, true
		}
		max = v
	}
	c.pos = end + 1
	return min, max, true
}

func (c *compiler) quantifier(atom node) (node, error) {
	if !c.more() {
		return atom, nil
	}
	start := c.pos
	min, max := 0, 0
	switch c.peek() {
	case '*':
		min, max = 0, -1
		c.pos++
	case '+':
		min, max = 1, -1
		c.pos++
	case '?':
		min, max = 0, 1
		c.pos++
	case '{':
		save := c.pos
		lo, hi, ok := c.braces(c.pos)
		if !ok {
			c.pos = save
			return atom, nil
		}
		if lo > maxRepeat {
			return node{}, fmt.Errorf("repeat count above %d at position %d", maxRepeat, start)
		}
		if hi >= 0 && hi < lo {
			return node{}, fmt.Errorf("min repeat greater than max repeat at position %d", start)
		}
		min, max = lo, hi
	default:
		return atom, nil
	}
	switch atom.kind {
	case nBegin, nEnd, nEndStrict, nWordB, nNotWordB:
		return node{}, fmt.Errorf("nothing to repeat at position %d", start)
	}
	q := node{kind: nRepeat, subs: []node{atom}, min: min, max: max}
	if c.more() && c.peek() == '?' {
		q.lazy = true
		c.pos++
	}
	if c.more() {
		switch c.peek() {
		case '*', '+', '?':
			return node{}, fmt.Errorf("multiple repeat at position %d", c.pos)
		case '{':
			save := c.pos
			if _, _, ok := c.braces(c.pos); ok {
				return node{}, fmt.Errorf("multiple repeat at position %d", save)
			}
			c.pos = save
		}
	}
	return q, nil
}

// escape parses what follows a backslash; inClass changes \b to backspace.
func (c *compiler) escape(inClass bool) (node, error) {
	if !c.more() {
		return node{}, errors.New("bad escape (end of pattern)")
	}
	ch := c.peek()
	c.pos++
	switch ch {
	case 'd', 'D', 'w', 'W', 's', 'S':
		return node{kind: nClass, items: []classItem{{esc: byte(ch)}}}, nil
	case 'b':
		if inClass {
			return node{kind: nLit, r: '\b'}, nil
		}
		return node{kind: nWordB}, nil
	case 'B':
		if !inClass {
			return node{kind: nNotWordB}, nil
		}
	case 'A':
		if !inClass {
			return node{kind: nBegin}, nil
		}
	case 'Z':
		if !inClass {
			return node{kind: nEndStrict}, nil
		}
	case 'n':
		return node{kind: nLit, r: '\n'}, nil
	case 't':
		return node{kind: nLit, r: '\t'}, nil
	case 'r':
		return node{kind: nLit, r: '\r'}, nil
	case 'f':
		return node{kind: nLit, r: '\f'}, nil
	case 'v':
		return node{kind: nLit, r: '\v'}, nil
	case 'a':
		return node{kind: nLit, r: '\a'}, nil
	case '0':
		return node{kind: nLit, r: 0}, nil
	case 'x', 'u', 'U':
		n := map[rune]int{'x': 2, 'u': 4, 'U': 8}[ch]
		if c.pos+n > len(c.src) {
			return node{}, fmt.Errorf("incomplete escape \\%c", ch)
		}
		v, err := strconv.ParseUint(string(c.src[c.pos:c.pos+n]), 16, 32)
		if err != nil || v > unicode.MaxRune {
			return node{}, fmt.Errorf("bad escape \\%c", ch)
		}
		c.pos += n
		return node{kind: nLit, r: rune(v)}, nil
	}
	if ch < 128 && (unicode.IsLetter(ch) || unicode.IsDigit(ch)) {
		return node{}, fmt.Errorf("bad or unsupported escape \\%c", ch)
	}
	return node{kind: nLit, r: ch}, nil
}

func (c *compiler) class() (node, error) {
	start := c.pos - 1
	n := node{kind: nClass}
	if c.more() && c.peek() == '^' {
		n.negate = true
		c.pos++
	}
	first := true
	for {
		if !c.more() {
			return node{}, fmt.Errorf("unterminated character set at position %d", start)
		}
		ch := c.peek()
		if ch == ']' && !first {
			c.pos++
			return n, nil
		}
		first = false
		var lo rune
		c.pos++
		if ch == '\\' {
			e, err := c.escape(true)
			if err != nil {
				return node{}, err
			}
			if e.kind == nClass {
				n.items = append(n.items, e.items...)
				continue
			}
			if e.kind != nLit {
				return node{}, fmt.Errorf("bad escape in character set at position %d", c.pos-2)
			}
			lo = e.r
		} else {
			lo = ch
		}
		hi := lo
		if c.pos+1 < len(c.src) && c.peek() == '-' && c.src[c.pos+1] != ']' {
			c.pos++
			h := c.peek()
			c.pos++
			if h == '\\' {
				e, err := c.escape(true)
				if err != nil {
					return node{}, err
				}
				if e.kind != nLit {
					return node{}, fmt.Errorf("bad character range at position %d", c.pos)
				}
				h = e.r
			}
			if h < lo {
				return node{}, fmt.Errorf("bad character range %c-%c", lo, h)
			}
			hi = h
		}
		n.items = append(n.items, classItem{lo: lo, hi: hi})
	}
}

// MatchString reports whether the pattern matches anywhere in s,
// ignoring case (Python re.search with re.IGNORECASE). A pattern that needs
// more than a bounded amount of work on s does not match.
func (p *Pattern) MatchString(s string) bool {
	m := &matcher{text: []rune(s)}
	for start := 0; start <= len(m.text); start++ {
		if m.match(&p.root, start, func(int) bool { return true }) {
			return true
		}
		if m.steps > maxMatchSteps {
			return false
		}
	}
	return false
}

type matcher struct {
	text  []rune
	steps int
}

func foldEqual(a, b rune) bool {
	if a == b {
		return true
	}
	for f := unicode.SimpleFold(a); f != a; f = unicode.SimpleFold(f) {
		if f == b {
			return true
		}
	}
	return false
}

func isWord(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

func classHas(items []classItem, r rune) bool {
	for _, it := range items {
		switch it.esc {
		case 'd':
			if unicode.Is(unicode.Nd, r) {
				return true
			}
		case 'D':
			if !unicode.Is(unicode.Nd, r) {
				return true
			}
		case 'w':
			if isWord(r) {
				return true
			}
		case 'W':
			if !isWord(r) {
				return true
			}
		case 's':
			if unicode.IsSpace(r) {
				return true
			}
		case 'S':
			if !unicode.IsSpace(r) {
				return true
			}
		default:
			if r >= it.lo && r <= it.hi {
				return true
			}
		}
	}
	return false
}

func (n *node) matchesRune(r rune) bool {
	switch n.kind {
	case nLit:
		return foldEqual(n.r, r)
	case nAny:
		return r != '\n'
	case nClass:
		in := classHas(n.items, r)
		if !in {
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				if classHas(n.items, f) {
					in = true
					break
				}
			}
		}
		return in != n.negate
	}
	return false
}

// match tries n at pos and calls k with every end position, in preference
// order, until k accepts.
func (m *matcher) match(n *node, pos int, k func(int) bool) bool {
	m.steps++
	if m.steps > maxMatchSteps {
		return false
	}
	switch n.kind {
	case nLit, nAny, nClass:
		if pos < len(m.text) && n.matchesRune(m.text[pos]) {
			return k(pos + 1)
		}
		return false
	case nBegin:
		return pos == 0 && k(pos)
	case nEnd:
		return (pos == len(m.text) || (pos == len(m.text)-1 && m.text[pos] == '\n')) && k(pos)
	case nEndStrict:
		return pos == len(m.text) && k(pos)
	case nWordB, nNotWordB:
		before := pos > 0 && isWord(m.text[pos-1])
		after := pos < len(m.text) && isWord(m.text[pos])
		if (before != after) == (n.kind == nWordB) {
			return k(pos)
		}
		return false
	case nSeq:
		return m.seq(n.subs, pos, k)
	case nAlt:
		for i := range n.subs {
			if m.match(&n.subs[i], pos, k) {
				return true
			}
			if m.steps > maxMatchSteps {
				return false
			}
		}
		return false
	case nLookahead, nNegLookahead:
		found := m.match(&n.subs[0], pos, func(int) bool { return true })
		if found == (n.kind == nLookahead) {
			return k(pos)
		}
		return false
	case nRepeat:
		return m.repeat(n, pos, 0, -1, k)
	}
	return false
}

func (m *matcher) seq(items []node, pos int, k func(int) bool) bool {
	if len(items) == 0 {
		return k(pos)
	}
	return m.match(&items[0], pos, func(p int) bool { return m.seq(items[1:], p, k) })
}

// repeat matches n.subs[0] count more times; last guards against empty
// iterations looping forever.
func (m *matcher) repeat(n *node, pos, count, last int, k func(int) bool) bool {
	canStop := count >= n.min
	canMore := (n.max < 0 || count < n.max) && pos != last
	more := func() bool {
		return m.match(&n.subs[0], pos, func(p int) bool { return m.repeat(n, p, count+1, pos, k) })
	}
	if n.lazy {
		if canStop && k(pos) {
			return true
		}
		return canMore && more()
	}
	if canMore && more() {
		return true
	}
	return canStop && k(pos)
}
