package audio

import (
	"context"
	"errors"
	"fmt"
	"math"
)

// The Show soundtrack (experiences spec §8.6): our own music, synthesized
// from the Show's timeline so that it follows the cues.
//
//   - A soft pad holds one chord per section (an act, or each half of an
//     act longer than 12 s); the last section resolves to C major.
//   - A bass note grounds each chord.
//   - A mallet plucks on every cue (at most one every 90 ms), walking up
//     and down the chord, louder when the pad is brighter: the lights'
//     rhythm is the music's rhythm.
//   - A bell sings on every cue that brings a caption (a story beat), on
//     the C major pentatonic scale, higher when the pad is brighter.
//   - Plucks and bells go through a soft echo; after the last cue the final
//     chord rings for SoundtrackTail.
//
// Every note belongs to the chord or the pentatonic scale, so nothing
// clashes.

// ScoreCue is one cue of a Show as the soundtrack sees it.
type ScoreCue struct {
	// DurationMS is the cue's length in manifest time (> 0).
	DurationMS int
	// Act is the cue's act index (≥ 0); a new act brings a new chord.
	Act int
	// Caption is true when the cue has its own caption (a story beat).
	Caption bool
	// Brightness is how lit the pad is during the cue, 0…1.
	Brightness float64
}

// Score is the timeline the soundtrack follows.
type Score struct {
	Cues []ScoreCue
}

// SoundtrackTail is how long the last chord rings after the last cue.
const SoundtrackTail = 2.0

// Limits that keep a soundtrack bounded.
const (
	maxScoreCues      = 4096
	maxSoundtrackSecs = 15 * 60
)

// ErrScore marks a timeline the synthesizer refuses.
var ErrScore = errors.New("cannot make a soundtrack for this Show")

// DurationMS is the sum of the cue durations.
func (s Score) DurationMS() int {
	total := 0
	for _, c := range s.Cues {
		total += c.DurationMS
	}
	return total
}

func (s Score) check(tempo float64) error {
	if math.IsNaN(tempo) || math.IsInf(tempo, 0) || tempo <= 0 {
		return fmt.Errorf("%w: tempo %v must be a positive number", ErrScore, tempo)
	}
	if len(s.Cues) == 0 || len(s.Cues) > maxScoreCues {
		return fmt.Errorf("%w: %d cues (give 1 to %d)", ErrScore, len(s.Cues), maxScoreCues)
	}
	total := 0
	for i, c := range s.Cues {
		if c.DurationMS <= 0 || c.Act < 0 || math.IsNaN(c.Brightness) || c.Brightness < 0 || c.Brightness > 1 {
			return fmt.Errorf("%w: cue %d needs a duration > 0, an act ≥ 0 and a brightness between 0 and 1", ErrScore, i)
		}
		total += c.DurationMS
		if total > maxSoundtrackSecs*1000 {
			return fmt.Errorf("%w: the Show is longer than %d minutes", ErrScore, maxSoundtrackSecs/60)
		}
	}
	if float64(total)/1000/tempo > maxSoundtrackSecs {
		return fmt.Errorf("%w: at tempo %v the Show would last longer than %d minutes", ErrScore, tempo, maxSoundtrackSecs/60)
	}
	return nil
}

// chord is one harmony of the progression, as MIDI notes.
type chord struct {
	bass  int
	voice [4]int
}

// progression cycles through the sections; the last section always
// resolves to the first chord (C major 9).
var progression = [...]chord{
	{36, [4]int{55, 59, 62, 64}}, // Cmaj9: G B D E over C
	{45, [4]int{55, 60, 64, 67}}, // Am7: G C E G over A
	{41, [4]int{57, 60, 64, 67}}, // Fmaj7: A C E G over F
	{43, [4]int{55, 59, 62, 69}}, // G6/9: G B D A over G
	{40, [4]int{55, 59, 62, 67}}, // Em7: G B D G over E
	{41, [4]int{57, 60, 62, 69}}, // F6/9: A C D A over F
	{38, [4]int{57, 60, 62, 65}}, // Dm7: A C D F over D
	{43, [4]int{53, 57, 62, 67}}, // G11: F A D G over G
}

// pentatonic is C major pentatonic from C5 to A6, the bells' notes.
var pentatonic = [...]int{72, 74, 76, 79, 81, 84, 86, 88, 91, 93}

// steps is the melodic walk of the bells, in scale degrees.
var steps = [...]int{1, 1, -1, 2, -1, 1, -2, 1, 0, -1, 2, -2}

