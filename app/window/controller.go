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
	// Place gives the window its size and moves its frame's top-left
	// corner to (X, Y) in screen pixels, after the window is shown.
	Place(r geometry.Rect)
	Size() (width, height int)
	Position() (x, y int)
	// Present brings the window to the front, shows it if it was
	// minimised and gives it the keyboard focus.
	Present()
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
	rt       Runtime        // nil until the window started
	place    *geometry.Rect // where started puts the window; nil leaves it to Wails (centred)
	quitting bool           // Lets asked the window to go (before or after it started)
	reported bool           // geometry was reported once
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
	place := c.place
	c.mu.Unlock()
	rt.SetTitle(c.launch.title())
	if place != nil {
		rt.Place(*place)
	}
	if quit {
		rt.Quit()
	}
}

// fit decides where the window opens on a screen whose work area (the
// screen less its panels) is area, zero when it is not known: the
// remembered place, or the default size centred, made to fit inside the
// area. It returns the size to open at; started then places the window.
func (c *controller) fit(area geometry.Rect) (width, height int) {
	w, h := c.launch.size()
	r := geometry.Rect{Width: w, Height: h}
	placed := false
	if g := c.launch.Geometry; g != nil && g.Valid() {
		r, placed = *g, true
	}
	known := area.Width > 0 && area.Height > 0
	c.mu.Lock()
	defer c.mu.Unlock()
	c.place = nil
	if !placed && !known {
		// Wails centres a window on its monitor; nothing better is known.
		return r.Width, r.Height
	}
	fitted := geometry.Fit(r, placed, area)
	c.place = &fitted
	return fitted.Width, fitted.Height
}

// present brings the window to the front and focuses it (Lets asked:
// Home… or a second `lets` for the home window, the tray for a unique's).
// Before the window exists there is nothing to do: it comes up in front.
func (c *controller) present() {
	c.mu.Lock()
	rt := c.rt
	quitting := c.quitting
	c.mu.Unlock()
	if rt != nil && !quitting {
		rt.Present()
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
