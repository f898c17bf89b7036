package experience

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/lets-app/lets/backend/control"
	"github.com/lets-app/lets/backend/surface"
	"github.com/lets-app/lets/backend/visual"
	"github.com/lets-app/lets/backend/wire"
)

// The experience controller (experiences spec §4): one state machine shared
// by the daemon and the standalone `lets pad demo` / `lets pad show`
// runners. It is pure: every call takes the current time and returns the
// messages to deliver, in order, as a Result; the host hands them to its
// surfaces and audio player. It is not safe for concurrent use: the host
// calls it from one goroutine (the daemon's owner loop).
//
// Time is a time.Duration on any monotonic scale (the daemon passes its
// control-plane clock); only differences matter. Show timing is absolute:
// the cue on screen is always the one current at the tick, so a late tick
// skips stale cues and playback never accumulates drift (§6.2).

// Experience kinds.
const (
	KindDemo = wire.ExperienceDemo
	KindShow = wire.ExperienceShow
)

// Stop and block reasons (§4.2).
const (
	ReasonStopped        = "stopped"
	ReasonComplete       = "complete"
	ReasonAgentAttention = control.ReasonAgentAttention
	ReasonDaemonStopped  = "daemon_stopped"
	ReasonCancelled      = "cancelled"
	ReasonClosed         = "closed"
	// ReasonAgentWaiting is the block reason when the daemon refuses a
	// start because an agent waits (§7.1).
	ReasonAgentWaiting = control.BlockedText
)

// PreparedFor is the block reason of a standalone runner asked for the
// other kind (§7.2): "This command is prepared for demo." / "… show.".
func PreparedFor(kind string) string { return "This command is prepared for " + kind + "." }

// Defaults of the daemon (§7.1) and of the Demo terminal hold (§5.2).
const (
	DefaultLeadIn = 500 * time.Millisecond
	TerminalHold  = 2 * time.Second
	DefaultTempo  = 1.0
)

// NoSlot is an earcon without a slot (played untransposed, file "none").
const NoSlot = -1

// HostAudio is the host side of experiences (experiences spec §8.5, §8.6):
// Demo earcons and the Show soundtrack played on this machine. The
// audio package's player implements it through a small adapter. Calls come
// from the host's single loop and must not block.
type HostAudio interface {
	// Earcon plays a Demo earcon; slot is 0…7 or NoSlot. An unknown name
	// is skipped silently.
	Earcon(name string, slot int)
	// StartSoundtrack plays the soundtrack of show at tempo from its
	// start (Show.Audio names the packaged file; a player may synthesize
	// it from the cues instead).
	StartSoundtrack(show *Performance, tempo float64) error
	// StopSoundtrack stops what StartSoundtrack started; a no-op when
	// nothing plays.
	StopSoundtrack()
}

// Output is one thing the host must do, in Result order: SurfaceOutput,
// FrameOutput, StateOutput, EarconOutput, SoundtrackStart or
// SoundtrackStop.
type Output interface{ isOutput() }

// SurfaceOutput renders a Demo stage view on every surface (a `surface`
// message for browsers). Frame is the Demo frame counter (§5.4): it counts
// every Demo view since the controller was made.
type SurfaceOutput struct {
	View  control.View
	Frame int
}

// FrameOutput shows a Show cue on every surface that can (a
// `performance_frame` for browsers, RGB SysEx or palette fallbacks on a
// Launchpad). Frame is shared with the manifest: do not modify it.
type FrameOutput struct {
	Cue   int
	Frame *visual.ShowFrame
}

// StateOutput reports the lifecycle to surfaces that report it (the
// browser's `experience_state`).
type StateOutput struct{ State visual.ExperienceView }

// EarconOutput plays a host earcon (only when host audio is on). Slot is
// 0…7 or NoSlot. An unknown name must be skipped silently by the player.
type EarconOutput struct {
	Name string
	Slot int
}

// SoundtrackStart starts the host soundtrack of Show (only when host
// audio is on), played at Tempo from its start.
type SoundtrackStart struct {
	Show  *Performance
	Tempo float64
}

// SoundtrackStop stops the host soundtrack started by SoundtrackStart.
type SoundtrackStop struct{}

func (SurfaceOutput) isOutput()   {}
func (FrameOutput) isOutput()     {}
func (StateOutput) isOutput()     {}
func (EarconOutput) isOutput()    {}
func (SoundtrackStart) isOutput() {}
func (SoundtrackStop) isOutput()  {}

