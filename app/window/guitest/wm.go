package guitest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A real window manager on a test display: what a desktop does to
// windows (frames, focus, stacking, the work area left by panels) that a
// bare Xvfb does not. Tests read the result with the X tools a person
// would use (xprop, xwininfo, wmctrl).

// WMStartTimeout bounds how long openbox may take to manage the screen.
const WMStartTimeout = 30 * time.Second

// toolTimeout bounds one run of xprop, xwininfo or wmctrl.
const toolTimeout = 10 * time.Second

// X runs the X tools against one display.
type X struct {
	Display string
	// Command finds a tool or skips the test loudly (testutil.Command).
	Command func(tb testing.TB, names ...string) string
}

func (x X) run(tb testing.TB, tool string, args ...string) (string, error) {
	tb.Helper()
	path := x.Command(tb, tool)
	ctx, cancel := context.WithTimeout(context.Background(), toolTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = append(os.Environ(), "DISPLAY="+x.Display)
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("%s %s: %w", tool, strings.Join(args, " "), err)
	}
	return string(out), nil
}

// StartOpenbox runs openbox on the display with a top margin of topMargin
// pixels, which it keeps free of windows and leaves out of _NET_WORKAREA
// as a panel's strut does. It returns once openbox manages the screen;
// the test's cleanup ends it.
func (x X) StartOpenbox(tb testing.TB, topMargin int) {
	tb.Helper()
	stop, err := x.RunOpenbox(tb, topMargin)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(stop)
}

