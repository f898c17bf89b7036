package audio

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/lets-app/lets/backend/control"
	"github.com/lets-app/lets/backend/wire"
)

// The sink the daemon's control plane calls.
var _ control.EarconSink = (*Player)(nil)

func TestNamesAreTheControlPlanesWords(t *testing.T) {
	want := []string{control.EarconQuestion, control.EarconApproval, control.EarconApprove, control.EarconReject,
		control.EarconRetry, control.EarconStop, control.EarconSuccess, control.EarconError, control.EarconCancelled,
		control.EarconSessionSelected, control.EarconUnavailable}
	got := Names()
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("Names() = %v, want %v", got, want)
	}
	for _, n := range want {
		if !Known(n) {
			t.Errorf("%s not known", n)
		}
	}
	for _, n := range []string{"", "running", "user_typing", "Approve", "greeting"} {
		if Known(n) {
			t.Errorf("%q must not be an earcon (running and user_typing never sound)", n)
		}
	}
	if NoSlot != wire.NoSlot {
		t.Fatalf("NoSlot %d, wire.NoSlot %d", NoSlot, wire.NoSlot)
	}
}

// §8.2: every slot of a name has one length (seconds), unavailable is
// exactly 3970 frames.
var earconSeconds = map[string]float64{
	Approval: 0.64, Approve: 0.50, Cancelled: 0.48, Error: 0.72, Question: 0.62, Reject: 0.60,
	Retry: 0.51, SessionSelected: 0.54, Stop: 0.54, Success: 0.76, Unavailable: 0.18,
}

func TestCase050_EarconFormatDurationsAndNoClipping(t *testing.T) {
	for _, name := range Names() {
		for slot := NoSlot; slot < Slots; slot++ {
			b, err := EarconWAV(name, slot)
			if err != nil {
				t.Fatal(err)
			}
			info := parseWAV(t, b)
			if info.channels != 1 || info.bits != 16 || info.rate != 22050 || len(info.samples) == 0 {
				t.Fatalf("%s/%d: %d ch, %d bit, %d Hz, %d frames", name, slot, info.channels, info.bits, info.rate, len(info.samples))
			}
			// ± 1 frame: the length is rounded up from a sum of seconds in floating point.
			if want := earconSeconds[name] * SampleRate; math.Abs(float64(len(info.samples))-want) > 1 {
				t.Errorf("%s/%s: %d frames, want %.0f (%.2f s)", name, SlotName(slot), len(info.samples), want, earconSeconds[name])
			}
			// No clipping: the mix is scaled to at most 0.78 of full scale.
			peak := 0
			for _, s := range info.samples {
				peak = max(peak, int(math.Abs(float64(s))))
			}
			if peak > 25559 || peak < 2000 {
				t.Errorf("%s/%s: peak %d, want audible and ≤ 0.78 full scale", name, SlotName(slot), peak)
			}
			// Starts and ends quietly (no click).
			first, last := info.samples[0], info.samples[len(info.samples)-1]
			if abs16(first) > 200 || abs16(last) > 200 {
				t.Errorf("%s/%s: starts at %d, ends at %d", name, SlotName(slot), first, last)
			}
		}
	}
	if pcm, _ := RenderEarcon(Unavailable, NoSlot); len(pcm) != 3970 {
		t.Fatalf("unavailable: %d frames, want exactly 3970", len(pcm))
	}
	// The reference's earcon-stop-none.wav is 23858 bytes (web spec case 9).
	if b, _ := EarconWAV(Stop, NoSlot); len(b) != 23858 {
		t.Fatalf("stop/none: %d bytes, want 23858", len(b))
	}
}

func abs16(s int16) int { return int(math.Abs(float64(s))) }

