package visual

import (
	"errors"
	"fmt"
)

// Show/Demo value types defined next to the SurfaceView (§3). They are not
// part of the Visual Protocol itself: a Show paints all 80 lights with
// colours of its own, and a surface reports the Demo/Show lifecycle.

// ShowColor is one light of a Show frame: an RGB colour for surfaces that
// can show it, and a fallback token for palette-only surfaces.
type ShowColor struct {
	// Fallback is the token a palette surface shows; never empty.
	Fallback Token
	// RGB is the colour, each channel 0…255.
	RGB [3]uint8
}

// NewShowColor validates a colour as the reference does: the fallback must
// be non-empty and every channel an integer 0…255.
func NewShowColor(fallback Token, r, g, b int) (ShowColor, error) {
	if fallback == "" {
		return ShowColor{}, errors.New("show colour: fallback token is empty; give a palette token such as \"off\"")
	}
	for i, c := range [3]int{r, g, b} {
		if c < 0 || c > 255 {
			return ShowColor{}, fmt.Errorf("show colour: channel %d is %d; each RGB channel must be 0…255", i, c)
		}
	}
	return ShowColor{Fallback: fallback, RGB: [3]uint8{uint8(r), uint8(g), uint8(b)}}, nil
}

// Hex returns the colour as lower-case "#rrggbb" (the browser's form).
func (c ShowColor) Hex() string {
	const digits = "0123456789abcdef"
	b := [7]byte{'#'}
	for i, v := range c.RGB {
		b[1+2*i] = digits[v>>4]
		b[2+2*i] = digits[v&0xf]
	}
	return string(b[:])
}

// ShowFrame is an 80-light Show frame: the 8×8 grid (Grid[y][x], row 0 at
// the top), the top rail (left to right) and the right rail (top to
// bottom).
type ShowFrame struct {
	Grid  [GridSize][GridSize]ShowColor
	Top   [RailLength]ShowColor
	Right [RailLength]ShowColor
}

// Experience lifecycle statuses of ExperienceView.
const (
	ExperienceIdle     = "idle"
	ExperienceBlocked  = "blocked"
	ExperienceStarting = "starting"
	ExperiencePlaying  = "playing"
)

// ExperienceView reports the Demo/Show lifecycle to a surface (§3; the
// browser's experience_state message, Web Surface Protocol 1 §8.4). Nil
// pointers are JSON null.
type ExperienceView struct {
	Status        string  // idle, blocked, starting or playing
	Kind          *string // "demo", "show" or nil
	Title         *string
	CueIndex      *int
	Caption       *string
	Detail        *string
	ElapsedMS     int
	DurationMS    *int
	Tempo         float64 // speed multiplier, > 0 (the daemon sends 1.0)
	AudioAsset    *string
	AudioCue      *string
	AudioSlot     *int
	AudioSequence int
	StartDelayMS  int
	Reason        *string
}
