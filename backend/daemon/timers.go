package daemon

import "time"

// Timer is one of the owner loop's wake-ups: a one-shot timer that the loop
// resets and stops. After Reset or Stop returns, no value from an earlier
// setting is received (time.Timer's behaviour since Go 1.23).
type Timer interface {
	C() <-chan time.Time
	Reset(d time.Duration)
	Stop()
}

// LoopTimers are the owner loop's two wake-ups. Tests that move a fake
// Clock pass fakes and fire them when they move it, so timing (a Show's
// cues, the periodic tick) is checked on the fake clock rather than by
// measuring wall-clock lateness.
type LoopTimers struct {
	// Tick fires the periodic tick; the loop resets it to the tick
	// interval after each one.
	Tick Timer
	// Cue fires when a running experience next changes (a Show cue
	// boundary, its start or end, the Demo's terminal hold); the loop
	// resets it after every iteration and stops it when nothing plays. It
	// must start stopped.
	Cue Timer
}

// wallTimer is a Timer on the wall clock.
type wallTimer struct{ t *time.Timer }

func (w wallTimer) C() <-chan time.Time   { return w.t.C }
func (w wallTimer) Reset(d time.Duration) { w.t.Reset(d) }
func (w wallTimer) Stop()                 { w.t.Stop() }

// loopTimers returns the injected timers, or wall-clock ones: the tick
// armed for one interval and the cue timer stopped.
func (d *Daemon) loopTimers() LoopTimers {
	if d.opts.Timers != nil {
		return *d.opts.Timers
	}
	cue := time.NewTimer(time.Hour)
	cue.Stop()
	return LoopTimers{Tick: wallTimer{time.NewTimer(d.tick)}, Cue: wallTimer{cue}}
}
