package midi

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/visual"
	"github.com/lets-app/lets/backend/wire"
)

var update = flag.Bool("update", false, "rewrite testdata/golden")

func newGrid(t testing.TB, id string) (*Grid, *recorder) {
	t.Helper()
	rec := &recorder{}
	g := NewGrid(builtin(t, id), rec)
	g.Sleep = func(time.Duration) {}
	return g, rec
}

func view(state wire.State) visual.View { return visual.View{Selected: state} }

func mustRender(t testing.TB, g *Grid, v visual.View) {
	t.Helper()
	if err := g.RenderView(v); err != nil {
		t.Fatal(err)
	}
}

// noteSet returns the notes sent with velocity v.
func noteSet(msgs [][]byte, v byte) []int {
	var out []int
	for _, m := range msgs {
		if len(m) == 3 && m[0] == 0x90 && m[2] == v {
			out = append(out, int(m[1]))
		}
	}
	sort.Ints(out)
	return out
}

func lastValues(msgs [][]byte) map[[2]byte]byte {
	out := map[[2]byte]byte{}
	for _, m := range msgs {
		if len(m) == 3 {
			out[[2]byte{m[0], m[1]}] = m[2]
		}
	}
	return out
}

func cc(n byte) [2]byte   { return [2]byte{0xB0, n} }
func note(n byte) [2]byte { return [2]byte{0x90, n} }

// clearSet is the 80 clear messages of a Launchpad as a sorted set.
func clearSet() []string {
	var out []string
	for y := 0; y < 8; y++ {
		for x := 0; x < 8; x++ {
			out = append(out, fmt.Sprintf("90 %02X 00", 10*(8-y)+x+1))
		}
	}
	for i := 0; i < 8; i++ {
		out = append(out, fmt.Sprintf("B0 %02X 00", 91+i), fmt.Sprintf("B0 %02X 00", 89-10*i))
	}
	sort.Strings(out)
	return out
}

const g1 = `90 51 00, 90 52 03, 90 53 03, 90 54 03, 90 55 03, 90 56 03, 90 57 00,
90 47 03, 90 48 00, 90 49 00, 90 4A 00, 90 4B 00, 90 4C 00, 90 4D 03,
90 3D 00, 90 3E 00, 90 3F 00, 90 40 00, 90 41 00, 90 42 03, 90 43 03,
90 33 00, 90 34 00, 90 35 00, 90 36 00, 90 37 03, 90 38 03, 90 39 00,
90 29 00, 90 2A 00, 90 2B 00, 90 2C 00, 90 2D 03, 90 2E 00, 90 2F 00,
90 1F 00, 90 20 00, 90 21 00, 90 22 03, 90 23 00, 90 24 00, 90 25 00,
90 15 00, 90 16 00, 90 17 00, 90 18 00, 90 19 00, 90 1A 00, 90 1B 00,
90 0B 00, 90 0C 00, 90 0D 00, 90 0E 03, 90 0F 00, 90 10 00, 90 11 00,
B0 59 00, B0 4F 00, B0 45 00, B0 3B 00, B0 31 00, B0 27 00, B0 1D 00, B0 13 00,
90 58 00, 90 4E 00, 90 44 00, 90 3A 00, 90 30 00, 90 26 00, 90 1C 00, 90 12 00,
B0 5B 00, B0 5C 00, B0 62 00, B0 61 00, B0 5F 00`

const g2Render = `90 52 03, 90 53 03, 90 54 03,
90 55 03, 90 56 03, 90 47 03, 90 4D 03, 90 42 03, 90 43 03, 90 37 03, 90 38 03,
90 2D 03, 90 22 03, 90 0E 03`

const g3 = `90 34 2D, 90 36 2D,
90 38 2D, 90 2A 2D, 90 2C 2D, 90 2E 2D, B0 59 25, B0 4F 37, 90 58 2F, 90 4E 0B,
B0 62 05, B0 5F 09`

func g3View() visual.View {
	return visual.View{
		Selected: wire.StateRunning,
		Sessions: []visual.Indicator{
			{Slot: 0, State: wire.StateRunning, Selected: true, Accent: "cyan"},
			{Slot: 1, State: wire.StateWaitingForApproval, Accent: "magenta"},
		},
		Available:     visual.Actions(wire.ActionStop),
		OverflowCount: 2,
	}
}

