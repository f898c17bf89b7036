package window

import (
	"log/slog"
	"sync"

	"github.com/lets-app/lets/app/window/geometry"
)

// Runtime is what the window process asks of its native window. The Wails
// build implements it over Wails' runtime package, which must only be
// called with the context Wails handed to OnStartup (anything else ends
// the process through log.Fatal); tests use a fake, so they need no
// display.
type Runtime interface {
	SetTitle(title string)
	SetSize(width, height int)
	SetPosition(x, y int)
	Size() (width, height int)
	Position() (x, y int)
	Quit()
}

// controller is the window process's behaviour, apart from Wails: what to
// do when the window starts, loads a page, is asked to close, or is told
// by Lets (SIGTERM) to go.
type controller struct {
	launch  Launch
	reports *reporter
	log     *slog.Logger

	// reportMu makes a second close path (Wails' own SIGTERM handler and
	// ours both close the window) wait until the first one reported the
	// geometry, so the window never quits with the report half done.
	reportMu sync.Mutex

	mu       sync.Mutex
	rt       Runtime // nil until the window started
	quitting bool    // Lets asked the window to go (before or after it started)
	reported bool    // geometry was reported once
}

func newController(l Launch, reports *reporter, log *slog.Logger) *controller {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &controller{launch: l, reports: reports, log: log}
}

// started runs once the native window exists: it takes the unique's title
// and the remembered place, or quits at once when Lets already asked it to.
func (c *controller) started(rt Runtime) {
	c.mu.Lock()
	c.rt = rt
	quit := c.quitting
	c.mu.Unlock()
	rt.SetTitle(c.launch.title())
	if g := c.launch.Geometry; g != nil && g.Valid() {
		rt.SetSize(g.Width, g.Height)
		rt.SetPosition(g.X, g.Y)
	}
	if quit {
		rt.Quit()
	}
}

// loaded runs when a page finished loading.
func (c *controller) loaded() {
	if err := c.reports.send(Report{Type: ReportLoaded}); err != nil {
		c.log.Debug("window report not sent", "err", err)
	}
}

// beforeClose runs when the window is about to close (the person closed
// it, or quit was asked): the window's place goes to Lets. It never keeps
// the window open.
func (c *controller) beforeClose() (prevent bool) {
	c.reportGeometry()
	return false
}

// reportGeometry tells Lets where the window is, once.
func (c *controller) reportGeometry() {
	c.reportMu.Lock()
	defer c.reportMu.Unlock()
	c.mu.Lock()
	rt := c.rt
	done := c.reported
	c.reported = true
	c.mu.Unlock()
	if rt == nil || done {
		return
	}
	w, h := rt.Size()
	x, y := rt.Position()
	r := geometry.Rect{X: x, Y: y, Width: w, Height: h}
	if !r.Valid() {
		return
	}
	if err := c.reports.send(Report{Type: ReportGeometry, Geometry: &r}); err != nil {
		c.log.Debug("window geometry not sent", "err", err)
	}
}

// terminate ends the window because Lets asked (SIGTERM): like a close,
// its place is remembered first.
func (c *controller) terminate() {
	c.mu.Lock()
	rt := c.rt
	again := c.quitting
	c.quitting = true
	c.mu.Unlock()
	if rt != nil && !again {
		c.reportGeometry()
		rt.Quit()
	}
}
