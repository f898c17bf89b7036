package surface

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/control"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/backend/visual"
	"github.com/lets-app/lets/backend/wire"
)

// callLog records calls of several fake members in order.
type callLog struct {
	mu    sync.Mutex
	calls []string
}

func (l *callLog) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, s)
}

func (l *callLog) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.calls...)
}

// fake is a member surface: kind "midi" or "web", with recordings.
type fake struct {
	name, kind, profile, input, output string
	capacity                           int
	accents                            []string
	protocol                           int
	log                                *callLog
	events                             chan Event

	mu          sync.Mutex
	openErr     error
	closeErr    error
	renderErr   error
	views       []control.View
	shows       []*visual.ShowFrame
	experiences []visual.ExperienceView
	closes      int
}

func newFake(name, kind, profile string, log *callLog) *fake {
	return &fake{
		name: name, kind: kind, profile: profile, input: name + " in", output: name + " out",
		capacity: 8, accents: wire.IdentityAccents(), protocol: 1, log: log, events: make(chan Event, 16),
	}
}

func (f *fake) Capacity() int     { return f.capacity }
func (f *fake) Accents() []string { return f.accents }
func (f *fake) Describe() control.Surface {
	f.mu.Lock()
	defer f.mu.Unlock()
	return control.Surface{Profile: f.profile, Input: f.input, Output: f.output, Descriptors: []wire.SurfaceDescriptor{{
		Kind: f.kind, Profile: f.profile, VisualProtocol: f.protocol, Input: f.input, Output: f.output,
	}}}
}
func (f *fake) Open(context.Context) error {
	f.log.add("open " + f.name)
	return f.openErr
}
func (f *fake) Render(v control.View) error {
	f.log.add("render " + f.name)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.views = append(f.views, v)
	return f.renderErr
}
func (f *fake) RenderShowFrame(s *visual.ShowFrame) error {
	f.log.add("show " + f.name)
	f.shows = append(f.shows, s)
	return nil
}
func (f *fake) SetExperience(v visual.ExperienceView) error {
	f.log.add("experience " + f.name)
	f.experiences = append(f.experiences, v)
	return nil
}
func (f *fake) Events() <-chan Event { return f.events }
func (f *fake) Close() error {
	f.log.add("close " + f.name)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closes++
	return f.closeErr
}

// plain is a member without Show or experience support.
type plain struct{ *fake }

func (p plain) RenderShowFrame() {} // different signature: not a ShowRenderer

