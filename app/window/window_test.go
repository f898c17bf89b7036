package window

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/lets-app/lets/app/window/geometry"
)

// fakeRuntime records what the controller asks of the native window; it
// is how these tests run without a display (Wails' real runtime calls
// log.Fatal outside its own context).
type fakeRuntime struct {
	mu     sync.Mutex
	calls  []string
	width  int
	height int
	x, y   int
	quits  int
}

func (f *fakeRuntime) record(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, s)
}
func (f *fakeRuntime) SetTitle(title string) { f.record("title " + title) }
func (f *fakeRuntime) Place(r geometry.Rect) {
	f.mu.Lock()
	f.x, f.y, f.width, f.height = r.X, r.Y, r.Width, r.Height
	f.mu.Unlock()
	f.record("place")
}
func (f *fakeRuntime) Present() { f.record("present") }
func (f *fakeRuntime) SetSize(w, h int) {
	f.mu.Lock()
	f.width, f.height = w, h
	f.mu.Unlock()
	f.record("size")
}
func (f *fakeRuntime) SetPosition(x, y int) {
	f.mu.Lock()
	f.x, f.y = x, y
	f.mu.Unlock()
	f.record("position")
}
func (f *fakeRuntime) Size() (int, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.width, f.height
}
func (f *fakeRuntime) Position() (int, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.x, f.y
}
func (f *fakeRuntime) Quit() {
	f.mu.Lock()
	f.quits++
	f.mu.Unlock()
	f.record("quit")
}

func goodLaunch() Launch {
	return Launch{Window: "w1", Unique: "hello", Title: "Hello — say hi", URL: "http://127.0.0.1:4321/w/w1/?t=onetime"}
}

