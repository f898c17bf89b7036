package experience_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/experience"
	"github.com/lets-app/lets/backend/surface"
	"github.com/lets-app/lets/backend/visual"
	"github.com/lets-app/lets/backend/wire"
)

const ms = time.Millisecond

func refController(t testing.TB) *experience.Controller {
	t.Helper()
	return experience.NewController(experience.Options{Demo: refDemo(t), Show: refShow(t)})
}

// kinds names the outputs of a result in order ("surface", "frame",
// "state:<status>", "earcon:<name>:<slot>", "soundtrack-start", "soundtrack-stop").
func kinds(r experience.Result) []string {
	var out []string
	for _, o := range r.Out {
		switch o := o.(type) {
		case experience.SurfaceOutput:
			out = append(out, "surface")
		case experience.FrameOutput:
			out = append(out, fmt.Sprintf("frame:%d", o.Cue))
		case experience.StateOutput:
			out = append(out, "state:"+o.State.Status)
		case experience.EarconOutput:
			out = append(out, fmt.Sprintf("earcon:%s:%d", o.Name, o.Slot))
		case experience.SoundtrackStart:
			out = append(out, "soundtrack-start")
		case experience.SoundtrackStop:
			out = append(out, "soundtrack-stop")
		}
	}
	return out
}

func lastState(t testing.TB, r experience.Result) visual.ExperienceView {
	t.Helper()
	for i := len(r.Out) - 1; i >= 0; i-- {
		if s, ok := r.Out[i].(experience.StateOutput); ok {
			return s.State
		}
	}
	t.Fatalf("no experience_state in %v", kinds(r))
	return visual.ExperienceView{}
}

func surfaceOf(t testing.TB, r experience.Result) experience.SurfaceOutput {
	t.Helper()
	for _, o := range r.Out {
		if s, ok := o.(experience.SurfaceOutput); ok {
			return s
		}
	}
	t.Fatalf("no surface in %v", kinds(r))
	return experience.SurfaceOutput{}
}

func str(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}

func num(p *int) string {
	if p == nil {
		return "<nil>"
	}
	return fmt.Sprint(*p)
}

func mustStart(t testing.TB, c *experience.Controller, kind string, now time.Duration, o experience.StartOptions) experience.Result {
	t.Helper()
	r, err := c.Start(kind, now, o)
	if err != nil || !r.Started {
		t.Fatalf("start %s: %v %+v", kind, err, r)
	}
	return r
}

func sel(slot int) surface.Event        { return surface.SessionSelected{Slot: slot} }
func press(a wire.Action) surface.Event { return surface.ActionPressed{Action: a} }
func eq(a, b []string) bool             { return slices.Equal(a, b) }
func show(kind ...string) []string      { return kind }

func TestCase019_DemoStartSurfaceThenState(t *testing.T) {
	c := refController(t)
	r := mustStart(t, c, experience.KindDemo, 0, experience.StartOptions{LeadIn: experience.DefaultLeadIn})
	if !eq(kinds(r), show("surface", "state:playing")) {
		t.Fatalf("outputs %v, want surface then experience_state", kinds(r))
	}
	s := surfaceOf(t, r)
	if s.Frame != 0 || s.View.Centre != wire.StateRunning || s.View.Indicators[0].Label != "Builder" {
		t.Fatalf("surface %+v", s)
	}
	v := lastState(t, r)
	if str(v.Kind) != "demo" || num(v.CueIndex) != "0" || str(v.AudioCue) != "question" || v.AudioSlot != nil || v.AudioSequence != 1 ||
		str(v.Caption) != "The Reviewer needs you." || str(v.Title) != "Three Agents, One Surface" || v.Tempo != 1 || v.DurationMS != nil {
		t.Fatalf("state %+v", v)
	}
}

func TestCase020_DemoNonMatchingSelectSendsNothing(t *testing.T) {
	c := refController(t)
	mustStart(t, c, experience.KindDemo, 0, experience.StartOptions{})
	r := c.HandleEvent(sel(0), time.Second)
	if len(r.Out) != 0 || !r.Handled {
		t.Fatalf("select 0 at stage 0: %v handled=%v", kinds(r), r.Handled)
	}
	if r := c.HandleEvent(press(wire.ActionApprove), time.Second); len(r.Out) != 0 || !r.Handled {
		t.Fatalf("approve at stage 0: %v", kinds(r))
	}
}

