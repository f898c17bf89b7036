package author

import (
	"fmt"
	"math"
)

// The Show "A Spark Among Friends": a spark in the dark grows, eight
// friends arrive in the eight identity colours, light moves in waves and
// rain, a question is asked and answered on the pad's own glyphs, the
// colours turn together and end in a heartbeat. Frames are computed from
// light positions, so waves and rings run across the rails too.

// ShowSoundtrack is the soundtrack path of the Show, relative to the
// experiences folder (experience_state reports "experiences/" + this).
// backend/audio renders the file for this timeline.
const ShowSoundtrack = "audio/lets-show-v1.wav"

// col is a colour with float channels 0…255.
type col struct{ r, g, b float64 }

func (c col) scale(k float64) col { return col{c.r * k, c.g * k, c.b * k} }
func (c col) add(o col) col       { return col{c.r + o.r, c.g + o.g, c.b + o.b} }
func mix(a, b col, t float64) col {
	t = clamp01(t)
	return col{a.r + (b.r-a.r)*t, a.g + (b.g-a.g)*t, a.b + (b.b-a.b)*t}
}
func maxc(a, b col) col { return col{math.Max(a.r, b.r), math.Max(a.g, b.g), math.Max(a.b, b.b)} }

func clamp01(v float64) float64 { return math.Max(0, math.Min(1, v)) }

// The eight friends: vivid LED versions of the identity accents, in
// accent order (cyan, magenta, lime, orange, violet, teal, rose, sky).
var friends = [8]col{
	{0, 214, 255}, {235, 60, 225}, {140, 235, 40}, {255, 135, 20},
	{140, 90, 255}, {0, 215, 160}, {255, 70, 120}, {60, 145, 255},
}

var (
	black = col{}
	ember = col{255, 190, 110} // the spark
	white = col{255, 246, 236}
	amber = col{255, 170, 30}
	green = col{60, 230, 90}
	red   = col{255, 60, 70}
)

// Light layout: 0…63 the grid row by row, 64…71 the top rail (above
// columns 0…7), 72…79 the right rail (right of rows 0…7).
const lights = 80

type frame [lights]col

// pos returns the position of light i: grid cells at (x, y), the top rail
// one row above the grid, the right rail one column right of it.
func pos(i int) (x, y float64) {
	switch {
	case i < 64:
		return float64(i % 8), float64(i / 8)
	case i < 72:
		return float64(i - 64), -1
	default:
		return 8, float64(i - 72)
	}
}

func gridIndex(x, y int) int { return y*8 + x }
func topIndex(i int) int     { return 64 + i }
func rightIndex(i int) int   { return 72 + i }

// paint builds a frame from a function of position.
func paint(f func(i int, x, y float64) col) frame {
	var out frame
	for i := range out {
		x, y := pos(i)
		out[i] = f(i, x, y)
	}
	return out
}

// The canvas centre and the spark's cell.
const (
	cx, cy = 3.5, 3.5
	sx, sy = 3.0, 4.0
)

func dist(x, y, px, py float64) float64 { return math.Hypot(x-px, y-py) }

// glow is a soft round light of colour c at (px, py).
func glow(c col, px, py, radius, x, y float64) col {
	d := dist(x, y, px, py)
	return c.scale(math.Exp(-(d * d) / (2 * radius * radius)))
}

// The pad's own glyphs (Visual Protocol 1 §5): the amber "!" an agent
// shows while it waits for approval and the green face of success.
var (
	exclaim = [][2]int{{3, 0}, {3, 1}, {3, 2}, {3, 3}, {3, 4}, {3, 7}}
	smile   = [][2]int{{1, 2}, {5, 2}, {0, 4}, {1, 5}, {2, 6}, {3, 7}, {4, 6}, {5, 5}, {6, 4}}
	heart   = [8]string{
		".##..##.",
		"########",
		"########",
		"########",
		".######.",
		"..####..",
		"...##...",
		"........",
	}
)

// show collects cues.
type show struct {
	acts []string
	cues []authorCue
	last frame
}

type authorCue struct {
	act     int
	ms      int
	caption string
	f       frame
}

func (s *show) act(name string) { s.acts = append(s.acts, name) }

// cue appends a frame shown for ms with an optional caption.
func (s *show) cue(ms int, caption string, f frame) {
	s.cues = append(s.cues, authorCue{act: len(s.acts) - 1, ms: ms, caption: caption, f: f})
	s.last = f
}

// ShowJSON returns the Show's Performance Manifest 1 as compact JSON with
// a final newline.
func ShowJSON() ([]byte, error) {
	s := compose()
	return s.manifest()
}

