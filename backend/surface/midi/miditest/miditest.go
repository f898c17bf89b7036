// Package miditest is an in-memory MIDI port bus for tests: devices are
// plugged and unplugged by name, everything sent to an output is recorded,
// and presses are injected into inputs. It satisfies midi.Backend
// structurally (it does not import package midi, so midi's own tests can
// use it).
package miditest

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// ErrGone is returned by a port whose device was unplugged.
var ErrGone = errors.New("miditest: the MIDI device was unplugged")

// Bus is a set of fake MIDI ports. The zero value is not usable; call New.
type Bus struct {
	mu       sync.Mutex
	ins      []string
	outs     []string
	listen   map[string][]*input
	sent     map[string][][]byte
	openOuts map[string][]*output
	failOpen map[string]error
	changed  chan struct{}
	onSend   func(port string, msg []byte)
	lists    int
}

// New returns an empty bus.
func New() *Bus {
	return &Bus{
		listen:   map[string][]*input{},
		sent:     map[string][][]byte{},
		openOuts: map[string][]*output{},
		failOpen: map[string]error{},
		changed:  make(chan struct{}),
	}
}

// Plug adds an input and an output port ("" skips one side).
func (b *Bus) Plug(in, out string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if in != "" && !contains(b.ins, in) {
		b.ins = append(b.ins, in)
	}
	if out != "" && !contains(b.outs, out) {
		b.outs = append(b.outs, out)
	}
	b.notify()
}

// Unplug removes ports; open ports on them fail from now on and their
// listeners get nothing more.
func (b *Bus) Unplug(in, out string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.ins = remove(b.ins, in)
	b.outs = remove(b.outs, out)
	for _, l := range b.listen[in] {
		l.gone = true
	}
	delete(b.listen, in)
	for _, o := range b.openOuts[out] {
		o.gone = true
	}
	delete(b.openOuts, out)
	b.notify()
}

// FailOpen makes opening the named port fail with err (nil clears it).
func (b *Bus) FailOpen(name string, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err == nil {
		delete(b.failOpen, name)
	} else {
		b.failOpen[name] = err
	}
}

// OnSend installs a hook called (outside the bus lock) after every message
// an output accepted.
func (b *Bus) OnSend(f func(port string, msg []byte)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.onSend = f
}

// Inputs lists the plugged input names.
func (b *Bus) Inputs() ([]string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.lists++
	return append([]string(nil), b.ins...), nil
}

// Outputs lists the plugged output names.
func (b *Bus) Outputs() ([]string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.lists++
	return append([]string(nil), b.outs...), nil
}

// Listings counts Inputs and Outputs calls.
func (b *Bus) Listings() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.lists
}

// OpenOutput opens a plugged output.
func (b *Bus) OpenOutput(name string) (interface {
	Send([]byte) error
	Close() error
}, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.failOpen[name]; err != nil {
		return nil, err
	}
	if !contains(b.outs, name) {
		return nil, fmt.Errorf("miditest: no output named %q", name)
	}
	o := &output{bus: b, name: name}
	b.openOuts[name] = append(b.openOuts[name], o)
	return o, nil
}

// OpenInput opens a plugged input.
func (b *Bus) OpenInput(name string, onMsg func([]byte)) (io.Closer, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.failOpen[name]; err != nil {
		return nil, err
	}
	if !contains(b.ins, name) {
		return nil, fmt.Errorf("miditest: no input named %q", name)
	}
	in := &input{bus: b, name: name, onMsg: onMsg}
	b.listen[name] = append(b.listen[name], in)
	b.notify()
	return in, nil
}

// Press delivers raw bytes to every open listener of input name, in the
// caller's goroutine. It reports how many listeners got them.
func (b *Bus) Press(name string, raw []byte) int {
	b.mu.Lock()
	ls := append([]*input(nil), b.listen[name]...)
	b.mu.Unlock()
	n := 0
	for _, l := range ls {
		if l.deliver(raw) {
			n++
		}
	}
	return n
}

// Listening reports whether input name has an open listener.
func (b *Bus) Listening(name string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.listen[name]) > 0
}

// OpenOutputs counts the open (not closed) outputs named name.
func (b *Bus) OpenOutputs(name string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.openOuts[name])
}

// Sent returns a copy of everything output name accepted so far.
func (b *Bus) Sent(name string) [][]byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([][]byte(nil), b.sent[name]...)
}

// Take returns and forgets what output name accepted.
func (b *Bus) Take(name string) [][]byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	m := b.sent[name]
	delete(b.sent, name)
	return m
}

// WaitFor waits until cond (called under no lock) is true or timeout.
func (b *Bus) WaitFor(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for {
		if cond() {
			return true
		}
		b.mu.Lock()
		ch := b.changed
		b.mu.Unlock()
		left := time.Until(deadline)
		if left <= 0 {
			return cond()
		}
		select {
		case <-ch:
		case <-time.After(min(left, 20*time.Millisecond)):
		}
	}
}

// notify wakes WaitFor; called with b.mu held.
func (b *Bus) notify() {
	close(b.changed)
	b.changed = make(chan struct{})
}

type output struct {
	bus    *Bus
	name   string
	closed bool
	gone   bool
}

func (o *output) Send(msg []byte) error {
	b := o.bus
	b.mu.Lock()
	switch {
	case o.gone:
		b.mu.Unlock()
		return ErrGone
	case o.closed:
		b.mu.Unlock()
		return errors.New("miditest: port is closed")
	}
	b.sent[o.name] = append(b.sent[o.name], append([]byte(nil), msg...))
	hook := b.onSend
	b.notify()
	b.mu.Unlock()
	if hook != nil {
		hook(o.name, msg)
	}
	return nil
}

func (o *output) Close() error {
	b := o.bus
	b.mu.Lock()
	defer b.mu.Unlock()
	o.closed = true
	l := b.openOuts[o.name]
	for i, x := range l {
		if x == o {
			b.openOuts[o.name] = append(l[:i:i], l[i+1:]...)
			break
		}
	}
	b.notify()
	return nil
}

type input struct {
	bus    *Bus
	name   string
	onMsg  func([]byte)
	mu     sync.Mutex // one callback at a time
	closed bool
	gone   bool
}

func (in *input) deliver(raw []byte) bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.bus.mu.Lock()
	dead := in.closed || in.gone
	in.bus.mu.Unlock()
	if dead {
		return false
	}
	in.onMsg(append([]byte(nil), raw...))
	return true
}

func (in *input) Close() error {
	b := in.bus
	b.mu.Lock()
	in.closed = true
	l := b.listen[in.name]
	for i, x := range l {
		if x == in {
			b.listen[in.name] = append(l[:i:i], l[i+1:]...)
			break
		}
	}
	if len(b.listen[in.name]) == 0 {
		delete(b.listen, in.name)
	}
	b.notify()
	b.mu.Unlock()
	// Wait for a callback in progress.
	in.mu.Lock()
	//lint:ignore SA2001 taking the lock is the wait: a callback holds it while it runs
	in.mu.Unlock()
	return nil
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func remove(l []string, s string) []string {
	out := l[:0:0]
	for _, x := range l {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}
