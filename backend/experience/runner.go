package experience

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/lets-app/lets/backend/surface"
	"github.com/lets-app/lets/backend/wire"
)

// The standalone runners `lets pad demo` and `lets pad show` (experiences
// spec §7.2): one experience on a Launchpad and/or the browser pad, with no
// daemon and no agents.

// PollInterval is the runners' loop period (§7.2).
const PollInterval = 30 * time.Millisecond

// RunOptions configure Run.
type RunOptions struct {
	// Kind is KindDemo or KindShow: what this command plays.
	Kind string
	// Demo and Show are the manifests (the one of Kind is required).
	Demo *Demo
	Show *Performance
	// SoundtrackAsset overrides the Show's audio_asset (see Options).
	SoundtrackAsset string
	// Surface is opened, played to and closed by Run (a composite for
	// "both"). Run always closes it, also when opening fails.
	Surface surface.Surface
	// WaitForAdmin waits for the browser administrator's start_experience
	// (--surface web or both); otherwise the experience starts at once with
	// no lead-in (--surface midi).
	WaitForAdmin bool
	// Tempo is the Show speed (> 0; 0 means 1.0).
	Tempo float64
	// Audio plays host earcons and the soundtrack; nil is silent.
	Audio HostAudio
	// Out receives the terminal lines (titles, captions, prompts); nil
	// discards them.
	Out io.Writer
	// Now reads a monotonic clock; nil uses the process clock.
	Now func() time.Duration
	// Sleep waits d or until ctx ends (then it returns ctx's error); nil
	// uses a timer.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Outcome is what a run did.
type Outcome struct {
	// Complete: the experience played to its end (the `show` command's
	// success).
	Complete bool
	// Reason is the last stop reason ("" if nothing ever started).
	Reason string
	// Actions are the Demo's action presses that moved it on, in order.
	Actions []wire.Action
}

// ErrTempo is returned for a tempo ≤ 0 (the CLI exits 2 with it).
var ErrTempo = errors.New("show tempo must be positive")

// Run plays one experience as §7.2 describes and returns when it ended,
// when an administrator sent stop_experience (even while nothing played),
// or when ctx ended (reason cancelled). Every exit path stops what still
// plays (reason closed), stops the soundtrack and closes the surface.
func Run(ctx context.Context, o RunOptions) (out Outcome, err error) {
	s := o.Surface
	if s == nil {
		return out, errors.New("experience runner: no surface to play on")
	}
	closeSurface := func() {
		if cerr := s.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close the surface: %w", cerr)
		}
	}
	tempo := o.Tempo
	if tempo == 0 {
		tempo = DefaultTempo
	}
	if !(tempo > 0) {
		closeSurface()
		return out, ErrTempo
	}
	if o.Kind != KindDemo && o.Kind != KindShow {
		closeSurface()
		return out, fmt.Errorf("%w (got %q)", ErrUnknownKind, o.Kind)
	}
	if (o.Kind == KindDemo && o.Demo == nil) || (o.Kind == KindShow && o.Show == nil) {
		closeSurface()
		return out, fmt.Errorf("experience runner: no %s manifest loaded", o.Kind)
	}
	now, sleep := o.Now, o.Sleep
	if now == nil {
		origin := time.Now()
		now = func() time.Duration { return time.Since(origin) }
	}
	if sleep == nil {
		sleep = sleepCtx
	}
	r := &runner{o: o, c: NewController(Options{Demo: o.Demo, Show: o.Show, SoundtrackAsset: o.SoundtrackAsset}), w: o.Out, tempo: tempo}
	if r.w == nil {
		r.w = io.Discard
	}
	defer func() {
		// "closed" is a no-op when already idle; it also stops the
		// soundtrack.
		if aerr := r.apply(r.c.Stop(ReasonClosed)); aerr != nil && err == nil {
			err = aerr
		}
		out.Reason = r.c.LastReason()
		out.Complete = out.Reason == ReasonComplete
		out.Actions = r.actions
		closeSurface()
	}()
	if err := s.Open(ctx); err != nil {
		return out, fmt.Errorf("open the surface %q: %w", s.Describe().Profile, err)
	}
	if !o.WaitForAdmin {
		if err := r.start(now(), 0); err != nil {
			return out, err
		}
	}
	for {
		t := now()
		res := r.c.Tick(t)
		if err := r.apply(res); err != nil {
			return out, err
		}
		if res.Ended {
			return out, nil
		}
		for _, ev := range surface.Poll(s, 0) {
			switch e := ev.(type) {
			case surface.ExperienceRequested:
				if e.Kind != o.Kind {
					if err := r.apply(r.c.Block(e.Kind, PreparedFor(o.Kind))); err != nil {
						return out, err
					}
					continue
				}
				if !r.c.Active() {
					if err := r.start(t, DefaultLeadIn); err != nil {
						return out, err
					}
				}
			case surface.ExperienceStopRequested:
				return out, r.apply(r.c.Stop(ReasonStopped))
			default:
				before := r.c.Stage()
				res := r.c.HandleEvent(ev, t)
				if a, ok := ev.(surface.ActionPressed); ok && r.c.Kind() == KindDemo && r.c.Stage() != before {
					r.actions = append(r.actions, a.Action)
				}
				if err := r.apply(res); err != nil {
					return out, err
				}
			}
		}
		if err := sleep(ctx, PollInterval); err != nil {
			return out, r.apply(r.c.Stop(ReasonCancelled))
		}
	}
}

