package experience

import (
	"fmt"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/lets-app/lets/backend/visual"
)

// Performance Manifest 1 (experiences spec §3): a Show as a list of timed
// cues, each an 80-light frame of palette indexes.

// Schema limits of Performance Manifest 1.
const (
	MaxPalette = 4096
	MaxCues    = 4096
	// AudioMIME is the only soundtrack type.
	AudioMIME = "audio/wav"
	// AssetRoot prefixes the manifest's audio.asset in experience_state:
	// the path is relative to the app root (§6.1).
	AssetRoot = "experiences/"
)

// Performance is a validated Performance Manifest 1.
type Performance struct {
	ID         string
	Title      string
	DurationMS int
	Acts       []string
	Palette    []visual.ShowColor
	Cues       []Cue
	Audio      Audio

	// ends[i] is the end of cue i in manifest ms.
	ends []int
	// frames are the converted frames, one per cue.
	frames []visual.ShowFrame
}

// Cue is one timed frame.
type Cue struct {
	Act        int
	DurationMS int
	// Caption is the cue's own caption ("" for null); see CaptionAt.
	Caption string
	Frame   IndexFrame
}

// IndexFrame is a frame of palette indexes: Grid[row][column] with row 0
// at the top, Top[i] above column i, Right[i] right of row i.
type IndexFrame struct {
	Grid  [visual.GridSize][visual.GridSize]int
	Top   [visual.RailLength]int
	Right [visual.RailLength]int
}

// Audio is the soundtrack reference.
type Audio struct {
	// Asset is a clean relative POSIX path under the experiences folder.
	Asset      string
	MIMEType   string
	DurationMS int
}

// ParsePerformanceManifest decodes and validates a Performance Manifest 1
// with every schema and loader rule of §3.2.
func ParsePerformanceManifest(data []byte) (*Performance, error) {
	doc, err := decodeDocument(data, "Performance manifest")
	if err != nil {
		return nil, err
	}
	root, err := object(doc, "performance", "schema_version", "kind", "id", "title", "dimensions", "duration_ms", "acts", "palette", "cues", "audio")
	if err != nil {
		return nil, err
	}
	if _, err := integer(root["schema_version"], "performance.schema_version", 1, 1); err != nil {
		return nil, fmt.Errorf("%w (only Performance Manifest 1 is supported)", err)
	}
	if err := constant(root["kind"], "performance.kind", "performance"); err != nil {
		return nil, err
	}
	p := &Performance{}
	if p.ID, err = text(root["id"], "performance.id"); err != nil {
		return nil, err
	}
	if p.Title, err = text(root["title"], "performance.title"); err != nil {
		return nil, err
	}
	if err := dimensions(root["dimensions"]); err != nil {
		return nil, err
	}
	duration, err := integer(root["duration_ms"], "performance.duration_ms", 1, maxInt)
	if err != nil {
		return nil, err
	}
	p.DurationMS = int(duration)
	acts, err := array(root["acts"], "performance.acts", 1, maxInt)
	if err != nil {
		return nil, err
	}
	seen := map[string]int{}
	for i, ra := range acts {
		ap := fmt.Sprintf("performance.acts[%d]", i)
		a, err := text(ra, ap)
		if err != nil {
			return nil, err
		}
		if j, dup := seen[a]; dup {
			return nil, invalid(ap, "%q repeats acts[%d]; act names must be unique", a, j)
		}
		seen[a] = i
		p.Acts = append(p.Acts, a)
	}
	palette, err := array(root["palette"], "performance.palette", 1, MaxPalette)
	if err != nil {
		return nil, err
	}
	for i, rc := range palette {
		c, err := colour(rc, fmt.Sprintf("performance.palette[%d]", i))
		if err != nil {
			return nil, err
		}
		p.Palette = append(p.Palette, c)
	}
	cues, err := array(root["cues"], "performance.cues", 1, MaxCues)
	if err != nil {
		return nil, err
	}
	total := 0
	for i, rc := range cues {
		c, err := p.cue(rc, fmt.Sprintf("performance.cues[%d]", i))
		if err != nil {
			return nil, err
		}
		total += c.DurationMS
		if total > maxInt {
			return nil, invalid("performance.cues", "the cue durations add up to more than %d ms", maxInt)
		}
		p.Cues = append(p.Cues, c)
		p.ends = append(p.ends, total)
	}
	if total != p.DurationMS {
		return nil, invalid("performance.duration_ms", "is %d but the cue durations add up to %d; they must be equal", p.DurationMS, total)
	}
	if p.Audio, err = audio(root["audio"]); err != nil {
		return nil, err
	}
	if p.Audio.DurationMS != p.DurationMS {
		return nil, invalid("performance.audio.duration_ms", "is %d but the Show lasts %d ms; they must be equal", p.Audio.DurationMS, p.DurationMS)
	}
	p.frames = make([]visual.ShowFrame, len(p.Cues))
	for i := range p.Cues {
		p.frames[i] = p.convert(&p.Cues[i].Frame)
	}
	return p, nil
}