// compose writes the whole Show.
func compose() *show {
	s := &show{}
	prelude(s)
	grows(s)
	friendsArrive(s)
	waves(s)
	question(s)
	together(s)
	finale(s)
	return s
}

// Prelude: darkness, a spark flickers, catches, glows.
func prelude(s *show) {
	s.act("Prelude - A Spark")
	s.cue(900, "In the dark", frame{})
	spark := func(k float64) frame {
		return paint(func(i int, x, y float64) col {
			if x == sx && y == sy {
				return ember.scale(k)
			}
			return black
		})
	}
	for n, step := range []struct {
		k  float64
		ms int
	}{{0.18, 420}, {0, 260}, {0.4, 360}, {0.12, 240}, {0.65, 520}, {0.3, 300}, {1, 760}} {
		caption := ""
		if n == 0 {
			caption = "a spark"
		}
		s.cue(step.ms, caption, spark(step.k))
	}
	for k := 1; k <= 5; k++ {
		r := 0.35 + 0.22*float64(k)
		c := mix(ember, white, float64(k)/5)
		caption := ""
		if k == 2 {
			caption = "that will not go out"
		}
		s.cue(320, caption, paint(func(i int, x, y float64) col {
			return glow(c, sx, sy, r, x, y)
		}))
	}
}

// Act I: rings leave the spark and reach every edge, then fold back.
func grows(s *show) {
	s.act("Act I - It Grows")
	core := func(k float64, x, y float64) col { return glow(mix(ember, white, 0.6), sx, sy, 0.7, x, y).scale(k) }
	ring := func(c col, r, x, y float64) col {
		d := dist(x, y, sx, sy) - r
		return c.scale(math.Exp(-(d * d) / 0.45))
	}
	for k := range 14 {
		r := 0.5 + 0.5*float64(k)
		c := mix(ember, friends[0], float64(k)/13)
		caption := ""
		if k == 0 {
			caption = "It grows"
		}
		s.cue(230, caption, paint(func(i int, x, y float64) col {
			return maxc(ring(c, r, x, y), core(0.8, x, y))
		}))
	}
	for k := range 12 {
		r := 0.4 + 0.55*float64(k)
		a := mix(friends[0], friends[7], float64(k)/11)
		b := mix(friends[7], friends[1], float64(k)/11)
		caption := ""
		if k == 0 {
			caption = "and reaches out"
		}
		s.cue(200, caption, paint(func(i int, x, y float64) col {
			return maxc(maxc(ring(a, r, x, y), ring(b, r-2.4, x, y)), core(0.6, x, y))
		}))
	}
	for k := range 5 {
		t := float64(k+1) / 5
		caption := ""
		if k == 0 {
			caption = "to every edge"
		}
		s.cue(420, caption, paint(func(i int, x, y float64) col {
			d := dist(x, y, sx, sy)
			edge := mix(friends[7], friends[1], (x+y)/15).scale(0.55 * t)
			return maxc(mix(white, edge, clamp01(d/5)).scale(0.25+0.75*t*math.Exp(-d/9)), core(1, x, y))
		}))
	}
	for k := range 5 {
		r := 4.5 - 0.9*float64(k)
		s.cue(280, "", paint(func(i int, x, y float64) col {
			d := dist(x, y, sx, sy)
			if d > r {
				return black
			}
			return mix(white, friends[7], d/5).scale(0.2 + 0.8*(1-d/(r+0.5)))
		}))
	}
	s.cue(500, "", paint(func(i int, x, y float64) col { return core(1, x, y) }))
}

