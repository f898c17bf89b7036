// Package qr draws QR codes (ISO/IEC 18004, model 2) in byte mode, versions
// 1–20, for the browser surface's pairing link: a URL of at most a few
// hundred bytes. It renders SVG and text; there is no decoder.
package qr

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Level is an error correction level.
type Level int

// Error correction levels, weakest first.
const (
	L Level = iota // ~7 % of codewords can be restored
	M              // ~15 %
	Q              // ~25 %
	H              // ~30 %
)

// MaxVersion is the largest symbol this package makes (97×97 modules).
const MaxVersion = 20

// ErrTooLong is returned for data that does not fit MaxVersion.
var ErrTooLong = errors.New("qr: data too long for a version 20 symbol")

// Code is an encoded symbol: Size×Size modules, true = dark.
type Code struct {
	Version int
	Level   Level
	Mask    int
	Size    int
	modules []bool
}

// Dark reports whether the module at column x, row y is dark; outside the
// symbol everything is light.
func (c *Code) Dark(x, y int) bool {
	if x < 0 || y < 0 || x >= c.Size || y >= c.Size {
		return false
	}
	return c.modules[y*c.Size+x]
}

// blockSpec is one version/level row of the error correction table:
// EC codewords per block, then (count, data codewords) of the two groups.
type blockSpec struct {
	ec             int
	g1, d1, g2, d2 int
}

func (b blockSpec) dataCodewords() int { return b.g1*b.d1 + b.g2*b.d2 }
func (b blockSpec) blocks() int        { return b.g1 + b.g2 }

// ecTable[version-1][level].
var ecTable = [MaxVersion][4]blockSpec{
	{{7, 1, 19, 0, 0}, {10, 1, 16, 0, 0}, {13, 1, 13, 0, 0}, {17, 1, 9, 0, 0}},
	{{10, 1, 34, 0, 0}, {16, 1, 28, 0, 0}, {22, 1, 22, 0, 0}, {28, 1, 16, 0, 0}},
	{{15, 1, 55, 0, 0}, {26, 1, 44, 0, 0}, {18, 2, 17, 0, 0}, {22, 2, 13, 0, 0}},
	{{20, 1, 80, 0, 0}, {18, 2, 32, 0, 0}, {26, 2, 24, 0, 0}, {16, 4, 9, 0, 0}},
	{{26, 1, 108, 0, 0}, {24, 2, 43, 0, 0}, {18, 2, 15, 2, 16}, {22, 2, 11, 2, 12}},
	{{18, 2, 68, 0, 0}, {16, 4, 27, 0, 0}, {24, 4, 19, 0, 0}, {28, 4, 15, 0, 0}},
	{{20, 2, 78, 0, 0}, {18, 4, 31, 0, 0}, {18, 2, 14, 4, 15}, {26, 4, 13, 1, 14}},
	{{24, 2, 97, 0, 0}, {22, 2, 38, 2, 39}, {22, 4, 18, 2, 19}, {26, 4, 14, 2, 15}},
	{{30, 2, 116, 0, 0}, {22, 3, 36, 2, 37}, {20, 4, 16, 4, 17}, {24, 4, 12, 4, 13}},
	{{18, 2, 68, 2, 69}, {26, 4, 43, 1, 44}, {24, 6, 19, 2, 20}, {28, 6, 15, 2, 16}},
	{{20, 4, 81, 0, 0}, {30, 1, 50, 4, 51}, {28, 4, 22, 4, 23}, {24, 3, 12, 8, 13}},
	{{24, 2, 92, 2, 93}, {22, 6, 36, 2, 37}, {26, 4, 20, 6, 21}, {28, 7, 14, 4, 15}},
	{{26, 4, 107, 0, 0}, {22, 8, 37, 1, 38}, {24, 8, 20, 4, 21}, {22, 12, 11, 4, 12}},
	{{30, 3, 115, 1, 116}, {24, 4, 40, 5, 41}, {20, 11, 16, 5, 17}, {24, 11, 12, 5, 13}},
	{{22, 5, 87, 1, 88}, {24, 5, 41, 5, 42}, {30, 5, 24, 7, 25}, {24, 11, 12, 7, 13}},
	{{24, 5, 98, 1, 99}, {28, 7, 45, 3, 46}, {24, 15, 19, 2, 20}, {30, 3, 15, 13, 16}},
	{{28, 1, 107, 5, 108}, {28, 10, 46, 1, 47}, {28, 1, 22, 15, 23}, {28, 2, 14, 17, 15}},
	{{30, 5, 120, 1, 121}, {26, 9, 43, 4, 44}, {28, 17, 22, 1, 23}, {28, 2, 14, 19, 15}},
	{{28, 3, 113, 4, 114}, {26, 3, 44, 11, 45}, {26, 17, 21, 4, 22}, {26, 9, 13, 16, 14}},
	{{28, 3, 107, 5, 108}, {26, 3, 41, 13, 42}, {30, 15, 24, 5, 25}, {28, 15, 15, 10, 16}},
}

