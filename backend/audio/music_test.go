package audio

import (
	"bytes"
	"errors"
	"math"
	"testing"
)

// testScore is a small Show: three acts, captions at act starts, the pad
// getting brighter.
func testScore() Score {
	var s Score
	for i := 0; i < 30; i++ {
		act := i / 10
		s.Cues = append(s.Cues, ScoreCue{
			DurationMS: 300 + 150*(i%4),
			Act:        act,
			Caption:    i%10 == 0 || i == 29,
			Brightness: float64(i) / 29,
		})
	}
	return s
}

func TestSoundtrackLengthFormatAndLevel(t *testing.T) {
	s := testScore()
	for _, tempo := range []float64{1, 2, 0.5} {
		b, err := SoundtrackWAV(s, tempo)
		if err != nil {
			t.Fatal(err)
		}
		info := parseWAV(t, b)
		if info.channels != 1 || info.rate != SampleRate || info.bits != 16 {
			t.Fatalf("format %+v", info)
		}
		want := int(math.Ceil((float64(s.DurationMS())/1000/tempo + SoundtrackTail) * SampleRate))
		if len(info.samples) != want {
			t.Errorf("tempo %v: %d frames, want %d (Show length / tempo + tail)", tempo, len(info.samples), want)
		}
		peak := 0
		for _, v := range info.samples {
			peak = max(peak, abs16(v))
		}
		if peak > 26214 || peak < 26000 {
			t.Errorf("tempo %v: peak %d, want normalized to 0.8 of full scale without clipping", tempo, peak)
		}
		if last := info.samples[len(info.samples)-1]; last != 0 {
			t.Errorf("tempo %v: ends at %d, want silence (fade out)", tempo, last)
		}
	}
}

func TestSoundtrackIsDeterministic(t *testing.T) {
	a, _ := SoundtrackWAV(testScore(), 1)
	b, _ := SoundtrackWAV(testScore(), 1)
	if !bytes.Equal(a, b) {
		t.Fatal("two renders differ")
	}
	other := testScore()
	other.Cues[3].Brightness = 0
	c, _ := SoundtrackWAV(other, 1)
	if bytes.Equal(a, c) {
		t.Fatal("a different score gave the same music")
	}
}

// A bell starts with every caption cue: the high-frequency energy jumps
// right after the cue's start, at any tempo.
func TestSoundtrackFollowsTheCues(t *testing.T) {
	s := testScore()
	for _, tempo := range []float64{1, 2} {
		pcm, err := Soundtrack(s, tempo)
		if err != nil {
			t.Fatal(err)
		}
		ms := 0
		for i, c := range s.Cues {
			start := float64(ms) / 1000 / tempo
			ms += c.DurationMS
			if !c.Caption {
				continue
			}
			at := int(start * SampleRate)
			before := diffEnergy(pcm, at-992, at-220)
			after := diffEnergy(pcm, at+110, at+882)
			if after < 1.5*before {
				t.Errorf("tempo %v cue %d at %.2f s: energy %.3g after the start, %.3g before; want a bell onset", tempo, i, start, after, before)
			}
		}
	}
}

// diffEnergy is the mean squared first difference over [from, to).
func diffEnergy(pcm []int16, from, to int) float64 {
	from = max(1, from)
	to = min(len(pcm), to)
	sum := 0.0
	for i := from; i < to; i++ {
		d := float64(pcm[i]) - float64(pcm[i-1])
		sum += d * d
	}
	return sum / float64(max(1, to-from))
}

func TestSoundtrackRejects(t *testing.T) {
	good := testScore()
	bad := []struct {
		name  string
		score Score
		tempo float64
	}{
		{"tempo 0", good, 0},
		{"negative tempo", good, -1},
		{"NaN tempo", good, math.NaN()},
		{"infinite tempo", good, math.Inf(1)},
		{"no cues", Score{}, 1},
		{"zero duration", Score{Cues: []ScoreCue{{DurationMS: 0}}}, 1},
		{"negative act", Score{Cues: []ScoreCue{{DurationMS: 10, Act: -1}}}, 1},
		{"too bright", Score{Cues: []ScoreCue{{DurationMS: 10, Brightness: 1.5}}}, 1},
		{"NaN brightness", Score{Cues: []ScoreCue{{DurationMS: 10, Brightness: math.NaN()}}}, 1},
		{"too long", Score{Cues: []ScoreCue{{DurationMS: 16 * 60 * 1000}}}, 1},
		{"too slow", Score{Cues: []ScoreCue{{DurationMS: 60 * 1000}}}, 0.01},
	}
	for _, c := range bad {
		if _, err := Soundtrack(c.score, c.tempo); !errors.Is(err, ErrScore) {
			t.Errorf("%s: %v, want ErrScore", c.name, err)
		}
	}
	// One very short cue still makes a valid (tail-only) piece.
	if pcm, err := Soundtrack(Score{Cues: []ScoreCue{{DurationMS: 1}}}, 1); err != nil || len(pcm) == 0 {
		t.Fatalf("one cue of 1 ms: %d samples, %v", len(pcm), err)
	}
}

func BenchmarkSoundtrack45s(b *testing.B) {
	var s Score
	for i := 0; i < 80; i++ {
		s.Cues = append(s.Cues, ScoreCue{DurationMS: 560, Act: i / 12, Caption: i%6 == 0, Brightness: float64(i%10) / 10})
	}
	for b.Loop() {
		if _, err := Soundtrack(s, 1); err != nil {
			b.Fatal(err)
		}
	}
}
