//go:build !cgo

package midi

import "io"

// SystemBackend returns the MIDI ports of this machine. This build has no
// cgo, so it has no MIDI system: no ports, which is "no device".
func SystemBackend() Backend { return noMIDI{} }

type noMIDI struct{}

const noMIDIReason = "this build of Lets has no MIDI support (it was built without cgo)"

func (noMIDI) Unavailable() string        { return noMIDIReason }
func (noMIDI) Inputs() ([]string, error)  { return nil, nil }
func (noMIDI) Outputs() ([]string, error) { return nil, nil }
func (noMIDI) OpenOutput(string) (OutPort, error) {
	return nil, &noDeviceError{DeviceError{Msg: noMIDIReason}}
}
func (noMIDI) OpenInput(string, func([]byte)) (io.Closer, error) {
	return nil, &noDeviceError{DeviceError{Msg: noMIDIReason}}
}