func TestCase021_DemoReject(t *testing.T) {
	c := refController(t)
	mustStart(t, c, experience.KindDemo, 0, experience.StartOptions{})
	c.HandleEvent(sel(1), time.Second)
	r := c.HandleEvent(press(wire.ActionReject), 2*time.Second)
	v := lastState(t, r)
	if num(v.CueIndex) != "2" || str(v.Caption) != "The Reviewer was rejected." || str(v.AudioCue) != "reject" || num(v.AudioSlot) != "1" {
		t.Fatalf("state %+v", v)
	}
}

func TestCase022_DemoTerminalHold(t *testing.T) {
	c := refController(t)
	mustStart(t, c, experience.KindDemo, 0, experience.StartOptions{})
	for _, ev := range []surface.Event{sel(1), press(wire.ActionApprove), sel(2)} {
		c.HandleEvent(ev, time.Second)
	}
	r := c.HandleEvent(press(wire.ActionRetry), 10*time.Second)
	if num(lastState(t, r).CueIndex) != "5" {
		t.Fatalf("not at complete: %+v", lastState(t, r))
	}
	for _, ev := range []surface.Event{sel(0), press(wire.ActionApprove), press(wire.ActionRetry)} {
		if r := c.HandleEvent(ev, 11*time.Second); len(r.Out) != 0 || !r.Handled {
			t.Fatalf("terminal stage reacted to %v: %v", ev, kinds(r))
		}
	}
	if at, ok := c.NextChange(11 * time.Second); !ok || at != 12*time.Second {
		t.Fatalf("next change %v %v, want 12s", at, ok)
	}
	if r := c.Tick(12*time.Second - 1); len(r.Out) != 0 || r.Ended {
		t.Fatalf("ended before 2.0 s: %v", kinds(r))
	}
	r = c.Tick(12 * time.Second)
	v := lastState(t, r)
	if !r.Ended || v.Status != "idle" || str(v.Kind) != "demo" || str(v.Reason) != "complete" || c.Active() {
		t.Fatalf("end %+v %+v", r, v)
	}
	if c.LastReason() != experience.ReasonComplete {
		t.Fatalf("last reason %q", c.LastReason())
	}
}

// §5.5: the reference trace, including the frame and sequence numbers.
func TestDemoReferenceTrace(t *testing.T) {
	c := refController(t)
	type row struct {
		ev       surface.Event // nil = start
		frame    int           // -1: nothing sent
		selected wire.State
		cue      int
		audio    string
		slot     string
		seq      int
	}
	rows := []row{
		{nil, 0, wire.StateRunning, 0, "question", "<nil>", 1},
		{sel(0), -1, "", 0, "", "", 0},
		{sel(1), 1, wire.StateWaitingForApproval, 1, "session_selected", "1", 2},
		{press(wire.ActionReject), 2, wire.StateCancelled, 2, "reject", "1", 3},
		{press(wire.ActionRetry), 3, wire.StateSuccess, 3, "retry", "1", 4},
		{sel(2), 4, wire.StateError, 4, "session_selected", "2", 5},
		{press(wire.ActionRetry), 5, wire.StateSuccess, 5, "retry", "2", 6},
		{press(wire.ActionApprove), -1, "", 0, "", "", 0},
	}
	for i, rw := range rows {
		var r experience.Result
		if rw.ev == nil {
			r = mustStart(t, c, experience.KindDemo, 0, experience.StartOptions{})
		} else {
			r = c.HandleEvent(rw.ev, time.Duration(i)*time.Second)
		}
		if rw.frame < 0 {
			if len(r.Out) != 0 {
				t.Fatalf("row %d: want nothing, got %v", i, kinds(r))
			}
			continue
		}
		s := surfaceOf(t, r)
		v := lastState(t, r)
		if s.Frame != rw.frame || s.View.Centre != rw.selected || num(v.CueIndex) != fmt.Sprint(rw.cue) ||
			str(v.AudioCue) != rw.audio || num(v.AudioSlot) != rw.slot || v.AudioSequence != rw.seq {
			t.Fatalf("row %d: frame %d centre %s, state cue %s audio %s/%s seq %d", i, s.Frame, s.View.Centre, num(v.CueIndex), str(v.AudioCue), num(v.AudioSlot), v.AudioSequence)
		}
	}
	r := c.Tick(7*time.Second + experience.TerminalHold)
	if v := lastState(t, r); v.Status != "idle" || str(v.Reason) != "complete" {
		t.Fatalf("after the hold: %+v", v)
	}
}

