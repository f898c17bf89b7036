package showaudio

import (
	"log/slog"

	"github.com/lets-app/lets/backend/audio"
	"github.com/lets-app/lets/backend/experience"
)

// Feedback is the sound this machine makes for the pad side (experiences
// spec §8.5): Player takes the control plane's earcons and Host plays the
// Demo's earcons and the Show's soundtrack. The app hands both to whatever
// needs them (the daemon's options, or an experience runner); this package
// knows nothing of the daemon.
type Feedback struct {
	Player *audio.Player
	Host   *Host
}

// OpenFeedback finds the player (or uses command, when not nil) and starts
// preparing the soundtracks of shows in the background, so that a Show's
// music starts on time. With no player installed it returns
// audio.ErrNoPlayer, whose message is the one the spec prints. Close it
// after everything that plays through it has stopped.
func OpenFeedback(command []string, log *slog.Logger, shows ...*experience.Performance) (*Feedback, error) {
	player, err := audio.NewPlayer(audio.PlayerOptions{Command: command, Log: log})
	if err != nil {
		return nil, err
	}
	return &Feedback{Player: player, Host: NewHost(player, shows...)}, nil
}

// Close ends the players and deletes the sounds.
func (f *Feedback) Close() error { return f.Player.Close() }
