package showaudio

import (
	"errors"
	"log/slog"

	"github.com/lets-app/lets/backend/audio"
	"github.com/lets-app/lets/backend/control"
	"github.com/lets-app/lets/backend/daemon"
)

// Attach turns on host audio feedback for a daemon (experiences spec
// §8.5): it finds the player (or uses command, when not nil), and sets
// opts.Control.AudioFeedback (reported as status.audio_feedback), the
// control plane's earcon sink and the daemon's ExperienceAudio (Demo
// earcons, Show soundtrack). Call the returned close after the daemon has
// stopped: it ends the players and deletes the sounds folder.
//
// With no player installed it returns audio.ErrNoPlayer, whose message is
// the one the spec prints; the command should exit 2.
func Attach(opts *daemon.Options, command []string, log *slog.Logger) (closeAudio func() error, err error) {
	if opts == nil {
		return nil, errors.New("showaudio: Attach needs the daemon options")
	}
	player, err := audio.NewPlayer(audio.PlayerOptions{Command: command, Log: log})
	if err != nil {
		return nil, err
	}
	host, err := NewDefaultHost(player)
	if err != nil {
		_ = player.Close()
		return nil, err
	}
	if opts.Control == nil {
		cfg := control.DefaultConfig(0)
		opts.Control = &cfg
	}
	opts.Control.AudioFeedback = true
	opts.Control.Earcons = player
	opts.ExperienceAudio = host
	return player.Close, nil
}