// Result is what one controller call asks the host to do.
type Result struct {
	// Out lists the outputs in delivery order.
	Out []Output
	// Started: Start started an experience.
	Started bool
	// Stopped: Stop stopped a running experience.
	Stopped bool
	// Ended: Tick ended the experience (complete); render the live view.
	Ended bool
	// Handled: HandleEvent consumed the event (an experience is active);
	// it must not reach the agents.
	Handled bool
}

func (r *Result) add(o Output) { r.Out = append(r.Out, o) }

// StartOptions tune Start. The zero value is the daemon's defaults except
// for LeadIn, which is taken literally (use DefaultLeadIn).
type StartOptions struct {
	// Tempo is the Show speed multiplier; 0 means 1.0. Must be > 0.
	Tempo float64
	// HostAudio plays earcons and the soundtrack on the host.
	HostAudio bool
	// LeadIn is the delay between the Show's starting message and its
	// first cue; ≥ 0.
	LeadIn time.Duration
}

// Options configure a Controller.
type Options struct {
	// Demo and Show are the manifests played; a nil one cannot start.
	Demo *Demo
	Show *Performance
	// SoundtrackAsset overrides the Show's audio_asset in experience_state
	// (the path browsers fetch, relative to the app root). "" means
	// "experiences/" + the manifest's audio.asset. This is the hook for the
	// audio package, which owns the soundtrack files.
	SoundtrackAsset string
}

// Controller is the experience state machine of §4.
type Controller struct {
	opts Options

	kind       string // "", KindDemo or KindShow
	lastReason string

	// Demo.
	stage       int
	hasDeadline bool
	deadline    time.Duration

	// Show.
	showStart  time.Duration
	cue        int
	tempo      float64
	hostAudio  bool
	soundtrack bool

	// Live as long as the controller (the process): never reset.
	audioSequence int
	demoFrame     int
}

// NewController returns an idle controller.
func NewController(opts Options) *Controller {
	return &Controller{opts: opts, cue: -1, tempo: DefaultTempo}
}

// Kind returns the running kind, or "" when idle.
func (c *Controller) Kind() string { return c.kind }

// Active reports whether an experience runs.
func (c *Controller) Active() bool { return c.kind != "" }

// LastReason returns the reason of the last stop ("" until one stopped, or
// after a new start).
func (c *Controller) LastReason() string { return c.lastReason }

// AudioSequence returns the audio sequence counter (Demo earcons so far).
func (c *Controller) AudioSequence() int { return c.audioSequence }

// DemoFrame returns the frame number the next Demo view will carry.
func (c *Controller) DemoFrame() int { return c.demoFrame }

// Stage returns the current Demo stage index (meaningful while a Demo runs).
func (c *Controller) Stage() int { return c.stage }

// Cue returns the current Show cue, -1 before the first one.
func (c *Controller) Cue() int { return c.cue }

// ErrUnknownKind is returned by Start for a kind other than demo or show.
var ErrUnknownKind = errors.New("experience kind must be demo or show")

// Start starts a Demo or Show (§4.2, §5.1, §6.1). While one is active it
// does nothing (Started false, no output). It fails for an unknown kind, a
// missing manifest, tempo ≤ 0 or a negative lead-in.
func (c *Controller) Start(kind string, now time.Duration, o StartOptions) (Result, error) {
	var r Result
	tempo := o.Tempo
	if tempo == 0 {
		tempo = DefaultTempo
	}
	switch {
	case kind != KindDemo && kind != KindShow:
		return r, fmt.Errorf("%w (got %q)", ErrUnknownKind, kind)
	case !(tempo > 0) || math.IsInf(tempo, 0):
		return r, fmt.Errorf("show tempo must be positive (got %v)", o.Tempo)
	case o.LeadIn < 0:
		return r, fmt.Errorf("experience lead-in must be ≥ 0 (got %v)", o.LeadIn)
	case kind == KindDemo && c.opts.Demo == nil:
		return r, errors.New("no Demo manifest is loaded; build the controller with one")
	case kind == KindShow && c.opts.Show == nil:
		return r, errors.New("no Show manifest is loaded; build the controller with one")
	}
	if c.Active() {
		return r, nil
	}
	c.kind = kind
	c.lastReason = ""
	c.hostAudio = o.HostAudio
	c.tempo = tempo
	r.Started = true
	if kind == KindDemo {
		c.stage = c.opts.Demo.initial
		c.hasDeadline = false
		c.publishStage(&r, c.opts.Demo.Stages[c.stage].EnterAudio, NoSlot)
		return r, nil
	}
	c.showStart = now + o.LeadIn
	c.cue = -1
	c.soundtrack = false
	v := c.showState(visual.ExperienceStarting)
	v.StartDelayMS = int(math.RoundToEven(float64(o.LeadIn) / float64(time.Millisecond)))
	r.add(StateOutput{v})
	return r, nil
}