// Act II: eight friends arrive, one per row, each in its own colour: its
// Scene light on the right edge wakes, a comet crosses its row, and the
// row keeps a soft stripe with a bright status light.
func friendsArrive(s *show) {
	s.act("Act II - Friends Arrive")
	var settled [8]bool
	base := func(i int, x, y float64) col {
		c := glow(ember, sx, sy, 0.6, x, y).scale(0.5)
		if i >= 64 && i < 72 { // top rail stays dark for now
			return black
		}
		row := int(y)
		if settled[row] {
			switch {
			case i >= 72:
				c = maxc(c, friends[row])
			case x == 7:
				c = maxc(c, friends[row].scale(0.75))
			default:
				c = maxc(c, friends[row].scale(0.24))
			}
		}
		return c
	}
	captions := map[int]string{0: "Friends arrive", 3: "one by one", 7: "eight colours, eight friends"}
	for row := range 8 {
		s.cue(210, captions[row], paint(func(i int, x, y float64) col {
			if i == rightIndex(row) {
				return friends[row]
			}
			return base(i, x, y)
		}))
		for step := range 4 {
			head := 7 - 2.4*float64(step)
			s.cue(125, "", paint(func(i int, x, y float64) col {
				c := base(i, x, y)
				if i == rightIndex(row) {
					return friends[row]
				}
				if i < 64 && int(y) == row && x <= head+0.01 {
					return maxc(c, mix(white, friends[row], 0.25+0.75*clamp01((head-x)/1.5)).scale(math.Exp(-(head-x)/5)))
				}
				if i < 64 && int(y) == row {
					return maxc(c, friends[row].scale(0.5*math.Exp(-(x-head)/1.5)))
				}
				return c
			}))
		}
		settled[row] = true
	}
	for k := range 8 {
		s.cue(170, captionIf(k == 0, "each with a light of its own"), paint(func(i int, x, y float64) col {
			if i >= 64 && i < 72 && i-64 <= k {
				return friends[i-64]
			}
			return base(i, x, y)
		}))
	}
	for k := range 8 {
		s.cue(230, "", paint(func(i int, x, y float64) col {
			if i >= 64 && i < 72 {
				return friends[i-64].scale(0.6 + 0.4*math.Cos(float64(k)*0.9+float64(i-64)*0.8))
			}
			row := int(y)
			if i >= 72 {
				return friends[row]
			}
			wave := 0.5 + 0.5*math.Sin(float64(k)*0.8-x*0.9+float64(row)*0.6)
			return friends[row].scale(0.12 + 0.5*wave)
		}))
	}
}

func captionIf(ok bool, caption string) string {
	if ok {
		return caption
	}
	return ""
}

// Act III: light as waves, ripples and rain.
func waves(s *show) {
	s.act("Act III - Waves")
	for k := range 40 {
		t := float64(k)
		s.cue(150, captionIf(k == 0, "Waves"), paint(func(i int, x, y float64) col {
			v := 0.5 + 0.5*math.Sin(0.95*(x+0.6*y)-0.55*t)
			c := mix(friends[0], friends[4], 0.5+0.5*math.Sin(0.13*t+0.3*y))
			return c.scale(0.1 + 0.9*math.Pow(v, 1.6))
		}))
	}
	for k := range 40 {
		t := float64(k)
		s.cue(150, captionIf(k == 0, "Two ripples meet")+captionIf(k == 22, "and make a new pattern"), paint(func(i int, x, y float64) col {
			v1 := 0.5 + 0.5*math.Sin(1.35*dist(x, y, 1, 1)-0.62*t)
			v2 := 0.5 + 0.5*math.Sin(1.35*dist(x, y, 6.5, 6)-0.62*t)
			c := friends[0].scale(0.75 * v1 * v1).add(friends[1].scale(0.75 * v2 * v2))
			return maxc(c, col{8, 10, 24})
		}))
	}
	// Rain: drops in the eight colours fall down the columns; the top rail
	// flashes where each one starts.
	type drop struct{ column, start, colour int }
	var drops []drop
	seed := uint32(7)
	next := func(n int) int {
		seed = seed*1664525 + 1013904223
		return int((seed >> 16) % uint32(n))
	}
	for k := 0; k < 28; k++ {
		drops = append(drops, drop{column: next(8), start: k, colour: next(8)})
		if next(3) == 0 {
			drops = append(drops, drop{column: next(8), start: k, colour: next(8)})
		}
	}
	for k := range 32 {
		s.cue(140, captionIf(k == 0, "Rain of colours"), paint(func(i int, x, y float64) col {
			c := col{6, 8, 18}
			for _, d := range drops {
				age := float64(k - d.start)
				if age < 0 || age > 11 || x != float64(d.column) {
					continue
				}
				if i >= 64 && i < 72 {
					c = maxc(c, white.scale(clamp01(1-age/2)))
					continue
				}
				if i >= 72 || age > 10 {
					continue
				}
				head := age - 1
				switch {
				case y == head:
					c = maxc(c, mix(white, friends[d.colour], 0.4))
				case y < head && head-y <= 3:
					c = maxc(c, friends[d.colour].scale(0.85*math.Pow(0.55, head-y-1)))
				}
				if head >= 7 && y == 7 && i < 64 {
					c = maxc(c, friends[d.colour].scale(0.5))
				}
			}
			if i >= 72 {
				c = maxc(c, friends[int(y)].scale(0.25))
			}
			return c
		}))
	}
}

