package midi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lets-app/lets/backend/atomicfile"
	"github.com/lets-app/lets/backend/visual"
	"github.com/lets-app/lets/backend/wire"
)

// TestSurface is what the guided profile test (§8) drives: a device that
// renders synchronously and is polled for presses.
type TestSurface interface {
	Initialize() error
	RenderView(v visual.View) error
	PollEvents() []Event
	Close() error
}

// Device is a MIDI grid driven synchronously on the caller's goroutine
// (the guided test and other short CLI commands): presses queue up until
// PollEvents.
type Device struct {
	grid *Grid
	in   io.Closer
	out  OutPort

	mu      sync.Mutex
	pending []Event
	closed  bool
}

var _ TestSurface = (*Device)(nil)

// OpenDevice opens a candidate's ports (output first, §3.3) without
// initializing the device.
func OpenDevice(b Backend, c Candidate) (*Device, error) {
	if c.Profile.Driver != DriverPaletteGrid {
		return nil, &DeviceError{Msg: "unknown driver: " + c.Profile.Driver}
	}
	out, err := b.OpenOutput(c.Output)
	if err != nil {
		return nil, wrapOpen(fmt.Sprintf("could not open MIDI output '%s'", c.Output), err)
	}
	d := &Device{out: out, grid: NewGrid(c.Profile, out)}
	parser := &InputParser{}
	in, err := b.OpenInput(c.Input, func(raw []byte) {
		evs := d.grid.Events(raw, parser)
		d.mu.Lock()
		if len(d.pending) < EventBuffer {
			d.pending = append(d.pending, evs...)
		}
		d.mu.Unlock()
	})
	if err != nil {
		out.Close()
		return nil, wrapOpen(fmt.Sprintf("could not open MIDI input '%s'", c.Input), err)
	}
	d.in = in
	return d, nil
}

// Grid exposes the driver (greeting settings).
func (d *Device) Grid() *Grid { return d.grid }

// Initialize enters programmer mode and blanks the device.
func (d *Device) Initialize() error { return d.grid.Initialize() }

// RenderView shows a view.
func (d *Device) RenderView(v visual.View) error { return d.grid.RenderView(v) }

// PollEvents returns and forgets the presses received so far.
func (d *Device) PollEvents() []Event {
	d.mu.Lock()
	defer d.mu.Unlock()
	p := d.pending
	d.pending = nil
	return p
}

// Close is §6.9; idempotent.
func (d *Device) Close() error {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return nil
	}
	d.closed = true
	d.mu.Unlock()
	return d.grid.Close(d.in, d.out)
}

// Guided test stages (failure_stage values).
const (
	StageInitialize = "initialize"
	StageVisual     = "visual"
	StageActions    = "actions"
	StageSelectors  = "selectors"
	StageClose      = "close"
)

// Defaults of the guided test.
const (
	DefaultEventTimeout = 15 * time.Second
	DefaultSettleDelay  = 150 * time.Millisecond
	testPollInterval    = 10 * time.Millisecond
)

// stateDescriptions are what the user should see for each state (§8).
var stateDescriptions = map[wire.State]string{
	wire.StateRunning:            "steady blue ellipsis",
	wire.StateWaitingForReply:    "white question mark",
	wire.StateUserTyping:         "cyan chevron",
	wire.StateWaitingForApproval: "restrained amber exclamation mark",
	wire.StateSuccess:            "green happy face",
	wire.StateError:              "red X",
	wire.StateCancelled:          "gray hollow square",
}

// ProfileTest configures RunProfileTest.
type ProfileTest struct {
	Surface    TestSurface
	Profile    *Profile
	InputPort  string
	OutputPort string
	ReportPath string
	// Version is reported as pad_lattice_version (the Lets version).
	Version      string
	EventTimeout time.Duration // 0 = 15 s
	SettleDelay  time.Duration // 0 = 0.15 s; negative = none
	// Ask asks a yes/no question; nil reads answers from In.
	Ask func(question string) (bool, error)
	In  io.Reader
	Out io.Writer
	// Now and Sleep are the clock (nil = real time).
	Now   func() time.Time
	Sleep func(time.Duration)
}