// arpeggio walks the chord's four voices and their upper octave, up and
// down, for the plucks.
var arpeggio = [...]int{0, 1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1}

// section is a span of the timeline with one chord (seconds, real time).
type section struct {
	start, end float64
	chord      chord
}

// Soundtrack synthesizes the Show's music for score played at tempo
// (1 = manifest time): mono PCM16 at SampleRate, as long as the Show at
// that tempo plus SoundtrackTail.
func Soundtrack(score Score, tempo float64) ([]int16, error) {
	return synthesize(context.Background(), score, tempo)
}

// synthesize is Soundtrack that gives up with ctx's error once ctx ends
// (a Player that closes does not wait for music no one will hear).
func synthesize(ctx context.Context, score Score, tempo float64) ([]int16, error) {
	if err := score.check(tempo); err != nil {
		return nil, err
	}
	const sr = float64(SampleRate)
	showSecs := float64(score.DurationMS()) / 1000 / tempo
	n := int(math.Ceil((showSecs + SoundtrackTail) * sr))
	mix := make([]float32, n)
	echo := make([]float32, n)

	// Cue start times in real seconds.
	starts := make([]float64, len(score.Cues))
	ms := 0
	for i, c := range score.Cues {
		starts[i] = float64(ms) / 1000 / tempo
		ms += c.DurationMS
	}

	// Sections: one per act, long acts split in two (at a cue boundary).
	var secs []section
	for i := 0; i < len(score.Cues); {
		j := i
		for j < len(score.Cues) && score.Cues[j].Act == score.Cues[i].Act {
			j++
		}
		end := showSecs
		if j < len(score.Cues) {
			end = starts[j]
		}
		if end-starts[i] > 12 {
			mid := (starts[i] + end) / 2
			k := i + 1
			for k < j-1 && starts[k] < mid {
				k++
			}
			secs = append(secs, section{start: starts[i], end: starts[k]}, section{start: starts[k], end: end})
		} else {
			secs = append(secs, section{start: starts[i], end: end})
		}
		i = j
	}
	for i := range secs {
		secs[i].chord = progression[i%len(progression)]
	}
	secs[len(secs)-1].chord = progression[0]
	secs[len(secs)-1].end = showSecs + SoundtrackTail

	// Pad and bass.
	for i, s := range secs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		attack, release := 0.9, 1.4
		if i == 0 {
			attack = 1.6
		}
		last := i == len(secs)-1
		hold := s.end - s.start
		if !last {
			hold += 0.25 // overlap into the next chord's attack
		} else {
			release = SoundtrackTail * 0.9
			hold -= release
		}
		for k, note := range s.chord.voice {
			vol := 0.055 - 0.006*float64(k)
			addPad(mix, s.start, hold, attack, release, noteFrequency(float64(note)), vol)
		}
		addBass(mix, s.start, hold, release, noteFrequency(float64(s.chord.bass)), 0.13)
	}

	// Plucks on the cues, bells on the captions.
	lastCaption := -1
	for i, c := range score.Cues {
		if c.Caption {
			lastCaption = i
		}
	}
	deg := 2
	lastPluck, lastBell := math.Inf(-1), math.Inf(-1)
	sec, step := 0, 0
	for i, c := range score.Cues {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		t := starts[i]
		for sec < len(secs)-1 && t >= secs[sec+1].start {
			sec++
			step = 0
		}
		if t-lastPluck >= 0.09 {
			lastPluck = t
			v := secs[sec].chord.voice
			k := arpeggio[step%len(arpeggio)]
			note := v[k%4] + 12*(1+k/4)
			step++
			addPluck(echo, t, 0.45, noteFrequency(float64(note)), 0.035+0.05*c.Brightness)
		}
		if !c.Caption || t-lastBell < 0.15 {
			continue
		}
		lastBell = t
		// Walk the scale, pulled towards the pad's brightness.
		target := int(math.Round(math.Sqrt(c.Brightness) * float64(len(pentatonic)-1)))
		deg += steps[i%len(steps)]
		if deg < target-2 {
			deg++
		} else if deg > target+2 {
			deg--
		}
		deg = max(0, min(len(pentatonic)-1, deg))
		note := pentatonic[deg]
		if i == lastCaption {
			note = 84 // the last story beat lands on C
		}
		vol := 0.12 + 0.06*c.Brightness
		addBell(echo, t, 1.8, noteFrequency(float64(note)), vol)
		if note+12 <= 96 {
			addBell(echo, t+0.004, 1.8, noteFrequency(float64(note+12)), vol*0.3)
		}
	}
	// The echo: dry bells plus two soft repeats 3/8 s apart.
	delay := int(math.Round(0.375 * sr))
	for i := range echo {
		v := echo[i]
		if i >= delay {
			echo[i] += 0.34 * echo[i-delay]
		}
		mix[i] += v + 0.45*(echo[i]-v)
	}
	fadeOut(mix, int(0.3*sr))
	return toPCM(mix, 0.8, 1e-6), nil
}