func TestCaseM51_G1_FirstRenderOrder(t *testing.T) {
	g, rec := newGrid(t, "novation/launchpad/pro-mk1")
	mustRender(t, g, view(wire.StateWaitingForReply))
	if got := hexAll(rec.take()); !equalStrings(got, parseHexList(g1)) {
		t.Fatalf("G1:\n%v", got)
	}
	mustRender(t, g, view(wire.StateWaitingForReply))
	if n := len(rec.take()); n != 0 {
		t.Fatalf("second render sent %d", n)
	}
}

func TestCaseM51_G2_G3_InitializeThenRender(t *testing.T) {
	g, rec := newGrid(t, "novation/launchpad/pro-mk1")
	if err := g.Initialize(); err != nil {
		t.Fatal(err)
	}
	msgs := hexAll(rec.take())
	if len(msgs) != 82 || msgs[0] != "F0 00 20 29 02 10 21 01 F7" || msgs[1] != "F0 00 20 29 02 10 2C 03 F7" {
		t.Fatalf("G2 init: %d %v", len(msgs), msgs[:2])
	}
	if !equalStrings(sortedCopy(msgs[2:]), clearSet()) {
		t.Fatal("G2 clear set")
	}
	mustRender(t, g, view(wire.StateWaitingForReply))
	if got := hexAll(rec.take()); !equalStrings(got, parseHexList(g2Render)) {
		t.Fatalf("G2 render: %v", got)
	}
	// G3 starts from a freshly initialized device.
	g, rec = newGrid(t, "novation/launchpad/pro-mk1")
	if err := g.Initialize(); err != nil {
		t.Fatal(err)
	}
	rec.take()
	mustRender(t, g, g3View())
	if got := hexAll(rec.take()); !equalStrings(got, parseHexList(g3)) {
		t.Fatalf("G3: %v", got)
	}
}

func TestCaseM51_G4_GreetingMessageCount(t *testing.T) {
	g, rec := newGrid(t, "novation/launchpad/pro-mk1")
	var sleeps []time.Duration
	g.Sleep = func(d time.Duration) { sleeps = append(sleeps, d) }
	g.Greeting = DefaultGreeting
	if err := g.Initialize(); err != nil {
		t.Fatal(err)
	}
	msgs := rec.take()
	if len(msgs) != 2738 || len(sleeps) != 129 {
		t.Fatalf("messages %d sleeps %d", len(msgs), len(sleeps))
	}
	for _, d := range sleeps {
		if d != 80*time.Millisecond {
			t.Fatal(d)
		}
	}
	if !equalStrings(sortedCopy(hexAll(msgs[len(msgs)-80:])), clearSet()) {
		t.Fatal("final clear")
	}
	if g.GreetingDuration() != 10320*time.Millisecond {
		t.Fatal(g.GreetingDuration())
	}
}

func showFrame(grid, top, right visual.ShowColor) *visual.ShowFrame {
	var f visual.ShowFrame
	for y := range f.Grid {
		for x := range f.Grid[y] {
			f.Grid[y][x] = grid
		}
	}
	for i := range f.Top {
		f.Top[i], f.Right[i] = top, right
	}
	return &f
}

func orange() visual.ShowColor {
	c, _ := visual.NewShowColor("accent:orange:selected", 255, 128, 0)
	return c
}

