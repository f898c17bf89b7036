package showaudio_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/audio"
	"github.com/lets-app/lets/backend/audio/showaudio"
	"github.com/lets-app/lets/backend/experience"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

var (
	_ experience.HostAudio = (*showaudio.Host)(nil)
	_ showaudio.Player     = (*audio.Player)(nil)
)

func TestScoreOfTheBuiltInShow(t *testing.T) {
	_, show, err := experience.LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	s := showaudio.ScoreOf(show)
	if len(s.Cues) != len(show.Cues) || s.DurationMS() != show.DurationMS {
		t.Fatalf("%d cues / %d ms, want %d / %d", len(s.Cues), s.DurationMS(), len(show.Cues), show.DurationMS)
	}
	captions, lit := 0, 0
	for i, c := range s.Cues {
		if c.Act != show.Cues[i].Act || c.DurationMS != show.Cues[i].DurationMS {
			t.Fatalf("cue %d: %+v", i, c)
		}
		if c.Caption != (show.Cues[i].Caption != "") {
			t.Fatalf("cue %d caption", i)
		}
		if c.Caption {
			captions++
		}
		if c.Brightness < 0 || c.Brightness > 1 {
			t.Fatalf("cue %d brightness %v", i, c.Brightness)
		}
		if c.Brightness > 0.05 {
			lit++
		}
	}
	if captions == 0 || lit < len(s.Cues)/2 {
		t.Fatalf("%d captions, %d lit cues: the score does not reflect the Show", captions, lit)
	}
}

type call struct {
	op    string
	name  string
	slot  int
	tempo float64
	start time.Time
	cues  int
}

type fakePlayer struct {
	mu    sync.Mutex
	calls []call
}

func (f *fakePlayer) add(c call) { f.mu.Lock(); f.calls = append(f.calls, c); f.mu.Unlock() }
func (f *fakePlayer) Earcon(name string, slot int) {
	f.add(call{op: "earcon", name: name, slot: slot})
}
func (f *fakePlayer) StartSoundtrack(s audio.Score, tempo float64, start time.Time) error {
	f.add(call{op: "start", tempo: tempo, start: start, cues: len(s.Cues)})
	return nil
}
func (f *fakePlayer) StopSoundtrack() { f.add(call{op: "stop"}) }
func (f *fakePlayer) Prepare(s audio.Score, tempo float64) {
	f.add(call{op: "prepare", tempo: tempo, cues: len(s.Cues)})
}

func TestHostPlaysEarconsAndTheShow(t *testing.T) {
	f := &fakePlayer{}
	h, err := showaudio.NewDefaultHost(f)
	if err != nil {
		t.Fatal(err)
	}
	_, show, _ := experience.LoadDefault()
	h.Earcon(audio.Question, experience.NoSlot)
	h.Earcon("greeting", 1) // unknown: skipped silently
	h.Earcon(audio.Approve, 9)
	h.Earcon(audio.Approve, 3)
	if err := h.StartSoundtrack(nil, 1); err == nil {
		t.Fatal("a soundtrack without a Show started")
	}
	before := time.Now()
	if err := h.StartSoundtrack(show, 2); err != nil {
		t.Fatal(err)
	}
	after := time.Now()
	h.StopSoundtrack()
	f.mu.Lock()
	defer f.mu.Unlock()
	want := []call{
		{op: "prepare", tempo: 1, cues: len(show.Cues)},
		{op: "earcon", name: audio.Question, slot: audio.NoSlot},
		{op: "earcon", name: audio.Approve, slot: 3},
		{op: "start", tempo: 2, cues: len(show.Cues)},
		{op: "stop"},
	}
	if len(f.calls) != len(want) {
		t.Fatalf("calls %+v", f.calls)
	}
	for i, c := range f.calls {
		st := c.start
		c.start = time.Time{}
		if c != want[i] {
			t.Errorf("call %d: %+v, want %+v", i, c, want[i])
		}
		if c.op == "start" && (st.Before(before) || st.After(after)) {
			t.Errorf("soundtrack start %v is not the moment of the call (%v … %v)", st, before, after)
		}
	}
}

// With the real player and a fake command: Host → Player → one process.
func TestHostWithRealPlayer(t *testing.T) {
	p, err := audio.NewPlayer(audio.PlayerOptions{Command: []string{testutil.Command(t, "true")}, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	h, err := showaudio.NewDefaultHost(p)
	if err != nil {
		t.Fatal(err)
	}
	h.Earcon(audio.Success, 0)
	testutil.Eventually(t, "the player is launched", func() bool { return p.Launches() >= 1 })
	if p.Launches() != 1 {
		t.Fatalf("%d launches", p.Launches())
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestOpenFeedbackGivesPlayerAndHost(t *testing.T) {
	fb, err := showaudio.OpenFeedback([]string{"true"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if fb.Player == nil || fb.Host == nil {
		t.Fatalf("feedback not complete: %+v", fb)
	}
	if err := fb.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := showaudio.OpenFeedback([]string{}, nil); !errors.Is(err, audio.ErrNoPlayer) {
		t.Fatalf("an empty player command: %v, want ErrNoPlayer", err)
	}
}
