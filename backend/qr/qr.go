// Package qr turns a short text (a pairing URL) into a QR code and renders
// it three ways: a PNG image (github.com/yeqown/go-qrcode/writer/standard),
// an SVG (for a data: URI on the admin page) and lines of half-block
// characters for a terminal. Every rendering keeps a light quiet zone around
// the symbol, without which phone cameras often fail to find the code.
package qr

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"io"
	"net/url"
	"strings"

	qrcode "github.com/yeqown/go-qrcode/v2"
	"github.com/yeqown/go-qrcode/writer/standard"

	"github.com/lets-app/lets/backend/atomicfile"
)

// MaxTextLen bounds the input: a pairing URL is about 70 bytes and even a
// 253-character hostname stays far below this. Larger codes would not fit a
// terminal or scan well from a screen anyway.
const MaxTextLen = 1024

// Quiet zones in modules. ISO/IEC 18004 asks for 4; screens with a white
// page around the image get away with 2 (the Pad-Lattice reference uses 2
// for its SVG), terminals need the full 4 because the area around the text
// is usually dark.
const (
	QuietZonePNG      = 4
	QuietZoneSVG      = 2
	QuietZoneTerminal = 4
)

// ErrEmpty and ErrTooLong describe inputs that cannot become a code.
var (
	ErrEmpty   = errors.New("qr: nothing to encode (the text is empty)")
	ErrTooLong = fmt.Errorf("qr: text is too long for a QR code meant for a phone camera (more than %d bytes)", MaxTextLen)
)

// Code is an encoded QR symbol (error correction level M).
type Code struct {
	text    string
	symbol  *qrcode.QRCode
	modules [][]bool // [y][x], true = dark, without quiet zone
}

// Encode makes a QR code of text with error correction level M.
func Encode(text string) (*Code, error) {
	if text == "" {
		return nil, ErrEmpty
	}
	if len(text) > MaxTextLen {
		return nil, ErrTooLong
	}
	symbol, err := qrcode.NewWith(text, qrcode.WithErrorCorrectionLevel(qrcode.ErrorCorrectionMedium))
	if err != nil {
		return nil, fmt.Errorf("qr: encode %d bytes: %w", len(text), err)
	}
	var grab matrixGrabber
	if err := symbol.Save(&grab); err != nil {
		return nil, fmt.Errorf("qr: read the module matrix: %w", err)
	}
	if len(grab.bitmap) == 0 || len(grab.bitmap) != len(grab.bitmap[0]) {
		return nil, fmt.Errorf("qr: the encoder returned a %d-row matrix that is not square", len(grab.bitmap))
	}
	return &Code{text: text, symbol: symbol, modules: grab.bitmap}, nil
}

// matrixGrabber is a go-qrcode Writer that keeps the module bitmap.
type matrixGrabber struct{ bitmap [][]bool }

func (g *matrixGrabber) Write(mat qrcode.Matrix) error {
	g.bitmap = mat.Bitmap()
	return nil
}

func (g *matrixGrabber) Close() error { return nil }

// Text is the encoded text.
func (c *Code) Text() string { return c.text }

// Size is the number of modules on one side, without the quiet zone
// (21 for version 1, +4 per version).
func (c *Code) Size() int { return len(c.modules) }

// Dark reports whether module (x, y) is dark; outside the symbol (the quiet
// zone and beyond) everything is light.
func (c *Code) Dark(x, y int) bool {
	if y < 0 || y >= len(c.modules) || x < 0 || x >= len(c.modules[y]) {
		return false
	}
	return c.modules[y][x]
}

// PNG writes a black-on-white PNG with scale pixels per module (1..64) and
// a 4-module quiet zone.
func (c *Code) PNG(w io.Writer, scale int) error {
	if scale < 1 || scale > 64 {
		return fmt.Errorf("qr: PNG scale %d is out of range (use 1 to 64 pixels per module)", scale)
	}
	var buf bytes.Buffer
	out := standard.NewWithWriter(nopCloser{&buf},
		standard.WithBuiltinImageEncoder(standard.PNG_FORMAT),
		standard.WithQRWidth(uint8(scale)),
		standard.WithBorderWidth(QuietZonePNG*scale),
		standard.WithBgColor(color.RGBA{R: 255, G: 255, B: 255, A: 255}),
		standard.WithFgColor(color.RGBA{A: 255}),
	)
	if err := c.symbol.Save(out); err != nil {
		return fmt.Errorf("qr: draw the PNG: %w", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// WritePNGFile writes the PNG atomically to path with mode 0600: codes
// here carry one-use pairing secrets, which other users must not read.
func (c *Code) WritePNGFile(path string, scale int) error {
	var buf bytes.Buffer
	if err := c.PNG(&buf, scale); err != nil {
		return err
	}
	if err := atomicfile.Write(path, buf.Bytes(), 0o600); err != nil {
		return fmt.Errorf("qr: write %s: %w (choose a folder you can write to)", path, err)
	}
	return nil
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// SVG is a black-on-white SVG with one path for all dark modules, a
// 2-module quiet zone and crisp edges, scale px per module.
func (c *Code) SVG(scale int) string {
	if scale < 1 {
		scale = 1
	}
	n := c.Size() + 2*QuietZoneSVG
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" shape-rendering="crispEdges">`, n*scale, n*scale, n, n)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#fff"/><path fill="#000" d="`, n, n)
	for y := 0; y < c.Size(); y++ {
		for x := 0; x < c.Size(); {
			if !c.Dark(x, y) {
				x++
				continue
			}
			run := 1
			for c.Dark(x+run, y) {
				run++
			}
			fmt.Fprintf(&b, "M%d %dh%dv1h-%dz", x+QuietZoneSVG, y+QuietZoneSVG, run, run)
			x += run
		}
	}
	b.WriteString(`"/></svg>`)
	return b.String()
}

// SVGDataURI is the SVG as a data: URI ("data:image/svg+xml;charset=utf-8,"
// plus the percent-encoded SVG), usable as an <img> src under a CSP that
// allows img-src data:.
func (c *Code) SVGDataURI(scale int) string {
	return "data:image/svg+xml;charset=utf-8," + url.PathEscape(c.SVG(scale))
}

// TerminalOptions says how to draw a code with text characters.
type TerminalOptions struct {
	// ANSI wraps every line in escape codes for white ink on a black
	// background, so the code scans on light and dark terminal themes alike.
	// Without it the code assumes light text on a dark background (the
	// usual terminal) and draws the light modules as ink.
	ANSI bool
	// Indent is put before every line (outside the quiet zone).
	Indent string
}

// Terminal draws the code with half-block characters: each text line holds
// two module rows (▀ upper light, ▄ lower light, █ both light, space both
// dark), including a 4-module quiet zone on every side. Lines end in "\n".
func (c *Code) Terminal(opt TerminalOptions) string {
	q := QuietZoneTerminal
	lo, hi := -q, c.Size()+q // module range including the quiet zone
	var b strings.Builder
	for y := lo; y < hi; y += 2 {
		b.WriteString(opt.Indent)
		if opt.ANSI {
			b.WriteString("\x1b[97;40m")
		}
		for x := lo; x < hi; x++ {
			top := !c.Dark(x, y)
			bottom := y+1 < hi && !c.Dark(x, y+1)
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
		if opt.ANSI {
			b.WriteString("\x1b[0m")
		}
		b.WriteString("\n")
	}
	return b.String()
}
