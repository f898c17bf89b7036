// Package showaudio connects the experiences to the sound: the Show's
// timeline as an audio.Score, and Host, the daemon's ExperienceAudio (Demo
// earcons and the Show soundtrack on this machine with
// --audio-feedback).
package showaudio

import (
	"fmt"
	"math"
	"time"

	"github.com/lets-app/lets/backend/audio"
	"github.com/lets-app/lets/backend/experience"
)

// ScoreOf is the Show's timeline as the soundtrack synthesizer sees it:
// each cue's duration and act, whether it brings its own caption, and how
// bright its 80 lights are (the mean of each light's brightest channel).
func ScoreOf(p *experience.Performance) audio.Score {
	s := audio.Score{Cues: make([]audio.ScoreCue, len(p.Cues))}
	for i, c := range p.Cues {
		sum := 0.0
		add := func(idx int) {
			rgb := p.Palette[idx].RGB
			sum += float64(max(rgb[0], rgb[1], rgb[2])) / 255
		}
		for _, row := range c.Frame.Grid {
			for _, idx := range row {
				add(idx)
			}
		}
		for k := range c.Frame.Top {
			add(c.Frame.Top[k])
			add(c.Frame.Right[k])
		}
		s.Cues[i] = audio.ScoreCue{
			DurationMS: c.DurationMS,
			Act:        c.Act,
			Caption:    c.Caption != "",
			Brightness: math.Min(1, sum/80),
		}
	}
	return s
}

// Player is what Host needs from *audio.Player.
type Player interface {
	Earcon(name string, slot int)
	StartSoundtrack(score audio.Score, tempo float64, start time.Time) error
	StopSoundtrack()
	Prepare(score audio.Score, tempo float64)
}

// Host plays the host side of experiences (experiences spec §8.5, §8.6)
// through a Player: Demo earcons and the Show soundtrack, synthesized from
// the Show's cues (the same music as the browser's file at tempo 1, and
// also at other tempos). It implements experience.HostAudio (the daemon's
// ExperienceAudio) and never blocks.
type Host struct {
	player Player
	now    func() time.Time
}

// NewHost makes a Host for player and starts synthesizing the given
// Shows' soundtracks at tempo 1 in the background, so that a Show's music
// starts on time.
func NewHost(player Player, shows ...*experience.Performance) *Host {
	h := &Host{player: player, now: time.Now}
	for _, p := range shows {
		player.Prepare(ScoreOf(p), experience.DefaultTempo)
	}
	return h
}

// NewDefaultHost is NewHost preparing Lets' built-in Show.
func NewDefaultHost(player Player) (*Host, error) {
	_, show, err := experience.LoadDefault()
	if err != nil {
		return nil, err
	}
	return NewHost(player, show), nil
}

// Earcon plays a Demo earcon; unknown names and slots are skipped.
func (h *Host) Earcon(name string, slot int) {
	if audio.Known(name) && audio.CheckSlot(slot) == nil {
		h.player.Earcon(name, slot)
	}
}

// StartSoundtrack plays show's music at tempo from now (the daemon calls
// it at the first tick after the lead-in).
func (h *Host) StartSoundtrack(show *experience.Performance, tempo float64) error {
	if show == nil {
		return fmt.Errorf("no Show to play the soundtrack of")
	}
	return h.player.StartSoundtrack(ScoreOf(show), tempo, h.now())
}

// StopSoundtrack stops the soundtrack.
func (h *Host) StopSoundtrack() { h.player.StopSoundtrack() }