func TestCaseM51_G5_G6_RGBShowThenSemantic(t *testing.T) {
	g, rec := newGrid(t, "novation/launchpad/pro-mk1")
	o := orange()
	if err := g.RenderShowFrame(showFrame(o, o, o)); err != nil {
		t.Fatal(err)
	}
	msgs := rec.take()
	var leds []int
	for y := 0; y < 8; y++ {
		for x := 0; x < 8; x++ {
			leds = append(leds, 10*(8-y)+x+1)
		}
	}
	for i := 0; i < 8; i++ {
		leds = append(leds, 91+i)
	}
	for i := 0; i < 8; i++ {
		leds = append(leds, 89-10*i)
	}
	want1 := []byte{0xF0, 0, 0x20, 0x29, 2, 0x10, 0x0B}
	for _, l := range leds[:78] {
		want1 = append(want1, byte(l), 0x3F, 0x20, 0)
	}
	want1 = append(want1, 0xF7)
	if len(msgs) != 2 || hexMsg(msgs[0]) != hexMsg(want1) || hexMsg(msgs[1]) != "F0 00 20 29 02 10 0B 1D 3F 20 00 13 3F 20 00 F7" {
		t.Fatalf("G5: %v", hexAll(msgs))
	}
	if err := g.RenderShowFrame(showFrame(o, o, o)); err != nil || len(rec.take()) != 0 {
		t.Fatal("G5 repeat sent something", err)
	}
	mustRender(t, g, view(""))
	got := hexAll(rec.take())
	var want []string
	for i := 0; i < 8; i++ {
		want = append(want, fmt.Sprintf("B0 %02X 00", 91+i))
	}
	for i := 0; i < 8; i++ {
		want = append(want, fmt.Sprintf("B0 %02X 00", 89-10*i))
	}
	for y := 0; y < 8; y++ {
		for x := 0; x < 7; x++ {
			n := 10*(8-y) + x + 1
			v := 0
			if n == 43 || n == 44 || n == 45 {
				v = 1
			}
			want = append(want, fmt.Sprintf("90 %02X %02X", n, v))
		}
	}
	for i := 0; i < 8; i++ {
		want = append(want, fmt.Sprintf("90 %02X 00", 88-10*i))
	}
	if !equalStrings(got, want) {
		t.Fatalf("G6: %d %v", len(got), got)
	}
}

func TestCaseM51_G7_Close(t *testing.T) {
	g, rec := newGrid(t, "novation/launchpad/pro-mk1")
	in, out := &closer{}, &closer{}
	if err := g.Close(in, out); err != nil {
		t.Fatal(err)
	}
	msgs := hexAll(rec.take())
	if len(msgs) != 82 || !equalStrings(sortedCopy(msgs[:80]), clearSet()) ||
		msgs[80] != "F0 00 20 29 02 10 22 00 F7" || msgs[81] != "F0 00 20 29 02 10 21 00 F7" {
		t.Fatalf("G7: %v", msgs[78:])
	}
	if !in.closed || !out.closed {
		t.Fatal("ports not closed")
	}
}

type closer struct {
	closed bool
	err    error
}

func (c *closer) Close() error { c.closed = true; return c.err }

func TestCaseM51_G8_PaletteShow(t *testing.T) {
	testCaseM36(t)
}

func TestCaseM36_MiniPaletteShow(t *testing.T) { testCaseM36(t) }

func testCaseM36(t *testing.T) {
	g, rec := newGrid(t, "novation/launchpad/mini-mk3")
	cyan, _ := visual.NewShowColor("accent:cyan:selected", 0, 174, 187)
	mag, _ := visual.NewShowColor("accent:magenta:selected", 200, 62, 201)
	if err := g.RenderShowFrame(showFrame(cyan, orange(), mag)); err != nil {
		t.Fatal(err)
	}
	msgs := rec.take()
	if len(msgs) != 80 {
		t.Fatal(len(msgs))
	}
	notes := noteSet(msgs, 37)
	if len(notes) != 64 {
		t.Fatal(notes)
	}
	vals := lastValues(msgs)
	for i := 0; i < 8; i++ {
		if vals[cc(byte(91+i))] != 9 || vals[cc(byte(89-10*i))] != 53 {
			t.Fatalf("rails %v", vals)
		}
	}
	if err := g.RenderShowFrame(showFrame(cyan, orange(), mag)); err != nil || len(rec.take()) != 0 {
		t.Fatal("repeat sent something")
	}
}

func TestCaseM30_InitializeMessages(t *testing.T) {
	g, rec := newGrid(t, "novation/launchpad/pro-mk1")
	if err := g.Initialize(); err != nil {
		t.Fatal(err)
	}
	msgs := hexAll(rec.take())
	if msgs[0] != "F0 00 20 29 02 10 21 01 F7" || msgs[1] != "F0 00 20 29 02 10 2C 03 F7" {
		t.Fatal(msgs[:2])
	}
	distinct := map[string]bool{}
	for _, m := range msgs[2:] {
		distinct[m] = true
	}
	if len(msgs) != 82 || len(distinct) != 80 {
		t.Fatal(len(msgs), len(distinct))
	}
}