func dimensions(v any) error {
	const want = `must be exactly {"grid":[8,8],"top":8,"right":8}: Performance Manifest 1 describes an 8x8 grid with 8-light top and right rails`
	m, err := object(v, "performance.dimensions", "grid", "top", "right")
	if err != nil {
		return invalid("performance.dimensions", "%s (%v)", want, err)
	}
	g, ok := m["grid"].([]any)
	if !ok || len(g) != 2 {
		return invalid("performance.dimensions.grid", want)
	}
	for _, v := range []any{g[0], g[1], m["top"], m["right"]} {
		if _, err := integer(v, "performance.dimensions", 8, 8); err != nil {
			return invalid("performance.dimensions", want)
		}
	}
	return nil
}

func colour(v any, path string) (visual.ShowColor, error) {
	m, err := object(v, path, "fallback", "rgb")
	if err != nil {
		return visual.ShowColor{}, err
	}
	fb, err := text(m["fallback"], path+".fallback")
	if err != nil {
		return visual.ShowColor{}, err
	}
	rgb, err := array(m["rgb"], path+".rgb", 3, 3)
	if err != nil {
		return visual.ShowColor{}, err
	}
	var ch [3]int
	for i := range ch {
		n, err := integer(rgb[i], fmt.Sprintf("%s.rgb[%d]", path, i), 0, 255)
		if err != nil {
			return visual.ShowColor{}, err
		}
		ch[i] = int(n)
	}
	return visual.NewShowColor(visual.Token(fb), ch[0], ch[1], ch[2])
}

func (p *Performance) cue(v any, path string) (Cue, error) {
	var c Cue
	m, err := object(v, path, "act", "duration_ms", "caption", "frame")
	if err != nil {
		return c, err
	}
	act, err := integer(m["act"], path+".act", 0, maxInt)
	if err != nil {
		return c, err
	}
	if int(act) >= len(p.Acts) {
		return c, invalid(path+".act", "is %d but there are only %d acts", act, len(p.Acts))
	}
	c.Act = int(act)
	d, err := integer(m["duration_ms"], path+".duration_ms", 1, maxInt)
	if err != nil {
		return c, err
	}
	c.DurationMS = int(d)
	if c.Caption, _, err = nullableText(m["caption"], path+".caption"); err != nil {
		return c, err
	}
	fm, err := object(m["frame"], path+".frame", "grid", "top", "right")
	if err != nil {
		return c, err
	}
	rows, err := array(fm["grid"], path+".frame.grid", visual.GridSize, visual.GridSize)
	if err != nil {
		return c, err
	}
	for y, rr := range rows {
		if err := p.rail(rr, fmt.Sprintf("%s.frame.grid[%d]", path, y), c.Frame.Grid[y][:]); err != nil {
			return c, err
		}
	}
	if err := p.rail(fm["top"], path+".frame.top", c.Frame.Top[:]); err != nil {
		return c, err
	}
	if err := p.rail(fm["right"], path+".frame.right", c.Frame.Right[:]); err != nil {
		return c, err
	}
	return c, nil
}

// rail reads 8 palette indexes into out.
func (p *Performance) rail(v any, path string, out []int) error {
	a, err := array(v, path, len(out), len(out))
	if err != nil {
		return err
	}
	for i, rv := range a {
		ip := fmt.Sprintf("%s[%d]", path, i)
		n, err := integer(rv, ip, 0, maxInt)
		if err != nil {
			return err
		}
		if int(n) >= len(p.Palette) {
			return invalid(ip, "palette index %d is outside the palette (%d entries)", n, len(p.Palette))
		}
		out[i] = int(n)
	}
	return nil
}

