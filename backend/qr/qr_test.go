package qr

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/lets-app/lets/backend/qr/qrtest"
)

const pairingURL = "http://192.168.1.20:8765/#pair=ugK68KacIK9dlVJ-g2r8evkm_gI8qbjL"

// decode reads a QR code from an image with an independent decoder.
func decode(t *testing.T, img image.Image) string {
	t.Helper()
	text, err := qrtest.Scan(img)
	if err != nil {
		t.Fatal(err)
	}
	return text
}

func TestEncodeRefusesEmptyAndHugeText(t *testing.T) {
	if _, err := Encode(""); err != ErrEmpty {
		t.Fatalf("empty: %v", err)
	}
	if _, err := Encode(strings.Repeat("a", MaxTextLen+1)); err != ErrTooLong {
		t.Fatalf("too long: %v", err)
	}
}

func TestPNGScans(t *testing.T) {
	c, err := Encode(pairingURL)
	if err != nil {
		t.Fatal(err)
	}
	if c.Size() < 21 || (c.Size()-17)%4 != 0 {
		t.Fatalf("size %d is not a QR version size", c.Size())
	}
	var buf bytes.Buffer
	if err := c.PNG(&buf, 8); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	if got, want := img.Bounds().Dx(), (c.Size()+2*QuietZonePNG)*8; got != want {
		t.Errorf("PNG width %d, want %d (modules plus a 4-module quiet zone)", got, want)
	}
	// The quiet zone is white all around.
	for _, p := range []image.Point{{0, 0}, {img.Bounds().Dx() - 1, img.Bounds().Dy() - 1}, {QuietZonePNG*8 - 1, img.Bounds().Dy() / 2}} {
		r, g, b, _ := img.At(p.X, p.Y).RGBA()
		if r < 0xf000 || g < 0xf000 || b < 0xf000 {
			t.Errorf("quiet zone pixel %v is not white", p)
		}
	}
	if got := decode(t, img); got != pairingURL {
		t.Fatalf("PNG decodes to %q", got)
	}
	if _, err := Encode(pairingURL); err != nil {
		t.Fatal(err)
	}
	if err := c.PNG(&buf, 0); err == nil {
		t.Error("scale 0 accepted")
	}
}

func TestWritePNGFile(t *testing.T) {
	c, err := Encode(pairingURL)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "pair.png")
	if err := c.WritePNGFile(p, 6); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("PNG file mode: %v %v (the code holds a secret: 0600)", fi.Mode(), err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if got := decode(t, img); got != pairingURL {
		t.Fatalf("file decodes to %q", got)
	}
	if err := c.WritePNGFile(filepath.Join(t.TempDir(), "missing", "dir", "x.png"), 6); err == nil {
		t.Error("writing into a missing folder should fail")
	}
}

// rasterTerminal paints terminal text as a screen would: ink white,
// background black, 1 px per half-block, on a black terminal with margin.
func rasterTerminal(t *testing.T, text string, scale int) image.Image {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	width := 0
	for _, l := range lines {
		if n := len([]rune(l)); n > width {
			width = n
		}
	}
	const margin = 6
	img := image.NewGray(image.Rect(0, 0, (width+2*margin)*scale, (2*len(lines)+2*margin)*scale))
	set := func(cx, cy int, ink bool) {
		v := uint8(0)
		if ink {
			v = 255
		}
		for dy := 0; dy < scale; dy++ {
			for dx := 0; dx < scale; dx++ {
				img.SetGray((cx+margin)*scale+dx, (cy+margin)*scale+dy, color.Gray{Y: v})
			}
		}
	}
	for row, l := range lines {
		for col, r := range []rune(l) {
			var top, bottom bool
			switch r {
			case '█':
				top, bottom = true, true
			case '▀':
				top = true
			case '▄':
				bottom = true
			case ' ':
			default:
				t.Fatalf("unexpected character %q in terminal output", r)
			}
			set(col, 2*row, top)
			set(col, 2*row+1, bottom)
		}
	}
	// A terminal shows the code on its own dark background; scanners cope,
	// but gozxing misreads some masks with a dark frame around the quiet
	// zone. Keep just the square of quiet zone and code (the last line's
	// spare half row is terminal background, not part of the code).
	square := image.Rect(margin*scale, margin*scale, (margin+width)*scale, (margin+width)*scale)
	return img.SubImage(square)
}

func TestTerminalScansWithQuietZone(t *testing.T) {
	c, err := Encode(pairingURL)
	if err != nil {
		t.Fatal(err)
	}
	text := c.Terminal(TerminalOptions{})
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	total := c.Size() + 2*QuietZoneTerminal
	if len(lines) != (total+1)/2 {
		t.Fatalf("%d lines, want %d", len(lines), (total+1)/2)
	}
	for i, l := range lines {
		if n := len([]rune(l)); n != total {
			t.Fatalf("line %d has %d columns, want %d", i, n, total)
		}
	}
	// The first two lines are all quiet zone: fully light.
	if strings.Trim(lines[0], "█") != "" || strings.Trim(lines[1], "█") != "" {
		t.Errorf("top quiet zone is not solid:\n%s\n%s", lines[0], lines[1])
	}
	if got := decode(t, rasterTerminal(t, text, 4)); got != pairingURL {
		t.Fatalf("terminal rendering decodes to %q", got)
	}
}

