package author

import (
	"fmt"

	"github.com/lets-app/lets/backend/visual"
	"github.com/lets-app/lets/backend/wire"
)

// Performance Manifest 1 JSON shapes (experiences spec §3.1), in the
// spec's key order.
type perfFile struct {
	SchemaVersion int          `json:"schema_version"`
	Kind          string       `json:"kind"`
	ID            string       `json:"id"`
	Title         string       `json:"title"`
	Dimensions    perfDims     `json:"dimensions"`
	DurationMS    int          `json:"duration_ms"`
	Acts          []string     `json:"acts"`
	Palette       []perfColour `json:"palette"`
	Cues          []perfCue    `json:"cues"`
	Audio         perfAudio    `json:"audio"`
}

type perfDims struct {
	Grid  [2]int `json:"grid"`
	Top   int    `json:"top"`
	Right int    `json:"right"`
}

type perfColour struct {
	Fallback string `json:"fallback"`
	RGB      [3]int `json:"rgb"`
}

type perfCue struct {
	Act        int       `json:"act"`
	DurationMS int       `json:"duration_ms"`
	Caption    *string   `json:"caption"`
	Frame      perfFrame `json:"frame"`
}

type perfFrame struct {
	Grid  [8][8]int `json:"grid"`
	Top   [8]int    `json:"top"`
	Right [8]int    `json:"right"`
}

type perfAudio struct {
	Asset      string `json:"asset"`
	MIMEType   string `json:"mime_type"`
	DurationMS int    `json:"duration_ms"`
}

// Show identity.
const (
	ShowID    = "a-spark-among-friends"
	ShowTitle = "A Spark Among Friends"
)

func (s *show) manifest() ([]byte, error) {
	frames, err := s.quantiseAll()
	if err != nil {
		return nil, err
	}
	f := perfFile{
		SchemaVersion: 1, Kind: "performance", ID: ShowID, Title: ShowTitle,
		Dimensions: perfDims{Grid: [2]int{8, 8}, Top: 8, Right: 8},
		Acts:       s.acts,
	}
	index := map[[3]int]int{}
	colour := func(c [3]int) int {
		if n, ok := index[c]; ok {
			return n
		}
		index[c] = len(f.Palette)
		f.Palette = append(f.Palette, perfColour{Fallback: string(fallback(c)), RGB: c})
		return index[c]
	}
	colour([3]int{}) // palette entry 0 is off
	for n, c := range s.cues {
		pc := perfCue{Act: c.act, DurationMS: c.ms, Caption: optional(c.caption)}
		for i, rgb := range frames[n] {
			k := colour(rgb)
			switch {
			case i < 64:
				pc.Frame.Grid[i/8][i%8] = k
			case i < 72:
				pc.Frame.Top[i-64] = k
			default:
				pc.Frame.Right[i-72] = k
			}
		}
		f.Cues = append(f.Cues, pc)
		f.DurationMS += c.ms
	}
	if len(f.Palette) > 4096 {
		return nil, fmt.Errorf("the Show uses %d colours; Performance Manifest 1 allows 4096 (raise the quantum)", len(f.Palette))
	}
	f.Audio = perfAudio{Asset: ShowSoundtrack, MIMEType: "audio/wav", DurationMS: f.DurationMS}
	return encode(f, false)
}

// fallbackTokens are the tokens a palette-only pad shows instead of an
// RGB colour, with the colour each stands for: off, the five state colours
// that carry a hue (primary and summary) and the eight accents (selected
// and unselected).
func fallbackTokens() []struct {
	token visual.Token
	rgb   [3]int
} {
	var out []struct {
		token visual.Token
		rgb   [3]int
	}
	add := func(t visual.Token, rgb [3]int) {
		out = append(out, struct {
			token visual.Token
			rgb   [3]int
		}{t, rgb})
	}
	add(visual.Off, [3]int{})
	for _, st := range []wire.State{wire.StateWaitingForReply, wire.StateRunning, wire.StateSuccess, wire.StateError, wire.StateWaitingForApproval} {
		add(visual.StatePrimary(st), hexRGB(visual.BrowserColor(visual.StatePrimary(st))))
		add(visual.StateSummary(st), hexRGB(visual.BrowserColor(visual.StateSummary(st))))
	}
	for _, a := range wire.IdentityAccents() {
		rgb, _ := visual.AccentRGB(a)
		add(visual.AccentToken(a, true), [3]int{int(rgb[0]), int(rgb[1]), int(rgb[2])})
		u := visual.UnselectedRGB(rgb)
		add(visual.AccentToken(a, false), [3]int{int(u[0]), int(u[1]), int(u[2])})
	}
	return out
}

// fallback picks the token whose colour is nearest (a "redmean" weighted
// distance); black and near-black are off.
func fallback(c [3]int) visual.Token {
	if max(c[0], c[1], c[2]) < 24 {
		return visual.Off
	}
	best, bestD := visual.Off, -1.0
	for _, t := range fallbackTokens() {
		d := colourDistance(c, t.rgb)
		if bestD < 0 || d < bestD {
			best, bestD = t.token, d
		}
	}
	return best
}

func colourDistance(a, b [3]int) float64 {
	rm := float64(a[0]+b[0]) / 2
	dr, dg, db := float64(a[0]-b[0]), float64(a[1]-b[1]), float64(a[2]-b[2])
	return (2+rm/256)*dr*dr + 4*dg*dg + (2+(255-rm)/256)*db*db
}

// hexRGB parses "#rrggbb".
func hexRGB(s string) [3]int {
	var r, g, b int
	_, _ = fmt.Sscanf(s, "#%02x%02x%02x", &r, &g, &b)
	return [3]int{r, g, b}
}
