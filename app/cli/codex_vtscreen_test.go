package cli

import (
	"bytes"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/lets-app/lets/backend/testenv/testutil"
)

// vtScreen is what a terminal shows after a full-screen program drew on
// it, for the programs that draw with ratatui (Codex's TUI): absolute
// cursor moves, text, erasing, the alternate screen. Such a program
// redraws only the cells that changed, so the words of a line it shows
// reach the terminal apart and, where a cell already held the same
// letter, without it: the text of the output stream (ptyTerminal.text)
// can miss words that the screen shows. The screen has them.
type vtScreen struct {
	rows, cols   int
	cells        [][]rune
	r, c         int
	savedR       int
	savedC       int
	pending      []byte // an escape sequence or a rune cut off at a chunk's end
	wrapPending  bool   // the last column was written: the next rune wraps
	scrollTop    int    // the scrolling region (0-based, inclusive)
	scrollBottom int
}

func newVTScreen(rows, cols int) *vtScreen {
	s := &vtScreen{rows: rows, cols: cols, scrollBottom: rows - 1}
	s.clear()
	return s
}

func (s *vtScreen) clear() {
	s.cells = make([][]rune, s.rows)
	for i := range s.cells {
		s.cells[i] = s.blankRow()
	}
}

func (s *vtScreen) blankRow() []rune {
	row := make([]rune, s.cols)
	for i := range row {
		row[i] = ' '
	}
	return row
}

// feed applies what the program wrote next.
func (s *vtScreen) feed(b []byte) {
	data := append(s.pending, b...)
	s.pending = nil
	for i := 0; i < len(data); {
		ch := data[i]
		switch {
		case ch == 0x1b:
			n := s.escape(data[i:])
			if n == 0 {
				s.pending = bytes.Clone(data[i:])
				return
			}
			i += n
			continue
		case ch == '\r':
			s.c, s.wrapPending = 0, false
		case ch == '\n':
			s.lineFeed()
		case ch == '\b':
			if s.c > 0 {
				s.c--
			}
			s.wrapPending = false
		case ch < 0x20 || ch == 0x7f:
		default:
			if !utf8.FullRune(data[i:]) {
				s.pending = bytes.Clone(data[i:])
				return
			}
			r, size := utf8.DecodeRune(data[i:])
			s.put(r)
			i += size
			continue
		}
		i++
	}
}

func (s *vtScreen) put(r rune) {
	if s.wrapPending {
		s.c, s.wrapPending = 0, false
		s.lineFeed()
	}
	s.cells[s.r][s.c] = r
	if s.c == s.cols-1 {
		s.wrapPending = true
	} else {
		s.c++
	}
}

func (s *vtScreen) lineFeed() {
	s.wrapPending = false
	if s.r == s.scrollBottom {
		s.scrollUp(1)
		return
	}
	if s.r < s.rows-1 {
		s.r++
	}
}

func (s *vtScreen) scrollUp(n int) {
	for range n {
		copy(s.cells[s.scrollTop:s.scrollBottom], s.cells[s.scrollTop+1:s.scrollBottom+1])
		s.cells[s.scrollBottom] = s.blankRow()
	}
}

func (s *vtScreen) scrollDown(n int) {
	for range n {
		copy(s.cells[s.scrollTop+1:s.scrollBottom+1], s.cells[s.scrollTop:s.scrollBottom])
		s.cells[s.scrollTop] = s.blankRow()
	}
}

// escape applies the escape sequence at the start of seq and returns its
// length, or 0 when it is not complete yet.
func (s *vtScreen) escape(seq []byte) int {
	if len(seq) < 2 {
		return 0
	}
	switch seq[1] {
	case '[':
		for i := 2; i < len(seq); i++ {
			if seq[i] >= 0x40 && seq[i] <= 0x7e {
				s.csi(string(seq[2:i]), seq[i])
				return i + 1
			}
		}
		return 0
	case ']', 'P', '_', '^':
		// OSC (ends with BEL or ST), DCS, APC, PM (end with ST).
		for i := 2; i < len(seq); i++ {
			if seq[1] == ']' && seq[i] == 0x07 {
				return i + 1
			}
			if seq[i] == 0x1b && i+1 < len(seq) && seq[i+1] == '\\' {
				return i + 2
			}
		}
		return 0
	case '(', ')', '*', '+', '#':
		if len(seq) < 3 {
			return 0
		}
		return 3
	case '7':
		s.savedR, s.savedC = s.r, s.c
	case '8':
		s.r, s.c, s.wrapPending = s.savedR, s.savedC, false
	case 'M': // reverse index
		if s.r == s.scrollTop {
			s.scrollDown(1)
		} else if s.r > 0 {
			s.r--
		}
	case 'D':
		s.lineFeed()
	case 'E':
		s.c = 0
		s.lineFeed()
	case 'c':
		s.clear()
		s.r, s.c = 0, 0
	}
	return 2
}