func audio(v any) (Audio, error) {
	var a Audio
	m, err := object(v, "performance.audio", "asset", "mime_type", "duration_ms")
	if err != nil {
		return a, err
	}
	asset, err := text(m["asset"], "performance.audio.asset")
	if err != nil {
		return a, err
	}
	if a.Asset, err = cleanAsset(asset); err != nil {
		return a, err
	}
	if err := constant(m["mime_type"], "performance.audio.mime_type", AudioMIME); err != nil {
		return a, err
	}
	a.MIMEType = AudioMIME
	d, err := integer(m["duration_ms"], "performance.audio.duration_ms", 1, maxInt)
	if err != nil {
		return a, err
	}
	a.DurationMS = int(d)
	return a, nil
}

// cleanAsset accepts a relative POSIX path without ".." segments; empty
// and "." segments are dropped (§3.2 rule 6).
func cleanAsset(asset string) (string, error) {
	const where = "performance.audio.asset"
	if strings.HasPrefix(asset, "/") {
		return "", invalid(where, "%q is absolute; give a path relative to the experiences folder", asset)
	}
	if strings.ContainsRune(asset, '\\') || strings.ContainsRune(asset, 0) {
		return "", invalid(where, "%q must be a POSIX path (forward slashes, no NUL)", asset)
	}
	var parts []string
	for _, seg := range strings.Split(asset, "/") {
		switch seg {
		case "", ".":
			continue
		case "..":
			return "", invalid(where, "%q leaves the experiences folder; \"..\" is not allowed", asset)
		}
		parts = append(parts, seg)
	}
	if len(parts) == 0 {
		return "", invalid(where, "%q names no file", asset)
	}
	return path.Join(parts...), nil
}

// convert maps a frame of palette indexes to colours.
func (p *Performance) convert(f *IndexFrame) visual.ShowFrame {
	var out visual.ShowFrame
	for y := range f.Grid {
		for x := range f.Grid[y] {
			out.Grid[y][x] = p.Palette[f.Grid[y][x]]
		}
	}
	for i := range f.Top {
		out.Top[i] = p.Palette[f.Top[i]]
		out.Right[i] = p.Palette[f.Right[i]]
	}
	return out
}

// Frame returns cue i's frame in colours (§3.5); the browser sends each
// colour as lower-case #rrggbb. The returned frame is shared: do not modify
// it.
func (p *Performance) Frame(i int) *visual.ShowFrame { return &p.frames[i] }

// Start returns cue i's start in manifest ms.
func (p *Performance) Start(i int) int {
	if i == 0 {
		return 0
	}
	return p.ends[i-1]
}

// CueAt returns the cue playing at elapsed manifest time: the number of
// cue boundaries ≤ elapsed (a boundary belongs to the next cue: at exactly
// 800 ms a Show whose first cue lasts 800 ms is on cue 1), capped at the
// last cue. Negative elapsed is cue 0.
func (p *Performance) CueAt(elapsed time.Duration) int {
	bounds := p.ends[:len(p.ends)-1]
	return sort.Search(len(bounds), func(i int) bool { return time.Duration(bounds[i])*time.Millisecond > elapsed })
}

// Duration is the Show's length in manifest time.
func (p *Performance) Duration() time.Duration { return time.Duration(p.DurationMS) * time.Millisecond }

// CaptionAt is the caption rule of §3.4: the nearest own caption at or
// before cue i within the same act, else the act name after its first
// " - " (or the whole name).
func (p *Performance) CaptionAt(i int) string {
	act := p.Cues[i].Act
	for j := i; j >= 0 && p.Cues[j].Act == act; j-- {
		if p.Cues[j].Caption != "" {
			return p.Cues[j].Caption
		}
	}
	name := p.Acts[act]
	if _, after, ok := strings.Cut(name, " - "); ok {
		return after
	}
	return name
}

// AudioAsset is the soundtrack path relative to the app root, as
// experience_state reports it ("experiences/" + audio.asset).
func (p *Performance) AudioAsset() string { return AssetRoot + p.Audio.Asset }

// Brightness returns how lit cue i is, 0…1: the mean over the 80 lights
// of the brightest channel. The soundtrack follows it.
func (p *Performance) Brightness(i int) float64 {
	f := &p.frames[i]
	sum := 0
	add := func(c visual.ShowColor) { sum += int(max(c.RGB[0], c.RGB[1], c.RGB[2])) }
	for y := range f.Grid {
		for x := range f.Grid[y] {
			add(f.Grid[y][x])
		}
	}
	for i := range f.Top {
		add(f.Top[i])
		add(f.Right[i])
	}
	return float64(sum) / (80 * 255)
}
