package midi

import (
	"errors"
	"fmt"
	"io"
	"sync"

	"gitlab.com/gomidi/midi/v2/drivers"
)

// Backend lists and opens MIDI ports: the system's (rtmidi over ALSA or
// CoreMIDI, see SystemBackend) or an in-memory one in tests (package
// miditest). Implementations must be safe for concurrent use.
type Backend interface {
	PortLister
	// OpenOutput opens the output port with exactly this name.
	OpenOutput(name string) (OutPort, error)
	// OpenInput opens the input port with exactly this name and calls
	// onMsg with the raw bytes of every incoming message (or stream
	// chunk), one call at a time, until the returned closer is closed.
	OpenInput(name string, onMsg func(raw []byte)) (io.Closer, error)
}

// OutPort is an open output port. It is an alias of an unnamed interface
// so that fakes in other packages (miditest) satisfy Backend without
// importing this package.
type OutPort = interface {
	Send(msg []byte) error
	Close() error
}

// DriverBackend adapts a gomidi driver (rtmididrv in the app, testdrv in
// tests) to Backend. NewDriver, if set, is called for every listing and
// opening so that a long-running process does not accumulate the state a
// driver keeps about ports it opened; otherwise Driver is used.
type DriverBackend struct {
	Driver    drivers.Driver
	NewDriver func() (drivers.Driver, error)
}

func (b *DriverBackend) driver() (drivers.Driver, error) {
	if b.NewDriver != nil {
		return b.NewDriver()
	}
	if b.Driver == nil {
		return nil, errors.New("no MIDI driver")
	}
	return b.Driver, nil
}

// Inputs lists input port names.
func (b *DriverBackend) Inputs() ([]string, error) {
	d, err := b.driver()
	if err != nil {
		return nil, err
	}
	return namesOf(d.Ins())
}

// Outputs lists output port names.
func (b *DriverBackend) Outputs() ([]string, error) {
	d, err := b.driver()
	if err != nil {
		return nil, err
	}
	return namesOf(d.Outs())
}

// namesOf lists the names of ports as the driver reports them.
func namesOf[P fmt.Stringer](ports []P, err error) ([]string, error) {
	if err != nil {
		return nil, err
	}
	names := make([]string, len(ports))
	for i, p := range ports {
		names[i] = p.String()
	}
	return names, nil
}

// OpenOutput opens an output by exact name.
func (b *DriverBackend) OpenOutput(name string) (OutPort, error) {
	d, err := b.driver()
	if err != nil {
		return nil, err
	}
	outs, err := d.Outs()
	if err != nil {
		return nil, err
	}
	for _, o := range outs {
		if o.String() == name {
			if err := o.Open(); err != nil {
				return nil, err
			}
			return &driverOut{out: o}, nil
		}
	}
	return nil, fmt.Errorf("no MIDI output named %q", name)
}

// OpenInput opens an input by exact name and listens to it.
func (b *DriverBackend) OpenInput(name string, onMsg func([]byte)) (io.Closer, error) {
	d, err := b.driver()
	if err != nil {
		return nil, err
	}
	ins, err := d.Ins()
	if err != nil {
		return nil, err
	}
	for _, in := range ins {
		if in.String() != name {
			continue
		}
		if err := in.Open(); err != nil {
			return nil, err
		}
		stop, err := in.Listen(func(msg []byte, _ int32) { onMsg(msg) }, drivers.ListenConfig{})
		if err != nil {
			in.Close()
			return nil, err
		}
		return &driverIn{in: in, stop: stop}, nil
	}
	return nil, fmt.Errorf("no MIDI input named %q", name)
}

type driverOut struct {
	mu  sync.Mutex
	out drivers.Out
}

func (o *driverOut) Send(b []byte) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.out.Send(b)
}

func (o *driverOut) Close() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.out.Close()
}

type driverIn struct {
	once sync.Once
	in   drivers.In
	stop func()
	err  error
}

func (i *driverIn) Close() error {
	i.once.Do(func() {
		if i.stop != nil {
			i.stop()
		}
		i.err = i.in.Close()
	})
	return i.err
}