func TestTerminalANSIAndIndent(t *testing.T) {
	c, err := Encode("http://10.0.0.2:8765")
	if err != nil {
		t.Fatal(err)
	}
	text := c.Terminal(TerminalOptions{ANSI: true, Indent: "  "})
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if !strings.HasPrefix(l, "  \x1b[97;40m") || !strings.HasSuffix(l, "\x1b[0m") {
			t.Fatalf("line without indent and colours: %q", l)
		}
	}
	plain := strings.NewReplacer("  \x1b[97;40m", "", "\x1b[0m", "").Replace(text)
	if got := decode(t, rasterTerminal(t, plain, 4)); got != "http://10.0.0.2:8765" {
		t.Fatalf("decodes to %q", got)
	}
}

var svgRun = regexp.MustCompile(`M(\d+) (\d+)h(\d+)v1h-(\d+)z`)

func TestSVGAndDataURIMatchTheModules(t *testing.T) {
	c, err := Encode(pairingURL)
	if err != nil {
		t.Fatal(err)
	}
	svg := c.SVG(5)
	n := c.Size() + 2*QuietZoneSVG
	if !strings.HasPrefix(svg, `<svg xmlns="http://www.w3.org/2000/svg" width="`+strconv.Itoa(5*n)+`"`) {
		t.Fatalf("svg header: %.120s", svg)
	}
	got := make([][]bool, c.Size())
	for i := range got {
		got[i] = make([]bool, c.Size())
	}
	for _, m := range svgRun.FindAllStringSubmatch(svg, -1) {
		x, _ := strconv.Atoi(m[1])
		y, _ := strconv.Atoi(m[2])
		run, _ := strconv.Atoi(m[3])
		for i := 0; i < run; i++ {
			got[y-QuietZoneSVG][x-QuietZoneSVG+i] = true
		}
	}
	for y := 0; y < c.Size(); y++ {
		for x := 0; x < c.Size(); x++ {
			if got[y][x] != c.Dark(x, y) {
				t.Fatalf("module (%d,%d) differs in the SVG", x, y)
			}
		}
	}
	uri := c.SVGDataURI(5)
	if !strings.HasPrefix(uri, "data:image/svg+xml;charset=utf-8,%3Csvg") {
		t.Fatalf("data URI prefix: %.60s", uri)
	}
	if strings.ContainsAny(strings.TrimPrefix(uri, "data:image/svg+xml;charset=utf-8,"), `"<># `) {
		t.Error("data URI has unescaped characters")
	}
	back, err := url.PathUnescape(strings.TrimPrefix(uri, "data:image/svg+xml;charset=utf-8,"))
	if err != nil || back != svg {
		t.Fatalf("data URI does not unescape to the SVG: %v", err)
	}
	if len(uri) > 8000 {
		t.Errorf("data URI is %d bytes; a pairing message must stay far below 16 KiB", len(uri))
	}
}

func TestDarkOutsideIsLight(t *testing.T) {
	c, err := Encode("x")
	if err != nil {
		t.Fatal(err)
	}
	if c.Dark(-1, 0) || c.Dark(0, -1) || c.Dark(c.Size(), 0) || c.Dark(0, c.Size()) {
		t.Error("outside the symbol must be light")
	}
	if !c.Dark(0, 0) {
		t.Error("the top-left finder corner must be dark")
	}
	if c.Text() != "x" {
		t.Error("Text")
	}
}

func FuzzEncode(f *testing.F) {
	f.Add(pairingURL)
	f.Add("0123456789")
	f.Add("HELLO WORLD")
	f.Add("é ü 日本")
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 200 {
			s = s[:200]
		}
		c, err := Encode(s)
		if err != nil {
			return
		}
		if c.Size() < 21 {
			t.Fatalf("size %d", c.Size())
		}
		_ = c.Terminal(TerminalOptions{})
		_ = c.SVG(1)
	})
}

func BenchmarkEncode(b *testing.B) {
	for b.Loop() {
		if _, err := Encode(pairingURL); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTerminal(b *testing.B) {
	c, _ := Encode(pairingURL)
	for b.Loop() {
		_ = c.Terminal(TerminalOptions{ANSI: true})
	}
}

func BenchmarkPNG(b *testing.B) {
	c, _ := Encode(pairingURL)
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		if err := c.PNG(&buf, 8); err != nil {
			b.Fatal(err)
		}
	}
}
