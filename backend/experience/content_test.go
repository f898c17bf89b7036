package experience_test

import (
	"bytes"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/experience"
	"github.com/lets-app/lets/backend/experience/internal/author"
	"github.com/lets-app/lets/backend/visual"
	"github.com/lets-app/lets/backend/wire"
)

// The committed content is what ./gen writes today.
func TestContentIsFresh(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		// The Show's colours come from float maths, which other
		// architectures may fuse differently by a rounding step.
		t.Skipf("the generated Show is compared byte for byte on amd64 only (this is %s)", runtime.GOARCH)
	}
	demo, err := author.DemoJSON()
	if err != nil {
		t.Fatal(err)
	}
	show, err := author.ShowJSON()
	if err != nil {
		t.Fatal(err)
	}
	for name, pair := range map[string][2][]byte{
		experience.DemoContentFile: {demo, experience.DemoJSON()},
		experience.ShowContentFile: {show, experience.ShowJSON()},
	} {
		if !bytes.Equal(pair[0], pair[1]) {
			t.Errorf("%s is stale: run `go generate ./backend/experience` and commit the result", name)
		}
	}
}

func ours(t testing.TB) (*experience.Demo, *experience.Performance) {
	t.Helper()
	d, p, err := experience.LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	return d, p
}

// Our Demo teaches the pad in six or more stages, stays consistent with
// the pad's rules (lit actions are what the selected state permits) and
// is not the reference's.
func TestOurDemo(t *testing.T) {
	d, _ := ours(t)
	if len(d.Stages) < 6 {
		t.Fatalf("%d stages, want ≥ 6", len(d.Stages))
	}
	if d.ID == "multi-agent-guided-demo" || strings.Contains(string(experience.DemoJSON()), "The Reviewer needs you.") {
		t.Fatal("the Demo must be our own")
	}
	taught := map[string]bool{}
	for _, st := range d.Stages {
		sel := st.SelectedState()
		for _, a := range wire.Actions() {
			if wire.Permits(sel, a) != slices.Contains(st.Available, a) {
				t.Errorf("stage %s: %s lit=%v but the selected state %s permits=%v", st.ID, a, slices.Contains(st.Available, a), sel, wire.Permits(sel, a))
			}
		}
		for _, tr := range st.Transitions {
			if tr.Event == experience.EventSelect {
				taught["select"] = true
			} else {
				taught[string(tr.Action)] = true
			}
		}
	}
	for _, want := range []string{"select", "approve", "reject", "retry", "stop"} {
		if !taught[want] {
			t.Errorf("the Demo never teaches %s", want)
		}
	}
}

// A scripted walk takes every transition of our Demo, checking each step's
// messages (§5.4 order, earcon rules), and ends with the terminal hold.
func TestOurDemoWalksEveryTransition(t *testing.T) {
	d, p := ours(t)
	type edge struct{ from, n int }
	seen := map[edge]bool{}
	total := 0
	for _, st := range d.Stages {
		total += len(st.Transitions)
	}
	// Repeat runs, each time taking the first transition not yet taken on
	// the path (or the guide target), until every edge was walked.
	for run := 0; len(seen) < total && run < 20; run++ {
		c := experience.NewController(experience.Options{Demo: d, Show: p})
		now := time.Duration(run) * time.Minute
		r := mustStart(t, c, experience.KindDemo, now, experience.StartOptions{HostAudio: true})
		if !eq(kinds(r), show("surface", "earcon:"+d.Stages[d.Initial()].EnterAudio+":-1", "state:playing")) {
			t.Fatalf("start: %v", kinds(r))
		}
		for steps := 0; steps < 3*len(d.Stages); steps++ {
			stage := c.Stage()
			st := &d.Stages[stage]
			if st.Terminal {
				break
			}
			pick := 0
			for i := range st.Transitions {
				if !seen[edge{stage, i}] {
					pick = i
					break
				}
			}
			tr := st.Transitions[pick]
			seen[edge{stage, pick}] = true
			var ev = sel(tr.Slot)
			slot := tr.Slot
			if tr.Event == experience.EventAction {
				ev, slot = press(tr.Action), st.SelectedSlot()
			}
			now += time.Second
			r := c.HandleEvent(ev, now)
			next := &d.Stages[c.Stage()]
			if next.ID != tr.NextStage {
				t.Fatalf("%s --%v--> %s, want %s", st.ID, ev, next.ID, tr.NextStage)
			}
			audio := tr.Audio
			if audio == "" {
				audio = next.EnterAudio
			}
			want := []string{"surface"}
			if audio != "" {
				want = append(want, fmt.Sprintf("earcon:%s:%d", audio, slot))
			}
			want = append(want, "state:playing")
			if !eq(kinds(r), want) {
				t.Fatalf("%s → %s: %v, want %v", st.ID, next.ID, kinds(r), want)
			}
			v := lastState(t, r)
			if str(v.Caption) != next.Prompt.Title || str(v.Detail) != next.Prompt.Detail || num(v.CueIndex) != fmt.Sprint(c.Stage()) {
				t.Fatalf("state %+v", v)
			}
			if sv := surfaceOf(t, r).View; sv.Centre != next.SelectedState() || len(sv.Indicators) != len(next.Sessions) {
				t.Fatalf("view %+v", sv)
			}
		}
		if !d.Stages[c.Stage()].Terminal {
			t.Fatalf("run %d did not reach the end", run)
		}
		r = c.Tick(now + experience.TerminalHold)
		if !r.Ended || str(lastState(t, r).Reason) != "complete" {
			t.Fatalf("terminal hold: %v", kinds(r))
		}
	}
	if len(seen) != total {
		t.Fatalf("walked %d of %d transitions", len(seen), total)
	}
}