func TestCase050_BankHas99Files(t *testing.T) {
	bank, err := Bank()
	if err != nil {
		t.Fatal(err)
	}
	if len(bank) != 99 {
		t.Fatalf("%d files, want 99", len(bank))
	}
	for _, name := range Names() {
		for _, s := range []string{"0", "1", "2", "3", "4", "5", "6", "7", "none"} {
			if _, ok := bank["earcon-"+name+"-"+s+".wav"]; !ok {
				t.Errorf("missing earcon-%s-%s.wav", name, s)
			}
		}
	}
}

func TestCase051_BrowserFileNames(t *testing.T) {
	if got := EarconAsset(Approve, 3); got != "experiences/audio/earcon-approve-3.wav" {
		t.Fatal(got)
	}
	if got := EarconAsset(Approve, NoSlot); got != "experiences/audio/earcon-approve-none.wav" {
		t.Fatal(got)
	}
}

func TestCase048_SlotOutOfRange(t *testing.T) {
	for _, slot := range []int{8, -2, 100} {
		_, err := RenderEarcon(Approve, slot)
		if !errors.Is(err, ErrSlot) || !strings.Contains(err.Error(), "between 0 and 7") {
			t.Errorf("slot %d: %v", slot, err)
		}
	}
	if _, err := RenderEarcon("fanfare", 0); !errors.Is(err, ErrUnknownEarcon) {
		t.Errorf("unknown name: %v", err)
	}
}

func TestEarconsAreDeterministicAndDistinct(t *testing.T) {
	seen := map[[32]byte]string{}
	for _, name := range Names() {
		for slot := NoSlot; slot < Slots; slot++ {
			a, _ := EarconWAV(name, slot)
			b, _ := EarconWAV(name, slot)
			if !bytes.Equal(a, b) {
				t.Fatalf("%s/%d: two renders differ", name, slot)
			}
			h := sha256.Sum256(a)
			id := name + "/" + SlotName(slot)
			if other, dup := seen[h]; dup {
				// Slot none and slot 0 share the root note (60): same sound.
				if !(slot == 0 && other == name+"/none") {
					t.Errorf("%s sounds exactly like %s", id, other)
				}
			}
			seen[h] = id
		}
	}
}

// The slot transposes the root: C D E F G A B C (§8.1). The
// session_selected bell is one note, root+12: its energy must sit at that
// pitch rather than a semitone either side.
func TestSlotTransposition(t *testing.T) {
	semis := []int{0, 2, 4, 5, 7, 9, 11, 12}
	for slot, st := range semis {
		pcm, _ := RenderEarcon(SessionSelected, slot)
		want := 440 * math.Pow(2, float64(60+st+12-69)/12)
		at := goertzel(pcm, want)
		for _, off := range []float64{-1, 1} {
			if other := goertzel(pcm, want*math.Pow(2, off/12)); other*4 > at {
				t.Errorf("slot %d: power %.3g at %.1f Hz is not well above %.3g a semitone away", slot, at, want, other)
			}
		}
	}
}

// goertzel is the signal's power at freq.
func goertzel(pcm []int16, freq float64) float64 {
	w := 2 * math.Pi * freq / SampleRate
	c := 2 * math.Cos(w)
	var s1, s2 float64
	for _, x := range pcm {
		s0 := float64(x) + c*s1 - s2
		s2, s1 = s1, s0
	}
	return s1*s1 + s2*s2 - c*s1*s2
}

// TestGeneratedBankIsFresh: the browser's copies in
// frontend/static/pad/experiences/audio are what Bank() makes now.
func TestGeneratedBankIsFresh(t *testing.T) {
	dir := filepath.Join("..", "..", "frontend", "static", "pad", "experiences", "audio")
	bank, err := Bank()
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(bank))
	for n := range bank {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		got, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil || !bytes.Equal(got, bank[n]) {
			t.Fatalf("%s is missing or stale (%v): run `go generate ./frontend/` and commit frontend/static/pad/experiences/audio", n, err)
		}
	}
}

func BenchmarkBank(b *testing.B) {
	for b.Loop() {
		if _, err := Bank(); err != nil {
			b.Fatal(err)
		}
	}
}