type runner struct {
	o       RunOptions
	c       *Controller
	w       io.Writer
	tempo   float64
	actions []wire.Action
}

func (r *runner) start(now time.Duration, leadIn time.Duration) error {
	res, err := r.c.Start(r.o.Kind, now, StartOptions{Tempo: r.tempo, HostAudio: r.o.Audio != nil, LeadIn: leadIn})
	if err != nil {
		return err
	}
	if r.o.Kind == KindShow && res.Started {
		fmt.Fprintf(r.w, "%s\n", r.o.Show.Title)
	}
	return r.apply(res)
}

// apply delivers a result: surface outputs in order, terminal lines,
// host audio. A surface or soundtrack failure ends the run with its error.
func (r *runner) apply(res Result) error {
	s := r.o.Surface
	for _, o := range res.Out {
		switch o := o.(type) {
		case SurfaceOutput:
			if err := s.Render(o.View); err != nil {
				return fmt.Errorf("show the Demo on the surface: %w", err)
			}
			st := &r.o.Demo.Stages[r.c.Stage()]
			fmt.Fprintf(r.w, "%s\n  %s\n", st.Prompt.Title, st.Prompt.Detail)
		case FrameOutput:
			if sr, ok := s.(surface.ShowRenderer); ok {
				if err := sr.RenderShowFrame(o.Frame); err != nil {
					return fmt.Errorf("show the Show on the surface: %w", err)
				}
			}
			p := r.o.Show
			if c := p.Cues[o.Cue]; c.Caption != "" {
				fmt.Fprintf(r.w, "%s: %s\n", p.Acts[c.Act], c.Caption)
			}
		case StateOutput:
			if er, ok := s.(surface.ExperienceReporter); ok {
				if err := er.SetExperience(o.State); err != nil {
					return fmt.Errorf("report the experience to the surface: %w", err)
				}
			}
		case EarconOutput:
			if r.o.Audio != nil {
				r.o.Audio.Earcon(o.Name, o.Slot)
			}
		case SoundtrackStart:
			if r.o.Audio != nil {
				if err := r.o.Audio.StartSoundtrack(o.Show, o.Tempo); err != nil {
					return fmt.Errorf("play the Show soundtrack: %w", err)
				}
			}
		case SoundtrackStop:
			if r.o.Audio != nil {
				r.o.Audio.StopSoundtrack()
			}
		}
	}
	return nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
