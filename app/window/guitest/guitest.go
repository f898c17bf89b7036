// Package guitest builds the Lets binary with native windows (the desktop
// build tags) for tests that run it under Xvfb. It is imported only by
// tests (app/window and app/cli), which share one build per test process. It
// does not import backend/testenv (no product-tree package may): the
// caller hands in its tool checks.
package guitest

import (
	"bufio"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Tags are the build tags of a Lets binary with native windows.
const Tags = "desktop,production,webkit2_41"

// Builder builds the GUI binary at most once. Keep one per test process
// (a package variable of the test) and call Cleanup from TestMain.
type Builder struct {
	// ModuleRoot is the module's folder, relative to the test's folder.
	ModuleRoot string
	// Command finds a tool or skips the test loudly (testutil.Command).
	Command func(tb testing.TB, names ...string) string
	// Missing skips the test loudly, or fails it when tools are required
	// (testutil.Missing with testutil.RequireToolsEnv).
	Missing func(tb testing.TB, what, fix string)

	once sync.Once
	dir  string
	bin  string
	err  error
}

// Build returns the path of the GUI binary, building it on first use (the
// first build compiles the WebKitGTK bindings and takes a minute or two;
// Go's build cache makes later runs quick). Without pkg-config or the GTK
// and WebKitGTK development files the test is skipped loudly (or fails
// under LETS_REQUIRE_TOOLS=1).
func (b *Builder) Build(tb testing.TB) string {
	tb.Helper()
	b.Command(tb, "pkg-config")
	if out, err := exec.Command("pkg-config", "--exists", "webkit2gtk-4.1", "gtk+-3.0").CombinedOutput(); err != nil {
		b.Missing(tb, "the GTK 3 and WebKitGTK 4.1 development files are not installed ("+strings.TrimSpace(string(out))+")", "install the apt packages libgtk-3-dev libwebkit2gtk-4.1-dev (`make deps` does)")
	}
	b.once.Do(func() {
		b.dir, b.err = os.MkdirTemp("", "lets-gui-build-")
		if b.err != nil {
			return
		}
		b.bin = filepath.Join(b.dir, "lets")
		ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "go", "build", "-tags", Tags, "-o", b.bin, ".")
		cmd.Dir = b.ModuleRoot
		if out, err := cmd.CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go build -tags %s: %w\n%s", Tags, err, out)
		}
	})
	if b.err != nil {
		tb.Fatal(b.err)
	}
	return b.bin
}

// Cleanup removes the built binary.
func (b *Builder) Cleanup() {
	if b.dir != "" {
		_ = os.RemoveAll(b.dir)
	}
}

// Display is one Xvfb shared by all the tests of a test package (keep one
// in a package variable and call Stop from TestMain).
//
// It runs with -noreset. Without it, an X server resets whenever its last
// client disconnects, and a client that connects during the reset is
// refused: GTK then cannot open the display ("failed to init GTK"). The
// tests poll the screen with short-lived clients (xwininfo) while a window
// process starts, so without -noreset a window sometimes could not start,
// more often the busier the machine (a reset of a 1280x800 screen takes a
// few hundred milliseconds then).
//
// -displayfd makes Xvfb pick a free display itself and write its number
// once it accepts connections, so the first client never races its start.
type Display struct {
	// Command finds a tool or skips the test loudly (testutil.Command).
	Command func(tb testing.TB, names ...string) string
	// Screen is the screen's size and depth; "" is 1280x800x24.
	Screen string

	once sync.Once
	name string
	cmd  *exec.Cmd
	err  error
}

// DisplayStartTimeout bounds how long Xvfb may take to accept connections.
const DisplayStartTimeout = 30 * time.Second

// Name returns the display (":N"), starting Xvfb on first use.
func (d *Display) Name(tb testing.TB) string {
	tb.Helper()
	xvfb := d.Command(tb, "Xvfb")
	screen := d.Screen
	if screen == "" {
		screen = "1280x800x24"
	}
	d.once.Do(func() { d.name, d.cmd, d.err = startXvfb(xvfb, screen) })
	if d.err != nil {
		tb.Fatal(d.err)
	}
	return d.name
}

func startXvfb(xvfb, screen string) (string, *exec.Cmd, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return "", nil, err
	}
	defer r.Close()
	var stderr strings.Builder
	x := exec.Command(xvfb, "-displayfd", "3", "-screen", "0", screen, "-nolisten", "tcp", "-noreset")
	x.ExtraFiles = []*os.File{w}
	x.Stderr = &lockedBuilder{b: &stderr}
	if err := x.Start(); err != nil {
		w.Close()
		return "", nil, fmt.Errorf("start Xvfb: %w", err)
	}
	w.Close()
	num := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		num <- strings.TrimSpace(line)
	}()
	timer := time.NewTimer(DisplayStartTimeout)
	defer timer.Stop()
	select {
	case n := <-num:
		if n != "" {
			return ":" + n, x, nil
		}
	case <-timer.C:
	}
	_ = x.Process.Kill()
	_ = x.Wait()
	return "", nil, fmt.Errorf("Xvfb did not say which display it took within %v: %s", DisplayStartTimeout, stderr.String())
}

// Stop ends Xvfb, if it was started.
func (d *Display) Stop() {
	if d.cmd != nil {
		_ = d.cmd.Process.Kill()
		_ = d.cmd.Wait()
	}
}

type lockedBuilder struct {
	mu sync.Mutex
	b  *strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuilder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Painted says whether the PNG screenshot at path shows a painted page:
// text and pictures give it many colours, while a window whose page has
// not painted yet shows only its background colour (and the black root
// window around it).
func Painted(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return false, err
	}
	return colours(img, paintedColours) >= paintedColours, nil
}

// paintedColours is how many distinct colours make a screen painted; an
// unpainted one has two or three.
const paintedColours = 16

// colours counts the distinct colours of img, up to limit.
func colours(img image.Image, limit int) int {
	seen := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a := img.At(x, y).RGBA()
			seen[[4]uint32{r, g, bl, a}] = true
			if len(seen) >= limit {
				return len(seen)
			}
		}
	}
	return len(seen)
}