// Our Show: at least 60 s, our own, with captions in every act.
func TestOurShow(t *testing.T) {
	_, p := ours(t)
	if p.Duration() < 60*time.Second {
		t.Fatalf("the Show lasts %v, want ≥ 60 s", p.Duration())
	}
	if p.ID == "a-spark-becomes-a-constellation" || p.Audio.Asset == "audio/constellation-v1.wav" {
		t.Fatal("the Show must be our own")
	}
	if p.AudioAsset() != "experiences/"+author.ShowSoundtrack {
		t.Fatalf("audio asset %q", p.AudioAsset())
	}
	captioned := map[int]bool{}
	shortest := p.Cues[0].DurationMS
	for _, c := range p.Cues {
		if c.Caption != "" {
			captioned[c.Act] = true
		}
		shortest = min(shortest, c.DurationMS)
	}
	for a, name := range p.Acts {
		if !captioned[a] {
			t.Errorf("act %q has no caption of its own", name)
		}
	}
	if shortest < 100 {
		t.Errorf("shortest cue %d ms; keep ≥ 100 ms so pads and browsers keep up", shortest)
	}
	// The eight identity colours all appear.
	for _, a := range wire.IdentityAccents() {
		found := false
		for _, c := range p.Palette {
			found = found || c.Fallback == visual.AccentToken(a, true)
		}
		if !found {
			t.Errorf("no palette colour falls back to accent %s", a)
		}
	}
}

// fallbackSet is the 27-token set of §3.2 rule 8.
func fallbackSet() map[visual.Token]bool {
	set := map[visual.Token]bool{visual.Off: true}
	for _, s := range []wire.State{wire.StateWaitingForReply, wire.StateRunning, wire.StateSuccess, wire.StateError, wire.StateWaitingForApproval} {
		set[visual.StatePrimary(s)] = true
		set[visual.StateSummary(s)] = true
	}
	for _, a := range wire.IdentityAccents() {
		set[visual.AccentToken(a, true)] = true
		set[visual.AccentToken(a, false)] = true
	}
	return set
}

// Case 53 on the reference Show and ours: every frame has the 8×8 grid and
// both rails, fallbacks within the 27 tokens (so palette-only Launchpads
// can show them), more than 80 distinct colours, and no cue switches more
// than 40 of the 80 lights between off and on.
func TestCase053_ShowFrames(t *testing.T) {
	_, mine := ours(t)
	allowed := fallbackSet()
	if len(allowed) != 27 {
		t.Fatalf("fallback set has %d tokens", len(allowed))
	}
	for name, p := range map[string]*experience.Performance{"reference": refShow(t), "ours": mine} {
		t.Run(name, func(t *testing.T) {
			distinct := map[[3]uint8]bool{}
			for _, c := range p.Palette {
				if !allowed[c.Fallback] {
					t.Fatalf("fallback %q outside the 27-token set", c.Fallback)
				}
			}
			lit := func(c visual.ShowColor) bool { return c.RGB != [3]uint8{} }
			var prev *visual.ShowFrame
			for i := range p.Cues {
				f := p.Frame(i)
				var lights []visual.ShowColor
				for y := range f.Grid {
					lights = append(lights, f.Grid[y][:]...)
				}
				lights = append(append(lights, f.Top[:]...), f.Right[:]...)
				if len(lights) != 80 {
					t.Fatalf("cue %d has %d lights", i, len(lights))
				}
				for _, l := range lights {
					distinct[l.RGB] = true
				}
				if prev != nil {
					var before []visual.ShowColor
					for y := range prev.Grid {
						before = append(before, prev.Grid[y][:]...)
					}
					before = append(append(before, prev.Top[:]...), prev.Right[:]...)
					switched := 0
					for k := range lights {
						if lit(lights[k]) != lit(before[k]) {
							switched++
						}
					}
					if switched > 40 {
						t.Fatalf("cue %d switches %d lights", i, switched)
					}
				}
				prev = f
			}
			if len(distinct) <= 80 {
				t.Fatalf("%d distinct colours", len(distinct))
			}
		})
	}
}