func TestCaseM31_CloseWithoutInitialize(t *testing.T) {
	g, rec := newGrid(t, "novation/launchpad/pro-mk1")
	if err := g.Close(nil, nil); err != nil {
		t.Fatal(err)
	}
	msgs := hexAll(rec.take())
	if msgs[len(msgs)-2] != "F0 00 20 29 02 10 22 00 F7" || msgs[len(msgs)-1] != "F0 00 20 29 02 10 21 00 F7" {
		t.Fatal(msgs[len(msgs)-2:])
	}
}

func TestCaseM32_MiniClose(t *testing.T) {
	g, rec := newGrid(t, "novation/launchpad/mini-mk3")
	in, out := &closer{}, &closer{}
	if err := g.Close(in, out); err != nil {
		t.Fatal(err)
	}
	msgs := hexAll(rec.take())
	if msgs[len(msgs)-1] != "F0 00 20 29 02 0D 0E 00 F7" || !in.closed || !out.closed {
		t.Fatal(msgs[len(msgs)-1], in.closed, out.closed)
	}
}

// Close attempts every step even when one fails and reports all errors.
func TestCloseAttemptsEveryStep(t *testing.T) {
	g, rec := newGrid(t, "novation/launchpad/mini-mk3")
	rec.fail = errors.New("unplugged")
	in, out := &closer{err: errors.New("in broken")}, &closer{}
	err := g.Close(in, out)
	if err == nil || !strings.Contains(err.Error(), "unplugged") || !strings.Contains(err.Error(), "in broken") || !out.closed {
		t.Fatal(err, out.closed)
	}
}

func TestCaseM33_StatusByteChannel0(t *testing.T) {
	g, rec := newGrid(t, "novation/launchpad/pro-mk1")
	mustRender(t, g, visual.View{Selected: wire.StateRunning, Frame: 2})
	for _, m := range rec.take() {
		if m[2] != 0 && m[0]&0xF0 == 0x90 && m[0] != 0x90 {
			t.Fatal(hexMsg(m))
		}
	}
}

func TestCaseM34_SameViewTwice(t *testing.T) {
	for _, id := range profileIDs {
		g, rec := newGrid(t, id)
		mustRender(t, g, g3View())
		rec.take()
		mustRender(t, g, g3View())
		if n := len(rec.take()); n != 0 {
			t.Fatalf("%s: %d", id, n)
		}
	}
}

func TestCaseM35_DeltaSmallerThanFull(t *testing.T) {
	g, rec := newGrid(t, "novation/launchpad/pro-mk1")
	mustRender(t, g, view(wire.StateWaitingForReply))
	if n := len(rec.take()); n != 77 {
		t.Fatal(n)
	}
	mustRender(t, g, view(wire.StateSuccess))
	if n := len(rec.take()); n <= 0 || n >= 77 {
		t.Fatal(n)
	}
}

func TestCaseM37_RGBShowBatches(t *testing.T) {
	g, rec := newGrid(t, "novation/launchpad/pro-mk1")
	o := orange()
	if err := g.RenderShowFrame(showFrame(o, o, o)); err != nil {
		t.Fatal(err)
	}
	msgs := rec.take()
	d0 := msgs[0][1 : len(msgs[0])-1]
	if len(msgs) != 2 || len(d0) != 318 || len(msgs[1])-2 != 14 ||
		hexMsg(d0[:10]) != hexMsg([]byte{0, 32, 41, 2, 16, 11, 81, 63, 32, 0}) {
		t.Fatal(hexAll(msgs))
	}
	if err := g.RenderShowFrame(showFrame(o, o, o)); err != nil || len(rec.take()) != 0 {
		t.Fatal("repeat")
	}
}

func TestCaseM38_RailsDarkAfterShow(t *testing.T) {
	g, rec := newGrid(t, "novation/launchpad/pro-mk1")
	o := orange()
	if err := g.RenderShowFrame(showFrame(o, o, o)); err != nil {
		t.Fatal(err)
	}
	mustRender(t, g, view(wire.StateWaitingForReply))
	vals := lastValues(rec.take())
	for _, n := range []byte{93, 94, 96} {
		if v, ok := vals[cc(n)]; !ok || v != 0 {
			t.Fatalf("CC %d = %v %v", n, v, ok)
		}
	}
}

func TestCaseM39_SelectorsAndStatuses(t *testing.T) {
	g, rec := newGrid(t, "novation/launchpad/pro-mk1")
	v := g3View()
	v.Available, v.OverflowCount = 0, 0
	mustRender(t, g, v)
	vals := lastValues(rec.take())
	if vals[cc(89)] != 37 || vals[cc(79)] != 55 || vals[note(88)] != 47 || vals[note(78)] != 11 {
		t.Fatal(vals)
	}
}