// Act IV: the lights dim, an agent asks (the pad's amber "!" with Approve
// and Reject lit on the top edge), the answer is yes, and green washes
// down to the success face.
func question(s *show) {
	s.act("Act IV - A Question")
	prev := s.last
	for n, k := range []float64{0.55, 0.3, 0.14} {
		var f frame
		for i := range f {
			f[i] = prev[i].scale(k)
		}
		s.cue(320, captionIf(n == 0, "Then, a question"), f)
	}
	glyph := func(cells [][2]int, c col, k float64, x, y float64) col {
		for _, cell := range cells {
			if float64(cell[0]) == x && float64(cell[1]) == y {
				return c.scale(k)
			}
		}
		return black
	}
	for blink := range 5 {
		for phase, k := range []float64{1, 0.35} {
			caption := captionIf(blink == 0 && phase == 0, "Someone asks") + captionIf(blink == 3 && phase == 0, "will you say yes?")
			ms := 460
			if phase == 1 {
				ms = 300
			}
			s.cue(ms, caption, paint(func(i int, x, y float64) col {
				switch i {
				case topIndex(0):
					return green.scale(0.45 + 0.55*k)
				case topIndex(1):
					return red.scale(0.45 + 0.55*k)
				case rightIndex(3):
					return amber.scale(0.6 + 0.4*k)
				case gridIndex(7, 3):
					return amber.scale(0.45)
				}
				if i >= 64 {
					return black
				}
				return maxc(glyph(exclaim, amber, k, x, y), glow(amber, 3, 2.5, 1.6, x, y).scale(0.1*k))
			}))
		}
	}
	s.cue(220, "Yes", paint(func(i int, x, y float64) col {
		if i == topIndex(0) {
			return white
		}
		if i == rightIndex(3) {
			return amber
		}
		return glyph(exclaim, amber, 1, x, y)
	}))
	for k := range 9 {
		front := float64(k) - 1
		s.cue(120, "", paint(func(i int, x, y float64) col {
			if i >= 64 && i < 72 {
				return green.scale(math.Max(0.3, 1-float64(k)*0.08))
			}
			if i >= 72 {
				if y <= front {
					return green.scale(0.5)
				}
				return col{}
			}
			switch {
			case y > front:
				return glyph(exclaim, amber, 0.8, x, y)
			case front-y < 1:
				return mix(white, green, 0.3)
			default:
				return green.scale(0.35 + 0.3*math.Exp(-(front-y)/2))
			}
		}))
	}
	for n, k := range []float64{1, 0.7} {
		s.cue(650, captionIf(n == 0, "Approved"), paint(func(i int, x, y float64) col {
			if i >= 64 && i < 72 {
				return green.scale(0.3)
			}
			if i >= 72 {
				return green.scale(0.4)
			}
			return maxc(glyph(smile, green, k, x, y), green.scale(0.1))
		}))
	}
}

// Act V: the eight colours turn together as a pinwheel, faster and
// brighter, until the centre burns white.
func together(s *show) {
	s.act("Act V - Together")
	wheel := func(rot, bright, whiteR float64) frame {
		return paint(func(i int, x, y float64) col {
			a := math.Atan2(y-cy, x-cx) + rot
			sector := a / (2 * math.Pi) * 8
			sector -= 8 * math.Floor(sector/8)
			n := int(sector)
			c := mix(friends[n%8], friends[(n+1)%8], math.Pow(sector-float64(n), 3))
			d := dist(x, y, cx, cy)
			c = c.scale(bright * (0.3 + 0.7*clamp01(d/4.5)))
			if whiteR > 0 {
				c = mix(c, white, clamp01((whiteR-d)/1.2))
			}
			return c
		})
	}
	rot := 0.0
	for k := range 40 {
		caption := captionIf(k == 0, "Together") + captionIf(k == 20, "every colour turning as one")
		s.cue(140, caption, wheel(rot, 0.55+0.45*float64(k)/39, 0))
		rot += 0.2
	}
	for k := range 20 {
		s.cue(110, "", wheel(rot, 1, 0))
		rot += 0.2 + 0.02*float64(k)
	}
	for k := range 8 {
		s.cue(190, captionIf(k == 0, "brighter"), wheel(rot, 1, 0.7*float64(k+1)))
		rot += 0.6
	}
}

