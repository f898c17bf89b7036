package audio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/lets-app/lets/backend/atomicfile"
	"github.com/lets-app/lets/backend/clock"
)

// Host audio feedback (experiences spec §8.5): the daemon's earcons and the
// Show soundtrack played through the system's command-line player.

// ErrNoPlayer means no supported command-line player is installed.
var ErrNoPlayer = errors.New("audio requested, but no supported player was found (pw-play, paplay, aplay, afplay, or ffplay)")

// ErrClosed is returned after Close.
var ErrClosed = errors.New("the audio player is closed")

// ErrBusy means a sound was dropped because the player is still busy with
// earlier ones (the queue is full).
var ErrBusy = errors.New("the audio player is busy; sound dropped")

// ErrDebounced means the same earcon in the same slot was accepted less
// than EarconDebounce ago; the repeat is dropped.
var ErrDebounced = errors.New("the same earcon just played; repeat dropped")

// playerCandidates are the players in the order they are looked for, each
// with the arguments that go before the WAV path (§8.5).
var playerCandidates = [...][]string{
	{"pw-play"},
	{"paplay"},
	{"aplay", "-q"},
	{"afplay"},
	{"ffplay", "-nodisp", "-autoexit", "-loglevel", "quiet"},
}

// FindPlayer returns the first installed player as an argument list (the
// program's full path, then its options); the WAV path goes last. lookPath
// is exec.LookPath outside tests.
func FindPlayer(lookPath func(string) (string, error)) ([]string, error) {
	for _, c := range playerCandidates {
		if p, err := lookPath(c[0]); err == nil && p != "" {
			return append([]string{p}, c[1:]...), nil
		}
	}
	return nil, ErrNoPlayer
}

// Player defaults.
const (
	// EarconDebounce drops a repeat of the same (name, slot) (§8.5).
	EarconDebounce = 120 * time.Millisecond
	// DefaultQueue is how many earcons may wait while one plays.
	DefaultQueue = 3
	// DefaultEarconTimeout ends an earcon player that hangs.
	DefaultEarconTimeout = 4 * time.Second
	// DefaultStale drops an earcon that waited this long: it no longer
	// belongs to what is on the pad.
	DefaultStale = 1500 * time.Millisecond
	// killGrace is how long a player has to exit after SIGTERM before it
	// is killed (§8.5: terminate, wait 0.25 s, kill).
	killGrace = 250 * time.Millisecond
)

// PlayerOptions configure a Player. The zero value finds a player on PATH.
type PlayerOptions struct {
	// Command is the player and its options (the WAV path is appended);
	// nil means FindPlayer(exec.LookPath).
	Command []string
	// TempDir is where the private sound folder is made; "" is the
	// system's temporary folder.
	TempDir string
	// Log receives playback problems (never fatal); nil discards them.
	Log *slog.Logger
	// Clock is the time of the debounce, staleness, timeouts and the
	// soundtrack's start; nil is the wall clock.
	Clock clock.Clock
	// Queue is how many earcons may wait while one plays (0 =
	// DefaultQueue); more are dropped.
	Queue int
	// EarconTimeout ends an earcon player that runs longer (0 =
	// DefaultEarconTimeout).
	EarconTimeout time.Duration
	// Stale drops earcons that waited longer (0 = DefaultStale).
	Stale time.Duration
}

