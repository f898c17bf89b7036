package audio

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/testenv/testutil"
)

// fakePlayer writes a shell script that records each call ("<args>" per
// line in the returned log) and then sleeps for sleep seconds (exec, so
// the signal reaches the sleeping process itself).
func fakePlayer(t *testing.T, sleep string) (cmd []string, log string) {
	t.Helper()
	testutil.Command(t, "sh")
	dir := t.TempDir()
	log = filepath.Join(dir, "calls.log")
	script := filepath.Join(dir, "paplay")
	body := fmt.Sprintf("#!/bin/sh\necho \"$@\" >> %q\nexec sleep %s\n", log, sleep)
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return []string{script, "--flag"}, log
}

func calls(t *testing.T, log string) []string {
	t.Helper()
	b, err := os.ReadFile(log)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// waitCalls waits (bounded) until the log has n lines.
func waitCalls(t *testing.T, log string, n int) []string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if c := calls(t, log); len(c) >= n {
			return c
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("player called %d times, want %d: %q", len(calls(t, log)), n, calls(t, log))
	return nil
}

// fakeClock is a settable clock for the debounce.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) set(sec float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = time.Unix(1_700_000_000, 0).Add(time.Duration(sec * float64(time.Second)))
}

func newPlayer(t *testing.T, opts PlayerOptions) *Player {
	t.Helper()
	if opts.TempDir == "" {
		opts.TempDir = t.TempDir()
	}
	p, err := NewPlayer(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

func TestCase049_FindPlayer(t *testing.T) {
	only := func(names ...string) func(string) (string, error) {
		return func(n string) (string, error) {
			for _, x := range names {
				if x == n {
					return "/usr/bin/" + n, nil
				}
			}
			return "", exec.ErrNotFound
		}
	}
	cases := []struct {
		have []string
		want string
	}{
		{[]string{"pw-play"}, "/usr/bin/pw-play"},
		{[]string{"aplay", "paplay", "pw-play"}, "/usr/bin/pw-play"},
		{[]string{"aplay", "paplay"}, "/usr/bin/paplay"},
		{[]string{"aplay"}, "/usr/bin/aplay -q"},
		{[]string{"afplay", "ffplay"}, "/usr/bin/afplay"},
		{[]string{"ffplay"}, "/usr/bin/ffplay -nodisp -autoexit -loglevel quiet"},
	}
	for _, c := range cases {
		got, err := FindPlayer(only(c.have...))
		if err != nil || strings.Join(got, " ") != c.want {
			t.Errorf("with %v: %q, %v; want %q", c.have, got, err, c.want)
		}
	}
	_, err := FindPlayer(only())
	if !errors.Is(err, ErrNoPlayer) || err.Error() != "audio requested, but no supported player was found (pw-play, paplay, aplay, afplay, or ffplay)" {
		t.Fatalf("none: %v", err)
	}
}

func TestCase047_DebounceSameFileAndClose(t *testing.T) {
	cmd, log := fakePlayer(t, "0")
	clock := &fakeClock{}
	clock.set(1.0)
	p := newPlayer(t, PlayerOptions{Command: cmd, Now: clock.now})
	if err := p.Play(Approve, 2); err != nil {
		t.Fatal(err)
	}
	clock.set(1.05)
	if err := p.Play(Approve, 2); !errors.Is(err, ErrDebounced) {
		t.Fatalf("repeat after 0.05 s: %v, want ErrDebounced", err)
	}
	waitCalls(t, log, 1) // let the first finish so the queue is free
	clock.set(2.0)
	if err := p.Play(Approve, 2); err != nil {
		t.Fatal(err)
	}
	got := waitCalls(t, log, 2)
	time.Sleep(100 * time.Millisecond)
	if got = calls(t, log); len(got) != 2 {
		t.Fatalf("%d launches, want 2: %q", len(got), got)
	}
	wav := filepath.Join(p.Dir(), "earcon-approve-2.wav")
	for _, c := range got {
		if c != "--flag "+wav {
			t.Fatalf("call %q, want the options then %s", c, wav)
		}
	}
	if b, err := os.ReadFile(wav); err != nil || len(b) < 44 {
		t.Fatalf("WAV: %d bytes, %v", len(b), err)
	}
	// Another slot is another earcon: not debounced.
	if err := p.Play(Approve, 3); err != nil {
		t.Fatal(err)
	}
	waitCalls(t, log, 3)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p.Dir()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the sound folder is still there after Close: %v", err)
	}
	if err := p.Play(Approve, 4); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func TestCase047_CloseTerminatesPlayers(t *testing.T) {
	cmd, log := fakePlayer(t, "30")
	p := newPlayer(t, PlayerOptions{Command: cmd})
	if err := p.Play(Success, NoSlot); err != nil {
		t.Fatal(err)
	}
	if err := p.StartSoundtrack(testScore(), 1, time.Now()); err != nil {
		t.Fatal(err)
	}
	waitCalls(t, log, 2)
	start := time.Now()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("Close took %v with two players sleeping 30 s", d)
	}
}

func TestCase048_PlayerRejectsSlot8(t *testing.T) {
	cmd, _ := fakePlayer(t, "0")
	p := newPlayer(t, PlayerOptions{Command: cmd})
	err := p.Play(Approve, 8)
	if err == nil || !strings.Contains(err.Error(), "between 0 and 7") {
		t.Fatalf("slot 8: %v", err)
	}
	if err := p.Play("fanfare", 1); !errors.Is(err, ErrUnknownEarcon) {
		t.Fatalf("unknown: %v", err)
	}
}

// The control loop never waits: with a player that takes 30 s, a burst of
// earcons returns at once, plays one at a time and drops what does not
// fit in the queue.
func TestEarconNeverBlocksAndDropsWhenBusy(t *testing.T) {
	cmd, log := fakePlayer(t, "30")
	p := newPlayer(t, PlayerOptions{Command: cmd, Queue: 2})
	start := time.Now()
	busy := 0
	for i := 0; i < 200; i++ {
		name := Names()[i%len(Names())]
		err := p.Play(name, i%Slots)
		if errors.Is(err, ErrBusy) {
			busy++
		} else if err != nil && !errors.Is(err, ErrDebounced) {
			t.Fatal(err)
		}
		p.Earcon(name, i%Slots) // the sink form never fails
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("400 earcons took %v; the sink must not block", d)
	}
	if busy == 0 {
		t.Fatal("no earcon was dropped although the player is busy")
	}
	waitCalls(t, log, 1)
	time.Sleep(200 * time.Millisecond)
	if n := len(calls(t, log)); n != 1 {
		t.Fatalf("%d players run at once, want one at a time", n)
	}
}

// A player that hangs is ended after EarconTimeout and the next earcon
// plays.
func TestEarconTimeout(t *testing.T) {
	cmd, log := fakePlayer(t, "30")
	p := newPlayer(t, PlayerOptions{Command: cmd, EarconTimeout: 200 * time.Millisecond})
	if err := p.Play(Stop, 1); err != nil {
		t.Fatal(err)
	}
	if err := p.Play(Retry, 1); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	waitCalls(t, log, 2)
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("second earcon started after %v", d)
	}
}

