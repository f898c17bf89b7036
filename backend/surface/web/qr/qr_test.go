package qr

import (
	"bytes"
	"strings"
	"testing"
)

// Format information words of the standard (Annex C): level M mask 0 is
// 101010000010010, and so on.
func TestFormatBitsKnownValues(t *testing.T) {
	for _, c := range []struct {
		lvl  Level
		mask int
		want string
	}{
		{L, 0, "111011111000100"}, {M, 0, "101010000010010"}, {Q, 0, "011010101011111"}, {H, 0, "001011010001001"},
		{M, 5, "100000011001110"}, {L, 6, "110110001000001"}, {L, 7, "110100101110110"},
	} {
		got := formatBits(c.lvl, c.mask)
		var b strings.Builder
		for i := 14; i >= 0; i-- {
			b.WriteByte('0' + byte(got>>i&1))
		}
		if b.String() != c.want {
			t.Errorf("level %d mask %d: %s, want %s", c.lvl, c.mask, b.String(), c.want)
		}
	}
}

// The table rows are consistent: every level of a version uses all of
// that version's codewords, and those fill the data modules exactly.
func TestTableConsistent(t *testing.T) {
	for v := 1; v <= MaxVersion; v++ {
		total := rawDataModules(v) / 8
		for lvl := L; lvl <= H; lvl++ {
			s := ecTable[v-1][lvl]
			if got := s.dataCodewords() + s.ec*s.blocks(); got != total {
				t.Errorf("v%d level %d: %d codewords, want %d", v, lvl, got, total)
			}
			if s.g2 > 0 && s.d2 != s.d1+1 {
				t.Errorf("v%d level %d: group sizes %d/%d", v, lvl, s.d1, s.d2)
			}
		}
		c := &Code{Version: v, Size: 4*v + 17}
		c.modules = make([]bool, c.Size*c.Size)
		fn := make([]bool, c.Size*c.Size)
		c.drawFunctionPatterns(fn)
		free := 0
		for _, f := range fn {
			if !f {
				free++
			}
		}
		if free != rawDataModules(v) {
			t.Errorf("v%d: %d free modules, want %d", v, free, rawDataModules(v))
		}
	}
}

// The version 7 information word of the standard (Annex D).
func TestVersionInfo(t *testing.T) {
	c := &Code{Version: 7, Size: 45}
	c.modules = make([]bool, c.Size*c.Size)
	fn := make([]bool, c.Size*c.Size)
	c.drawFunctionPatterns(fn)
	const want = 0x07C94 // 000111 110010010100
	got := 0
	for i := 0; i < 18; i++ {
		if c.Dark(c.Size-11+i%3, i/3) {
			got |= 1 << i
		}
		if c.Dark(i/3, c.Size-11+i%3) != c.Dark(c.Size-11+i%3, i/3) {
			t.Fatal("the two copies differ")
		}
	}
	if got != want {
		t.Fatalf("version info %#x, want %#x", got, want)
	}
}