// Player plays earcons and the Show soundtrack with a command-line
// player, one child process per sound. It never blocks its caller: earcons
// go through a small queue played one at a time by a worker goroutine
// (full queue → dropped), the soundtrack plays in its own process next to
// them, every process has a timeout, and playback errors are only logged.
// It implements control.EarconSink. Close stops everything and deletes the
// private folder of WAV files.
//
// Difference from the reference (§8.5), on purpose: the reference starts a
// process per earcon, up to 4 at once, terminating the oldest to make room.
// Here earcons play one after another (at most Queue waiting, the rest
// dropped, and any that waited longer than Stale skipped), so a burst never
// stacks sounds or processes; the soundtrack is the one process that may
// run next to an earcon.
type Player struct {
	cmd     []string
	dir     string
	log     *slog.Logger
	clock   clock.Clock
	timeout time.Duration
	stale   time.Duration
	queue   chan earconRequest
	stop    chan struct{}
	wg      sync.WaitGroup

	mu        sync.Mutex
	closed    bool
	last      map[earconKey]time.Time // last accepted play
	written   map[string]bool         // WAV files in dir
	track     *soundtrack             // the soundtrack that plays, if any
	trackSeq  int
	launches  int
	fileMu    sync.Mutex // serializes writing WAV files
	earconRun context.CancelFunc
	life      context.Context // ends when Close starts

	cacheMu sync.Mutex // guards cache; held while synthesizing
	cache   *cachedTrack
}

// cachedTrack is the last soundtrack synthesized.
type cachedTrack struct {
	score []ScoreCue
	tempo float64
	pcm   []int16
}

type earconKey struct {
	name string
	slot int
}

type earconRequest struct {
	key earconKey
	at  time.Time
}

type soundtrack struct {
	seq    int
	cancel context.CancelFunc
	done   chan struct{}
}

// NewPlayer finds the player (unless given), makes the private folder and
// starts the earcon worker.
func NewPlayer(opts PlayerOptions) (*Player, error) {
	cmd := opts.Command
	if cmd == nil {
		var err error
		if cmd, err = FindPlayer(exec.LookPath); err != nil {
			return nil, err
		}
	}
	if len(cmd) == 0 || cmd[0] == "" {
		return nil, fmt.Errorf("%w: the player command is empty", ErrNoPlayer)
	}
	dir, err := os.MkdirTemp(opts.TempDir, "lets-audio-")
	if err != nil {
		return nil, fmt.Errorf("make a folder for sounds (check the temporary folder is writable): %w", err)
	}
	p := &Player{
		cmd:     append([]string(nil), cmd...),
		dir:     dir,
		log:     opts.Log,
		clock:   clock.Or(opts.Clock),
		timeout: opts.EarconTimeout,
		stale:   opts.Stale,
		stop:    make(chan struct{}),
		last:    map[earconKey]time.Time{},
		written: map[string]bool{},
	}
	if p.log == nil {
		p.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if p.timeout <= 0 {
		p.timeout = DefaultEarconTimeout
	}
	if p.stale <= 0 {
		p.stale = DefaultStale
	}
	q := opts.Queue
	if q <= 0 {
		q = DefaultQueue
	}
	p.queue = make(chan earconRequest, q)
	ctx, cancel := context.WithCancel(context.Background())
	p.earconRun, p.life = cancel, ctx
	p.wg.Add(1)
	go p.earconWorker(ctx)
	return p, nil
}

// Command is the player command in use (without the WAV path).
func (p *Player) Command() []string { return append([]string(nil), p.cmd...) }

// Dir is the private folder of WAV files (removed by Close).
func (p *Player) Dir() string { return p.dir }

// Earcon queues an earcon and returns at once (control.EarconSink).
// Problems are logged, never returned.
func (p *Player) Earcon(name string, slot int) {
	if err := p.Play(name, slot); err != nil && !errors.Is(err, ErrDebounced) {
		p.log.Debug("earcon not played", "name", name, "slot", slot, "err", err)
	}
}

// Play queues an earcon and returns at once. It fails for an unknown
// name, a slot outside 0…7 and none, a repeat within EarconDebounce
// (ErrDebounced), a full queue (ErrBusy) and after Close.
func (p *Player) Play(name string, slot int) error {
	if !Known(name) {
		return fmt.Errorf("%w %q (use one of %v)", ErrUnknownEarcon, name, Names())
	}
	if err := CheckSlot(slot); err != nil {
		return err
	}
	now := p.clock.Now()
	k := earconKey{name, slot}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return ErrClosed
	}
	if t, ok := p.last[k]; ok && now.Sub(t) >= 0 && now.Sub(t) < EarconDebounce {
		return ErrDebounced
	}
	select {
	case p.queue <- earconRequest{key: k, at: now}:
		p.last[k] = now
		return nil
	default:
		return ErrBusy
	}
}

