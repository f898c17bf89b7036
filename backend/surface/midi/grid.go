package midi

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/lets-app/lets/backend/visual"
	"github.com/lets-app/lets/backend/wire"
)

// DefaultGreeting and DefaultScrollDelay are the startup greeting of §6.3.
const (
	DefaultGreeting    = "HELLO FROM CODEX CLI"
	DefaultScrollDelay = 80 * time.Millisecond
)

// Sender writes one complete MIDI message (note-on, control change or a
// framed SysEx) to an output port.
type Sender interface {
	Send(msg []byte) error
}

// Grid is the palette-grid driver of §6 (driver "midi.palette-grid"): it
// turns frames into MIDI messages on one output, remembering what each
// light shows so that a frame sends only the lights that changed. It is
// synchronous and not safe for concurrent use; Surface runs it on its own
// goroutine.
type Grid struct {
	profile *Profile
	out     Sender
	// Greeting is scrolled by Initialize when non-empty and the profile
	// has text_scroll; ScrollDelay is the time per scroll frame; Sleep
	// waits (nil = time.Sleep).
	Greeting    string
	ScrollDelay time.Duration
	Sleep       func(time.Duration)

	cache     map[Address]uint8
	rgbCache  map[uint8][3]uint8
	showing   bool
	actionsBy map[Address]wire.Action
	selectBy  map[Address]int
	clearList []Address
	buf       [3]byte
}

// NewGrid returns a driver for profile writing to out. The greeting is off
// until Greeting is set.
func NewGrid(p *Profile, out Sender) *Grid {
	g := &Grid{
		profile:     p,
		out:         out,
		ScrollDelay: DefaultScrollDelay,
		cache:       map[Address]uint8{},
		rgbCache:    map[uint8][3]uint8{},
		actionsBy:   map[Address]wire.Action{},
		selectBy:    map[Address]int{},
	}
	for _, c := range p.Controls {
		g.actionsBy[c.Address] = c.Action
	}
	for i, a := range p.Selectors {
		if _, taken := g.selectBy[a]; !taken {
			g.selectBy[a] = i
		}
	}
	// §6.4 recommended deterministic clear order: grid row-major from the
	// top, actions (enum order), selectors, statuses, showcase top, right,
	// overflow; each address once.
	seen := map[Address]bool{}
	add := func(a Address) {
		if !seen[a] {
			seen[a] = true
			g.clearList = append(g.clearList, a)
		}
	}
	for y := range p.Rows {
		for x := range p.Rows[y] {
			add(p.GridAddress(x, y))
		}
	}
	for _, c := range p.Controls {
		add(c.Address)
	}
	for _, l := range [][]Address{p.Selectors, p.Statuses, p.ShowTop, p.ShowRight} {
		for _, a := range l {
			add(a)
		}
	}
	if p.Overflow != nil {
		add(*p.Overflow)
	}
	return g
}

// Profile returns the driver's profile.
func (g *Grid) Profile() *Profile { return g.profile }

// Set is the core primitive (§6.2): send value to a unless the light is
// known to show it already (force sends anyway).
func (g *Grid) Set(a Address, value uint8, force bool) error {
	if !force {
		if v, ok := g.cache[a]; ok && v == value {
			return nil
		}
	}
	status := byte(0x90)
	if a.Kind == KindCC {
		status = 0xB0
	}
	g.buf = [3]byte{status | a.Channel&0x0F, a.Number & 0x7F, value & 0x7F}
	if err := g.out.Send(g.buf[:]); err != nil {
		return err
	}
	g.cache[a] = value
	return nil
}