// Report is the saved report of a guided test (§8).
type Report struct {
	Device struct {
		Conformance    []string `json:"conformance"`
		InputPort      string   `json:"input_port"`
		OutputPort     string   `json:"output_port"`
		ProfileID      string   `json:"profile_id"`
		ProfileStatus  string   `json:"profile_status"`
		VisualProtocol int      `json:"visual_protocol"`
	} `json:"device"`
	Environment struct {
		Python  string `json:"python"`
		Release string `json:"release"`
		System  string `json:"system"`
	} `json:"environment"`
	GeneratedAt       string `json:"generated_at"`
	PadLatticeVersion string `json:"pad_lattice_version"`
	Passed            bool   `json:"passed"`
	Results           struct {
		Actions      map[string]bool `json:"actions"`
		Completed    bool            `json:"completed"`
		FailureStage *string         `json:"failure_stage"`
		Selectors    map[string]bool `json:"selectors"`
		Visual       map[string]bool `json:"visual"`
	} `json:"results"`
	SchemaVersion int `json:"schema_version"`
}

// Encode is the report file: JSON, 2-space indent, sorted keys, trailing
// newline.
func (r *Report) Encode() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// RunProfileTest runs the guided hardware test of §8, always closes the
// surface and writes the report, and returns the report with the first
// failure (which the report never contains).
func RunProfileTest(pt ProfileTest) (*Report, error) {
	if pt.EventTimeout <= 0 {
		pt.EventTimeout = DefaultEventTimeout
	}
	if pt.SettleDelay == 0 {
		pt.SettleDelay = DefaultSettleDelay
	}
	if pt.Now == nil {
		pt.Now = time.Now
	}
	if pt.Sleep == nil {
		pt.Sleep = time.Sleep
	}
	if pt.Out == nil {
		pt.Out = io.Discard
	}
	if pt.Ask == nil {
		pt.Ask = lineAsker(pt.In, pt.Out)
	}
	p := pt.Profile
	r := &Report{SchemaVersion: 1, PadLatticeVersion: pt.Version}
	r.Device.Conformance = append([]string{}, p.Levels...)
	r.Device.InputPort, r.Device.OutputPort = pt.InputPort, pt.OutputPort
	r.Device.ProfileID, r.Device.ProfileStatus = p.ID, p.Status
	r.Device.VisualProtocol = VisualProtocol
	r.Environment.Python = runtime.Version()
	r.Environment.System = systemName()
	r.Environment.Release = osRelease()
	r.Results.Actions = map[string]bool{}
	for _, a := range wire.Actions() {
		r.Results.Actions[string(a)] = false
	}
	r.Results.Selectors = map[string]bool{}
	for i := 1; i <= p.SelectorCapacity(); i++ {
		r.Results.Selectors[strconv.Itoa(i)] = false
	}
	r.Results.Visual = map[string]bool{"idle": false, "overflow": false}
	for _, s := range wire.States() {
		r.Results.Visual[string(s)] = false
	}

	stage := StageInitialize
	runErr := runStages(&pt, r, &stage)
	if closeErr := pt.Surface.Close(); closeErr != nil && runErr == nil {
		stage, runErr = StageClose, closeErr
	}
	if runErr != nil {
		s := stage
		r.Results.FailureStage = &s
		r.Results.Completed = false
	}
	r.GeneratedAt = pt.Now().UTC().Format("2006-01-02T15:04:05.000000+00:00")
	r.Passed = r.Results.Completed && runErr == nil && allTrue(r.Results.Actions) && allTrue(r.Results.Selectors) && allTrue(r.Results.Visual)
	data, err := r.Encode()
	if err == nil {
		if mkErr := os.MkdirAll(filepath.Dir(pt.ReportPath), 0o755); mkErr != nil {
			err = mkErr
		} else {
			err = atomicfile.Write(pt.ReportPath, data, 0o644)
		}
	}
	if err != nil {
		err = fmt.Errorf("could not write the test report %s: %w", pt.ReportPath, err)
	}
	return r, errors.Join(runErr, err)
}

