package audio

import (
	"errors"
	"fmt"
	"math"
)

// Earcon names (experiences spec §8.1). The control plane uses the same
// words (control.Earcon*).
const (
	Question        = "question"
	Approval        = "approval"
	Approve         = "approve"
	Reject          = "reject"
	Retry           = "retry"
	Stop            = "stop"
	Success         = "success"
	Error           = "error"
	Cancelled       = "cancelled"
	SessionSelected = "session_selected"
	Unavailable     = "unavailable"
)

// NoSlot is the "none" slot (the same value as wire.NoSlot): an earcon in
// its untransposed form, for a session without a Scene.
const NoSlot = -1

// Slots is the number of accent slots; an earcon slot is 0…Slots-1 or
// NoSlot.
const Slots = 8

// ErrUnknownEarcon marks a name that is not one of the eleven.
var ErrUnknownEarcon = errors.New("unknown earcon")

// ErrSlot marks a slot outside 0…7 and not NoSlot.
var ErrSlot = errors.New("earcon slot out of range")

// voice is a timbre of Appendix A.
type voice int

const (
	bell voice = iota // sin φ + 0.32 sin 2.01φ + 0.14 sin 3.97φ, decaying
	dark              // sin φ + 0.18 sin 0.5φ
)

// tone is one note of an earcon: start and duration in seconds, the
// interval in semitones above the slot's root, volume and voice.
type tone struct {
	start, dur float64
	interval   int
	volume     float64
	voice      voice
}

// earconTones is Appendix A: every earcon's notes, relative to the root.
// The order of names is the order of Names().
var earconTones = [...]struct {
	name  string
	tones []tone
}{
	{Question, []tone{{0, 0.24, 0, 0.22, bell}, {0.2, 0.38, 7, 0.24, bell}}},
	{Approval, []tone{{0, 0.22, 0, 0.2, bell}, {0, 0.22, 6, 0.12, bell}, {0.3, 0.3, 0, 0.2, bell}, {0.3, 0.3, 6, 0.12, bell}}},
	{Approve, []tone{{0, 0.28, 0, 0.2, bell}, {0.09, 0.28, 4, 0.2, bell}, {0.18, 0.28, 7, 0.2, bell}}},
	{Reject, []tone{{0, 0.28, 3, 0.2, bell}, {0.18, 0.38, -2, 0.22, dark}}},
	{Retry, []tone{{0, 0.25, 0, 0.18, bell}, {0.11, 0.25, 2, 0.18, bell}, {0.22, 0.25, 4, 0.18, bell}}},
	{Stop, []tone{{0, 0.2, 0, 0.22, dark}, {0.14, 0.36, -12, 0.24, dark}}},
	{Success, []tone{{0, 0.42, 0, 0.2, bell}, {0.1, 0.42, 4, 0.2, bell}, {0.2, 0.42, 7, 0.2, bell}, {0.3, 0.42, 12, 0.2, bell}}},
	{Error, []tone{{0, 0.3, 0, 0.2, dark}, {0.12, 0.38, -1, 0.18, dark}, {0.28, 0.4, -7, 0.22, dark}}},
	{Cancelled, []tone{{0, 0.16, -12, 0.18, dark}, {0.24, 0.2, -12, 0.16, dark}}},
	{SessionSelected, []tone{{0, 0.5, 12, 0.22, bell}}},
	{Unavailable, []tone{{0, 0.14, -18, 0.13, dark}}},
}

// slotIntervals transposes an earcon per accent slot: C D E F G A B C
// above middle C (§8.1).
var slotIntervals = [Slots]int{0, 2, 4, 5, 7, 9, 11, 12}

// Names returns the eleven earcon names in a fixed order.
func Names() []string {
	out := make([]string, len(earconTones))
	for i, e := range earconTones {
		out[i] = e.name
	}
	return out
}

// Known reports whether name is one of the eleven earcons.
func Known(name string) bool {
	_, ok := tonesOf(name)
	return ok
}

func tonesOf(name string) ([]tone, bool) {
	for _, e := range earconTones {
		if e.name == name {
			return e.tones, true
		}
	}
	return nil, false
}

// CheckSlot accepts 0…7 and NoSlot.
func CheckSlot(slot int) error {
	if slot == NoSlot || (slot >= 0 && slot < Slots) {
		return nil
	}
	return fmt.Errorf("%w: slot %d must be between 0 and 7, or none", ErrSlot, slot)
}

// SlotName is the slot as it appears in file names: "0"…"7" or "none".
func SlotName(slot int) string {
	if slot == NoSlot {
		return "none"
	}
	return fmt.Sprint(slot)
}

