package tray

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
)

// IconSize is the edge of the tray icon in pixels; tray hosts scale it.
const IconSize = 64

// levelColors are the icon's accent per level: calm grey-blue, a working
// blue, a waiting amber and an approval red.
var levelColors = map[Level]color.NRGBA{
	LevelIdle:     {R: 0x8a, G: 0x94, B: 0xa6, A: 0xff},
	LevelRunning:  {R: 0x3b, G: 0x82, B: 0xf6, A: 0xff},
	LevelWaiting:  {R: 0xf5, G: 0x9e, B: 0x0b, A: 0xff},
	LevelApproval: {R: 0xef, G: 0x44, B: 0x44, A: 0xff},
}

// Icon draws the tray icon for a level as PNG bytes: a rounded speech
// bubble in the level's colour with two eyes (the companion's face), and
// for the waiting and approval levels a white badge dot in the corner, so
// the state reads without colour too.
func Icon(l Level) ([]byte, error) {
	c, ok := levelColors[l]
	if !ok {
		return nil, fmt.Errorf("no icon for level %d", l)
	}
	img := image.NewNRGBA(image.Rect(0, 0, IconSize, IconSize))
	white := color.NRGBA{R: 0xff, G: 0xff, B: 0xff, A: 0xff}
	for y := range IconSize {
		for x := range IconSize {
			fx, fy := float64(x)+0.5, float64(y)+0.5
			switch {
			case inBubble(fx, fy):
				img.SetNRGBA(x, y, c)
			default:
				continue
			}
			// Eyes: two white dots on the bubble.
			if dist(fx, fy, 23, 28) < 5 || dist(fx, fy, 41, 28) < 5 {
				img.SetNRGBA(x, y, white)
			}
		}
	}
	if l >= LevelWaiting {
		// The badge: a white ring with a coloured centre, top right.
		for y := range 22 {
			for x := IconSize - 22; x < IconSize; x++ {
				d := dist(float64(x)+0.5, float64(y)+0.5, IconSize-11, 11)
				switch {
				case d < 6:
					img.SetNRGBA(x, y, c)
				case d < 10:
					img.SetNRGBA(x, y, white)
				}
			}
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("encode the tray icon: %w", err)
	}
	return buf.Bytes(), nil
}

// inBubble is a rounded rectangle (x 6…58, y 8…46, radius 12) with a tail
// at the bottom left.
func inBubble(x, y float64) bool {
	const left, right, top, bottom, r = 6, 58, 8, 46, 12
	if x >= left && x <= right && y >= top && y <= bottom {
		cx := math.Min(math.Max(x, left+r), right-r)
		cy := math.Min(math.Max(y, top+r), bottom-r)
		return dist(x, y, cx, cy) <= r
	}
	// The tail: a triangle from (16,46) and (30,46) down to (12,58).
	if y > bottom && y <= 58 {
		t := (y - bottom) / 12
		lo := 16 - 4*t
		hi := 30 - 18*t
		return x >= lo && x <= hi
	}
	return false
}

func dist(x1, y1, x2, y2 float64) float64 { return math.Hypot(x1-x2, y1-y2) }
