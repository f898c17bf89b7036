package experience_test

import (
	"testing"

	"github.com/lets-app/lets/backend/experience"
)

// The manifests are files a user may hand to the loaders (and the web app
// serves); the loaders must never panic, must stay bounded, and whatever
// they accept must be playable: every stage and cue usable by the
// controller.

func FuzzParseDemoManifest(f *testing.F) {
	f.Add(experience.DemoJSON())
	f.Add([]byte(`{"schema_version":1,"kind":"demo","id":"d","title":"t","initial_stage":"a","stages":[{"id":"a","prompt":{"eyebrow":"e","title":"t","detail":"d"},"guide_target":null,"view":{"sessions":[],"available_actions":[]},"transitions":[],"enter_audio":null,"terminal":true}]}`))
	f.Add([]byte(`{"schema_version":1.0}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := experience.ParseDemoManifest(data)
		if err != nil {
			return
		}
		c := experience.NewController(experience.Options{Demo: d})
		if _, err := c.Start(experience.KindDemo, 0, experience.StartOptions{}); err != nil {
			t.Fatalf("accepted Demo cannot start: %v", err)
		}
		for i := range d.Stages {
			st := &d.Stages[i]
			if st.Terminal != (len(st.Transitions) == 0) || st.Terminal != (st.GuideTarget == nil) {
				t.Fatalf("stage %d breaks the terminal rule", i)
			}
			for k, se := range st.Sessions {
				if se.Slot != k {
					t.Fatalf("stage %d session %d has slot %d", i, k, se.Slot)
				}
			}
		}
		// Walk the guide targets: every step is a transition.
		for n := 0; n < len(d.Stages) && !d.Stages[c.Stage()].Terminal; n++ {
			g := d.Stages[c.Stage()].GuideTarget
			var r experience.Result
			if g.Event == experience.EventSelect {
				r = c.HandleEvent(sel(g.Slot), 0)
			} else {
				r = c.HandleEvent(press(g.Action), 0)
			}
			if len(r.Out) == 0 {
				t.Fatalf("the guide target of stage %d moves nowhere", c.Stage())
			}
		}
	})
}

func FuzzParsePerformanceManifest(f *testing.F) {
	f.Add([]byte(`{"schema_version":1,"kind":"performance","id":"p","title":"T","dimensions":{"grid":[8,8],"top":8,"right":8},"duration_ms":5,"acts":["A - B"],"palette":[{"fallback":"off","rgb":[0,0,0]}],"cues":[{"act":0,"duration_ms":5,"caption":null,"frame":{"grid":[[0,0,0,0,0,0,0,0],[0,0,0,0,0,0,0,0],[0,0,0,0,0,0,0,0],[0,0,0,0,0,0,0,0],[0,0,0,0,0,0,0,0],[0,0,0,0,0,0,0,0],[0,0,0,0,0,0,0,0],[0,0,0,0,0,0,0,0]],"top":[0,0,0,0,0,0,0,0],"right":[0,0,0,0,0,0,0,0]}}],"audio":{"asset":"./a//b.wav","mime_type":"audio/wav","duration_ms":5}}`))
	f.Add([]byte(`{"schema_version":1,"kind":"performance","dimensions":{"grid":[7,8]}}`))
	f.Add([]byte(`{"audio":{"asset":"../x.wav"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := experience.ParsePerformanceManifest(data)
		if err != nil {
			return
		}
		sum := 0
		for i, c := range p.Cues {
			sum += c.DurationMS
			_ = p.Frame(i)
			if p.CaptionAt(i) == "" {
				t.Fatalf("cue %d has no caption", i)
			}
		}
		if sum != p.DurationMS || p.Audio.DurationMS != p.DurationMS {
			t.Fatal("durations disagree")
		}
		c := experience.NewController(experience.Options{Show: p})
		if _, err := c.Start(experience.KindShow, 0, experience.StartOptions{}); err != nil {
			t.Fatal(err)
		}
		for n := 0; n < 2*len(p.Cues)+2; n++ {
			at, ok := c.NextChange(0)
			_ = at
			if !ok {
				break
			}
			if r := c.Tick(p.Duration()); r.Ended {
				break
			}
		}
	})
}