// Finale: the white bloom becomes a heart that beats; the friends stay on
// the rails; it folds back into the spark and the spark rests.
func finale(s *show) {
	s.act("Finale - Let's")
	inHeart := func(x, y float64) bool { return y >= 0 && x < 8 && heart[int(y)][int(x)] == '#' }
	rails := func(i int, k float64) col {
		if i >= 64 && i < 72 {
			return friends[i-64].scale(k)
		}
		return friends[i-72].scale(k)
	}
	heartColour := func(x, y, k float64) col {
		return mix(friends[6], friends[1], (x+y)/14).scale(k).add(white.scale(0.15 * k * math.Exp(-dist(x, y, 2, 1.5))))
	}
	for n := range 3 {
		t := float64(n+1) / 3
		s.cue(300, captionIf(n == 0, "Let's"), paint(func(i int, x, y float64) col {
			if i >= 64 {
				return mix(white, rails(i, 0.7), t)
			}
			if inHeart(x, y) {
				return mix(white, heartColour(x, y, 1), t)
			}
			return white.scale(0.6 * (1 - t))
		}))
	}
	beat := []struct {
		k  float64
		ms int
	}{{1, 170}, {0.55, 150}, {0.95, 170}, {0.45, 520}}
	for cycle := range 4 {
		for n, b := range beat {
			caption := captionIf(cycle == 1 && n == 0, "make something") + captionIf(cycle == 3 && n == 0, "together")
			s.cue(b.ms, caption, paint(func(i int, x, y float64) col {
				if i >= 64 {
					return rails(i, 0.35+0.3*b.k)
				}
				if inHeart(x, y) {
					return heartColour(x, y, b.k)
				}
				return black
			}))
		}
	}
	for n := range 6 {
		r := 5 - 0.85*float64(n)
		s.cue(300, "", paint(func(i int, x, y float64) col {
			d := dist(x, y, sx, sy)
			if i >= 64 {
				return rails(i, 0.35*(1-float64(n)/6))
			}
			if inHeart(x, y) && d <= r {
				return mix(heartColour(x, y, 1), ember, 1-d/5).scale(0.5 + 0.5*(1-d/5))
			}
			return glow(ember, sx, sy, 0.5, x, y).scale(float64(n) / 6)
		}))
	}
	for n, k := range []float64{1, 0.5, 0.8, 0.3, 0.12} {
		s.cue(420, captionIf(n == 0, "a spark among friends"), paint(func(i int, x, y float64) col {
			if x == sx && y == sy {
				return ember.scale(k)
			}
			return black
		}))
	}
	s.cue(1200, "", frame{})
}

// Palette quantisation: channels snap to multiples of quantum; colours
// whose brightest channel is below darkest are off.
const (
	quantum = 8
	darkest = 6
)

func quantise(c col) [3]int {
	q := func(v float64) int {
		n := int(math.Round(math.Max(0, math.Min(255, v))/quantum)) * quantum
		return min(n, 255)
	}
	out := [3]int{q(c.r), q(c.g), q(c.b)}
	if max(out[0], out[1], out[2]) < darkest {
		return [3]int{}
	}
	return out
}

// maxSwitches bounds how many of the 80 lights may turn on or off between
// two cues, so that no cue flashes the whole pad at once.
const maxSwitches = 40

// quantiseAll turns the composed frames into quantised RGB and keeps
// fading lights as dim embers for a cue or two when too many would go dark
// at once (on-switches are the composition's responsibility).
func (s *show) quantiseAll() ([][lights][3]int, error) {
	out := make([][lights][3]int, len(s.cues))
	var prev [lights][3]int
	for n, c := range s.cues {
		var f [lights][3]int
		on, off := 0, 0
		for i := range f {
			f[i] = quantise(c.f[i])
			wasOn, isOn := prev[i] != [3]int{}, f[i] != [3]int{}
			switch {
			case !wasOn && isOn:
				on++
			case wasOn && !isOn:
				off++
			}
		}
		if on > maxSwitches {
			return nil, fmt.Errorf("cue %d turns %d lights on at once; at most %d may switch", n, on, maxSwitches)
		}
		for i := range f {
			if on+off <= maxSwitches {
				break
			}
			if prev[i] != [3]int{} && f[i] == [3]int{} {
				f[i] = emberOf(prev[i])
				off--
			}
		}
		if on+off > maxSwitches {
			return nil, fmt.Errorf("cue %d switches %d lights; at most %d may switch", n, on+off, maxSwitches)
		}
		out[n] = f
		prev = f
	}
	return out, nil
}

// emberOf is the dimmest visible version of a colour.
func emberOf(c [3]int) [3]int {
	m := max(c[0], c[1], c[2])
	k := float64(2*quantum) / float64(m)
	return quantise(col{float64(c[0]) * k, float64(c[1]) * k, float64(c[2]) * k})
}
