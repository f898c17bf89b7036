package lets

import (
	"context"
	"sync"

	"github.com/lets-app/lets/backend/control"
	"github.com/lets-app/lets/backend/daemon"
	"github.com/lets-app/lets/backend/surface"
	"github.com/lets-app/lets/backend/visual"
)

// traySelector is the daemon's surface with one more input: the tray's
// session items press a selector exactly as a Scene button or a browser
// tap does (surface.SessionSelected), so selecting from the tray follows
// the same rules as selecting on a pad. Everything else goes to the
// surface it wraps (daemon.NoSurface() when there is none).
type traySelector struct {
	inner surface.Surface

	once   sync.Once
	out    chan surface.Event
	done   chan struct{}
	closed sync.Once
	// forward is the goroutine Events starts; Close waits for it.
	forward sync.WaitGroup
}

var (
	_ surface.Surface            = (*traySelector)(nil)
	_ surface.ShowRenderer       = (*traySelector)(nil)
	_ surface.ExperienceReporter = (*traySelector)(nil)
)

func newTraySelector(inner surface.Surface) *traySelector {
	if inner == nil {
		inner = daemon.NoSurface()
	}
	return &traySelector{inner: inner, out: make(chan surface.Event, surface.CompositeBuffer), done: make(chan struct{})}
}

func (t *traySelector) Capacity() int                  { return t.inner.Capacity() }
func (t *traySelector) Accents() []string              { return t.inner.Accents() }
func (t *traySelector) Describe() control.Surface      { return t.inner.Describe() }
func (t *traySelector) Open(ctx context.Context) error { return t.inner.Open(ctx) }
func (t *traySelector) Render(v control.View) error    { return t.inner.Render(v) }

// RenderShowFrame and SetExperience reach the wrapped surface when it
// shows Shows and experiences; a surface that does not shows nothing.
func (t *traySelector) RenderShowFrame(f *visual.ShowFrame) error {
	if sr, ok := t.inner.(surface.ShowRenderer); ok {
		return sr.RenderShowFrame(f)
	}
	return nil
}

func (t *traySelector) SetExperience(v visual.ExperienceView) error {
	if er, ok := t.inner.(surface.ExperienceReporter); ok {
		return er.SetExperience(v)
	}
	return nil
}

// Events merges the wrapped surface's presses with the tray's selections.
func (t *traySelector) Events() <-chan surface.Event {
	t.once.Do(func() {
		in := t.inner.Events()
		if in == nil {
			return
		}
		t.forward.Add(1)
		go func() {
			defer t.forward.Done()
			for {
				select {
				case ev, ok := <-in:
					if !ok {
						return
					}
					select {
					case t.out <- ev:
					case <-t.done:
						return
					}
				case <-t.done:
					return
				}
			}
		}()
	})
	return t.out
}

// selectSlot presses the selector of slot; false when the daemon is not
// keeping up or has stopped.
func (t *traySelector) selectSlot(slot int) bool {
	select {
	case <-t.done:
		return false
	default:
	}
	select {
	case t.out <- surface.SessionSelected{Slot: slot}:
		return true
	default:
		return false
	}
}

func (t *traySelector) Close() error {
	t.closed.Do(func() { close(t.done) })
	t.forward.Wait()
	return t.inner.Close()
}

// selectSlot is the tray's way to select a session on the pads.
func (p *PadParts) selectSlot(slot int) bool {
	if p.selector == nil {
		return false
	}
	return p.selector.selectSlot(slot)
}
