package visual

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"sort"
	"testing"

	"github.com/lets-app/lets/backend/testenv/conformance"
	"github.com/lets-app/lets/backend/wire"
)

// fixture is fixtures/visual-protocol-v1.json (§9).
type fixture struct {
	VisualProtocol  int                         `json:"visual_protocol"`
	StateRegion     struct{ Width, Height int } `json:"state_region"`
	IdentityAccents []string                    `json:"identity_accents"`
	Glyphs          map[string][][2]int         `json:"glyphs"`
	ActionStates    map[string][]string         `json:"action_states"`
}

func loadFixture(t *testing.T) fixture {
	t.Helper()
	data, err := os.ReadFile(conformance.File(t, "fixtures/visual-protocol-v1.json"))
	if err != nil {
		t.Fatalf("read fixture: %v", err)
	}
	var f fixture
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		t.Fatalf("decode fixture: %v", err)
	}
	return f
}

func TestV01_FixtureProtocolVersion(t *testing.T) {
	if f := loadFixture(t); f.VisualProtocol != ProtocolVersion || ProtocolVersion != wire.VisualProtocolVersion {
		t.Fatalf("fixture visual_protocol %d, Go %d, wire %d", f.VisualProtocol, ProtocolVersion, wire.VisualProtocolVersion)
	}
}

func TestV02_FixtureStateRegion(t *testing.T) {
	f := loadFixture(t)
	if f.StateRegion.Width != CanvasWidth || f.StateRegion.Height != CanvasHeight {
		t.Fatalf("fixture state_region %+v, Go %dx%d", f.StateRegion, CanvasWidth, CanvasHeight)
	}
}

func TestV03_FixtureAccentOrder(t *testing.T) {
	f := loadFixture(t)
	if !reflect.DeepEqual(f.IdentityAccents, wire.IdentityAccents()) {
		t.Fatalf("fixture accents %v, Go %v", f.IdentityAccents, wire.IdentityAccents())
	}
	// The token tables follow the same order.
	for i, a := range f.IdentityAccents {
		if AccentToken(a, true) != accentSelectedTokens[i] || AccentToken(a, false) != accentUnselectedTokens[i] {
			t.Errorf("accent token table out of order at %d (%s)", i, a)
		}
	}
}

// TestV04_GoldenGlyphs compares the glyph table with the fixture as ordered
// lists, then compiles each state and compares the lit canvas cells as a
// set, each with the primary token, and the cell counts (golden test
// recommendation 2 of §9).
func TestV04_GoldenGlyphs(t *testing.T) {
	f := loadFixture(t)
	if len(f.Glyphs) != len(wire.States()) {
		t.Fatalf("fixture has %d glyphs, want %d", len(f.Glyphs), len(wire.States()))
	}
	wantCount := map[wire.State]int{
		wire.StateRunning: 6, wire.StateWaitingForReply: 14, wire.StateUserTyping: 7,
		wire.StateWaitingForApproval: 6, wire.StateSuccess: 9, wire.StateError: 14, wire.StateCancelled: 18,
	}
	for _, s := range wire.States() {
		want := f.Glyphs[string(s)]
		var got [][2]int
		for _, c := range Glyph(s) {
			got = append(got, [2]int{c.X, c.Y})
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s glyph\n got %v\nwant %v", s, got, want)
		}
		frame := Compile(View{Selected: s}, 8)
		lit := litCells(&frame)
		tok := StatePrimary(s)
		if len(lit) != len(want) || len(lit) != wantCount[s] {
			t.Errorf("%s: %d lit cells, fixture %d, want %d", s, len(lit), len(want), wantCount[s])
		}
		for _, c := range want {
			if got := lit[Cell{c[0], c[1]}]; got != tok {
				t.Errorf("%s: cell %v = %q, want %q", s, c, got, tok)
			}
		}
	}
}