func TestCase023_SecondDemoContinuesCounters(t *testing.T) {
	c := refController(t)
	mustStart(t, c, experience.KindDemo, 0, experience.StartOptions{})
	c.HandleEvent(sel(1), time.Second)
	c.Stop(experience.ReasonStopped)
	r := mustStart(t, c, experience.KindDemo, 5*time.Second, experience.StartOptions{})
	if s := surfaceOf(t, r); s.Frame != 2 {
		t.Fatalf("second Demo frame %d, want 2", s.Frame)
	}
	if v := lastState(t, r); v.AudioSequence != 3 {
		t.Fatalf("second Demo audio_sequence %d, want 3", v.AudioSequence)
	}
	// A Show in between does not reset them either.
	c.Stop(experience.ReasonStopped)
	mustStart(t, c, experience.KindShow, 6*time.Second, experience.StartOptions{})
	c.Stop(experience.ReasonStopped)
	r = mustStart(t, c, experience.KindDemo, 7*time.Second, experience.StartOptions{})
	if surfaceOf(t, r).Frame != 3 || lastState(t, r).AudioSequence != 4 {
		t.Fatalf("third Demo: frame %d seq %d", surfaceOf(t, r).Frame, lastState(t, r).AudioSequence)
	}
}

func TestCase024_ShowStarting(t *testing.T) {
	c := refController(t)
	r := mustStart(t, c, experience.KindShow, 10*time.Second, experience.StartOptions{LeadIn: experience.DefaultLeadIn})
	if !eq(kinds(r), show("state:starting")) {
		t.Fatalf("outputs %v: no frame before the first cue", kinds(r))
	}
	v := lastState(t, r)
	if v.StartDelayMS != 500 || num(v.DurationMS) != "43100" || v.Tempo != 1.0 || str(v.AudioAsset) != "experiences/audio/constellation-v1.wav" ||
		v.CueIndex != nil || v.ElapsedMS != 0 || v.AudioSequence != 0 || str(v.Title) != "A Spark Becomes a Constellation" {
		t.Fatalf("starting %+v", v)
	}
	if r := c.Tick(10*time.Second + 499*ms); len(r.Out) != 0 {
		t.Fatalf("output during the lead-in: %v", kinds(r))
	}
}

func TestCase025_ShowFirstCue(t *testing.T) {
	c := refController(t)
	mustStart(t, c, experience.KindShow, 0, experience.StartOptions{LeadIn: experience.DefaultLeadIn})
	r := c.Tick(516 * ms)
	if !eq(kinds(r), show("frame:0", "state:playing")) {
		t.Fatalf("outputs %v, want the frame then experience_state", kinds(r))
	}
	v := lastState(t, r)
	if num(v.CueIndex) != "0" || str(v.Caption) != "Alone" || str(v.Detail) != "Prelude - Alone" || v.ElapsedMS != 16 || v.StartDelayMS != 0 {
		t.Fatalf("playing %+v", v)
	}
	if r := c.Tick(600 * ms); len(r.Out) != 0 {
		t.Fatalf("nothing is sent between cue changes: %v", kinds(r))
	}
}

func TestCase026_CueBoundaryBelongsToNextCue(t *testing.T) {
	for _, tc := range []struct {
		elapsed time.Duration
		cue     int
	}{{799 * ms, 0}, {800 * ms, 1}, {800*ms - 1, 0}, {0, 0}, {43099 * ms, 79}} {
		c := refController(t)
		mustStart(t, c, experience.KindShow, 0, experience.StartOptions{})
		r := c.Tick(tc.elapsed)
		if v := lastState(t, r); num(v.CueIndex) != fmt.Sprint(tc.cue) {
			t.Errorf("elapsed %v: cue %s, want %d", tc.elapsed, num(v.CueIndex), tc.cue)
		}
	}
}

func TestCase027_LateTickSkipsStaleCues(t *testing.T) {
	c := refController(t)
	mustStart(t, c, experience.KindShow, 0, experience.StartOptions{})
	c.Tick(100 * ms)
	r := c.Tick(9000 * ms)
	if !eq(kinds(r), show("frame:13", "state:playing")) {
		t.Fatalf("outputs %v, want cue 13 only", kinds(r))
	}
	if v := lastState(t, r); v.ElapsedMS != 9000 {
		t.Fatalf("elapsed_ms %d", v.ElapsedMS)
	}
}

func TestCase028_ShowEnds(t *testing.T) {
	c := refController(t)
	mustStart(t, c, experience.KindShow, 0, experience.StartOptions{LeadIn: experience.DefaultLeadIn})
	c.Tick(time.Second)
	r := c.Tick(500*ms + 43100*ms)
	v := lastState(t, r)
	if !r.Ended || !eq(kinds(r), show("state:idle")) || str(v.Reason) != "complete" || str(v.Kind) != "show" {
		t.Fatalf("end: %v %+v", kinds(r), v)
	}
	if r := c.Tick(50 * time.Second); len(r.Out) != 0 || r.Ended {
		t.Fatalf("after the end: %v", kinds(r))
	}
}