// Block reports that a start of kind was refused (§4.2); state is
// unchanged.
func (c *Controller) Block(kind, reason string) Result {
	var r Result
	v := idleState(visual.ExperienceBlocked, kind, reason)
	r.add(StateOutput{v})
	return r
}

// Stop ends the running experience with reason (§4.2): the host
// soundtrack stops, then `idle` with the kind that ran. Nothing happens
// when idle.
func (c *Controller) Stop(reason string) Result {
	var r Result
	if !c.Active() {
		return r
	}
	if c.soundtrack {
		r.add(SoundtrackStop{})
		c.soundtrack = false
	}
	kind := c.kind
	c.kind = ""
	c.lastReason = reason
	c.hasDeadline = false
	c.cue = -1
	c.tempo = DefaultTempo
	r.Stopped = true
	r.add(StateOutput{idleState(visual.ExperienceIdle, kind, reason)})
	return r
}

// HandleEvent offers a surface event to the controller (§5.2). While an
// experience is active, selections and presses are Handled (never for the
// agents); a Demo may advance. Other events and an idle controller leave
// the event unhandled.
func (c *Controller) HandleEvent(ev surface.Event, now time.Duration) Result {
	var r Result
	if !c.Active() {
		return r
	}
	switch ev.(type) {
	case surface.SessionSelected, surface.ActionPressed:
	default:
		return r
	}
	r.Handled = true
	if c.kind != KindDemo {
		return r
	}
	d := c.opts.Demo
	st := &d.Stages[c.stage]
	if st.Terminal {
		return r
	}
	for _, tr := range st.Transitions {
		slot := NoSlot
		switch e := ev.(type) {
		case surface.SessionSelected:
			if tr.Event != EventSelect || tr.Slot != e.Slot {
				continue
			}
			slot = e.Slot
		case surface.ActionPressed:
			if tr.Event != EventAction || tr.Action != e.Action {
				continue
			}
			slot = st.SelectedSlot()
		}
		c.stage = tr.next
		next := &d.Stages[c.stage]
		audio := tr.Audio
		if audio == "" {
			audio = next.EnterAudio
		}
		c.publishStage(&r, audio, slot)
		if next.Terminal {
			c.hasDeadline, c.deadline = true, now+TerminalHold
		}
		return r
	}
	return r
}

// Tick advances time (§5.3, §6.2). Ended reports that the experience just
// completed; the host then renders the live view.
func (c *Controller) Tick(now time.Duration) Result {
	var r Result
	switch c.kind {
	case KindDemo:
		if c.hasDeadline && now >= c.deadline {
			r = c.Stop(ReasonComplete)
			r.Ended = true
		}
	case KindShow:
		if now < c.showStart {
			return r
		}
		p := c.opts.Show
		if c.hostAudio && !c.soundtrack {
			c.soundtrack = true
			r.add(SoundtrackStart{Show: p, Tempo: c.tempo})
		}
		elapsed := time.Duration(float64(now-c.showStart) * c.tempo)
		if elapsed >= p.Duration() {
			stop := c.Stop(ReasonComplete)
			r.Out = append(r.Out, stop.Out...)
			r.Stopped, r.Ended = true, true
			return r
		}
		cue := p.CueAt(elapsed)
		if cue == c.cue {
			return r
		}
		c.cue = cue
		r.add(FrameOutput{Cue: cue, Frame: p.Frame(cue)})
		v := c.showState(visual.ExperiencePlaying)
		v.CueIndex = ptr(cue)
		v.Caption = ptr(p.CaptionAt(cue))
		v.Detail = ptr(p.Acts[p.Cues[cue].Act])
		v.ElapsedMS = int(math.RoundToEven(float64(elapsed) / float64(time.Millisecond)))
		r.add(StateOutput{v})
	}
	return r
}