func reportsOf(t *testing.T, b *bytes.Buffer) []Report {
	t.Helper()
	var out []Report
	if err := ReadReports(bytes.NewReader(b.Bytes()), func(r Report) { out = append(out, r) }); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestControllerAppliesTitleAndRememberedPlace: on start the window takes
// the unique's title and the place it had last time.
func TestControllerAppliesTitleAndRememberedPlace(t *testing.T) {
	l := goodLaunch()
	l.Geometry = &geometry.Rect{X: 40, Y: 50, Width: 900, Height: 650}
	c := newController(l, &reporter{}, nil)
	if w, h := c.fit(geometry.Rect{}); w != 900 || h != 650 {
		t.Fatalf("opens at %dx%d", w, h)
	}
	rt := &fakeRuntime{}
	c.started(rt)
	if got := strings.Join(rt.calls, ","); got != "title Hello — say hi,place" {
		t.Fatalf("calls %q", got)
	}
	if rt.width != 900 || rt.height != 650 || rt.x != 40 || rt.y != 50 {
		t.Fatalf("window at %+v", rt)
	}
}

// TestControllerDefaultsWithoutPlace: no remembered place keeps Wails'
// default size and centring; no title falls back to the unique's name.
func TestControllerDefaultsWithoutPlace(t *testing.T) {
	l := goodLaunch()
	l.Title = "  "
	c := newController(l, &reporter{}, nil)
	if w, h := c.fit(geometry.Rect{}); w != DefaultWidth || h != DefaultHeight {
		t.Fatalf("opens at %dx%d", w, h)
	}
	rt := &fakeRuntime{}
	c.started(rt)
	if got := strings.Join(rt.calls, ","); got != "title hello — Lets" {
		t.Fatalf("calls %q", got)
	}
	if w, h := l.size(); w != DefaultWidth || h != DefaultHeight {
		t.Fatalf("default size %dx%d", w, h)
	}
}

// TestControllerReportsGeometryOnClose: closing the window (the person, or
// quit) reports its place once and never keeps the window open.
func TestControllerReportsGeometryOnClose(t *testing.T) {
	var out bytes.Buffer
	c := newController(goodLaunch(), &reporter{out: &out}, nil)
	rt := &fakeRuntime{}
	c.started(rt)
	rt.SetSize(800, 600)
	rt.SetPosition(12, 34)
	c.loaded()
	if c.beforeClose() {
		t.Fatal("the window must close when asked")
	}
	c.beforeClose()
	reps := reportsOf(t, &out)
	if len(reps) != 2 || reps[0].Type != ReportLoaded || reps[1].Type != ReportGeometry {
		t.Fatalf("reports %+v", reps)
	}
	if g := reps[1].Geometry; g == nil || *g != (geometry.Rect{X: 12, Y: 34, Width: 800, Height: 600}) {
		t.Fatalf("geometry %+v", g)
	}
}

// TestControllerTerminate: SIGTERM from Lets reports the place and quits
// once; a second signal does not quit twice; a SIGTERM that comes before
// the window exists quits it as soon as it starts.
func TestControllerTerminate(t *testing.T) {
	var out bytes.Buffer
	c := newController(goodLaunch(), &reporter{out: &out}, nil)
	rt := &fakeRuntime{width: 700, height: 500}
	c.started(rt)
	c.terminate()
	c.terminate()
	if rt.quits != 1 {
		t.Fatalf("quit %d times", rt.quits)
	}
	if reps := reportsOf(t, &out); len(reps) != 1 || reps[0].Geometry == nil || reps[0].Geometry.Width != 700 {
		t.Fatalf("reports %+v", reps)
	}

	early := newController(goodLaunch(), &reporter{}, nil)
	early.terminate()
	rt2 := &fakeRuntime{}
	early.started(rt2)
	if rt2.quits != 1 {
		t.Fatalf("a window told to go before it started quit %d times", rt2.quits)
	}
}

// TestControllerSkipsUnusableGeometry: a minimised (tiny) window's size is
// not reported, so it never replaces a good remembered place.
func TestControllerSkipsUnusableGeometry(t *testing.T) {
	var out bytes.Buffer
	c := newController(goodLaunch(), &reporter{out: &out}, nil)
	c.started(&fakeRuntime{width: 1, height: 1})
	c.beforeClose()
	if out.Len() != 0 {
		t.Fatalf("reported %q", out.String())
	}
}

// TestReadLaunchRefusesForeignPages: the window shows only the Lets host's
// shell page on this machine; anything else on stdin is refused.
func TestReadLaunchRefusesForeignPages(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		ok         bool
	}{
		{"shell page", `{"window":"w1","unique":"hello","url":"http://127.0.0.1:4321/w/w1/?t=x"}`, true},
		{"ipv6 loopback", `{"window":"w1","url":"http://[::1]:4321/w/w1/?t=x"}`, true},
		{"remote host", `{"window":"w1","url":"http://example.com:80/w/w1/"}`, false},
		{"LAN address", `{"window":"w1","url":"http://192.168.1.2:4321/w/w1/"}`, false},
		{"https", `{"window":"w1","url":"https://127.0.0.1:4321/w/w1/"}`, false},
		{"file", `{"window":"w1","url":"file:///etc/passwd"}`, false},
		{"no port", `{"window":"w1","url":"http://127.0.0.1/w/w1/"}`, false},
		{"not a shell page", `{"window":"w1","url":"http://127.0.0.1:4321/lip/status"}`, false},
		{"no window", `{"url":"http://127.0.0.1:4321/w/w1/"}`, false},
		{"not json", `open w1`, false},
		{"empty", ``, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadLaunch(strings.NewReader(tc.line + "\n"))
			if tc.ok != (err == nil) {
				t.Fatalf("err %v, want ok=%v", err, tc.ok)
			}
			if err != nil && !errors.Is(err, ErrBadLaunch) {
				t.Fatalf("err %v is not ErrBadLaunch", err)
			}
		})
	}
}

