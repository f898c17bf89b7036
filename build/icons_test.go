package build_test

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/lets-app/lets/build/internal/iconart"
)

// Point: the committed icons are what build/internal/iconart draws (like
// TestCommittedBundlesAreFresh for the TypeScript). PNGs are compared by
// pixels, so a different zlib in a newer Go cannot fail this.
func TestCommittedIconsAreFresh(t *testing.T) {
	files, err := iconart.Files()
	if err != nil {
		t.Fatal(err)
	}
	for name, fresh := range files {
		committed, err := os.ReadFile(filepath.FromSlash(name))
		if err != nil {
			t.Errorf("build/%s: %v — run `go generate ./build/` and commit the icons", name, err)
			continue
		}
		if filepath.Ext(name) != ".png" {
			if !bytes.Equal(committed, fresh) {
				t.Errorf("build/%s is stale — run `go generate ./build/` and commit it", name)
			}
			continue
		}
		a, errA := png.Decode(bytes.NewReader(committed))
		b, errB := png.Decode(bytes.NewReader(fresh))
		if errA != nil || errB != nil || !samePixels(a, b) {
			t.Errorf("build/%s differs from a fresh drawing (%v, %v) — run `go generate ./build/` and commit it", name, errA, errB)
		}
	}
}

func samePixels(a, b image.Image) bool {
	if a.Bounds() != b.Bounds() {
		return false
	}
	r := a.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			ar, ag, ab, aa := a.At(x, y).RGBA()
			br, bg, bb, ba := b.At(x, y).RGBA()
			if ar != br || ag != bg || ab != bb || aa != ba {
				return false
			}
		}
	}
	return true
}

// Point: samePixels, which the staleness test rests on, sees a one-pixel change.
func TestSamePixelsSeesOnePixel(t *testing.T) {
	a := iconart.Render(16)
	b := iconart.Render(16)
	if !samePixels(a, b) {
		t.Fatal("two drawings of the same icon differ: the drawing is not deterministic")
	}
	c := b.RGBAAt(8, 8)
	c.R ^= 1
	b.SetRGBA(8, 8, c)
	if samePixels(a, b) {
		t.Fatal("a changed pixel went unnoticed")
	}
}

// Point: the icon is opaque inside and transparent in the corners, at
// every size (so it sits on any panel colour), and small sizes keep the
// four pads apart.
func TestIconShape(t *testing.T) {
	for _, n := range append([]int{iconart.AppIconSize}, iconart.Sizes...) {
		img := iconart.Render(n)
		if a := img.RGBAAt(0, 0).A; a != 0 {
			t.Errorf("%d px: corner alpha %d, want 0", n, a)
		}
		if a := img.RGBAAt(n/2, n/8).A; a != 255 {
			t.Errorf("%d px: body alpha %d, want 255", n, a)
		}
		// The centre is the white spark (at 16 px it blends into a light grey).
		min := uint8(200)
		if n < 32 {
			min = 120
		}
		if c := img.RGBAAt(n/2, n/2); c.R < min || c.G < min || c.B < min {
			t.Errorf("%d px: centre %v, want the white spark", n, c)
		}
	}
}