// alignment[version-1] are the alignment pattern centre coordinates.
var alignment = [MaxVersion][]int{
	{}, {6, 18}, {6, 22}, {6, 26}, {6, 30}, {6, 34},
	{6, 22, 38}, {6, 24, 42}, {6, 26, 46}, {6, 28, 50}, {6, 30, 54}, {6, 32, 58}, {6, 34, 62},
	{6, 26, 46, 66}, {6, 26, 48, 70}, {6, 26, 50, 74}, {6, 30, 54, 78}, {6, 30, 56, 82}, {6, 30, 58, 86}, {6, 34, 62, 90},
}

// rawDataModules is the number of modules left for codewords (and
// remainder bits) in a symbol of version v.
func rawDataModules(v int) int {
	n := (16*v+128)*v + 64
	if v >= 2 {
		a := v/7 + 2
		n -= (25*a-10)*a - 55
		if v >= 7 {
			n -= 36
		}
	}
	return n
}

// Encode makes the smallest symbol of at least level lvl holding data in
// byte mode, choosing the mask with the lowest penalty.
func Encode(data []byte, lvl Level) (*Code, error) {
	if lvl < L || lvl > H {
		return nil, fmt.Errorf("qr: unknown error correction level %d", lvl)
	}
	for v := 1; v <= MaxVersion; v++ {
		if 4+countBits(v)+8*len(data) <= 8*ecTable[v-1][lvl].dataCodewords() {
			return EncodeWith(data, v, lvl, -1)
		}
	}
	return nil, ErrTooLong
}

func countBits(v int) int {
	if v <= 9 {
		return 8
	}
	return 16
}

// EncodeWith encodes data with a fixed version and level; mask 0…7 forces
// that mask, -1 picks the best.
func EncodeWith(data []byte, version int, lvl Level, mask int) (*Code, error) {
	if version < 1 || version > MaxVersion || lvl < L || lvl > H || mask < -1 || mask > 7 {
		return nil, errors.New("qr: version, level or mask out of range")
	}
	spec := ecTable[version-1][lvl]
	capBits := 8 * spec.dataCodewords()
	if 4+countBits(version)+8*len(data) > capBits {
		return nil, ErrTooLong
	}
	var bb bitBuffer
	bb.add(0b0100, 4)
	bb.add(len(data), countBits(version))
	for _, b := range data {
		bb.add(int(b), 8)
	}
	bb.add(0, min(4, capBits-bb.n))
	bb.add(0, (8-bb.n%8)%8)
	for pad := 0xEC; bb.n < capBits; pad ^= 0xEC ^ 0x11 {
		bb.add(pad, 8)
	}
	codewords := interleave(bb.bytes, spec)

	c := &Code{Version: version, Level: lvl, Size: 4*version + 17}
	c.modules = make([]bool, c.Size*c.Size)
	fn := make([]bool, c.Size*c.Size)
	c.drawFunctionPatterns(fn)
	c.drawCodewords(codewords, fn)
	if mask < 0 {
		best := -1
		for m := 0; m < 8; m++ {
			c.applyMask(m, fn)
			c.drawFormat(m, fn)
			if p := c.penalty(); best < 0 || p < best {
				best, mask = p, m
			}
			c.applyMask(m, fn) // undo (XOR)
		}
	}
	c.Mask = mask
	c.applyMask(mask, fn)
	c.drawFormat(mask, fn)
	return c, nil
}

