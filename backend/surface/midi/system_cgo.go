//go:build cgo

package midi

import (
	"io"
	"os"
	"runtime"

	"gitlab.com/gomidi/midi/v2/drivers"
	"gitlab.com/gomidi/midi/v2/drivers/rtmididrv"
)

// alsaSequencer is the device file rtmidi needs on Linux. Without it (a
// container, a kernel without snd-seq) rtmidi prints ALSA errors on every
// scan and finds nothing, so the system backend reports no ports instead.
const alsaSequencer = "/dev/snd/seq"

// SystemBackend returns the MIDI ports of this machine through rtmidi
// (ALSA on Linux, CoreMIDI on macOS). A machine without a MIDI system has
// no ports: that is "no device", never an error.
func SystemBackend() Backend {
	return &systemBackend{DriverBackend: DriverBackend{NewDriver: func() (drivers.Driver, error) { return rtmididrv.New() }}}
}

type systemBackend struct{ DriverBackend }

// Unavailable says why the system has no MIDI ports at all ("" when it
// has a MIDI system).
func (b *systemBackend) Unavailable() string {
	if runtime.GOOS == "linux" {
		if _, err := os.Stat(alsaSequencer); err != nil {
			return "this machine has no ALSA sequencer (" + alsaSequencer + " is missing; load the snd-seq kernel module or plug in a MIDI device)"
		}
	}
	return ""
}

func (b *systemBackend) Inputs() ([]string, error) {
	if b.Unavailable() != "" {
		return nil, nil
	}
	return b.DriverBackend.Inputs()
}

func (b *systemBackend) Outputs() ([]string, error) {
	if b.Unavailable() != "" {
		return nil, nil
	}
	return b.DriverBackend.Outputs()
}

func (b *systemBackend) OpenOutput(name string) (OutPort, error) {
	if why := b.Unavailable(); why != "" {
		return nil, &noDeviceError{DeviceError{Msg: why}}
	}
	return b.DriverBackend.OpenOutput(name)
}

func (b *systemBackend) OpenInput(name string, onMsg func([]byte)) (io.Closer, error) {
	if why := b.Unavailable(); why != "" {
		return nil, &noDeviceError{DeviceError{Msg: why}}
	}
	return b.DriverBackend.OpenInput(name, onMsg)
}