func TestCaseM40_AvailableApprove(t *testing.T) {
	g, rec := newGrid(t, "novation/launchpad/pro-mk1")
	mustRender(t, g, visual.View{Selected: wire.StateWaitingForApproval, Available: visual.Actions(wire.ActionApprove)})
	vals := lastValues(rec.take())
	if vals[cc(91)] != 21 || vals[cc(92)] != 0 {
		t.Fatal(vals)
	}
}

func TestCaseM41_InputEvents(t *testing.T) {
	g, _ := newGrid(t, "novation/launchpad/pro-mk1")
	var p InputParser
	got := g.Events([]byte{0xB0, 91, 127, 0xB0, 79, 127, 0xB0, 69, 0}, &p)
	if len(got) != 2 || got[0] != (Event{Action: wire.ActionApprove}) || got[1] != (Event{Slot: 1}) {
		t.Fatal(got)
	}
}

func TestCaseM42_IgnoredInput(t *testing.T) {
	g, _ := newGrid(t, "novation/launchpad/pro-mk1")
	var p InputParser
	got := g.Events([]byte{0x90, 81, 100, 0x90, 88, 100, 0xB0, 93, 127, 0xB1, 91, 127}, &p)
	if len(got) != 0 {
		t.Fatal(got)
	}
}

func TestActionWinsOverSelector(t *testing.T) {
	data := mutate(t, proMk1(t), func(m map[string]any) {
		// Selector 0 on CC 91 would collide with approve; the parser
		// rejects that, so build the grid maps by hand instead.
	})
	p, err := ParseProfile(data, "")
	if err != nil {
		t.Fatal(err)
	}
	g := NewGrid(p, &recorder{})
	g.selectBy[Address{KindCC, 91, 0}] = 0
	if e, ok := g.EventFor(Message{Status: 0xB0, Data1: 91, Data2: 1}); !ok || e.Action != wire.ActionApprove {
		t.Fatal(e, ok)
	}
}

func TestCaseM43_SuccessNotes(t *testing.T) {
	g, rec := newGrid(t, "novation/launchpad/pro-mk1")
	mustRender(t, g, view(wire.StateSuccess))
	got := noteSet(rec.take(), 21)
	want := []int{14, 23, 25, 32, 36, 41, 47, 62, 66}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatal(got)
	}
}

func TestCaseM44_OverflowLight(t *testing.T) {
	g, rec := newGrid(t, "novation/launchpad/pro-mk1")
	mustRender(t, g, visual.View{OverflowCount: 1})
	if vals := lastValues(rec.take()); vals[cc(95)] != 9 {
		t.Fatal(vals)
	}
}

func TestCaseM45_ActivityMotion(t *testing.T) {
	g, rec := newGrid(t, "novation/launchpad/pro-mk1")
	mustRender(t, g, visual.View{Selected: wire.StateRunning, Frame: 1, ActivityMotion: true})
	if got := noteSet(rec.take(), 3); fmt.Sprint(got) != "[44 54]" {
		t.Fatal(got)
	}
}

// The per-state canvas note sets of §7.
func TestStateNoteSets(t *testing.T) {
	table := []struct {
		state wire.State
		vel   byte
		notes string
	}{
		{wire.StateRunning, 45, "56 54 52 46 44 42"},
		{wire.StateWaitingForReply, 3, "86 85 84 83 82 77 71 67 66 56 55 45 34 14"},
		{wire.StateUserTyping, 37, "72 63 54 45 34 23 12"},
		{wire.StateWaitingForApproval, 9, "84 74 64 54 44 14"},
		{wire.StateSuccess, 21, "66 62 47 41 36 32 25 23 14"},
		{wire.StateError, 5, "87 81 76 72 65 63 54 44 35 33 26 22 17 11"},
		{wire.StateCancelled, 2, "76 75 74 73 72 66 62 56 52 46 42 36 32 26 25 24 23 22"},
		{"", 1, "43 44 45"},
	}
	for _, id := range profileIDs {
		for _, row := range table {
			g, rec := newGrid(t, id)
			mustRender(t, g, view(row.state))
			var want []int
			for _, f := range strings.Fields(row.notes) {
				var n int
				fmt.Sscan(f, &n)
				want = append(want, n)
			}
			sort.Ints(want)
			if got := noteSet(rec.take(), row.vel); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s %s: %v", id, row.state, got)
			}
		}
		for i, want := range []string{"[42 52]", "[44 54]", "[46 56]"} {
			g, rec := newGrid(t, id)
			mustRender(t, g, visual.View{Selected: wire.StateRunning, Frame: i, ActivityMotion: true})
			if got := noteSet(rec.take(), 3); fmt.Sprint(got) != want {
				t.Errorf("activity frame %d: %v", i, got)
			}
		}
	}
}