// SoundtrackWAV is Soundtrack as a WAV file (mono, 16-bit, SampleRate).
func SoundtrackWAV(score Score, tempo float64) ([]byte, error) {
	pcm, err := Soundtrack(score, tempo)
	if err != nil {
		return nil, err
	}
	return EncodeWAV(pcm, SampleRate, 1)
}

// span returns the sample range [first, last) of a note starting at
// start seconds and lasting dur seconds, clipped to n samples.
func span(n int, start, dur float64) (int, int) {
	first := max(0, int(math.Round(start*SampleRate)))
	last := min(n, first+int(math.Ceil(dur*SampleRate)))
	return first, last
}

// addPad is a warm sustained note: three slightly detuned sines and a
// soft octave, with a slow attack and release.
func addPad(buf []float32, start, hold, attack, release, freq, vol float64) {
	first, last := span(len(buf), start, hold+release)
	for i := first; i < last; i++ {
		t := float64(i-first) / SampleRate
		env := math.Min(1, t/attack)
		if t > hold {
			env *= math.Max(0, 1-(t-hold)/release)
		}
		// A gentle swell so the pad breathes.
		env *= 0.85 + 0.15*math.Sin(2*math.Pi*0.23*t)
		p := 2 * math.Pi * freq * t
		v := math.Sin(p) + 0.6*math.Sin(p*1.0035) + 0.6*math.Sin(p*0.9965+1.3) + 0.18*math.Sin(2*p+0.7)
		buf[i] += float32(vol * env * v)
	}
}

// addBass is a round low note with a short attack.
func addBass(buf []float32, start, hold, release, freq, vol float64) {
	first, last := span(len(buf), start, hold+release)
	for i := first; i < last; i++ {
		t := float64(i-first) / SampleRate
		env := math.Min(1, t/0.12) * (0.55 + 0.45*math.Exp(-t/1.5))
		if t > hold {
			env *= math.Max(0, 1-(t-hold)/release)
		}
		p := 2 * math.Pi * freq * t
		buf[i] += float32(vol * env * (math.Sin(p) + 0.25*math.Sin(2*p)))
	}
}

// addPluck is a soft mallet: a quick attack and a short decay.
func addPluck(buf []float32, start, dur, freq, vol float64) {
	first, last := span(len(buf), start, dur)
	for i := first; i < last; i++ {
		t := float64(i-first) / SampleRate
		env := math.Min(1, t/0.003) * math.Exp(-9*t)
		if rest := dur - t; rest < 0.04 {
			env *= rest / 0.04
		}
		p := 2 * math.Pi * freq * t
		buf[i] += float32(vol * env * (math.Sin(p) + 0.22*math.Sin(2*p)*math.Exp(-14*t)))
	}
}

// addBell is the earcons' bell voice with a longer ring.
func addBell(buf []float32, start, dur, freq, vol float64) {
	// Partials above 0.45 × the sample rate would fold back as noise.
	a2, a3 := bandLimit(0.32, 2.01*freq), bandLimit(0.14, 3.97*freq)
	first, last := span(len(buf), start, dur)
	for i := first; i < last; i++ {
		t := float64(i-first) / SampleRate
		env := math.Min(1, t/0.004) * math.Exp(-4.2*t/dur)
		if rest := dur - t; rest < 0.05 {
			env *= rest / 0.05
		}
		p := 2 * math.Pi * freq * t
		v := math.Sin(p) + a2*math.Sin(2.01*p)*math.Exp(-3*t) + a3*math.Sin(3.97*p)*math.Exp(-6*t)
		buf[i] += float32(vol * env * v)
	}
}

// bandLimit is amp for a partial the sample rate can carry, else 0.
func bandLimit(amp, freq float64) float64 {
	if freq > 0.45*SampleRate {
		return 0
	}
	return amp
}

// fadeOut ramps the last n samples down to silence.
func fadeOut(buf []float32, n int) {
	n = min(n, len(buf))
	for k := 0; k < n; k++ {
		i := len(buf) - n + k
		buf[i] *= float32(1 - float64(k+1)/float64(n))
	}
}
