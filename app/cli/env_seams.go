package cli

import (
	"io"
	"os"

	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/surface/midi"
)

// The real devices and programs behind the Env fields that tests replace.

func (e *Env) stdin() io.Reader {
	if e.Stdin != nil {
		return e.Stdin
	}
	return os.Stdin
}

func (e *Env) midiBackend() midi.Backend {
	if e.MIDI != nil {
		return e.MIDI
	}
	return midi.SystemBackend()
}

func (e *Env) openURL(url string) error {
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