// TestLaunchRoundTrip: what the app encodes is what the window reads.
func TestLaunchRoundTrip(t *testing.T) {
	l := goodLaunch()
	l.Geometry = &geometry.Rect{X: 1, Y: 2, Width: 640, Height: 480}
	b, err := l.Encode()
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadLaunch(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if got.URL != l.URL || got.Title != l.Title || got.Geometry == nil || *got.Geometry != *l.Geometry {
		t.Fatalf("got %+v", got)
	}
}

// TestReadLaunchDropsUnusableGeometry: a remembered place that cannot be
// a window's (a hand-edited windows.json: 1x1, or far off every screen) is
// not part of the launch the window reads; it opens at its default size.
func TestReadLaunchDropsUnusableGeometry(t *testing.T) {
	for _, g := range []geometry.Rect{{X: 0, Y: 0, Width: 1, Height: 1}, {X: 1 << 30, Y: 0, Width: 800, Height: 600}} {
		l := goodLaunch()
		l.Geometry = &g
		b, err := l.Encode()
		if err != nil {
			t.Fatal(err)
		}
		got, err := ReadLaunch(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if got.Geometry != nil {
			t.Errorf("geometry %+v was kept, want none", *got.Geometry)
		}
		if w, h := got.size(); w != DefaultWidth || h != DefaultHeight {
			t.Errorf("size %dx%d, want the default %dx%d", w, h, DefaultWidth, DefaultHeight)
		}
	}
}

// TestMainWithoutSupportOrDisplay: a build without the desktop tags, or a
// session without a display, says so instead of failing obscurely.
func TestMainWithoutSupportOrDisplay(t *testing.T) {
	l, _ := goodLaunch().Encode()
	err := Main(context.Background(), Env{Stdin: bytes.NewReader(l), Getenv: func(string) string { return "" }})
	want := ErrNoDisplay
	if !Supported {
		want = ErrNoGUI
	}
	if !errors.Is(err, want) {
		t.Fatalf("err %v, want %v", err, want)
	}
	if CanOpen(func(string) string { return "" }) {
		t.Fatal("CanOpen without a display")
	}
	if got := CanOpen(func(k string) string {
		if k == "WAYLAND_DISPLAY" {
			return "wayland-0"
		}
		return ""
	}); got != Supported {
		t.Fatalf("CanOpen with a Wayland display = %v in a build with Supported=%v", got, Supported)
	}
}

// TestReadReportsSkipsJunk: an overlong or broken line from a window
// process is skipped; the reports around it still arrive.
func TestReadReportsSkipsJunk(t *testing.T) {
	in := `{"type":"loaded"}` + "\n" + strings.Repeat("x", 3*maxReportLine) + "\n" + `{"nope":1}` + "\n" + `{"type":"geometry","geometry":{"x":1,"y":1,"width":500,"height":400}}`
	var got []string
	if err := ReadReports(strings.NewReader(in), func(r Report) { got = append(got, r.Type) }); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != "loaded,geometry" {
		t.Fatalf("got %v", got)
	}
}

// TestControllerFitsTheWorkArea (#21 windows fit): on a 1024×600 screen
// with a 40 px panel on top, a new window (1024×768 by default) opens
// smaller than the work area and below the panel, and a remembered place
// under the panel moves into the work area.
func TestControllerFitsTheWorkArea(t *testing.T) {
	area := geometry.Rect{X: 0, Y: 40, Width: 1024, Height: 560}
	c := newController(goodLaunch(), &reporter{}, nil)
	w, h := c.fit(area)
	rt := &fakeRuntime{}
	c.started(rt)
	if got := strings.Join(rt.calls, ","); got != "title Hello — say hi,place" {
		t.Fatalf("calls %q", got)
	}
	if w != rt.width || h != rt.height || w+geometry.FrameWidth > area.Width || h+geometry.FrameHeight > area.Height || rt.y < area.Y || rt.x < area.X {
		t.Fatalf("opens at %dx%d, placed at %+v, work area %+v", w, h, rt, area)
	}

	l := goodLaunch()
	l.Geometry = &geometry.Rect{X: 200, Y: 0, Width: 700, Height: 450}
	c = newController(l, &reporter{}, nil)
	c.fit(area)
	rt = &fakeRuntime{}
	c.started(rt)
	if rt.x != 200 || rt.y != 40 || rt.width != 700 || rt.height != 450 {
		t.Fatalf("remembered place under the panel went to %+v", rt)
	}
}

// TestControllerPresent (#21 raise): Lets asking the window to come to the
// front presents it once it exists, and not while it is closing.
func TestControllerPresent(t *testing.T) {
	c := newController(goodLaunch(), &reporter{}, nil)
	c.present() // before the window exists: nothing to raise
	rt := &fakeRuntime{}
	c.started(rt)
	c.present()
	c.terminate()
	c.present()
	if got := strings.Join(rt.calls, ","); got != "title Hello — say hi,present,quit" {
		t.Fatalf("calls %q", got)
	}
}