func TestV05_FixtureActionStates(t *testing.T) {
	f := loadFixture(t)
	got := map[string][]string{}
	for _, a := range wire.Actions() {
		var names []string
		for _, s := range ActionStates(a) {
			names = append(names, string(s))
		}
		sort.Strings(names)
		got[string(a)] = names
	}
	if !reflect.DeepEqual(got, f.ActionStates) {
		t.Fatalf("gating table\n got %v\nwant %v", got, f.ActionStates)
	}
	if !reflect.DeepEqual(got["retry"], []string{"cancelled", "error"}) {
		t.Fatalf("retry gating %v", got["retry"])
	}
}

func TestV06_GlyphTableComplete(t *testing.T) {
	for _, s := range wire.States() {
		g := Glyph(s)
		if len(g) == 0 {
			t.Errorf("%s has no glyph", s)
		}
		seen := map[Cell]bool{}
		for _, c := range g {
			if c.X < 0 || c.X >= CanvasWidth || c.Y < 0 || c.Y >= CanvasHeight {
				t.Errorf("%s: cell %v outside the 7x8 canvas", s, c)
			}
			if seen[c] {
				t.Errorf("%s: duplicate cell %v", s, c)
			}
			seen[c] = true
		}
	}
	if Glyph("sleeping") != nil {
		t.Errorf("unknown state has a glyph")
	}
	// Glyph returns a copy: changing it does not change the table.
	g := Glyph(wire.StateRunning)
	g[0] = Cell{6, 7}
	if Glyph(wire.StateRunning)[0] != (Cell{1, 3}) {
		t.Fatalf("Glyph exposes the table")
	}
}

// TestGoldenGlyphBitmaps draws each glyph as the bitmaps of §5 (with the
// status column) and compares with the spec's pictures.
func TestGoldenGlyphBitmaps(t *testing.T) {
	want := map[wire.State][8]string{
		wire.StateRunning:            {".......", ".......", ".......", ".#.#.#.", ".#.#.#.", ".......", ".......", "......."},
		wire.StateWaitingForReply:    {".#####.", "#.....#", ".....##", "....##.", "....#..", "...#...", ".......", "...#..."},
		wire.StateUserTyping:         {".......", ".#.....", "..#....", "...#...", "....#..", "...#...", "..#....", ".#....."},
		wire.StateWaitingForApproval: {"...#...", "...#...", "...#...", "...#...", "...#...", ".......", ".......", "...#..."},
		wire.StateSuccess:            {".......", ".......", ".#...#.", ".......", "#.....#", ".#...#.", "..#.#..", "...#..."},
		wire.StateError:              {"#.....#", ".#...#.", "..#.#..", "...#...", "...#...", "..#.#..", ".#...#.", "#.....#"},
		wire.StateCancelled:          {".......", ".#####.", ".#...#.", ".#...#.", ".#...#.", ".#...#.", ".#####.", "......."},
	}
	for s, rows := range want {
		f := Compile(View{Selected: s}, 8)
		if got := bitmap(&f); got != rows {
			t.Errorf("%s\n got %q\nwant %q", s, got, rows)
		}
	}
	f := Compile(View{}, 8)
	if got := bitmap(&f); got != [8]string{".......", ".......", ".......", ".......", "..---..", ".......", ".......", "......."} {
		t.Errorf("idle dash %q", got)
	}
}

func bitmap(f *Frame) [8]string {
	var out [8]string
	for y := range f.State {
		row := make([]byte, CanvasWidth)
		for x, tok := range f.State[y] {
			switch tok {
			case Off:
				row[x] = '.'
			case Idle:
				row[x] = '-'
			case Activity:
				row[x] = 'A'
			default:
				row[x] = '#'
			}
		}
		out[y] = string(row)
	}
	return out
}

// litCells returns the non-off canvas cells.
func litCells(f *Frame) map[Cell]Token {
	m := map[Cell]Token{}
	for y := range f.State {
		for x, tok := range f.State[y] {
			if tok != Off {
				m[Cell{x, y}] = tok
			}
		}
	}
	return m
}
