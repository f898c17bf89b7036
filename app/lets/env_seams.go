package lets

import (
	"context"
	"io"
	"os"

	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/desktopopen"
	"github.com/lets-app/lets/backend/surface/midi"
)

// The real devices and programs behind the Env fields that tests replace.

// Input is what interactive commands read: Stdin, or the real stdin.
func (e *Env) Input() io.Reader {
	if e.Stdin != nil {
		return e.Stdin
	}
	return os.Stdin
}

// MIDIBackend lists and opens MIDI ports: MIDI, or the system's.
func (e *Env) MIDIBackend() midi.Backend {
	if e.MIDI != nil {
		return e.MIDI
	}
	return midi.SystemBackend()
}

// OpenInBrowser opens url in the desktop browser: OpenURL, or the
// desktop's own opener.
func (e *Env) OpenInBrowser(url string) error {
	if e.OpenURL != nil {
		return e.OpenURL(url)
	}
	return openInDesktopBrowser(url)
}

// usualPadPort is the browser pad's usual port (see Env.UsualPadPort).
func (e *Env) usualPadPort() int {
	if e.UsualPadPort != 0 {
		return e.UsualPadPort
	}
	return config.DefaultWebPort
}

// openInDesktopBrowser asks the desktop to open url without waiting. The
// address may hold a one-time key, so it never goes on a command line:
// desktopopen hands the opener a private redirect page instead.
func openInDesktopBrowser(url string) error {
	return desktopopen.Open(context.Background(), url)
}