type bitBuffer struct {
	bytes []byte
	n     int
}

func (b *bitBuffer) add(v, bits int) {
	for i := bits - 1; i >= 0; i-- {
		if b.n%8 == 0 {
			b.bytes = append(b.bytes, 0)
		}
		if (v>>i)&1 == 1 {
			b.bytes[b.n/8] |= 0x80 >> (b.n % 8)
		}
		b.n++
	}
}

// interleave splits the data codewords into blocks, adds each block's
// Reed–Solomon codewords and interleaves data then EC codewords (§7.6 of
// the standard).
func interleave(data []byte, spec blockSpec) []byte {
	gen := generator(spec.ec)
	var blocks, ecs [][]byte
	off := 0
	for i := 0; i < spec.blocks(); i++ {
		n := spec.d1
		if i >= spec.g1 {
			n = spec.d2
		}
		blk := data[off : off+n]
		off += n
		blocks = append(blocks, blk)
		ecs = append(ecs, remainder(blk, gen))
	}
	out := make([]byte, 0, len(data)+spec.ec*spec.blocks())
	for i := 0; i < max(spec.d1, spec.d2); i++ {
		for _, b := range blocks {
			if i < len(b) {
				out = append(out, b[i])
			}
		}
	}
	for i := 0; i < spec.ec; i++ {
		for _, e := range ecs {
			out = append(out, e[i])
		}
	}
	return out
}

// GF(256) with the QR polynomial x^8+x^4+x^3+x^2+1.
var gfExp, gfLog = func() (exp [512]byte, log [256]byte) {
	x := 1
	for i := 0; i < 255; i++ {
		exp[i] = byte(x)
		log[x] = byte(i)
		x <<= 1
		if x&0x100 != 0 {
			x ^= 0x11D
		}
	}
	for i := 255; i < 512; i++ {
		exp[i] = exp[i-255]
	}
	return
}()

func gfMul(a, b byte) byte {
	if a == 0 || b == 0 {
		return 0
	}
	return gfExp[int(gfLog[a])+int(gfLog[b])]
}

// generator returns the coefficients (highest power first, leading 1
// omitted) of the product of (x − α^i) for i < degree.
func generator(degree int) []byte {
	g := []byte{1}
	for i := 0; i < degree; i++ {
		next := make([]byte, len(g)+1)
		for j, c := range g {
			next[j] ^= c
			next[j+1] ^= gfMul(c, gfExp[i])
		}
		g = next
	}
	return g[1:]
}

// remainder is data·x^n mod the generator: the n EC codewords.
func remainder(data, gen []byte) []byte {
	rem := make([]byte, len(gen))
	for _, d := range data {
		f := d ^ rem[0]
		copy(rem, rem[1:])
		rem[len(rem)-1] = 0
		for i, g := range gen {
			rem[i] ^= gfMul(g, f)
		}
	}
	return rem
}

func (c *Code) set(fn []bool, x, y int, dark bool) {
	c.modules[y*c.Size+x] = dark
	fn[y*c.Size+x] = true
}