func TestCaseM46_Columns(t *testing.T) {
	if got := TextColumns("I"); fmt.Sprint(got) != "[65 65 127 65 65 0]" {
		t.Fatal(got)
	}
	want := "127,8,8,8,127,0, 127,73,73,73,65,0, 127,1,1,1,1,0, 127,1,1,1,1,0, 62,65,65,65,62,0, 0,0,0,0,0,0, 127,72,72,72,64,0, 127,72,76,74,49,0, 62,65,65,65,62,0, 127,32,24,32,127,0, 0,0,0,0,0,0, 62,65,65,65,65,0, 62,65,65,65,62,0, 127,65,65,65,62,0, 127,73,73,73,65,0, 65,20,8,20,65,0, 0,0,0,0,0,0, 62,65,65,65,65,0, 127,1,1,1,1,0, 65,65,127,65,65,0"
	var parts []string
	for _, c := range TextColumns(DefaultGreeting) {
		parts = append(parts, fmt.Sprint(c))
	}
	if strings.Join(parts, ",") != strings.ReplaceAll(want, " ", "") {
		t.Fatal(parts)
	}
	// Unknown characters use the blank glyph; lower case is upper-cased.
	if fmt.Sprint(TextColumns("?")) != fmt.Sprint(TextColumns(" ")) || fmt.Sprint(TextColumns("hi")) != fmt.Sprint(TextColumns("HI")) {
		t.Fatal("fallback")
	}
}

func TestCaseM47_M48_GreetingDuration(t *testing.T) {
	for _, c := range []struct {
		text   string
		frames int
		dur    time.Duration
	}{{DefaultGreeting, 129, 10320 * time.Millisecond}, {"HI", 21, 1680 * time.Millisecond}} {
		g, _ := newGrid(t, "novation/launchpad/pro-mk1")
		n := 0
		g.Sleep = func(time.Duration) { n++ }
		g.Greeting = c.text
		if g.GreetingDuration() != c.dur {
			t.Fatal(g.GreetingDuration())
		}
		if err := g.Initialize(); err != nil || n != c.frames {
			t.Fatal(n, err)
		}
	}
	// No text_scroll: no greeting.
	data := mutate(t, proMk1(t), func(m map[string]any) { sub(m, "capabilities")["text_scroll"] = false })
	p, _ := ParseProfile(data, "")
	g := NewGrid(p, &recorder{})
	g.Greeting = "HI"
	if g.GreetingDuration() != 0 {
		t.Fatal("text_scroll false")
	}
}

func TestCaseM50_RGBScaling(t *testing.T) {
	for _, c := range []struct{ in, out [3]uint8 }{
		{[3]uint8{0, 220, 255}, [3]uint8{0, 54, 63}},
		{[3]uint8{255, 35, 178}, [3]uint8{63, 9, 44}},
		{[3]uint8{3, 3, 3}, [3]uint8{1, 1, 1}},
		{[3]uint8{2, 2, 2}, [3]uint8{0, 0, 0}},
		{[3]uint8{255, 128, 0}, [3]uint8{63, 32, 0}},
	} {
		for i := range c.in {
			if got := ScaleChannel(c.in[i], 63); got != c.out[i] {
				t.Fatalf("%v → %d, want %v", c.in, got, c.out)
			}
		}
	}
	// Exhaustive: integer formula equals round(c·63/255).
	for c := 0; c < 256; c++ {
		num := c * 63
		want := num / 255
		if rem := num % 255; 2*rem > 255 {
			want++
		}
		if int(ScaleChannel(uint8(c), 63)) != want {
			t.Fatal(c)
		}
	}
}