func mustComposite(t *testing.T, members ...Surface) *Composite {
	t.Helper()
	c, err := NewComposite(members...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestV22_FanOutRenderShowExperience(t *testing.T) {
	log := &callLog{}
	midi := newFake("midi", "midi", "novation/launchpad/pro-mk1", log)
	web := newFake("web", "web", "virtual/browser", log)
	c := mustComposite(t, midi, web)
	if err := c.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	v := control.View{Centre: wire.StateRunning, Capacity: 8}
	var show visual.ShowFrame
	show.Top[0] = visual.ShowColor{Fallback: "off", RGB: [3]uint8{1, 2, 3}}
	e := visual.ExperienceView{Status: visual.ExperiencePlaying, Tempo: 1}
	if err := c.Render(v); err != nil {
		t.Fatal(err)
	}
	if err := c.RenderShowFrame(&show); err != nil {
		t.Fatal(err)
	}
	if err := c.SetExperience(e); err != nil {
		t.Fatal(err)
	}
	for _, m := range []*fake{midi, web} {
		if !reflect.DeepEqual(m.views, []control.View{v}) || len(m.shows) != 1 || m.shows[0] != &show || !reflect.DeepEqual(m.experiences, []visual.ExperienceView{e}) {
			t.Errorf("%s received views %v shows %d experiences %v", m.name, m.views, len(m.shows), m.experiences)
		}
	}
	want := []string{"open midi", "open web", "render midi", "render web", "show midi", "show web", "experience midi", "experience web"}
	if got := log.get(); !reflect.DeepEqual(got, want) {
		t.Fatalf("calls %v, want %v", got, want)
	}
	// No error isolation: a failing member stops the fan-out.
	midi.renderErr = errors.New("unplugged")
	if err := c.Render(v); !errors.Is(err, midi.renderErr) || len(web.views) != 1 {
		t.Fatalf("render error %v, web views %d", err, len(web.views))
	}
	// Members without Show support are skipped.
	p := plain{newFake("p", "midi", "x/y", log)}
	c2 := mustComposite(t, p, newFake("w", "web", "virtual/browser", log))
	if err := c2.RenderShowFrame(&show); err != nil {
		t.Fatal(err)
	}
	if c.Close() != nil || c2.Close() != nil {
		t.Fatal("close failed")
	}
}

func TestV23_PollConcatenatesInMemberOrder(t *testing.T) {
	log := &callLog{}
	midi := newFake("midi", "midi", "novation/launchpad/pro-mk1", log)
	web := newFake("web", "web", "virtual/browser", log)
	c := mustComposite(t, midi, web)
	if err := c.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	web.events <- SessionSelected{Slot: 2}
	midi.events <- ActionPressed{Action: wire.ActionStop}
	got := c.Poll()
	if want := []Event{ActionPressed{Action: wire.ActionStop}, SessionSelected{Slot: 2}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("poll %v, want %v", got, want)
	}
	if got := c.Poll(); len(got) != 0 {
		t.Fatalf("second poll %v", got)
	}
	// Events are values.
	if (ActionPressed{Action: wire.ActionStop}) != (ActionPressed{Action: "stop"}) {
		t.Fatal("events are not comparable values")
	}
	c.Close()
}

// Once the daemon reads Events, member events arrive merged on one channel.
func TestCompositeEventsMerged(t *testing.T) {
	log := &callLog{}
	midi := newFake("midi", "midi", "novation/launchpad/pro-mk1", log)
	web := newFake("web", "web", "virtual/browser", log)
	c := mustComposite(t, midi, web)
	ch := c.Events() // before Open: forwarding starts when opened
	midi.events <- ActionPressed{Action: wire.ActionApprove}
	if err := c.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	web.events <- SessionSelected{Slot: 1}
	got := map[Event]bool{}
	timeout := time.After(testutil.EventuallyTimeout)
	for len(got) < 2 {
		select {
		case ev := <-ch:
			got[ev] = true
		case <-timeout:
			t.Fatalf("merged events %v", got)
		}
	}
	if !got[ActionPressed{Action: wire.ActionApprove}] || !got[SessionSelected{Slot: 1}] {
		t.Fatalf("merged events %v", got)
	}
	// Within one member, arrival order is kept.
	for i := 0; i < 5; i++ {
		midi.events <- SessionSelected{Slot: i}
	}
	for i := 0; i < 5; i++ {
		select {
		case ev := <-ch:
			if ev != (SessionSelected{Slot: i}) {
				t.Fatalf("event %d is %v", i, ev)
			}
		case <-time.After(testutil.EventuallyTimeout):
			t.Fatal("timeout")
		}
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	// The merged channel is closed after Close.
	select {
	case _, ok := <-ch:
		for ok {
			_, ok = <-ch
		}
	case <-time.After(testutil.EventuallyTimeout):
		t.Fatal("merged channel not closed after Close")
	}
	// Poll after Close is empty and does not block.
	if evs := c.Poll(); len(evs) != 0 {
		t.Fatalf("poll after close %v", evs)
	}
}

func TestV24_CloseClosesEveryMember(t *testing.T) {
	log := &callLog{}
	a, b := newFake("a", "midi", "p/a", log), newFake("b", "web", "virtual/browser", log)
	c := mustComposite(t, a, b)
	if err := c.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if a.closes != 1 || b.closes != 1 {
		t.Fatalf("closes %d %d", a.closes, b.closes)
	}
	// Never opened: every member is closed.
	a2, b2 := newFake("a2", "midi", "p/a", log), newFake("b2", "web", "virtual/browser", log)
	c2 := mustComposite(t, a2, b2)
	if err := c2.Close(); err != nil || a2.closes != 1 || b2.closes != 1 {
		t.Fatalf("never-opened close: %v %d %d", err, a2.closes, b2.closes)
	}
}

func TestV25_OpenFailureRollsBack(t *testing.T) {
	log := &callLog{}
	first, second, third := newFake("first", "midi", "p/a", log), newFake("second", "web", "virtual/browser", log), newFake("third", "midi", "p/c", log)
	second.openErr = errors.New("port in use")
	c := mustComposite(t, first, second, third)
	err := c.Open(context.Background())
	if !errors.Is(err, second.openErr) {
		t.Fatalf("open returned %v", err)
	}
	want := []string{"open first", "open second", "close second", "close first"}
	if got := log.get(); !reflect.DeepEqual(got, want) {
		t.Fatalf("calls %v, want %v", got, want)
	}
	if first.closes != 1 || second.closes != 1 || third.closes != 0 {
		t.Fatalf("closes %d %d %d", first.closes, second.closes, third.closes)
	}
	if c.Close() != nil || first.closes != 1 {
		t.Fatal("close after rollback closed again")
	}
	if c.Open(context.Background()) == nil {
		t.Fatal("reopened a closed composite")
	}
}

func TestV26toV28_Compatibility(t *testing.T) {
	log := &callLog{}
	ref := newFake("a", "midi", "p/a", log)
	four := newFake("b", "web", "virtual/browser", log)
	four.capacity, four.accents = 4, wire.AccentPalette(4)
	if _, err := NewComposite(ref, four); err == nil || !strings.Contains(err.Error(), "selector capacity") || !errors.Is(err, ErrIncompatible) {
		t.Errorf("V26: %v", err)
	}
	shuffled := newFake("c", "web", "virtual/browser", log)
	shuffled.accents = append([]string{"magenta", "cyan"}, wire.IdentityAccents()[2:]...)
	if _, err := NewComposite(ref, shuffled); err == nil || !strings.Contains(err.Error(), "same accent order") {
		t.Errorf("V27 accents: %v", err)
	}
	v2 := newFake("d", "web", "virtual/browser", log)
	v2.protocol = 2
	if _, err := NewComposite(ref, v2); err == nil || !strings.Contains(err.Error(), "one visual protocol") {
		t.Errorf("V27 protocol: %v", err)
	}
	if _, err := NewComposite(); !errors.Is(err, ErrNoSurfaces) || !strings.Contains(err.Error(), "requires at least one surface") {
		t.Errorf("V28: %v", err)
	}
	odd := newFake("e", "hologram", "x/y", log)
	if _, err := NewComposite(ref, odd); !errors.Is(err, ErrUnknownKind) {
		t.Errorf("unknown kind: %v", err)
	}
	if _, err := NewComposite(ref, nil); err == nil {
		t.Error("nil member accepted")
	}
	// The first failure in §11 order wins: capacity before accents.
	both := newFake("f", "web", "virtual/browser", log)
	both.capacity, both.accents = 4, []string{"sky"}
	if _, err := NewComposite(ref, both); err == nil || !strings.Contains(err.Error(), "selector capacity") {
		t.Errorf("order: %v", err)
	}
	if len(log.get()) != 0 {
		t.Errorf("construction touched members: %v", log.get())
	}
}

func TestV29_V30_Descriptors(t *testing.T) {
	log := &callLog{}
	web := newFake("web", "web", "virtual/browser", log)
	web.input, web.output = "Browser controls", "Browser display"
	midi := newFake("midi", "midi", "novation/launchpad/pro-mk1", log)
	midi.input, midi.output = "Launchpad Pro MIDI 1", "Launchpad Pro MIDI 2"
	c := mustComposite(t, web, midi)
	d := c.Describe()
	if d.Profile != "virtual/browser+novation/launchpad/pro-mk1" {
		t.Errorf("V30 profile %q", d.Profile)
	}
	if d.Input != "Browser controls; Launchpad Pro MIDI 1" || d.Output != "Browser display; Launchpad Pro MIDI 2" {
		t.Errorf("input %q output %q", d.Input, d.Output)
	}
	var kinds []string
	for _, sd := range d.Descriptors {
		kinds = append(kinds, sd.Kind)
	}
	if !reflect.DeepEqual(kinds, []string{"web", "midi"}) {
		t.Errorf("V29 kinds %v", kinds)
	}
	// Descriptors are read live; the joined names were captured at
	// construction (§11).
	web.mu.Lock()
	web.input = "Browser controls (8765)"
	web.mu.Unlock()
	d = c.Describe()
	if d.Descriptors[0].Input != "Browser controls (8765)" || d.Input != "Browser controls; Launchpad Pro MIDI 1" {
		t.Errorf("live descriptor %q, joined %q", d.Descriptors[0].Input, d.Input)
	}
	if c.Capacity() != 8 || !reflect.DeepEqual(c.Accents(), wire.IdentityAccents()) || c.VisualProtocol() != 1 || len(c.Members()) != 2 {
		t.Error("copied attributes")
	}
	// A composite of composites flattens descriptors.
	cc := mustComposite(t, c, newFake("w2", "web", "virtual/browser", log))
	if n := len(cc.Describe().Descriptors); n != 3 {
		t.Errorf("nested descriptors %d", n)
	}
}

func TestV31_CloseReverseOrderKeepsGoing(t *testing.T) {
	log := &callLog{}
	a, b := newFake("A", "midi", "p/a", log), newFake("B", "web", "virtual/browser", log)
	b.closeErr = errors.New("B stuck")
	c := mustComposite(t, a, b)
	if err := c.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	err := c.Close()
	if !errors.Is(err, b.closeErr) {
		t.Fatalf("close returned %v", err)
	}
	if got, want := log.get(), []string{"open A", "open B", "close B", "close A"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("calls %v, want %v", got, want)
	}
	if c.Close() != nil || a.closes != 1 || b.closes != 1 {
		t.Fatal("second close did something")
	}
}

// The daemon's view of a composite: open once, Counter-based rendering.
func TestCounter(t *testing.T) {
	c := NewCounter(8)
	cv := control.View{Centre: wire.StateRunning, ActivityMotion: true, Capacity: 8}
	var dots []visual.Cell
	for i := 0; i < 4; i++ {
		v, f := c.Next(cv)
		if v.Frame != i {
			t.Fatalf("render %d has frame %d", i, v.Frame)
		}
		for y := range f.State {
			for x, tok := range f.State[y] {
				if tok == visual.Activity && y == 3 {
					dots = append(dots, visual.Cell{X: x, Y: y})
				}
			}
		}
	}
	if want := []visual.Cell{{X: 1, Y: 3}, {X: 3, Y: 3}, {X: 5, Y: 3}, {X: 1, Y: 3}}; !reflect.DeepEqual(dots, want) {
		t.Fatalf("dots %v", dots)
	}
	if c.Frame() != 4 {
		t.Fatalf("frame %d", c.Frame())
	}
}

func TestPollHelper(t *testing.T) {
	log := &callLog{}
	f := newFake("a", "midi", "p/a", log)
	f.events <- SessionSelected{Slot: 0}
	f.events <- ActionPressed{Action: wire.ActionRetry}
	if got := Poll(f, 1); !reflect.DeepEqual(got, []Event{SessionSelected{Slot: 0}}) {
		t.Fatalf("poll max 1: %v", got)
	}
	if got := Poll(f, 0); !reflect.DeepEqual(got, []Event{ActionPressed{Action: wire.ActionRetry}}) {
		t.Fatalf("poll rest: %v", got)
	}
	close(f.events)
	if got := Poll(f, 0); len(got) != 0 {
		t.Fatalf("poll closed: %v", got)
	}
}