func (c *Code) drawFunctionPatterns(fn []bool) {
	n := c.Size
	for i := 0; i < n; i++ {
		c.set(fn, 6, i, i%2 == 0)
		c.set(fn, i, 6, i%2 == 0)
	}
	for _, p := range [][2]int{{3, 3}, {n - 4, 3}, {3, n - 4}} {
		for dy := -4; dy <= 4; dy++ {
			for dx := -4; dx <= 4; dx++ {
				x, y := p[0]+dx, p[1]+dy
				if x < 0 || y < 0 || x >= n || y >= n {
					continue
				}
				d := max(abs(dx), abs(dy))
				c.set(fn, x, y, d != 2 && d != 4)
			}
		}
	}
	pos := alignment[c.Version-1]
	for i, ax := range pos {
		for j, ay := range pos {
			if (i == 0 && j == 0) || (i == 0 && j == len(pos)-1) || (i == len(pos)-1 && j == 0) {
				continue
			}
			for dy := -2; dy <= 2; dy++ {
				for dx := -2; dx <= 2; dx++ {
					c.set(fn, ax+dx, ay+dy, max(abs(dx), abs(dy)) != 1)
				}
			}
		}
	}
	// Reserve the format areas (drawn per mask) and the dark module.
	c.drawFormat(0, fn)
	if c.Version >= 7 {
		rem := c.Version
		for i := 0; i < 12; i++ {
			rem = (rem << 1) ^ ((rem >> 11) * 0x1F25)
		}
		bits := c.Version<<12 | rem
		for i := 0; i < 18; i++ {
			dark := (bits>>i)&1 == 1
			a, b := n-11+i%3, i/3
			c.set(fn, a, b, dark)
			c.set(fn, b, a, dark)
		}
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// formatBits are the 15 format bits for a level and mask.
func formatBits(lvl Level, mask int) int {
	levelBits := [4]int{1, 0, 3, 2}[lvl]
	data := levelBits<<3 | mask
	rem := data
	for i := 0; i < 10; i++ {
		rem = (rem << 1) ^ ((rem >> 9) * 0x537)
	}
	return (data<<10 | rem) ^ 0x5412
}

func (c *Code) drawFormat(mask int, fn []bool) {
	bits := formatBits(c.Level, mask)
	bit := func(i int) bool { return (bits>>i)&1 == 1 }
	n := c.Size
	for i := 0; i <= 5; i++ {
		c.set(fn, 8, i, bit(i))
	}
	c.set(fn, 8, 7, bit(6))
	c.set(fn, 8, 8, bit(7))
	c.set(fn, 7, 8, bit(8))
	for i := 9; i < 15; i++ {
		c.set(fn, 14-i, 8, bit(i))
	}
	for i := 0; i < 8; i++ {
		c.set(fn, n-1-i, 8, bit(i))
	}
	for i := 8; i < 15; i++ {
		c.set(fn, 8, n-15+i, bit(i))
	}
	c.set(fn, 8, n-8, true)
}

// drawCodewords places the bits in the two-column zigzag, skipping
// function modules and the vertical timing column; leftover modules
// (remainder bits) stay light.
func (c *Code) drawCodewords(data []byte, fn []bool) {
	n := c.Size
	i := 0
	for right := n - 1; right >= 1; right -= 2 {
		if right == 6 {
			right = 5
		}
		for vert := 0; vert < n; vert++ {
			for j := 0; j < 2; j++ {
				x := right - j
				y := vert
				if (right+1)&2 == 0 {
					y = n - 1 - vert
				}
				if fn[y*n+x] || i >= len(data)*8 {
					continue
				}
				c.modules[y*n+x] = (data[i>>3]>>(7-i&7))&1 == 1
				i++
			}
		}
	}
}

func maskAt(mask, x, y int) bool {
	switch mask {
	case 0:
		return (x+y)%2 == 0
	case 1:
		return y%2 == 0
	case 2:
		return x%3 == 0
	case 3:
		return (x+y)%3 == 0
	case 4:
		return (x/3+y/2)%2 == 0
	case 5:
		return x*y%2+x*y%3 == 0
	case 6:
		return (x*y%2+x*y%3)%2 == 0
	default:
		return ((x+y)%2+x*y%3)%2 == 0
	}
}

func (c *Code) applyMask(mask int, fn []bool) {
	n := c.Size
	for y := 0; y < n; y++ {
		for x := 0; x < n; x++ {
			if !fn[y*n+x] && maskAt(mask, x, y) {
				c.modules[y*n+x] = !c.modules[y*n+x]
			}
		}
	}
}

// penalty is the mask evaluation score of the standard (§7.8.3): runs of
// five or more, 2×2 blocks, finder-like patterns and dark balance.
func (c *Code) penalty() int {
	n := c.Size
	p := 0
	line := make([]bool, n)
	for pass := 0; pass < 2; pass++ {
		for a := 0; a < n; a++ {
			for b := 0; b < n; b++ {
				if pass == 0 {
					line[b] = c.Dark(b, a)
				} else {
					line[b] = c.Dark(a, b)
				}
			}
			run := 1
			for b := 1; b <= n; b++ {
				if b < n && line[b] == line[b-1] {
					run++
					continue
				}
				if run >= 5 {
					p += 3 + run - 5
				}
				run = 1
			}
			for b := 0; b+7 <= n; b++ {
				if !(line[b] && !line[b+1] && line[b+2] && line[b+3] && line[b+4] && !line[b+5] && line[b+6]) {
					continue
				}
				if lightRun(line, b-4, b) || lightRun(line, b+7, b+11) {
					p += 40
				}
			}
		}
	}
	dark := 0
	for y := 0; y < n; y++ {
		for x := 0; x < n; x++ {
			d := c.Dark(x, y)
			if d {
				dark++
			}
			if x+1 < n && y+1 < n && d == c.Dark(x+1, y) && d == c.Dark(x, y+1) && d == c.Dark(x+1, y+1) {
				p += 3
			}
		}
	}
	total := n * n
	k := (abs(dark*20-total*10) + total - 1) / total
	return p + max(k-1, 0)*10
}

// lightRun reports whether modules from..to-1 are light (outside the symbol
// counts as light: the quiet zone).
func lightRun(line []bool, from, to int) bool {
	for i := from; i < to; i++ {
		if i >= 0 && i < len(line) && line[i] {
			return false
		}
	}
	return true
}

// SVG renders the symbol with moduleSize pixels per module and a quiet
// zone of quiet modules, as one path of horizontal runs.
func (c *Code) SVG(moduleSize, quiet int) string {
	if moduleSize < 1 {
		moduleSize = 1
	}
	quiet = max(quiet, 0)
	dim := (c.Size + 2*quiet) * moduleSize
	var b strings.Builder
	b.Grow(c.Size * c.Size / 2)
	b.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" width="`)
	b.WriteString(strconv.Itoa(dim))
	b.WriteString(`" height="`)
	b.WriteString(strconv.Itoa(dim))
	b.WriteString(`" viewBox="0 0 `)
	w := c.Size + 2*quiet
	b.WriteString(strconv.Itoa(w) + " " + strconv.Itoa(w))
	b.WriteString(`" shape-rendering="crispEdges"><rect width="100%" height="100%" fill="#fff"/><path fill="none" stroke="#000" d="`)
	for y := 0; y < c.Size; y++ {
		for x := 0; x < c.Size; {
			if !c.Dark(x, y) {
				x++
				continue
			}
			start := x
			for x < c.Size && c.Dark(x, y) {
				x++
			}
			fmt.Fprintf(&b, "M%d %d.5h%d", start+quiet, y+quiet, x-start)
		}
	}
	b.WriteString(`"/></svg>`)
	return b.String()
}

// Text renders the symbol for a terminal with half-block characters (two
// module rows per line), dark modules as spaces on a light background
// being the usual way phones read terminals: light = "█".
func (c *Code) Text(quiet int) string {
	quiet = max(quiet, 0)
	var b strings.Builder
	for y := -quiet; y < c.Size+quiet; y += 2 {
		for x := -quiet; x < c.Size+quiet; x++ {
			top, bottom := !c.Dark(x, y), !c.Dark(x, y+1)
			if y+1 >= c.Size+quiet {
				bottom = false
			}
			switch {
			case top && bottom:
				b.WriteString("█")
			case top:
				b.WriteString("▀")
			case bottom:
				b.WriteString("▄")
			default:
				b.WriteString(" ")
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}