func TestShowFrameShape(t *testing.T) {
	data := mutate(t, proMk1(t), func(m map[string]any) {})
	p, _ := ParseProfile(data, "")
	p.ShowTop = p.ShowTop[:7]
	g := NewGrid(p, &recorder{})
	if err := g.RenderShowFrame(showFrame(orange(), orange(), orange())); !errors.Is(err, ErrShowFrameShape) {
		t.Fatal(err)
	}
}

// --- Golden files per profile ---

// scenarios are the golden MIDI scenarios of the brief, run on a fresh
// driver in order; each step's messages go to one golden section.
func scenarios() []struct {
	name string
	run  func(g *Grid) error
} {
	type step = struct {
		name string
		run  func(g *Grid) error
	}
	waiting := visual.View{Selected: wire.StateWaitingForReply, Sessions: []visual.Indicator{{Slot: 0, State: wire.StateWaitingForReply, Selected: true, Accent: "cyan"}}}
	approval := visual.View{Selected: wire.StateWaitingForApproval, Sessions: []visual.Indicator{{Slot: 0, State: wire.StateWaitingForApproval, Selected: true, Accent: "cyan"}}, Available: visual.Actions(wire.ActionApprove, wire.ActionReject)}
	twoAgents := approval
	twoAgents.Sessions = append(append([]visual.Indicator(nil), approval.Sessions...), visual.Indicator{Slot: 1, State: wire.StateRunning, Accent: "magenta"})
	selected := visual.View{Selected: wire.StateRunning, Sessions: []visual.Indicator{{Slot: 0, State: wire.StateWaitingForApproval, Accent: "cyan"}, {Slot: 1, State: wire.StateRunning, Selected: true, Accent: "magenta"}}, Available: visual.Actions(wire.ActionStop)}
	overflowOn := selected
	overflowOn.OverflowCount = 3
	cyan, _ := visual.NewShowColor("accent:cyan:selected", 0, 174, 187)
	mag, _ := visual.NewShowColor("accent:magenta:selected", 200, 62, 201)
	show1 := showFrame(cyan, orange(), mag)
	show2 := showFrame(cyan, orange(), mag)
	show2.Grid[3][4] = orange()
	show2.Top[2] = cyan
	return []step{
		{"enter programmer mode", func(g *Grid) error { return g.Initialize() }},
		{"first frame waiting_for_reply", func(g *Grid) error { return g.RenderView(waiting) }},
		{"delta waiting_for_approval", func(g *Grid) error { return g.RenderView(approval) }},
		{"second agent appears", func(g *Grid) error { return g.RenderView(twoAgents) }},
		{"selection change", func(g *Grid) error { return g.RenderView(selected) }},
		{"overflow on", func(g *Grid) error { return g.RenderView(overflowOn) }},
		{"overflow off", func(g *Grid) error { return g.RenderView(selected) }},
		{"show frame", func(g *Grid) error { return g.RenderShowFrame(show1) }},
		{"show frame delta", func(g *Grid) error { return g.RenderShowFrame(show2) }},
		{"back to semantic", func(g *Grid) error { return g.RenderView(selected) }},
		{"greeting HI", func(g *Grid) error { g.Greeting = "HI"; return g.Initialize() }},
		{"exit", func(g *Grid) error { return g.Close(nil, nil) }},
	}
}

func runScenarios(t *testing.T, p *Profile) string {
	t.Helper()
	rec := &recorder{}
	g := NewGrid(p, rec)
	g.Sleep = func(time.Duration) {}
	var b strings.Builder
	for _, s := range scenarios() {
		if err := s.run(g); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		msgs := rec.take()
		fmt.Fprintf(&b, "# %s (%d messages)\n", s.name, len(msgs))
		for _, m := range msgs {
			b.WriteString(hexMsg(m))
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// Golden MIDI bytes for every scenario and profile; our profiles and the
// reference files must produce byte-identical output.
func TestGoldenScenarios(t *testing.T) {
	for _, id := range profileIDs {
		got := runScenarios(t, builtin(t, id))
		path := filepath.Join("testdata", "golden", strings.ReplaceAll(id, "/", "_")+".midi.txt")
		if *update {
			os.MkdirAll(filepath.Dir(path), 0o755)
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run with -update to create)", err)
		}
		if got != string(want) {
			t.Errorf("%s: output differs from %s", id, path)
		}
		if ref := runScenarios(t, reference(t, id)); ref != got {
			t.Errorf("%s: the reference profile file produces different MIDI bytes", id)
		}
	}
}