func TestCase034_EventsDuringShowSwallowed(t *testing.T) {
	c := refController(t)
	mustStart(t, c, experience.KindShow, 0, experience.StartOptions{})
	for _, ev := range []surface.Event{sel(0), sel(1), press(wire.ActionApprove), press(wire.ActionStop)} {
		if r := c.HandleEvent(ev, time.Second); !r.Handled || len(r.Out) != 0 {
			t.Fatalf("%v during a Show: %+v", ev, r)
		}
	}
	idle := refController(t)
	if r := idle.HandleEvent(sel(0), 0); r.Handled {
		t.Fatal("an idle controller must leave events to the agents")
	}
}

func TestCase035_036_037_StopAndStart(t *testing.T) {
	c := refController(t)
	if r := c.Stop(experience.ReasonStopped); len(r.Out) != 0 || r.Stopped {
		t.Fatalf("case 36: stop while idle: %v", kinds(r))
	}
	mustStart(t, c, experience.KindShow, 0, experience.StartOptions{})
	c.Tick(time.Second)
	for _, k := range []string{experience.KindShow, experience.KindDemo} {
		r, err := c.Start(k, 2*time.Second, experience.StartOptions{})
		if err != nil || r.Started || len(r.Out) != 0 {
			t.Fatalf("case 37: start %s while a Show plays: %+v %v", k, r, err)
		}
	}
	if c.Kind() != experience.KindShow || c.Cue() != 1 {
		t.Fatalf("the Show must continue: %s cue %d", c.Kind(), c.Cue())
	}
	r := c.Stop(experience.ReasonStopped)
	v := lastState(t, r)
	if !r.Stopped || v.Status != "idle" || str(v.Kind) != "show" || str(v.Reason) != "stopped" || v.Tempo != 1 || v.Title != nil {
		t.Fatalf("case 35: %+v", v)
	}
}

func TestBlockReport(t *testing.T) {
	c := refController(t)
	r := c.Block(experience.KindDemo, experience.ReasonAgentWaiting)
	v := lastState(t, r)
	if v.Status != "blocked" || str(v.Kind) != "demo" || str(v.Reason) != "An agent is waiting for approval or a reply." || c.Active() {
		t.Fatalf("blocked %+v", v)
	}
}

func TestStartRejectsBadInput(t *testing.T) {
	c := refController(t)
	for _, tc := range []struct {
		kind string
		o    experience.StartOptions
	}{{"party", experience.StartOptions{}}, {"show", experience.StartOptions{Tempo: -1}}, {"show", experience.StartOptions{LeadIn: -1}}} {
		if _, err := c.Start(tc.kind, 0, tc.o); err == nil {
			t.Errorf("start %q %+v accepted", tc.kind, tc.o)
		}
	}
	empty := experience.NewController(experience.Options{})
	if _, err := empty.Start(experience.KindShow, 0, experience.StartOptions{}); err == nil {
		t.Error("a Show without a manifest started")
	}
}

// Host audio: the soundtrack starts once at the first tick at or after the
// start and stops with the Show; Demo earcons go to the host (case 30/40
// shape at the controller level).
func TestHostAudioOutputs(t *testing.T) {
	c := refController(t)
	mustStart(t, c, experience.KindShow, 0, experience.StartOptions{HostAudio: true, LeadIn: experience.DefaultLeadIn})
	if r := c.Tick(100 * ms); len(r.Out) != 0 {
		t.Fatalf("soundtrack before the lead-in: %v", kinds(r))
	}
	if r := c.Tick(500 * ms); !eq(kinds(r), show("soundtrack-start", "frame:0", "state:playing")) {
		t.Fatalf("first tick: %v", kinds(r))
	}
	if r := c.Tick(2 * time.Second); slices.Contains(kinds(r), "soundtrack-start") {
		t.Fatalf("started twice: %v", kinds(r))
	}
	if r := c.Stop(experience.ReasonStopped); !eq(kinds(r), show("soundtrack-stop", "state:idle")) {
		t.Fatalf("stop: %v", kinds(r))
	}
	mustStart(t, c, experience.KindDemo, 0, experience.StartOptions{HostAudio: true})
	r := c.HandleEvent(sel(1), time.Second)
	if !eq(kinds(r), show("surface", "earcon:session_selected:1", "state:playing")) {
		t.Fatalf("demo earcon: %v", kinds(r))
	}
}