// RunOpenbox is StartOpenbox for a window manager that outlives the test
// that starts it (one per test package, beside a shared display): the
// caller ends it with stop.
func (x X) RunOpenbox(tb testing.TB, topMargin int) (stop func(), err error) {
	tb.Helper()
	openbox := x.Command(tb, "openbox")
	dir, err := os.MkdirTemp("", "lets-openbox-")
	if err != nil {
		return nil, err
	}
	rc := filepath.Join(dir, "rc.xml")
	conf := fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<openbox_config xmlns="http://openbox.org/3.4/rc">
  <margins><top>%d</top><bottom>0</bottom><left>0</left><right>0</right></margins>
  <focus><focusNew>yes</focusNew><followMouse>no</followMouse></focus>
  <desktops><number>1</number></desktops>
</openbox_config>
`, topMargin)
	if err := os.WriteFile(rc, []byte(conf), 0o600); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	cmd := exec.Command(openbox, "--config-file", rc)
	cmd.Env = append(os.Environ(), "DISPLAY="+x.Display)
	var out lockedBuilder
	out.b = &strings.Builder{}
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("start openbox: %w", err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	stop = func() {
		_ = cmd.Process.Kill()
		<-done
		_ = os.RemoveAll(dir)
	}
	deadline := time.Now().Add(WMStartTimeout)
	for {
		if area, err := x.WorkArea(tb); err == nil && area[1] == topMargin {
			return stop, nil
		}
		select {
		case <-done:
			stop()
			return nil, fmt.Errorf("openbox ended at start: %s", out.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			stop()
			return nil, fmt.Errorf("openbox did not manage the screen within %v: %s", WMStartTimeout, out.String())
		}
	}
}

// WorkArea is the root window's _NET_WORKAREA of the first desktop: x, y,
// width, height.
func (x X) WorkArea(tb testing.TB) ([4]int, error) {
	tb.Helper()
	v, err := x.Prop(tb, "-root", "_NET_WORKAREA")
	if err != nil {
		return [4]int{}, err
	}
	n, err := numbers(v)
	if err != nil || len(n) < 4 {
		return [4]int{}, fmt.Errorf("_NET_WORKAREA is %q", v)
	}
	return [4]int{n[0], n[1], n[2], n[3]}, nil
}

// Prop is the value of property name of window id ("-root" for the root
// window) as xprop prints it after the "=" (or ":"), trimmed.
func (x X) Prop(tb testing.TB, id, name string) (string, error) {
	tb.Helper()
	args := []string{"-id", id, name}
	if id == "-root" {
		args = []string{"-root", name}
	}
	out, err := x.run(tb, "xprop", args...)
	if err != nil {
		return "", err
	}
	line := strings.SplitN(out, "\n", 2)[0]
	if strings.Contains(line, "not found") || strings.Contains(line, "no such atom") {
		return "", fmt.Errorf("%s: %s", name, strings.TrimSpace(line))
	}
	if i := strings.IndexAny(line, "=:"); i >= 0 {
		return strings.TrimSpace(out[i+1:]), nil
	}
	return strings.TrimSpace(out), nil
}

// Active is the id of the focused window (_NET_ACTIVE_WINDOW), "" when none.
func (x X) Active(tb testing.TB) string {
	tb.Helper()
	v, err := x.Prop(tb, "-root", "_NET_ACTIVE_WINDOW")
	if err != nil {
		return ""
	}
	f := strings.Fields(v)
	if len(f) == 0 {
		return ""
	}
	id, err := strconv.ParseUint(strings.TrimPrefix(f[len(f)-1], "0x"), 16, 64)
	if err != nil || id == 0 {
		return ""
	}
	return fmt.Sprintf("0x%x", id)
}

// Top is the id of the client window on top of the stacking order
// (_NET_CLIENT_LIST_STACKING, bottom to top).
func (x X) Top(tb testing.TB) string {
	tb.Helper()
	v, err := x.Prop(tb, "-root", "_NET_CLIENT_LIST_STACKING")
	if err != nil {
		return ""
	}
	f := strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == '#' })
	for i := len(f) - 1; i >= 0; i-- {
		if id, err := strconv.ParseUint(strings.TrimPrefix(f[i], "0x"), 16, 64); err == nil && strings.HasPrefix(f[i], "0x") {
			return fmt.Sprintf("0x%x", id)
		}
	}
	return ""
}

// Window is one managed window as wmctrl -lx lists it.
type Window struct {
	ID, Class, Title string
}

// Windows lists the managed windows (wmctrl -lx).
func (x X) Windows(tb testing.TB) []Window {
	tb.Helper()
	out, err := x.run(tb, "wmctrl", "-lx")
	if err != nil {
		return nil
	}
	var ws []Window
	for _, line := range strings.Split(out, "\n") {
		// id desktop class host title…
		f := strings.Fields(line)
		if len(f) < 4 {
			continue
		}
		id, err := strconv.ParseUint(strings.TrimPrefix(f[0], "0x"), 16, 64)
		if err != nil {
			continue
		}
		title := ""
		if len(f) > 4 {
			title = strings.Join(f[4:], " ")
		}
		ws = append(ws, Window{ID: fmt.Sprintf("0x%x", id), Class: f[2], Title: title})
	}
	return ws
}

// Find is the id of the managed window titled title, "" when none is.
func (x X) Find(tb testing.TB, title string) string {
	tb.Helper()
	for _, w := range x.Windows(tb) {
		if w.Title == title {
			return w.ID
		}
	}
	return ""
}

// Close asks the window manager to close window id, as its close button
// does.
func (x X) Close(tb testing.TB, id string) {
	tb.Helper()
	if _, err := x.run(tb, "wmctrl", "-i", "-c", id); err != nil {
		tb.Fatal(err)
	}
}

// Frame is where window id's frame (with the title bar) is on the screen:
// x, y, width, height.
func (x X) Frame(tb testing.TB, id string) ([4]int, error) {
	tb.Helper()
	out, err := x.run(tb, "xwininfo", "-id", id)
	if err != nil {
		return [4]int{}, err
	}
	var ax, ay, w, h int
	for _, line := range strings.Split(out, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			continue
		}
		switch k {
		case "Absolute upper-left X":
			ax = n
		case "Absolute upper-left Y":
			ay = n
		case "Width":
			w = n
		case "Height":
			h = n
		}
	}
	ext, err := x.Prop(tb, id, "_NET_FRAME_EXTENTS")
	if err != nil {
		return [4]int{}, err
	}
	e, err := numbers(ext)
	if err != nil || len(e) != 4 { // left, right, top, bottom
		return [4]int{}, fmt.Errorf("_NET_FRAME_EXTENTS is %q", ext)
	}
	return [4]int{ax - e[0], ay - e[2], w + e[0] + e[1], h + e[2] + e[3]}, nil
}

// numbers parses "1, 2, 3" into ints.
func numbers(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

// Activate asks the window manager to bring window id to the front and
// focus it, as clicking it in a taskbar does.
func (x X) Activate(tb testing.TB, id string) {
	tb.Helper()
	if _, err := x.run(tb, "wmctrl", "-i", "-a", id); err != nil {
		tb.Fatal(err)
	}
}