// csi applies one control sequence: params, then the final byte.
func (s *vtScreen) csi(params string, final byte) {
	private := strings.HasPrefix(params, "?") || strings.HasPrefix(params, ">") || strings.HasPrefix(params, "<") || strings.HasPrefix(params, "=")
	var n []int
	for _, p := range strings.Split(strings.TrimLeft(params, "?><="), ";") {
		v, err := strconv.Atoi(strings.TrimRight(p, " !\"#$%&'()*+,-./"))
		if err != nil {
			v = 0
		}
		n = append(n, v)
	}
	arg := func(i, def int) int {
		if i < len(n) && n[i] > 0 {
			return n[i]
		}
		return def
	}
	clampR := func(v int) int { return max(0, min(s.rows-1, v)) }
	clampC := func(v int) int { return max(0, min(s.cols-1, v)) }
	s.wrapPending = false
	if private {
		if final == 'h' || final == 'l' {
			for _, m := range n {
				if m == 1049 || m == 1047 || m == 47 {
					// Into or out of the alternate screen: what was drawn is gone.
					s.clear()
				}
			}
		}
		return
	}
	switch final {
	case 'H', 'f':
		s.r, s.c = clampR(arg(0, 1)-1), clampC(arg(1, 1)-1)
	case 'A':
		s.r = clampR(s.r - arg(0, 1))
	case 'B', 'e':
		s.r = clampR(s.r + arg(0, 1))
	case 'C', 'a':
		s.c = clampC(s.c + arg(0, 1))
	case 'D':
		s.c = clampC(s.c - arg(0, 1))
	case 'E':
		s.r, s.c = clampR(s.r+arg(0, 1)), 0
	case 'F':
		s.r, s.c = clampR(s.r-arg(0, 1)), 0
	case 'G', '`':
		s.c = clampC(arg(0, 1) - 1)
	case 'd':
		s.r = clampR(arg(0, 1) - 1)
	case 'K':
		from, to := s.c, s.cols
		switch arg(0, 0) {
		case 1:
			from, to = 0, s.c+1
		case 2:
			from = 0
		}
		for i := from; i < to && i < s.cols; i++ {
			s.cells[s.r][i] = ' '
		}
	case 'J':
		switch arg(0, 0) {
		case 0:
			for i := s.c; i < s.cols; i++ {
				s.cells[s.r][i] = ' '
			}
			for r := s.r + 1; r < s.rows; r++ {
				s.cells[r] = s.blankRow()
			}
		case 1:
			for r := 0; r < s.r; r++ {
				s.cells[r] = s.blankRow()
			}
			for i := 0; i <= s.c && i < s.cols; i++ {
				s.cells[s.r][i] = ' '
			}
		default:
			s.clear()
		}
	case 'X':
		for i := s.c; i < s.c+arg(0, 1) && i < s.cols; i++ {
			s.cells[s.r][i] = ' '
		}
	case 'r':
		top, bottom := arg(0, 1)-1, arg(1, s.rows)-1
		if top < bottom && bottom < s.rows {
			s.scrollTop, s.scrollBottom = top, bottom
		} else {
			s.scrollTop, s.scrollBottom = 0, s.rows-1
		}
		s.r, s.c = 0, 0
	case 'S':
		s.scrollUp(arg(0, 1))
	case 'T':
		s.scrollDown(arg(0, 1))
	case 'L', 'M':
		if s.r < s.scrollTop || s.r > s.scrollBottom {
			return
		}
		top := s.scrollTop
		s.scrollTop = s.r
		if final == 'L' {
			s.scrollDown(arg(0, 1))
		} else {
			s.scrollUp(arg(0, 1))
		}
		s.scrollTop = top
	}
}

// String is the screen, one line per row, without trailing blanks.
func (s *vtScreen) String() string {
	lines := make([]string, s.rows)
	for i, row := range s.cells {
		lines[i] = strings.TrimRight(string(row), " ")
	}
	return strings.Join(lines, "\n")
}

// ptyScreen is a ptyTerminal read as the screen it shows.
type ptyScreen struct {
	*ptyTerminal
	mu  sync.Mutex
	vt  *vtScreen
	fed int
}

func newPtyScreen(p *ptyTerminal, rows, cols int) *ptyScreen {
	return &ptyScreen{ptyTerminal: p, vt: newVTScreen(rows, cols)}
}

// screen is what the terminal shows now.
func (p *ptyScreen) screen() string {
	p.ptyTerminal.mu.Lock()
	b := bytes.Clone(p.raw.Bytes()[min(p.fed, p.raw.Len()):])
	p.ptyTerminal.mu.Unlock()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fed += len(b)
	p.vt.feed(b)
	return p.vt.String()
}

// rawString is everything the program wrote, escape sequences and all.
func (p *ptyScreen) rawString() string {
	p.ptyTerminal.mu.Lock()
	defer p.ptyTerminal.mu.Unlock()
	return p.raw.String()
}

// waitScreen waits until the screen shows every one of ss at once.
func (p *ptyScreen) waitScreen(ss ...string) {
	p.t.Helper()
	ok := testutil.Poll(testutil.EventuallyTimeout, func() bool {
		scr := p.screen()
		for _, s := range ss {
			if !strings.Contains(scr, s) {
				return false
			}
		}
		return true
	})
	if !ok {
		p.t.Fatalf("the terminal never showed %q; its screen:\n%s", ss, p.screen())
	}
}

// The screen keeps what a diffing renderer leaves in place: a word drawn
// over one that shares letters in the same cells, lines erased, text
// after the alternate screen is entered.
func TestVTScreenFollowsADiffingRenderer(t *testing.T) {
	s := newVTScreen(4, 20)
	s.feed([]byte("\x1b[?1049h\x1b[1;1HWorking (5s)\x1b[2;3Hold line"))
	// Only the changed cells of row 1: "Would" over "Working" keeps the W and the o.
	s.feed([]byte("\x1b[1;3Hul\x1b[1;5Hd you\x1b[K\x1b[2;1H\x1b[2K\x1b[0m\x1b[3;2H\xe2\x80\xba 1. Y"))
	s.feed([]byte("\xc3")) // a rune cut in two
	s.feed([]byte("\xa9s\x1b]0;title\x07\x1b[3"))
	s.feed([]byte("8;5;1mx"))
	want := "Would you\n\n \u203a 1. Y\u00e9sx\n"
	if got := s.String(); got != want {
		t.Errorf("screen\n%q\nwant\n%q", got, want)
	}
}
