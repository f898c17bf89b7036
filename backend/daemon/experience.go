package daemon

import (
	"math"
	"time"

	"github.com/lets-app/lets/backend/control"
	"github.com/lets-app/lets/backend/experience"
	"github.com/lets-app/lets/backend/surface"
)

// Demo and Show inside the daemon (experiences spec §7.1). The pure
// experience.Controller decides; the owner goroutine hands its outputs to
// the surface in order and keeps the control plane's record of what runs
// (status.experience) in step with it:
//
//   - only the browser administrator starts or stops (surface events
//     ExperienceRequested / ExperienceStopRequested);
//   - a start is refused with a "blocked" report while any session waits for
//     a reply or an approval, and ignored while something already plays;
//   - while one runs, selections and presses go to the controller, never to
//     the agents, and the live view is not rendered (agent updates are still
//     applied);
//   - preemption: the control plane stops the record as soon as an agent
//     waits (after a state message or on a tick); the daemon then stops the
//     controller (reason agent_attention_required) and renders the live
//     view in the same loop iteration;
//   - when playback ends or is stopped, idle is reported first and then the
//     live view is rendered (authoritative, even if nothing changed);
//   - on shutdown a running experience stops with daemon_stopped before the
//     surface closes.

// ExperienceAudio plays Demo earcons and the Show soundtrack on this
// machine when audio feedback is on (control.Config.AudioFeedback); see
// experience.HostAudio. Errors never stop a transition.
type ExperienceAudio = experience.HostAudio

// experienceClock converts control-plane seconds to the controller's
// time scale.
func experienceClock(now float64) time.Duration {
	return time.Duration(math.Round(now * float64(time.Second)))
}

// handleExperienceRequest is an administrator's start request.
func (d *Daemon) handleExperienceRequest(now float64, kind string) {
	if kind != experience.KindDemo && kind != experience.KindShow {
		d.log.Warn("ignored a request for an unknown experience", "kind", kind)
		return
	}
	if err := d.loadExperiences(); err != nil {
		d.log.Error("the experiences cannot be played", "err", err)
		return
	}
	outcome, err := d.plane.StartExperience(now, kind)
	if err != nil {
		d.log.Warn("ignored an experience request", "err", err)
		return
	}
	switch outcome {
	case control.ExperienceBlocked:
		d.applyExperience(d.exp.Block(kind, experience.ReasonAgentWaiting))
		return
	case control.ExperienceIgnored:
		return
	}
	r, err := d.exp.Start(kind, experienceClock(now), experience.StartOptions{
		HostAudio: d.audioFeedback && d.opts.ExperienceAudio != nil,
		LeadIn:    experience.DefaultLeadIn,
	})
	if err != nil || !r.Started {
		// Out of step with the plane (cannot happen while both are driven
		// from here); keep the record honest.
		d.plane.StopExperience()
		if err != nil {
			d.log.Warn("could not start the experience", "kind", kind, "err", err)
		}
		return
	}
	d.log.Info("experience started", "kind", kind)
	d.applyExperience(r)
	d.tickExperience(now)
}

// loadExperiences loads the built-in Demo and Show the first time one is
// requested (parsing the Show takes a few milliseconds and megabytes, which
// a daemon that never plays one should not pay). The embedded manifests
// are checked by the experience package's tests, so this does not fail in
// a released build.
func (d *Daemon) loadExperiences() error {
	if d.expLoaded {
		return nil
	}
	demo, show, err := experience.LoadDefault()
	if err != nil {
		return err
	}
	if d.opts.Demo != nil {
		demo = d.opts.Demo
	}
	if d.opts.Show != nil {
		show = d.opts.Show
	}
	if err := d.exp.SetManifests(demo, show); err != nil {
		return err
	}
	d.expLoaded = true
	return nil
}

// stopExperience stops a running experience with reason and restores the
// live view; it does nothing when nothing plays.
func (d *Daemon) stopExperience(reason string) {
	r := d.exp.Stop(reason)
	if !r.Stopped {
		return
	}
	d.plane.StopExperience()
	d.log.Info("experience stopped", "reason", reason)
	d.applyExperience(r)
	d.restoreLive = true
}

// handleExperienceEvent gives a selection or press to a running
// experience; it reports whether the event was consumed.
func (d *Daemon) handleExperienceEvent(now float64, se surface.Event) bool {
	if !d.exp.Active() {
		return false
	}
	r := d.exp.HandleEvent(se, experienceClock(now))
	d.applyExperience(r)
	return r.Handled
}

// tickExperience advances a running experience to now.
func (d *Daemon) tickExperience(now float64) {
	if !d.exp.Active() {
		return
	}
	r := d.exp.Tick(experienceClock(now))
	d.applyExperience(r)
	if r.Ended {
		d.plane.StopExperience()
		d.log.Info("experience complete")
		d.restoreLive = true
	}
}

// experienceDue returns how long until the running experience next needs
// a tick (a Show cue boundary, its start or end, the Demo's terminal
// hold), so cue changes are not late by up to a poll interval.
func (d *Daemon) experienceDue(now float64) (time.Duration, bool) {
	at, ok := d.exp.NextChange(experienceClock(now))
	if !ok {
		return 0, false
	}
	return max(at-experienceClock(now), 0), true
}

// applyExperience delivers a controller result to the surface and the
// host audio, in order. Surface errors are logged once per streak, like
// live renders; they never stop the experience.
func (d *Daemon) applyExperience(r experience.Result) {
	for _, o := range r.Out {
		var err error
		switch o := o.(type) {
		case experience.SurfaceOutput:
			err = d.surface.Render(o.View)
		case experience.FrameOutput:
			if sr, ok := d.surface.(surface.ShowRenderer); ok {
				err = sr.RenderShowFrame(o.Frame)
			}
		case experience.StateOutput:
			if er, ok := d.surface.(surface.ExperienceReporter); ok {
				err = er.SetExperience(o.State)
			}
		case experience.EarconOutput:
			if a := d.opts.ExperienceAudio; a != nil {
				a.Earcon(o.Name, o.Slot)
			}
		case experience.SoundtrackStart:
			if a := d.opts.ExperienceAudio; a != nil {
				if serr := a.StartSoundtrack(o.Show, o.Tempo); serr != nil {
					d.log.Warn("the Show soundtrack could not play", "err", serr)
				}
			}
		case experience.SoundtrackStop:
			if a := d.opts.ExperienceAudio; a != nil {
				a.StopSoundtrack()
			}
		}
		if err != nil {
			if !d.renderErr {
				d.log.Warn("the surface could not show the experience", "err", err)
			}
			d.renderErr = true
		}
	}
}

// afterPlaneResult reacts to a control-plane result that stopped the
// experience record (preemption): the controller stops too and the live
// view is rendered in this loop iteration.
func (d *Daemon) afterPlaneResult(r control.Result) {
	if r.ExperienceStopped == "" {
		return
	}
	if res := d.exp.Stop(r.ExperienceStopped); res.Stopped {
		d.log.Info("experience stopped", "reason", r.ExperienceStopped)
		d.applyExperience(res)
	}
	d.restoreLive = true
}
