package window

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
)

// ErrNoGUI means this binary was built without the native window code.
var ErrNoGUI = errors.New("this build of Lets has no window support: it was built without the desktop tags. Build it with `make build` (go build -tags desktop,production,webkit2_41), or use `lets open <unique>`, which shows windows in your browser")

// ErrNoDisplay means there is no graphical session to show a window in.
var ErrNoDisplay = errors.New("there is no display to show a window on (neither DISPLAY nor WAYLAND_DISPLAY is set); `lets open <unique>` prints a URL you can load in a browser instead")

// ErrNoGTK means GTK could not start: it could not open the display that
// DISPLAY or WAYLAND_DISPLAY names (no server there, or it refused the
// connection). `lets window` then exits with ExitNoGTK.
var ErrNoGTK = errors.New("GTK could not start: the display could not be opened")

// ExitNoGTK is the exit status of a `lets window` that ended because GTK
// could not start (ErrNoGTK), and only then: it is EX_TEMPFAIL of
// sysexits.h. The app starts such a window once more; any other early end
// is a crash. It differs from the status 2 of a Go panic, which is what a
// GTK failure inside Wails used to end with.
const ExitNoGTK = 75

// HasDisplay says whether the environment names a graphical session.
func HasDisplay(getenv func(string) string) bool {
	return getenv("DISPLAY") != "" || getenv("WAYLAND_DISPLAY") != ""
}

// CanOpen says whether this binary can open native windows in this
// environment; when it cannot, Lets shows windows in the browser.
func CanOpen(getenv func(string) string) bool {
	return Supported && HasDisplay(getenv)
}

// Env is what the window process touches of the outside world.
type Env struct {
	Stdin  io.Reader
	Getenv func(string) string
	Log    *slog.Logger
	// Reports receives the window's reports; nil opens the file
	// descriptor named by LETS_WINDOW_REPORT_FD, or sends none.
	Reports io.Writer
}

// Main is `lets window`: it reads the Launch from stdin and shows the
// window until it is closed (nil) or cannot be shown (an error that says
// why and what to do).
func Main(ctx context.Context, env Env) error {
	if !Supported {
		return ErrNoGUI
	}
	if env.Getenv == nil {
		env.Getenv = os.Getenv
	}
	if env.Log == nil {
		env.Log = slog.New(slog.DiscardHandler)
	}
	if !HasDisplay(env.Getenv) {
		return ErrNoDisplay
	}
	if env.Stdin == nil {
		env.Stdin = strings.NewReader("")
	}
	stdin := bufio.NewReaderSize(env.Stdin, 4096)
	l, err := readLaunch(stdin)
	if err != nil {
		return err
	}
	out := env.Reports
	if out == nil {
		if f := reportFile(env.Getenv); f != nil {
			defer f.Close()
			out = f
		}
	}
	c := newController(l, &reporter{out: out}, env.Log)
	go followControls(stdin, c, env.Log)
	return run(ctx, c)
}

// ControlPresent is the line Lets writes on a window's stdin, after the
// launch, to bring the window to the front and focus it. Lets keeps the
// window's stdin open for these control lines (a signal would do too, but
// WebKit takes SIGUSR1 for its garbage collector).
const ControlPresent = "present"

// maxControlBytes bounds one control line.
const maxControlBytes = 256

// followControls does what Lets asks on stdin after the launch, one line
// at a time, until stdin ends (Lets closed it, or is gone).
func followControls(stdin *bufio.Reader, c *controller, log *slog.Logger) {
	for {
		line, err := readLine(stdin, maxControlBytes)
		switch cmd := strings.TrimSpace(string(line)); {
		case cmd == ControlPresent:
			c.present()
		case cmd != "":
			log.Debug("unknown control line from Lets; ignored", "line", cmd)
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				log.Debug("Lets' control lines stopped", "err", err)
			}
			return
		}
	}
}

// reportFile opens the report pipe the app handed over, if any.
func reportFile(getenv func(string) string) *os.File {
	fd, err := strconv.Atoi(getenv(ReportFDEnv))
	if err != nil || fd < 3 {
		return nil
	}
	return os.NewFile(uintptr(fd), fmt.Sprintf("lets-window-reports-%d", fd))
}