func (p *Player) earconWorker(ctx context.Context) {
	defer p.wg.Done()
	for {
		select {
		case <-ctx.Done():
			return
		case r := <-p.queue:
			if age := p.clock.Now().Sub(r.at); age > p.stale {
				p.log.Debug("earcon dropped: it waited too long", "name", r.key.name, "slot", r.key.slot, "waited", age)
				continue
			}
			path, err := p.earconFile(r.key)
			if err != nil {
				p.log.Warn("could not prepare an earcon", "name", r.key.name, "err", err)
				continue
			}
			runCtx, cancel := p.withTimeout(ctx, p.timeout)
			if err := p.run(runCtx, path); err != nil && ctx.Err() == nil {
				p.log.Warn("the audio player failed", "player", p.cmd[0], "err", err)
			}
			cancel()
		}
	}
}

// earconFile writes the earcon's WAV once and returns its path.
func (p *Player) earconFile(k earconKey) (string, error) {
	name := EarconFile(k.name, k.slot)
	path := filepath.Join(p.dir, name)
	p.fileMu.Lock()
	defer p.fileMu.Unlock()
	p.mu.Lock()
	done := p.written[name]
	p.mu.Unlock()
	if done {
		return path, nil
	}
	b, err := EarconWAV(k.name, k.slot)
	if err != nil {
		return "", err
	}
	if err := atomicfile.Write(path, b, 0o600); err != nil {
		return "", err
	}
	p.mu.Lock()
	p.written[name] = true
	p.mu.Unlock()
	return path, nil
}

// withTimeout is context.WithTimeout on the player's clock.
func (p *Player) withTimeout(parent context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	t := p.clock.AfterFunc(d, cancel)
	return ctx, func() {
		t.Stop()
		cancel()
	}
}

// run plays one file and waits for the player; when ctx ends the player
// gets SIGTERM and, killGrace later, SIGKILL.
func (p *Player) run(ctx context.Context, path string) error {
	args := append(append([]string(nil), p.cmd[1:]...), path)
	c := exec.CommandContext(ctx, p.cmd[0], args...)
	c.Stdin, c.Stdout, c.Stderr = nil, nil, nil
	c.Cancel = func() error { return c.Process.Signal(syscall.SIGTERM) }
	c.WaitDelay = killGrace
	p.mu.Lock()
	p.launches++
	p.mu.Unlock()
	err := c.Run()
	if ctx.Err() != nil {
		return nil // stopped or timed out: not a player failure
	}
	return err
}

// Launches counts the player processes started so far.
func (p *Player) Launches() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.launches
}

// StartSoundtrack plays the Show's music for score at tempo so that its
// beginning lines up with start, the moment the Show's time 0 happens
// (the end of the lead-in): it waits until then, or, when start has
// passed, skips the part of the music that is already over. It replaces a
// soundtrack that plays and returns at once; the music is synthesized
// (a fraction of a second, kept for the next Show with the same score and
// tempo) and played on another goroutine. A score the synthesizer refuses
// is an error.
func (p *Player) StartSoundtrack(score Score, tempo float64, start time.Time) error {
	if err := score.check(tempo); err != nil {
		return err
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return ErrClosed
	}
	old := p.track
	p.trackSeq++
	ctx, cancel := context.WithCancel(context.Background())
	t := &soundtrack{seq: p.trackSeq, cancel: cancel, done: make(chan struct{})}
	p.track = t
	p.wg.Add(1)
	p.mu.Unlock()
	if old != nil {
		old.cancel()
	}
	go func() {
		defer p.wg.Done()
		defer close(t.done)
		if old != nil {
			<-old.done
		}
		p.playSoundtrack(ctx, t.seq, score, tempo, start)
	}()
	return nil
}

