package lets

import (
	"io"
	"log/slog"

	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/logging"
)

// Setup is what every host-side command needs: the data folder and a logger.
type Setup struct {
	// Paths is the data folder; Log writes to stderr and lets.log.
	Paths   config.Paths
	Log     *slog.Logger
	logFile *logging.RotatingFile
}

func (s *Setup) Close() {
	if s.logFile != nil {
		_ = s.logFile.Close()
	}
}

// OpenSetup resolves and prepares the data folder and opens the log.
func OpenSetup(env *Env, withFile bool) (*Setup, error) {
	level, lerr := logging.ParseLevel(env.Getenv(logging.LevelEnv))
	home, err := config.ResolveHome(env.Getenv)
	if err != nil {
		return nil, err
	}
	s := &Setup{Paths: config.Paths{Home: home}}
	boot := logging.New(env.Stderr, nil, level)
	if err := config.Ensure(s.Paths, boot); err != nil {
		return nil, err
	}
	var file io.Writer
	if withFile {
		f, err := logging.OpenRotating(s.Paths.LogFile(), logging.MaxBytes, logging.Keep)
		if err != nil {
			boot.Warn("logging to stderr only", "err", err)
		} else {
			s.logFile, file = f, f
		}
	}
	s.Log = logging.New(env.Stderr, file, level)
	if lerr != nil {
		s.Log.Warn(lerr.Error())
	}
	return s, nil
}