// decode reads a symbol back: format, unmask, codewords, Reed–Solomon
// syndromes, byte-mode payload. It shares no placement code with the
// encoder's zigzag beyond the function-pattern map.
func decode(t *testing.T, c *Code) []byte {
	t.Helper()
	n := c.Size
	fmtWord := 0
	for i := 0; i <= 5; i++ {
		if c.Dark(8, i) {
			fmtWord |= 1 << i
		}
	}
	for i, xy := range [][2]int{{8, 7}, {8, 8}, {7, 8}} {
		if c.Dark(xy[0], xy[1]) {
			fmtWord |= 1 << (6 + i)
		}
	}
	for i := 9; i < 15; i++ {
		if c.Dark(14-i, 8) {
			fmtWord |= 1 << i
		}
	}
	mask, lvl := -1, Level(-1)
	for l := L; l <= H; l++ {
		for m := 0; m < 8; m++ {
			if formatBits(l, m) == fmtWord {
				mask, lvl = m, l
			}
		}
	}
	if mask < 0 || lvl != c.Level || mask != c.Mask {
		t.Fatalf("format word %015b: level %d mask %d", fmtWord, lvl, mask)
	}
	ref := &Code{Version: c.Version, Size: n, modules: make([]bool, n*n)}
	fn := make([]bool, n*n)
	ref.drawFunctionPatterns(fn)
	var bits []bool
	upward := true
	for right := n - 1; right >= 1; right -= 2 {
		if right == 6 {
			right--
		}
		for k := 0; k < n; k++ {
			y := k
			if upward {
				y = n - 1 - k
			}
			for _, x := range []int{right, right - 1} {
				if !fn[y*n+x] {
					bits = append(bits, c.Dark(x, y) != maskAt(mask, x, y))
				}
			}
		}
		upward = !upward
	}
	spec := ecTable[c.Version-1][lvl]
	total := spec.dataCodewords() + spec.ec*spec.blocks()
	cw := make([]byte, total)
	for i := range cw {
		for j := 0; j < 8; j++ {
			if bits[i*8+j] {
				cw[i] |= 0x80 >> j
			}
		}
	}
	// De-interleave.
	blocks := make([][]byte, spec.blocks())
	k := 0
	for i := 0; i < max(spec.d1, spec.d2); i++ {
		for b := range blocks {
			if i < spec.d1 || b >= spec.g1 {
				blocks[b] = append(blocks[b], cw[k])
				k++
			}
		}
	}
	for i := 0; i < spec.ec; i++ {
		for b := range blocks {
			blocks[b] = append(blocks[b], cw[k])
			k++
		}
	}
	var data []byte
	for b, blk := range blocks {
		for i := 0; i < spec.ec; i++ { // syndromes S_i = blk(α^i) must be 0
			var s byte
			for _, x := range blk {
				s = gfMul(s, gfExp[i]) ^ x
			}
			if s != 0 {
				t.Fatalf("block %d syndrome %d = %d", b, i, s)
			}
		}
		data = append(data, blk[:len(blk)-spec.ec]...)
	}
	rd := func(pos, nbits int) int {
		v := 0
		for i := 0; i < nbits; i++ {
			v = v<<1 | int(data[(pos+i)/8]>>(7-(pos+i)%8)&1)
		}
		return v
	}
	if rd(0, 4) != 4 {
		t.Fatalf("mode %04b", rd(0, 4))
	}
	cb := countBits(c.Version)
	length := rd(4, cb)
	out := make([]byte, length)
	for i := range out {
		out[i] = byte(rd(4+cb+8*i, 8))
	}
	return out
}

func TestEncodeDecodesBack(t *testing.T) {
	for _, n := range []int{0, 1, 14, 16, 17, 50, 62, 63, 100, 180, 230, 300, 330, 500, 660} {
		text := bytes.Repeat([]byte("http://pad-host.local:8765/#pair=ugK68KacIK9dlVJ-g2r8evkm_gI8qbjL"), 11)[:n]
		for lvl := L; lvl <= H; lvl++ {
			c, err := Encode(text, lvl)
			if err == ErrTooLong {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := decode(t, c); !bytes.Equal(got, text) {
				t.Fatalf("len %d level %d v%d: got %q", n, lvl, c.Version, got)
			}
			for m := 0; m < 8; m++ {
				f, _ := EncodeWith(text, c.Version, lvl, m)
				if got := decode(t, f); !bytes.Equal(got, text) {
					t.Fatalf("mask %d", m)
				}
			}
		}
	}
	if _, err := Encode(make([]byte, 700), M); err != ErrTooLong {
		t.Fatalf("%v", err)
	}
}

func TestPairingURLSizes(t *testing.T) {
	// The longest pairing URL (253-character host name, 5-digit port)
	// fits at level M.
	url := "http://" + strings.Repeat("a", 253) + ":65535/#pair=" + strings.Repeat("b", 32)
	c, err := Encode([]byte(url), M)
	if err != nil {
		t.Fatal(err)
	}
	if c.Version > 14 {
		t.Fatalf("version %d", c.Version)
	}
	c, _ = Encode([]byte("http://192.168.1.20:8765/#pair=ugK68KacIK9dlVJ-g2r8evkm_gI8qbjL"), M)
	if c.Version != 5 || c.Size != 37 {
		t.Fatalf("version %d", c.Version)
	}
	// 205 px, like the reference's example in §8.2.
	svg := c.SVG(5, 2)
	if !strings.HasPrefix(svg, `<svg xmlns="http://www.w3.org/2000/svg" width="205" height="205"`) || !strings.HasSuffix(svg, "</svg>") {
		t.Fatalf("%s", svg)
	}
	if txt := c.Text(2); strings.Count(txt, "\n") != (37+4+1)/2 {
		t.Fatalf("%q", txt)
	}
}

func BenchmarkEncodePairingURL(b *testing.B) {
	url := []byte("http://192.168.1.20:8765/#pair=ugK68KacIK9dlVJ-g2r8evkm_gI8qbjL")
	for b.Loop() {
		c, _ := Encode(url, M)
		_ = c.SVG(5, 2)
	}
}
