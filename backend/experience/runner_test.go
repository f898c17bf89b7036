package experience_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/control"
	"github.com/lets-app/lets/backend/experience"
	"github.com/lets-app/lets/backend/surface"
	"github.com/lets-app/lets/backend/visual"
	"github.com/lets-app/lets/backend/wire"
)

// scriptSurface hands out one scripted batch of events per poll and
// records what it is shown.
type scriptSurface struct {
	script   [][]surface.Event
	views    []control.View
	frames   int
	states   []visual.ExperienceView
	opened   bool
	closes   int
	failOpen error
}

var (
	_ surface.Surface            = (*scriptSurface)(nil)
	_ surface.ShowRenderer       = (*scriptSurface)(nil)
	_ surface.ExperienceReporter = (*scriptSurface)(nil)
	_ surface.Poller             = (*scriptSurface)(nil)
)

func (s *scriptSurface) Capacity() int                { return 8 }
func (s *scriptSurface) Accents() []string            { return wire.IdentityAccents() }
func (s *scriptSurface) Events() <-chan surface.Event { return nil }
func (s *scriptSurface) Describe() control.Surface {
	return control.Surface{Profile: "test/script"}
}
func (s *scriptSurface) Open(context.Context) error {
	s.opened = true
	return s.failOpen
}
func (s *scriptSurface) Close() error { s.closes++; return nil }
func (s *scriptSurface) Render(v control.View) error {
	s.views = append(s.views, v)
	return nil
}
func (s *scriptSurface) RenderShowFrame(*visual.ShowFrame) error { s.frames++; return nil }
func (s *scriptSurface) SetExperience(v visual.ExperienceView) error {
	s.states = append(s.states, v)
	return nil
}
func (s *scriptSurface) Poll() []surface.Event {
	if len(s.script) == 0 {
		return nil
	}
	ev := s.script[0]
	s.script = s.script[1:]
	return ev
}

// hostAudio records host audio calls.
type hostAudio struct {
	earcons       []string
	starts, stops int
	tempo         float64
	show          *experience.Performance
	failStart     error
}

func (a *hostAudio) Earcon(name string, slot int) {
	a.earcons = append(a.earcons, name)
}
func (a *hostAudio) StartSoundtrack(p *experience.Performance, tempo float64) error {
	a.starts++
	a.show, a.tempo = p, tempo
	return a.failStart
}
func (a *hostAudio) StopSoundtrack() { a.stops++ }

// fakeTime is a clock that moves only when the runner sleeps.
type fakeTime struct {
	now    time.Duration
	step   time.Duration // 0: advance by the requested duration
	cancel func()        // called on the sleep number cancelAt
	sleeps int
	at     int
}