// soundtrackPCM synthesizes, or takes from the one-entry cache.
func (p *Player) soundtrackPCM(ctx context.Context, score Score, tempo float64) ([]int16, error) {
	p.cacheMu.Lock()
	defer p.cacheMu.Unlock()
	if p.cache != nil && p.cache.tempo == tempo && slices.Equal(p.cache.score, score.Cues) {
		return p.cache.pcm, nil
	}
	pcm, err := synthesize(ctx, score, tempo)
	if err != nil {
		return nil, err
	}
	p.cache = &cachedTrack{score: slices.Clone(score.Cues), tempo: tempo, pcm: pcm}
	return pcm, nil
}

func (p *Player) playSoundtrack(ctx context.Context, seq int, score Score, tempo float64, start time.Time) {
	pcm, err := p.soundtrackPCM(ctx, score, tempo)
	if err != nil {
		if ctx.Err() == nil {
			p.log.Warn("could not make the Show soundtrack", "err", err)
		}
		return
	}
	if wait := start.Sub(p.clock.Now()); wait > 0 {
		timer := p.clock.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-timer.C():
		}
	}
	if ctx.Err() != nil {
		return
	}
	skip := 0
	if late := p.clock.Now().Sub(start); late > 0 {
		skip = int(late.Seconds() * SampleRate)
	}
	if skip >= len(pcm) {
		return // the Show is already over
	}
	wav, err := EncodeWAV(pcm[skip:], SampleRate, 1)
	if err != nil {
		p.log.Warn("could not encode the Show soundtrack", "err", err)
		return
	}
	path := filepath.Join(p.dir, "soundtrack-"+strconv.Itoa(seq)+".wav")
	if err := atomicfile.Write(path, wav, 0o600); err != nil {
		p.log.Warn("could not write the Show soundtrack", "err", err)
		return
	}
	defer os.Remove(path)
	limit := time.Duration(float64(len(pcm)-skip)/SampleRate*float64(time.Second)) + 10*time.Second
	runCtx, cancel := p.withTimeout(ctx, limit)
	defer cancel()
	if err := p.run(runCtx, path); err != nil {
		p.log.Warn("the audio player failed on the Show soundtrack", "player", p.cmd[0], "err", err)
	}
}

// StopSoundtrack stops the soundtrack, if one plays, and returns at once.
func (p *Player) StopSoundtrack() {
	p.mu.Lock()
	t := p.track
	p.track = nil
	p.mu.Unlock()
	if t != nil {
		t.cancel()
	}
}

// Close stops every player process, waits for them (at most a fraction
// of a second each) and deletes the private folder. Safe to call twice.
func (p *Player) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	t := p.track
	p.track = nil
	p.mu.Unlock()
	if t != nil {
		t.cancel()
	}
	p.earconRun()
	p.wg.Wait()
	if err := os.RemoveAll(p.dir); err != nil {
		return fmt.Errorf("remove the sound folder %s: %w", p.dir, err)
	}
	return nil
}

// Prepare synthesizes the soundtrack for score at tempo in the background
// so that the next StartSoundtrack with the same score and tempo has it
// ready. Errors are logged.
func (p *Player) Prepare(score Score, tempo float64) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.wg.Add(1)
	p.mu.Unlock()
	go func() {
		defer p.wg.Done()
		// Close does not wait for music no one will hear: p.life ends
		// the synthesis.
		if _, err := p.soundtrackPCM(p.life, score, tempo); err != nil && p.life.Err() == nil {
			p.log.Warn("could not make the Show soundtrack", "err", err)
		}
	}()
}
