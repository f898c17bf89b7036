package audio

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/clock"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// fakePlayer writes a shell script that records each call ("<pid> <args>"
// per line in the returned log, one write each) and then sleeps for sleep
// seconds (exec, so the signal reaches the sleeping process itself, with
// the pid recorded).
func fakePlayer(t *testing.T, sleep string) (cmd []string, log string) {
	t.Helper()
	testutil.Command(t, "sh")
	dir := t.TempDir()
	log = filepath.Join(dir, "calls.log")
	script := filepath.Join(dir, "paplay")
	body := fmt.Sprintf("#!/bin/sh\necho \"$$ $*\" >> %q\nexec sleep %s\n", log, sleep)
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return []string{script, "--flag"}, log
}

// call is one start of the fake player.
type call struct {
	pid  int
	args string // "--flag <wav>"
}

// file is the WAV the player was given.
func (c call) file() string { return strings.TrimPrefix(c.args, "--flag ") }

// calls reads the fake player's log. A line counts once its newline is
// there: the shell creates the log before it writes the line, so a read
// between the two finds an empty file (which once read as one call with an
// empty path: "open : no such file or directory").
func calls(t *testing.T, log string) []call {
	t.Helper()
	b, err := os.ReadFile(log)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return parseCalls(t, string(b))
}

func parseCalls(t *testing.T, log string) []call {
	t.Helper()
	end := strings.LastIndexByte(log, '\n')
	if end < 0 {
		return nil
	}
	var out []call
	for _, line := range strings.Split(log[:end], "\n") {
		pid, args, _ := strings.Cut(line, " ")
		n, err := strconv.Atoi(pid)
		if err != nil {
			t.Fatalf("the fake player logged %q", line)
		}
		out = append(out, call{pid: n, args: args})
	}
	return out
}

// waitCalls waits until the log has at least n calls and returns them.
func waitCalls(t *testing.T, log string, n int) []call {
	t.Helper()
	var c []call
	testutil.Eventually(t, fmt.Sprintf("the player is called %d times", n), func() bool {
		c = calls(t, log)
		return len(c) >= n
	})
	return c
}

// files are the WAVs of calls, in order.
func files(c []call) []string {
	out := make([]string, len(c))
	for i, x := range c {
		out[i] = x.file()
	}
	return out
}

// epoch is where the tests' fake clocks start.
var epoch = time.Unix(1_700_000_000, 0)

// currentTrack is the soundtrack that plays or waits, if any.
func (p *Player) currentTrack() *soundtrack {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.track
}

// blockUntil waits until n timers are armed on clk.
func blockUntil(t *testing.T, clk *clock.Fake, n int, what string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testutil.EventuallyTimeout)
	defer cancel()
	if err := clk.BlockUntil(ctx, n); err != nil {
		t.Fatalf("waiting until %s: %v", what, err)
	}
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

// The log of the fake player counts only complete lines, so reading it
// while the shell has created it but not yet written a line finds no call.
func TestFakePlayerLogCountsCompleteLines(t *testing.T) {
	if c := parseCalls(t, ""); c != nil {
		t.Errorf("an empty log: %v", c)
	}
	if c := parseCalls(t, "41 --flag /a.wav"); c != nil {
		t.Errorf("a line still being written: %v", c)
	}
	c := parseCalls(t, "41 --flag /a.wav\n42 --flag /b.wav\n43 --fl")
	if len(c) != 2 || c[0] != (call{41, "--flag /a.wav"}) || c[1].file() != "/b.wav" {
		t.Errorf("two lines and a partial one: %v", c)
	}
}