func (g *Grid) sendCommands(cmds []Command) error {
	for _, c := range cmds {
		if err := g.out.Send(c.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

// Initialize enters the device's programmer mode, blanks it and scrolls the
// greeting (§6.3).
func (g *Grid) Initialize() error {
	if err := g.sendCommands(g.profile.Startup); err != nil {
		return err
	}
	clear(g.cache)
	if err := g.Clear(true); err != nil {
		return err
	}
	if g.Greeting != "" && g.profile.TextScroll {
		off, err := g.profile.Color("off")
		if err != nil {
			return err
		}
		on, err := g.profile.Color("state:success:primary")
		if err != nil {
			return err
		}
		if err := g.ScrollText(g.Greeting, on, off, g.ScrollDelay); err != nil {
			return err
		}
		return g.Clear(true)
	}
	return nil
}

// GreetingDuration is how long Initialize's scroll takes (§6.3).
func (g *Grid) GreetingDuration() time.Duration {
	if g.Greeting == "" || !g.profile.TextScroll {
		return 0
	}
	return time.Duration(len(TextColumns(g.Greeting))+9) * g.ScrollDelay
}

// Clear blanks every light the profile knows (§6.4).
func (g *Grid) Clear(force bool) error {
	g.showing = false
	clear(g.rgbCache)
	if len(g.profile.Clear) > 0 {
		if err := g.sendCommands(g.profile.Clear); err != nil {
			return err
		}
		clear(g.cache)
		return nil
	}
	off, err := g.profile.Color("off")
	if err != nil {
		return err
	}
	for _, a := range g.clearList {
		if err := g.Set(a, off, force); err != nil {
			return err
		}
	}
	return nil
}

// Render shows a compiled Visual Protocol frame (§6.5), sending only the
// lights that differ from what the device shows.
func (g *Grid) Render(f *visual.Frame) error {
	p := g.profile
	if g.showing {
		clear(g.rgbCache)
		off, err := p.Color("off")
		if err != nil {
			return err
		}
		for _, l := range [][]Address{p.ShowTop, p.ShowRight} {
			for _, a := range l {
				if err := g.Set(a, off, false); err != nil {
					return err
				}
			}
		}
		g.showing = false
	}
	set := func(a Address, t visual.Token) error {
		if t == "" {
			t = visual.Off
		}
		v, err := p.Resolve(string(t))
		if err != nil {
			return err
		}
		return g.Set(a, v, false)
	}
	for y := 0; y < CanvasHeight; y++ {
		for x := 0; x < CanvasWidth; x++ {
			if err := set(p.GridAddress(p.StateRegion.X+x, p.StateRegion.Y+y), f.State[y][x]); err != nil {
				return err
			}
		}
	}
	n := len(p.Selectors)
	for i := 0; i < n; i++ {
		if err := set(p.Selectors[i], slotToken(f.Selectors, i)); err != nil {
			return err
		}
	}
	for i := 0; i < n; i++ {
		if err := set(p.Statuses[i], slotToken(f.Statuses, i)); err != nil {
			return err
		}
	}
	for _, c := range p.Controls {
		if err := set(c.Address, f.Action(c.Action)); err != nil {
			return err
		}
	}
	if p.Overflow != nil {
		if err := set(*p.Overflow, f.Overflow); err != nil {
			return err
		}
	}
	return nil
}

func slotToken(ts [visual.MaxSelectors]visual.Token, i int) visual.Token {
	if i < len(ts) {
		return ts[i]
	}
	return visual.Off
}

// RenderView compiles view for this profile and renders it.
func (g *Grid) RenderView(view visual.View) error {
	f := visual.Compile(view, g.profile.SelectorCapacity())
	return g.Render(&f)
}

// ErrShowFrameShape is returned for a Show frame that does not fit.
var ErrShowFrameShape = errors.New("show frame does not match the profile's 8x8 plus rails")

// RenderShowFrame paints an 80-light Show frame (§6.7): direct RGB SysEx
// batches when the profile has show_rgb, palette fallbacks otherwise.
func (g *Grid) RenderShowFrame(f *visual.ShowFrame) error {
	p := g.profile
	if p.Height() != visual.GridSize || p.Width() != visual.GridSize || len(p.ShowTop) != visual.RailLength || len(p.ShowRight) != visual.RailLength {
		return ErrShowFrameShape
	}
	if p.RGB == nil {
		set := func(a Address, c visual.ShowColor) error {
			v, err := p.Resolve(string(c.Fallback))
			if err != nil {
				return err
			}
			return g.Set(a, v, false)
		}
		for y := 0; y < visual.GridSize; y++ {
			for x := 0; x < visual.GridSize; x++ {
				if err := set(p.GridAddress(x, y), f.Grid[y][x]); err != nil {
					return err
				}
			}
		}
		for i, a := range p.ShowTop {
			if err := set(a, f.Top[i]); err != nil {
				return err
			}
		}
		for i, a := range p.ShowRight {
			if err := set(a, f.Right[i]); err != nil {
				return err
			}
		}
		g.showing = true
		return nil
	}
	if !g.showing {
		clear(g.cache)
	}
	queue := make([]byte, 0, 4*80)
	add := func(led uint8, c visual.ShowColor) {
		native := [3]uint8{}
		for i, v := range c.RGB {
			native[i] = ScaleChannel(v, p.RGB.ChannelMax)
		}
		if old, ok := g.rgbCache[led]; ok && old == native {
			return
		}
		g.rgbCache[led] = native
		queue = append(queue, led, native[0], native[1], native[2])
	}
	for y := 0; y < visual.GridSize; y++ {
		for x := 0; x < visual.GridSize; x++ {
			add(p.Rows[y][x], f.Grid[y][x])
		}
	}
	for i, a := range p.ShowTop {
		add(a.Number, f.Top[i])
	}
	for i, a := range p.ShowRight {
		add(a.Number, f.Right[i])
	}
	g.showing = true
	step := 4 * p.RGB.BatchSize
	for start := 0; start < len(queue); start += step {
		end := min(start+step, len(queue))
		msg := make([]byte, 0, len(p.RGB.Prefix)+end-start+2)
		msg = append(msg, 0xF0)
		msg = append(msg, p.RGB.Prefix...)
		msg = append(msg, queue[start:end]...)
		msg = append(msg, 0xF7)
		if err := g.out.Send(msg); err != nil {
			return err
		}
	}
	return nil
}

// ScaleChannel maps 0…255 to 0…max with round-half-even (no ties occur
// because 255 is odd): round(c·max/255).
func ScaleChannel(c uint8, max int) uint8 {
	return uint8((2*int(c)*max + 255) / 510)
}

// Showing reports whether a Show frame is on the device.
func (g *Grid) Showing() bool { return g.showing }

// Forget drops what the driver believes the device shows, so the next
// Render repaints every light (used after a reconnect).
func (g *Grid) Forget() {
	clear(g.cache)
	clear(g.rgbCache)
	g.showing = false
}

// Shutdown blanks the device and restores its normal mode (§6.9 without
// the port closing); it tries both steps and joins their errors.
func (g *Grid) Shutdown() error {
	errClear := g.Clear(true)
	errShut := g.sendCommands(g.profile.Shutdown)
	return errors.Join(errClear, errShut)
}

// Close is §6.9: clear, shutdown messages, then close in and out (either
// may be nil). Every step is attempted; the errors are joined.
func (g *Grid) Close(in, out io.Closer) error {
	err := g.Shutdown()
	var errIn, errOut error
	if in != nil {
		errIn = in.Close()
	}
	if out != nil {
		errOut = out.Close()
	}
	return errors.Join(err, errIn, errOut)
}

// Event is a press on the device: an action or a selector.
type Event struct {
	// Action is set for an action press.
	Action wire.Action
	// Slot is the selector slot for a selector press (valid when Action is
	// empty).
	Slot int
}

func (e Event) String() string {
	if e.Action != "" {
		return "ActionPressed(" + string(e.Action) + ")"
	}
	return fmt.Sprintf("SessionSelected(%d)", e.Slot)
}

// EventFor maps one input message to a press (§6.6): note-on with velocity
// > 0 or a control change with value > 0, on a mapped action (which wins)
// or selector address. Everything else is ignored.
func (g *Grid) EventFor(m Message) (Event, bool) {
	var a Address
	switch {
	case m.Status&0xF0 == 0x90 && m.Data2 > 0:
		a = Address{Kind: KindNote, Number: m.Data1, Channel: m.Status & 0x0F}
	case m.Status&0xF0 == 0xB0 && m.Data2 > 0:
		a = Address{Kind: KindCC, Number: m.Data1, Channel: m.Status & 0x0F}
	default:
		return Event{}, false
	}
	if act, ok := g.actionsBy[a]; ok {
		return Event{Action: act}, true
	}
	if slot, ok := g.selectBy[a]; ok {
		return Event{Slot: slot}, true
	}
	return Event{}, false
}

// Events maps a chunk of raw input bytes to presses, in order.
func (g *Grid) Events(raw []byte, p *InputParser) []Event {
	var out []Event
	for _, m := range p.Feed(raw) {
		if e, ok := g.EventFor(m); ok {
			out = append(out, e)
		}
	}
	return out
}

// TextColumns returns the scroll columns of text (§6.3): six per
// character (five glyph columns and a gap), bit 6 = top glyph row.
func TextColumns(text string) []uint8 {
	var cols []uint8
	for _, r := range strings.ToUpper(text) {
		glyph, ok := font5x7[r]
		if !ok {
			glyph = font5x7[' ']
		}
		for c := 0; c < 5; c++ {
			var v uint8
			for row := 0; row < 7; row++ {
				if glyph[row][c] == '#' {
					v |= 1 << (6 - row)
				}
			}
			cols = append(cols, v)
		}
		cols = append(cols, 0)
	}
	return cols
}

// ScrollText scrolls text across the full 8×8 grid in colour on (§6.3),
// sleeping delay after each of the 6·len(text)+9 frames.
func (g *Grid) ScrollText(text string, on, off uint8, delay time.Duration) error {
	sleep := g.Sleep
	if sleep == nil {
		sleep = time.Sleep
	}
	cols := TextColumns(text)
	frames := make([]uint8, 0, len(cols)+16)
	frames = append(frames, make([]uint8, 8)...)
	frames = append(frames, cols...)
	frames = append(frames, make([]uint8, 8)...)
	w, h := g.profile.Width(), g.profile.Height()
	for offset := 0; offset <= len(frames)-8; offset++ {
		window := frames[offset : offset+8]
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				lit := y > 0 && y < 8 && x < 8 && window[x]&(1<<(7-y)) != 0
				v := off
				if lit {
					v = on
				}
				if err := g.Set(g.profile.GridAddress(x, y), v, false); err != nil {
					return err
				}
			}
		}
		sleep(delay)
	}
	return nil
}

// font5x7 is the greeting font of §6.3, rows top to bottom.
var font5x7 = map[rune][7]string{
	' ': {".....", ".....", ".....", ".....", ".....", ".....", "....."},
	'A': {".###.", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"},
	'B': {"####.", "#...#", "#...#", "####.", "#...#", "#...#", "####."},
	'C': {".####", "#....", "#....", "#....", "#....", "#....", ".####"},
	'D': {"####.", "#...#", "#...#", "#...#", "#...#", "#...#", "####."},
	'E': {"#####", "#....", "#....", "####.", "#....", "#....", "#####"},
	'F': {"#####", "#....", "#....", "####.", "#....", "#....", "#...."},
	'G': {".####", "#....", "#....", "#.###", "#...#", "#...#", ".###."},
	'H': {"#...#", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"},
	'I': {"#####", "..#..", "..#..", "..#..", "..#..", "..#..", "#####"},
	'J': {"..###", "...#.", "...#.", "...#.", "#..#.", "#..#.", ".##.."},
	'K': {"#...#", "#..#.", "#.#..", "##...", "#.#..", "#..#.", "#...#"},
	'L': {"#....", "#....", "#....", "#....", "#....", "#....", "#####"},
	'M': {"#...#", "##.##", "#.#.#", "#.#.#", "#...#", "#...#", "#...#"},
	'N': {"#...#", "##..#", "#.#.#", "#..##", "#...#", "#...#", "#...#"},
	'O': {".###.", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."},
	'P': {"####.", "#...#", "#...#", "####.", "#....", "#....", "#...."},
	'Q': {".###.", "#...#", "#...#", "#...#", "#.#.#", "#..#.", ".##.#"},
	'R': {"####.", "#...#", "#...#", "####.", "#.#..", "#..#.", "#...#"},
	'S': {".####", "#....", "#....", ".###.", "....#", "....#", "####."},
	'T': {"#####", "..#..", "..#..", "..#..", "..#..", "..#..", "..#.."},
	'U': {"#...#", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."},
	'V': {"#...#", "#...#", "#...#", "#...#", "#...#", ".#.#.", "..#.."},
	'W': {"#...#", "#...#", "#...#", "#.#.#", "#.#.#", "#.#.#", ".#.#."},
	'X': {"#...#", ".....", ".#.#.", "..#..", ".#.#.", ".....", "#...#"},
	'Y': {"#...#", "#...#", ".#.#.", "..#..", "..#..", "..#..", "..#.."},
	'Z': {"#####", "....#", "...#.", "..#..", ".#...", "#....", "#####"},
	'-': {".....", ".....", ".....", "#####", ".....", ".....", "....."},
}