// Earcons that waited longer than Stale are dropped, not played late.
func TestStaleEarconsAreDropped(t *testing.T) {
	cmd, log := fakePlayer(t, "0.3")
	clock := &fakeClock{}
	clock.set(0)
	p := newPlayer(t, PlayerOptions{Command: cmd, Now: clock.now})
	if err := p.Play(Question, 0); err != nil {
		t.Fatal(err)
	}
	waitCalls(t, log, 1)
	if err := p.Play(Approval, 0); err != nil { // waits behind the first
		t.Fatal(err)
	}
	clock.set(5) // ... for "5 s"
	time.Sleep(600 * time.Millisecond)
	if n := len(calls(t, log)); n != 1 {
		t.Fatalf("%d launches, want the stale earcon dropped", n)
	}
}

// A failing player is logged and the next earcon still plays.
func TestFailingPlayerIsHarmless(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "calls.log")
	script := filepath.Join(dir, "aplay")
	if err := os.WriteFile(script, []byte(fmt.Sprintf("#!/bin/sh\necho \"$@\" >> %q\nexit 3\n", log)), 0o755); err != nil {
		t.Fatal(err)
	}
	p := newPlayer(t, PlayerOptions{Command: []string{script}})
	p.Earcon(Error, 2)
	waitCalls(t, log, 1)
	p.Earcon(Success, 2)
	waitCalls(t, log, 2)
	// A player that does not exist at all.
	q := newPlayer(t, PlayerOptions{Command: []string{filepath.Join(dir, "missing")}})
	q.Earcon(Error, 2)
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestSoundtrackPlaysAlignedAndStops(t *testing.T) {
	cmd, log := fakePlayer(t, "30")
	p := newPlayer(t, PlayerOptions{Command: cmd})
	s := testScore()
	full := int(float64(s.DurationMS())/1000*SampleRate) + int(SoundtrackTail*SampleRate)

	// Start 10 s late: the first 10 s of music are skipped.
	called := time.Now()
	if err := p.StartSoundtrack(s, 1, called.Add(-10*time.Second)); err != nil {
		t.Fatal(err)
	}
	c := waitCalls(t, log, 1)
	took := int(time.Since(called).Seconds()*SampleRate) + SampleRate/10
	path := strings.TrimPrefix(c[0], "--flag ")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	info := parseWAV(t, b)
	if want := full - 10*SampleRate; len(info.samples) > want+SampleRate/10 || len(info.samples) < want-took {
		t.Fatalf("late start: %d frames, want %d minus the time it took to start", len(info.samples), want)
	}
	// A new start replaces it; it waits for its start time.
	if err := p.StartSoundtrack(s, 2, time.Now().Add(400*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	c = waitCalls(t, log, 2)
	if d := time.Since(t0); d < 300*time.Millisecond {
		t.Fatalf("started after %v, before its start time", d)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the replaced soundtrack's file is still there: %v", err)
	}
	b, _ = os.ReadFile(strings.TrimPrefix(c[1], "--flag "))
	if info = parseWAV(t, b); len(info.samples) < full/2-SampleRate || len(info.samples) > full/2+SampleRate {
		t.Fatalf("tempo 2: %d frames, want about %d", len(info.samples), full/2)
	}
	p.StopSoundtrack()
	p.StopSoundtrack() // twice is fine
	deadline := time.Now().Add(5 * time.Second)
	for {
		ents, _ := os.ReadDir(p.Dir())
		n := 0
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), "soundtrack-") {
				n++
			}
		}
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the soundtrack file stayed after StopSoundtrack")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Stopping before the start time: nothing plays.
	if err := p.StartSoundtrack(s, 1, time.Now().Add(300*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	p.StopSoundtrack()
	time.Sleep(500 * time.Millisecond)
	if n := len(calls(t, log)); n != 2 {
		t.Fatalf("%d launches, want the stopped soundtrack never started", n)
	}
	if err := p.StartSoundtrack(s, 0, time.Now()); !errors.Is(err, ErrScore) {
		t.Fatalf("tempo 0: %v", err)
	}
}

func TestPrepareFillsTheCache(t *testing.T) {
	cmd, _ := fakePlayer(t, "0")
	p := newPlayer(t, PlayerOptions{Command: cmd})
	p.Prepare(testScore(), 1)
	deadline := time.Now().Add(10 * time.Second)
	for {
		p.cacheMu.Lock()
		ok := p.cache != nil
		p.cacheMu.Unlock()
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("Prepare did not synthesize")
		}
		time.Sleep(10 * time.Millisecond)
	}
	start := time.Now()
	if _, err := p.soundtrackPCM(testScore(), 1); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 50*time.Millisecond {
		t.Fatalf("cached soundtrack took %v", d)
	}
}

func BenchmarkEarconSink(b *testing.B) {
	dir := b.TempDir()
	script := filepath.Join(dir, "paplay")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		b.Fatal(err)
	}
	p, err := NewPlayer(PlayerOptions{Command: []string{script}, TempDir: dir})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	names := Names()
	i := 0
	for b.Loop() {
		p.Earcon(names[i%len(names)], i%Slots)
		i++
	}
}