func TestCase047_DebounceSameFileAndClose(t *testing.T) {
	cmd, log := fakePlayer(t, "0")
	clk := clock.NewFake(epoch)
	p := newPlayer(t, PlayerOptions{Command: cmd, Clock: clk})
	if err := p.Play(Approve, 2); err != nil {
		t.Fatal(err)
	}
	clk.Advance(50 * time.Millisecond)
	if err := p.Play(Approve, 2); !errors.Is(err, ErrDebounced) {
		t.Fatalf("repeat after 0.05 s: %v, want ErrDebounced", err)
	}
	clk.Advance(950 * time.Millisecond)
	if err := p.Play(Approve, 2); err != nil {
		t.Fatal(err)
	}
	// Another slot is another earcon: not debounced. Earcons play in
	// order, so once it played, a wrongly queued repeat would show before it.
	if err := p.Play(Approve, 3); err != nil {
		t.Fatal(err)
	}
	got := files(waitCalls(t, log, 3))
	wav2, wav3 := filepath.Join(p.Dir(), "earcon-approve-2.wav"), filepath.Join(p.Dir(), "earcon-approve-3.wav")
	if want := []string{wav2, wav2, wav3}; !slices.Equal(got, want) {
		t.Fatalf("played %q, want %q", got, want)
	}
	if b, err := os.ReadFile(wav2); err != nil || len(b) < 44 {
		t.Fatalf("WAV: %d bytes, %v", len(b), err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if n := len(calls(t, log)); n != 3 || p.Launches() != 3 {
		t.Fatalf("%d calls, %d launches, want 3", n, p.Launches())
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

// closeWithPlayers starts an earcon and the soundtrack with a player that
// would run for 300 s and returns the player and their pids.
func closeWithPlayers(t *testing.T, cmd []string, log string) (*Player, []int) {
	t.Helper()
	p := newPlayer(t, PlayerOptions{Command: cmd})
	if err := p.Play(Success, NoSlot); err != nil {
		t.Fatal(err)
	}
	if err := p.StartSoundtrack(testScore(), 1, time.Now()); err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, c := range waitCalls(t, log, 2) {
		pids = append(pids, c.pid)
	}
	return p, pids
}

func TestCase047_CloseTerminatesPlayers(t *testing.T) {
	cmd, log := fakePlayer(t, "300")
	p, pids := closeWithPlayers(t, cmd, log)
	closed := make(chan error, 1)
	go func() { closed <- p.Close() }()
	if err := testutil.Wait(t, "Close returns with two players sleeping 300 s", closed); err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("player %d still there after Close: %v", pid, err)
		}
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

// The control loop never waits: with a player that takes 300 s, a burst of
// earcons returns (a blocking Play would wait 300 s), plays one at a time
// and drops what does not fit in the queue. How fast the sink is,
// BenchmarkEarconSink measures.
func TestEarconNeverBlocksAndDropsWhenBusy(t *testing.T) {
	cmd, log := fakePlayer(t, "300")
	p := newPlayer(t, PlayerOptions{Command: cmd, Queue: 2})
	type result struct {
		busy int
		err  error
	}
	done := make(chan result, 1)
	go func() {
		var r result
		for i := 0; i < 200; i++ {
			name := Names()[i%len(Names())]
			err := p.Play(name, i%Slots)
			if errors.Is(err, ErrBusy) {
				r.busy++
			} else if err != nil && !errors.Is(err, ErrDebounced) && r.err == nil {
				r.err = err
			}
			p.Earcon(name, i%Slots) // the sink form never fails
		}
		done <- r
	}()
	r := testutil.Wait(t, "400 earcons are accepted or dropped", done)
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.busy == 0 {
		t.Fatal("no earcon was dropped although the player is busy")
	}
	waitCalls(t, log, 1)
	// The first player sleeps 300 s; the others wait for it.
	if n := p.Launches(); n != 1 {
		t.Fatalf("%d players run at once, want one at a time", n)
	}
}

// A player that hangs is ended after EarconTimeout (on the player's
// clock) and the next earcon plays.
func TestEarconTimeout(t *testing.T) {
	cmd, log := fakePlayer(t, "300")
	clk := clock.NewFake(epoch)
	p := newPlayer(t, PlayerOptions{Command: cmd, Clock: clk, EarconTimeout: 200 * time.Millisecond})
	if err := p.Play(Stop, 1); err != nil {
		t.Fatal(err)
	}
	if err := p.Play(Retry, 1); err != nil {
		t.Fatal(err)
	}
	first := waitCalls(t, log, 1)[0]
	blockUntil(t, clk, 1, "the first earcon's timeout is armed")
	if n := p.Launches(); n != 1 {
		t.Fatalf("%d launches before the timeout, want the second earcon waiting", n)
	}
	clk.Advance(200 * time.Millisecond)
	c := waitCalls(t, log, 2)
	if want := []string{first.file(), filepath.Join(p.Dir(), EarconFile(Retry, 1))}; !slices.Equal(files(c), want) {
		t.Fatalf("played %q, want %q", files(c), want)
	}
	if err := syscall.Kill(first.pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the timed-out player %d is still there: %v", first.pid, err)
	}
}

// Earcons that waited longer than Stale are dropped, not played late.
func TestStaleEarconsAreDropped(t *testing.T) {
	cmd, log := fakePlayer(t, "300")
	clk := clock.NewFake(epoch)
	p := newPlayer(t, PlayerOptions{Command: cmd, Clock: clk})
	if err := p.Play(Question, 0); err != nil {
		t.Fatal(err)
	}
	waitCalls(t, log, 1)
	if err := p.Play(Approval, 0); err != nil { // waits behind the first ...
		t.Fatal(err)
	}
	blockUntil(t, clk, 1, "the first earcon's timeout is armed")
	clk.Advance(DefaultEarconTimeout)          // ... which hangs until its timeout, 4 s > Stale
	if err := p.Play(Success, 0); err != nil { // fresh: plays after the stale one
		t.Fatal(err)
	}
	c := waitCalls(t, log, 2)
	want := []string{filepath.Join(p.Dir(), EarconFile(Question, 0)), filepath.Join(p.Dir(), EarconFile(Success, 0))}
	if !slices.Equal(files(c), want) {
		t.Fatalf("played %q, want %q: the stale earcon dropped", files(c), want)
	}
}

// A failing player is logged and the next earcon still plays.
func TestFailingPlayerIsHarmless(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "calls.log")
	script := filepath.Join(dir, "aplay")
	if err := os.WriteFile(script, []byte(fmt.Sprintf("#!/bin/sh\necho \"$$ $*\" >> %q\nexit 3\n", log)), 0o755); err != nil {
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

// The soundtrack lines up with its start time on the player's clock: a
// late start skips what is over, a start to come waits for it, a new start
// replaces the old, and a stop before the start time plays nothing.
func TestSoundtrackPlaysAlignedAndStops(t *testing.T) {
	cmd, log := fakePlayer(t, "300")
	clk := clock.NewFake(epoch)
	p := newPlayer(t, PlayerOptions{Command: cmd, Clock: clk})
	s := testScore()
	full := int(math.Ceil((float64(s.DurationMS())/1000 + SoundtrackTail) * SampleRate))
	frames := func(c call) int {
		t.Helper()
		b, err := os.ReadFile(c.file())
		if err != nil {
			t.Fatal(err)
		}
		return len(parseWAV(t, b).samples)
	}

	// Start 10 s late: exactly the first 10 s of music are skipped.
	if err := p.StartSoundtrack(s, 1, clk.Now().Add(-10*time.Second)); err != nil {
		t.Fatal(err)
	}
	c := waitCalls(t, log, 1)
	if n, want := frames(c[0]), full-10*SampleRate; n != want {
		t.Fatalf("late start: %d frames, want %d", n, want)
	}
	// A new start replaces it: the old player stops, its file goes, and
	// the new one waits for its start time.
	old := p.currentTrack()
	if err := p.StartSoundtrack(s, 2, clk.Now().Add(400*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	testutil.Wait(t, "the replaced soundtrack stops", old.done)
	if _, err := os.Stat(c[0].file()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the replaced soundtrack's file is still there: %v", err)
	}
	blockUntil(t, clk, 1, "the new soundtrack waits for its start time")
	clk.Advance(399 * time.Millisecond)
	if n := p.Launches(); n != 1 {
		t.Fatalf("%d launches 1 ms before the start time, want 1", n)
	}
	clk.Advance(time.Millisecond)
	c = waitCalls(t, log, 2)
	tempo2, err := Soundtrack(s, 2)
	if err != nil {
		t.Fatal(err)
	}
	if n := frames(c[1]); n != len(tempo2) || n >= full {
		t.Fatalf("tempo 2, on time: %d frames, want all %d (tempo 1: %d)", n, len(tempo2), full)
	}
	tr := p.currentTrack()
	p.StopSoundtrack()
	p.StopSoundtrack() // twice is fine
	testutil.Wait(t, "the stopped soundtrack ends", tr.done)
	ents, err := os.ReadDir(p.Dir())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "soundtrack-") {
			t.Errorf("%s stayed after StopSoundtrack", e.Name())
		}
	}
	if err := syscall.Kill(c[1].pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the stopped soundtrack's player %d is still there: %v", c[1].pid, err)
	}
	// Stopping before the start time: nothing plays.
	if err := p.StartSoundtrack(s, 1, clk.Now().Add(300*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	tr = p.currentTrack()
	p.StopSoundtrack()
	testutil.Wait(t, "the soundtrack stopped before its start ends", tr.done)
	if n := p.Launches(); n != 2 || clk.Pending() != 0 {
		t.Fatalf("%d launches, %d timers armed: want the stopped soundtrack never started", n, clk.Pending())
	}
	if err := p.StartSoundtrack(s, 0, clk.Now()); !errors.Is(err, ErrScore) {
		t.Fatalf("tempo 0: %v", err)
	}
}

func TestPrepareFillsTheCache(t *testing.T) {
	cmd, _ := fakePlayer(t, "0")
	p := newPlayer(t, PlayerOptions{Command: cmd})
	p.Prepare(testScore(), 1)
	var cached *cachedTrack
	testutil.Eventually(t, "Prepare synthesizes the soundtrack", func() bool {
		p.cacheMu.Lock()
		defer p.cacheMu.Unlock()
		cached = p.cache
		return cached != nil
	})
	pcm, err := p.soundtrackPCM(context.Background(), testScore(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(pcm) == 0 || &pcm[0] != &cached.pcm[0] {
		t.Fatal("the soundtrack was synthesized again, not taken from the cache")
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

// BenchmarkCloseWithPlayers: how long Close takes with an earcon and the
// soundtrack playing (each player is sent SIGTERM and waited for).
func BenchmarkCloseWithPlayers(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		dir := b.TempDir()
		log := filepath.Join(dir, "calls.log")
		script := filepath.Join(dir, "paplay")
		if err := os.WriteFile(script, []byte(fmt.Sprintf("#!/bin/sh\necho \"$$ $*\" >> %q\nexec sleep 300\n", log)), 0o755); err != nil {
			b.Fatal(err)
		}
		p, err := NewPlayer(PlayerOptions{Command: []string{script}, TempDir: dir})
		if err != nil {
			b.Fatal(err)
		}
		if err := p.Play(Success, NoSlot); err != nil {
			b.Fatal(err)
		}
		if err := p.StartSoundtrack(testScore(), 1, time.Now()); err != nil {
			b.Fatal(err)
		}
		testutil.Eventually(b, "both players run", func() bool {
			data, _ := os.ReadFile(log)
			return strings.Count(string(data), "\n") == 2
		})
		b.StartTimer()
		if err := p.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// longScore is ten minutes of music: far longer to synthesize than
// anything a test does between two calls.
func longScore() Score {
	var s Score
	for i := range 600 {
		s.Cues = append(s.Cues, ScoreCue{DurationMS: 1000, Act: i / 60, Caption: i%6 == 0, Brightness: float64(i%10) / 10})
	}
	return s
}

// Close does not wait for a Prepare no one will hear: it ends the
// synthesis (before, `lets pad daemon --audio-feedback` stopped only once
// the Show's whole soundtrack was made).
func TestCloseEndsAPreparedSynthesis(t *testing.T) {
	cmd, _ := fakePlayer(t, "0")
	p := newPlayer(t, PlayerOptions{Command: cmd})
	p.Prepare(longScore(), 1)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	p.cacheMu.Lock()
	defer p.cacheMu.Unlock()
	if p.cache != nil {
		t.Fatal("Close waited until the prepared soundtrack was synthesized")
	}
}

func TestSynthesizeStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if pcm, err := synthesize(ctx, longScore(), 1); !errors.Is(err, context.Canceled) || pcm != nil {
		t.Fatalf("a cancelled synthesis: %d samples, %v", len(pcm), err)
	}
}