// publishStage is §5.4: the stage view (then the frame counter moves),
// the earcon (sequence +1), then experience_state.
func (c *Controller) publishStage(r *Result, audio string, slot int) {
	d := c.opts.Demo
	st := &d.Stages[c.stage]
	r.add(SurfaceOutput{View: StageView(st), Frame: c.demoFrame})
	c.demoFrame++
	if audio != "" {
		c.audioSequence++
		if c.hostAudio {
			r.add(EarconOutput{Name: audio, Slot: slot})
		}
	}
	v := visual.ExperienceView{
		Status:        visual.ExperiencePlaying,
		Kind:          ptr(KindDemo),
		Title:         ptr(d.Title),
		CueIndex:      ptr(c.stage),
		Caption:       ptr(st.Prompt.Title),
		Detail:        ptr(st.Prompt.Detail),
		Tempo:         DefaultTempo,
		AudioSequence: c.audioSequence,
	}
	if audio != "" {
		v.AudioCue = ptr(audio)
		if slot != NoSlot {
			v.AudioSlot = ptr(slot)
		}
	}
	r.add(StateOutput{v})
}

// showState is the Show's experience_state skeleton.
func (c *Controller) showState(status string) visual.ExperienceView {
	p := c.opts.Show
	asset := c.opts.SoundtrackAsset
	if asset == "" {
		asset = p.AudioAsset()
	}
	return visual.ExperienceView{
		Status:     status,
		Kind:       ptr(KindShow),
		Title:      ptr(p.Title),
		DurationMS: ptr(p.DurationMS),
		Tempo:      c.tempo,
		AudioAsset: ptr(asset),
	}
}

// idleState is an idle/blocked report: kind and reason, all else default.
func idleState(status, kind, reason string) visual.ExperienceView {
	v := visual.ExperienceView{Status: status, Tempo: DefaultTempo, Reason: ptr(reason)}
	if kind == KindDemo || kind == KindShow {
		v.Kind = ptr(kind)
	}
	return v
}

// StageView is the surface view of a Demo stage (§2.2 "derived view"):
// the selected session's state in the centre, its sessions, its actions,
// no overflow, no motion.
func StageView(st *Stage) control.View {
	v := control.View{Centre: st.SelectedState(), Capacity: wire.MaxCapacity}
	for _, a := range wire.Actions() {
		for _, b := range st.Available {
			if a == b {
				v.Available = append(v.Available, a)
			}
		}
	}
	for _, se := range st.Sessions {
		v.Indicators = append(v.Indicators, control.Indicator{
			Slot: se.Slot, State: se.State, Selected: se.Selected, Accent: se.Accent, Label: se.Label,
		})
	}
	return v
}

func ptr[T any](v T) *T { return &v }

// NextChange returns when the running experience next needs a Tick: the
// Show's first cue, its next cue boundary or its end; the Demo's terminal
// hold. ok is false when nothing is scheduled (idle, or a Demo waiting for
// input). Hosts may tick at exactly that time instead of polling, so cue
// changes are not late by a poll interval.
func (c *Controller) NextChange(now time.Duration) (at time.Duration, ok bool) {
	switch c.kind {
	case KindDemo:
		return c.deadline, c.hasDeadline
	case KindShow:
		if now < c.showStart {
			return c.showStart, true
		}
		p := c.opts.Show
		elapsed := time.Duration(float64(now-c.showStart) * c.tempo)
		next := p.Duration()
		if cue := p.CueAt(elapsed); cue < len(p.Cues)-1 {
			next = time.Duration(p.ends[cue]) * time.Millisecond
		}
		// The inverse of elapsed = (now - start) × tempo, rounded up so the
		// tick lands at or after the boundary.
		wall := time.Duration(math.Ceil(float64(next) / c.tempo))
		return c.showStart + wall, true
	}
	return 0, false
}

// SetManifests replaces the Demo and Show (a nil argument keeps the
// current one). It fails while an experience runs. Hosts that load the
// manifests lazily use it before the first Start; the counters live on.
func (c *Controller) SetManifests(demo *Demo, show *Performance) error {
	if c.Active() {
		return errors.New("cannot change the experiences while one runs; stop it first")
	}
	if demo != nil {
		c.opts.Demo = demo
	}
	if show != nil {
		c.opts.Show = show
	}
	return nil
}