// EarconFile is the bank file name of an earcon, e.g.
// "earcon-approve-3.wav" or "earcon-approve-none.wav" (§8.2).
func EarconFile(name string, slot int) string {
	return "earcon-" + name + "-" + SlotName(slot) + ".wav"
}

// EarconAsset is the earcon's path relative to the browser pad's root,
// "experiences/audio/earcon-{name}-{slot}.wav" (§8.4).
func EarconAsset(name string, slot int) string {
	return AssetDir + "/" + EarconFile(name, slot)
}

// AssetDir is where the browser pad serves the generated sounds, relative
// to its root.
const AssetDir = "experiences/audio"

// rootNote is the MIDI note of a slot's root: 60 + interval(slot), 60 for
// none.
func rootNote(slot int) int {
	if slot == NoSlot {
		return 60
	}
	return 60 + slotIntervals[slot]
}

// noteFrequency is equal temperament with A4 = 440 Hz.
func noteFrequency(note float64) float64 {
	return 440 * math.Pow(2, (note-69)/12)
}

// RenderEarcon synthesizes an earcon as mono PCM16 at SampleRate
// (Appendix A): the tones summed into a float32 buffer, then scaled by
// 0.78 / max(1, peak) and rounded half to even.
func RenderEarcon(name string, slot int) ([]int16, error) {
	tones, ok := tonesOf(name)
	if !ok {
		return nil, fmt.Errorf("%w %q (use one of %v)", ErrUnknownEarcon, name, Names())
	}
	if err := CheckSlot(slot); err != nil {
		return nil, err
	}
	length := 0.0
	for _, t := range tones {
		length = math.Max(length, t.start+t.dur)
	}
	length += 0.04
	n := max(1, int(math.Ceil(length*SampleRate)))
	buf := make([]float32, n)
	root := rootNote(slot)
	for _, t := range tones {
		addTone(buf, t, noteFrequency(float64(root+t.interval)))
	}
	return toPCM(buf, 0.78, 1), nil
}

// addTone mixes one Appendix A tone into buf.
func addTone(buf []float32, t tone, freq float64) {
	const sr = float64(SampleRate)
	first := int(math.RoundToEven(t.start * sr))
	count := max(1, int(math.RoundToEven(t.dur*sr)))
	last := min(len(buf), first+count)
	attack := math.Max(math.Min(0.035, 0.2*t.dur), 1/sr)
	release := math.Max(math.Min(0.25, 0.4*t.dur), 1/sr)
	for i := max(0, first); i < last; i++ {
		tt := float64(i-first) / sr
		env := math.Min(1, math.Min(tt/attack, (t.dur-tt)/release))
		phi := 2 * math.Pi * freq * tt
		var v float64
		switch t.voice {
		case bell:
			v = math.Sin(phi) + 0.32*math.Sin(2.01*phi) + 0.14*math.Sin(3.97*phi)
			env *= math.Exp(-2.8 * tt / t.dur)
		default:
			v = math.Sin(phi) + 0.18*math.Sin(0.5*phi)
		}
		buf[i] += float32(t.volume * env * v)
	}
}

// toPCM scales buf by ceiling / max(floor, peak) and converts it to
// PCM16, rounding half to even and clamping. Earcons use floor 1 (only
// loud mixes are turned down, §A); the soundtrack uses a small floor so it
// is always brought to the ceiling.
func toPCM(buf []float32, ceiling, floor float64) []int16 {
	peak := floor
	for _, s := range buf {
		peak = math.Max(peak, math.Abs(float64(s)))
	}
	gain := ceiling / peak
	out := make([]int16, len(buf))
	for i, s := range buf {
		out[i] = pcm16(float64(s) * gain)
	}
	return out
}

// pcm16 maps −1…1 to a 16-bit sample, half to even, clamped.
func pcm16(x float64) int16 {
	v := math.RoundToEven(x * 32767)
	return int16(math.Max(-32768, math.Min(32767, v)))
}

// EarconWAV is RenderEarcon as a WAV file (mono, 16-bit, SampleRate).
func EarconWAV(name string, slot int) ([]byte, error) {
	pcm, err := RenderEarcon(name, slot)
	if err != nil {
		return nil, err
	}
	return EncodeWAV(pcm, SampleRate, 1)
}

// Bank returns the earcon bank of §8.2: all eleven earcons in every slot
// (0…7 and none), 99 WAV files by file name.
func Bank() (map[string][]byte, error) {
	out := make(map[string][]byte, len(earconTones)*(Slots+1))
	for _, name := range Names() {
		for slot := NoSlot; slot < Slots; slot++ {
			b, err := EarconWAV(name, slot)
			if err != nil {
				return nil, err
			}
			out[EarconFile(name, slot)] = b
		}
	}
	return out, nil
}