func runStages(pt *ProfileTest, r *Report, stage *string) error {
	s := pt.Surface
	p := pt.Profile
	settle := func() {
		if pt.SettleDelay > 0 {
			pt.Sleep(pt.SettleDelay)
		}
	}
	if err := s.Initialize(); err != nil {
		return err
	}
	*stage = StageVisual
	if err := s.RenderView(visual.View{}); err != nil {
		return err
	}
	settle()
	yes, err := pt.Ask("Do you see a dim three-pad idle dash in the middle of the canvas? [y/N] ")
	if err != nil {
		return err
	}
	r.Results.Visual["idle"] = yes
	all := visual.Actions(wire.Actions()...)
	for _, st := range wire.States() {
		if err := s.RenderView(visual.View{Selected: st, Available: all}); err != nil {
			return err
		}
		settle()
		yes, err := pt.Ask(fmt.Sprintf("State %s: do you see a %s? [y/N] ", st, stateDescriptions[st]))
		if err != nil {
			return err
		}
		r.Results.Visual[string(st)] = yes
	}
	if err := s.RenderView(visual.View{Selected: wire.StateWaitingForReply, OverflowCount: 1}); err != nil {
		return err
	}
	settle()
	if yes, err = pt.Ask("Do you see one steady amber overflow light on the top row? [y/N] "); err != nil {
		return err
	}
	r.Results.Visual["overflow"] = yes

	*stage = StageActions
	if err := s.RenderView(visual.View{Selected: wire.StateWaitingForReply, Available: all}); err != nil {
		return err
	}
	for _, a := range wire.Actions() {
		fmt.Fprintf(pt.Out, "Press %s.\n", strings.ToUpper(string(a)))
		r.Results.Actions[string(a)] = waitEvent(pt, Event{Action: a})
	}

	*stage = StageSelectors
	names := p.AccentNames()
	states := wire.States()
	for slot := 0; slot < p.SelectorCapacity(); slot++ {
		v := visual.View{Selected: wire.StateWaitingForReply, Available: all}
		for i := 0; i < p.SelectorCapacity(); i++ {
			v.Sessions = append(v.Sessions, visual.Indicator{Slot: i, State: states[i%len(states)], Accent: names[i], Selected: i == slot})
		}
		if err := s.RenderView(v); err != nil {
			return err
		}
		fmt.Fprintf(pt.Out, "Press selector %d (Scene %d).\n", slot+1, slot+1)
		r.Results.Selectors[strconv.Itoa(slot+1)] = waitEvent(pt, Event{Slot: slot})
	}
	r.Results.Completed = true
	return nil
}

// waitEvent polls every 10 ms until want arrives or the timeout passes;
// other events are discarded.
func waitEvent(pt *ProfileTest, want Event) bool {
	deadline := pt.Now().Add(pt.EventTimeout)
	for {
		for _, e := range pt.Surface.PollEvents() {
			if e == want {
				return true
			}
		}
		if !pt.Now().Before(deadline) {
			return false
		}
		pt.Sleep(testPollInterval)
	}
}

func lineAsker(in io.Reader, out io.Writer) func(string) (bool, error) {
	if in == nil {
		in = os.Stdin
	}
	var buf []byte
	one := make([]byte, 1)
	return func(q string) (bool, error) {
		fmt.Fprint(out, q)
		buf = buf[:0]
		for {
			n, err := in.Read(one)
			if n == 1 {
				if one[0] == '\n' {
					break
				}
				buf = append(buf, one[0])
			}
			if err != nil {
				if err == io.EOF && len(buf) > 0 {
					break
				}
				return false, fmt.Errorf("no answer: %w", err)
			}
		}
		a := strings.ToLower(strings.TrimSpace(string(buf)))
		return a == "y" || a == "yes", nil
	}
}

func allTrue(m map[string]bool) bool {
	for _, v := range m {
		if !v {
			return false
		}
	}
	return true
}

func systemName() string {
	switch runtime.GOOS {
	case "linux":
		return "Linux"
	case "darwin":
		return "Darwin"
	case "windows":
		return "Windows"
	}
	return runtime.GOOS
}

func osRelease() string {
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		return strings.TrimSpace(string(b))
	}
	return ""
}