// §6: with a fake clock and a loop that stalls, the Show skips stale cues
// and never drifts: every cue shown is the one current at its tick, each
// frame arrives at most one tick after its boundary unless the loop
// stalled, and the end comes at duration/tempo no matter how many ticks
// were late.
func TestShowAbsoluteTimingUnderStalls(t *testing.T) {
	for _, tempo := range []float64{1, 2, 0.75} {
		t.Run(fmt.Sprint(tempo), func(t *testing.T) {
			c := refController(t)
			p := refShow(t)
			start := 3 * time.Second
			mustStart(t, c, experience.KindShow, start, experience.StartOptions{Tempo: tempo, LeadIn: experience.DefaultLeadIn})
			begin := start + experience.DefaultLeadIn
			now := start
			tick := 30 * ms
			type shown struct {
				cue int
				at  time.Duration
			}
			var got []shown
			ended := time.Duration(-1)
			for n := 0; n < 100000 && ended < 0; n++ {
				// Every 17th iteration the loop stalls for 700 ms.
				step := tick
				if n%17 == 16 {
					step = 700 * ms
				}
				now += step
				r := c.Tick(now)
				for _, o := range r.Out {
					if f, ok := o.(experience.FrameOutput); ok {
						got = append(got, shown{f.Cue, now})
					}
				}
				if r.Ended {
					ended = now
				}
			}
			end := begin + time.Duration(float64(p.Duration())/tempo)
			if ended < end || ended >= end+700*ms+tick {
				t.Fatalf("ended at %v, want within one step after %v", ended, end)
			}
			last := -1
			skipped := 0
			for _, s := range got {
				elapsed := time.Duration(float64(s.at-begin) * tempo)
				if s.cue != p.CueAt(elapsed) {
					t.Fatalf("cue %d shown at %v, but cue %d was current", s.cue, s.at, p.CueAt(elapsed))
				}
				if s.cue <= last {
					t.Fatalf("cue %d after cue %d", s.cue, last)
				}
				skipped += s.cue - last - 1
				// The frame is late by less than one loop step.
				boundary := begin + time.Duration(float64(time.Duration(p.Start(s.cue))*ms)/tempo)
				if s.at-boundary >= 700*ms+tick && p.Start(s.cue) > 0 {
					t.Fatalf("cue %d shown %v after its boundary", s.cue, s.at-boundary)
				}
				last = s.cue
			}
			if skipped == 0 && tempo >= 1 {
				t.Fatal("the stalls skipped no cue; the test does not exercise skipping")
			}
			if last != len(p.Cues)-1 && tempo <= 1 {
				t.Fatalf("last cue shown %d", last)
			}
		})
	}
}

// Exact scheduling: a host that ticks at NextChange sees every cue at its
// boundary to the nanosecond, for the whole Show (no accumulated drift).
func TestShowNextChangeIsExact(t *testing.T) {
	c := refController(t)
	p := refShow(t)
	mustStart(t, c, experience.KindShow, time.Second, experience.StartOptions{LeadIn: experience.DefaultLeadIn})
	now := time.Second
	for n := 0; n < 1000; n++ {
		at, ok := c.NextChange(now)
		if !ok {
			break
		}
		now = at
		r := c.Tick(now)
		for _, o := range r.Out {
			if f, ok := o.(experience.FrameOutput); ok {
				want := 1500*ms + time.Duration(p.Start(f.Cue))*ms
				if now != want {
					t.Fatalf("cue %d at %v, want %v", f.Cue, now, want)
				}
				if f.Cue != n {
					t.Fatalf("tick %d showed cue %d", n, f.Cue)
				}
			}
		}
		if r.Ended {
			if now != 1500*ms+p.Duration() {
				t.Fatalf("ended at %v", now)
			}
			return
		}
	}
	t.Fatal("the Show did not end")
}

// §3.5 and Web Surface §8.5's example: cue 2 is one bright cyan light at
// column 3, row 4, with the same colour at top[0] and right[7].
func TestFrameConversion(t *testing.T) {
	p := refShow(t)
	f := p.Frame(2)
	if got := f.Grid[4][3].Hex(); got != "#00deff" {
		t.Fatalf("grid[4][3] %s", got)
	}
	if f.Top[0].Hex() != "#00deff" || f.Right[7].Hex() != "#00deff" || f.Grid[0][0].Hex() != "#000000" {
		t.Fatalf("rails %s %s", f.Top[0].Hex(), f.Right[7].Hex())
	}
	for i, c := range p.Cues {
		fr := p.Frame(i)
		for y := range 8 {
			for x := range 8 {
				if fr.Grid[y][x] != p.Palette[c.Frame.Grid[y][x]] {
					t.Fatalf("cue %d (%d,%d) not converted", i, x, y)
				}
			}
		}
	}
}