func (f *fakeTime) Now() time.Duration { return f.now }
func (f *fakeTime) Sleep(ctx context.Context, d time.Duration) error {
	f.sleeps++
	if f.cancel != nil && f.sleeps == f.at {
		f.cancel()
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if f.step > 0 {
		d = f.step
	}
	f.now += d
	if f.sleeps > 100000 {
		return errors.New("runaway loop")
	}
	return nil
}

func runWith(t *testing.T, ctx context.Context, o experience.RunOptions, ft *fakeTime) (experience.Outcome, string, error) {
	t.Helper()
	var out strings.Builder
	o.Out = &out
	o.Now, o.Sleep = ft.Now, ft.Sleep
	if o.Demo == nil {
		o.Demo = refDemo(t)
	}
	if o.Show == nil {
		o.Show = refShow(t)
	}
	res, err := experience.Run(ctx, o)
	return res, out.String(), err
}

func TestCase017_StandaloneDemo(t *testing.T) {
	s := &scriptSurface{script: [][]surface.Event{
		{sel(1)}, {press(wire.ActionApprove)}, {sel(2)}, {press(wire.ActionRetry)},
	}}
	audio := &hostAudio{}
	res, out, err := runWith(t, context.Background(), experience.RunOptions{Kind: experience.KindDemo, Surface: s, Audio: audio}, &fakeTime{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Actions, []wire.Action{wire.ActionApprove, wire.ActionRetry}) || !res.Complete {
		t.Fatalf("outcome %+v", res)
	}
	if len(s.views) != 5 || s.views[0].Indicators[0].Label != "Builder" || s.views[1].Centre != wire.StateWaitingForApproval || s.views[4].Centre != wire.StateSuccess {
		t.Fatalf("views %+v", s.views)
	}
	if str(s.states[0].Kind) != "demo" || s.states[len(s.states)-1].Status != "idle" {
		t.Fatalf("states %+v … %+v", s.states[0], s.states[len(s.states)-1])
	}
	for _, want := range []string{"The Reviewer needs you.", "The agents form a constellation."} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !slices.Equal(audio.earcons, []string{"question", "session_selected", "approve", "session_selected", "retry"}) {
		t.Fatalf("host earcons %v", audio.earcons)
	}
	if !s.opened || s.closes != 1 {
		t.Fatalf("surface opened %v closed %d times", s.opened, s.closes)
	}
}

func TestCase029_030_StandaloneShowTempo2(t *testing.T) {
	s := &scriptSurface{}
	audio := &hostAudio{}
	res, out, err := runWith(t, context.Background(), experience.RunOptions{Kind: experience.KindShow, Surface: s, Tempo: 2, Audio: audio}, &fakeTime{step: 500 * ms})
	if err != nil || !res.Complete {
		t.Fatalf("case 29: %+v %v", res, err)
	}
	if s.frames <= 20 || s.frames > 80 {
		t.Fatalf("case 29: %d frames", s.frames)
	}
	if s.states[0].Status != "starting" || s.states[0].StartDelayMS != 0 || s.states[len(s.states)-1].Status != "idle" || s.states[0].Tempo != 2 {
		t.Fatalf("case 29: states %+v … %+v", s.states[0], s.states[len(s.states)-1])
	}
	if !strings.HasPrefix(out, "A Spark Becomes a Constellation\n") || !strings.Contains(out, "Prelude - Alone: Alone\n") {
		t.Fatalf("case 29 output:\n%s", out)
	}
	if strings.Contains(out, ": An Idea\n") {
		t.Fatalf("only cues with their own caption are printed:\n%s", out)
	}
	// Case 30: the soundtrack started once, for this Show at tempo 2 (its
	// timeline lasts 43.1/2 s), and stopped at the end.
	if audio.starts != 1 || audio.stops != 1 || audio.tempo != 2 || audio.show.Duration().Seconds()/audio.tempo != 21.55 {
		t.Fatalf("case 30: %+v", audio)
	}
	if s.closes != 1 {
		t.Fatal("surface not closed")
	}
}

func TestCase031_StandaloneShowInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := &scriptSurface{}
	audio := &hostAudio{}
	res, _, err := runWith(t, ctx, experience.RunOptions{Kind: experience.KindShow, Surface: s, Audio: audio}, &fakeTime{cancel: cancel, at: 40})
	if err != nil || res.Complete || res.Reason != experience.ReasonCancelled {
		t.Fatalf("%+v %v", res, err)
	}
	if s.closes != 1 || audio.stops != 1 {
		t.Fatalf("surface closed %d, soundtrack stopped %d", s.closes, audio.stops)
	}
	if last := s.states[len(s.states)-1]; last.Status != "idle" || str(last.Reason) != "cancelled" {
		t.Fatalf("last state %+v", last)
	}
}

func TestCase032_SurfaceOpenFailure(t *testing.T) {
	for _, kind := range []string{experience.KindShow, experience.KindDemo} {
		boom := errors.New("no such device")
		s := &scriptSurface{failOpen: boom}
		_, _, err := runWith(t, context.Background(), experience.RunOptions{Kind: kind, Surface: s}, &fakeTime{})
		if !errors.Is(err, boom) || s.closes != 1 {
			t.Fatalf("%s: err %v, closed %d", kind, err, s.closes)
		}
	}
}

func TestCase033_SoundtrackFailure(t *testing.T) {
	boom := errors.New("no player")
	s := &scriptSurface{}
	_, _, err := runWith(t, context.Background(), experience.RunOptions{Kind: experience.KindShow, Surface: s, Audio: &hostAudio{failStart: boom}}, &fakeTime{})
	if !errors.Is(err, boom) || s.closes != 1 {
		t.Fatalf("err %v, closed %d", err, s.closes)
	}
}

func TestCase041_StandaloneDemoBlocksShowRequest(t *testing.T) {
	s := &scriptSurface{script: [][]surface.Event{
		{surface.ExperienceRequested{Kind: experience.KindShow}},
		{surface.ExperienceStopRequested{}},
	}}
	res, _, err := runWith(t, context.Background(), experience.RunOptions{Kind: experience.KindDemo, Surface: s, WaitForAdmin: true}, &fakeTime{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.states) != 1 || s.states[0].Status != "blocked" || str(s.states[0].Kind) != "show" || str(s.states[0].Reason) != "This command is prepared for demo." {
		t.Fatalf("states %+v", s.states)
	}
	if res.Complete || len(s.views) != 0 {
		t.Fatalf("nothing may have played: %+v %d views", res, len(s.views))
	}
}

func TestCase042_StandaloneShowExitsOnStopWhileIdle(t *testing.T) {
	s := &scriptSurface{script: [][]surface.Event{nil, nil, {surface.ExperienceStopRequested{}}}}
	ft := &fakeTime{}
	res, _, err := runWith(t, context.Background(), experience.RunOptions{Kind: experience.KindShow, Surface: s, WaitForAdmin: true}, ft)
	if err != nil || res.Complete || len(s.states) != 0 || ft.sleeps != 2 {
		t.Fatalf("%+v %v states %v sleeps %d", res, err, s.states, ft.sleeps)
	}
}

// With --surface web the runner waits for the administrator, starts with
// the 0.5 s lead-in, ignores a repeated start and exits after one run.
func TestStandaloneWaitsForAdmin(t *testing.T) {
	start := []surface.Event{surface.ExperienceRequested{Kind: experience.KindShow}}
	s := &scriptSurface{script: [][]surface.Event{nil, start, start}}
	res, _, err := runWith(t, context.Background(), experience.RunOptions{Kind: experience.KindShow, Surface: s, Tempo: 4, WaitForAdmin: true}, &fakeTime{step: 250 * ms})
	if err != nil || !res.Complete {
		t.Fatalf("%+v %v", res, err)
	}
	starting := 0
	for _, v := range s.states {
		if v.Status == "starting" {
			starting++
			if v.StartDelayMS != 500 {
				t.Fatalf("lead-in %d", v.StartDelayMS)
			}
		}
	}
	if starting != 1 {
		t.Fatalf("%d starts", starting)
	}
}

func TestCase052_TempoMustBePositive(t *testing.T) {
	for _, tempo := range []float64{-1, -0.001} {
		s := &scriptSurface{}
		_, _, err := runWith(t, context.Background(), experience.RunOptions{Kind: experience.KindShow, Surface: s, Tempo: tempo}, &fakeTime{})
		if !errors.Is(err, experience.ErrTempo) || err.Error() != "show tempo must be positive" || s.closes != 1 {
			t.Fatalf("tempo %v: %v", tempo, err)
		}
	}
}
