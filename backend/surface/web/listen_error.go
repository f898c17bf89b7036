package web

import (
	"errors"
	"fmt"
	"syscall"
)

// ErrPortInUse matches (errors.Is) a *ListenError whose port is taken by
// another program.
var ErrPortInUse = errors.New("port is in use")

// ListenError is a browser surface port that could not be bound. What to do
// about it (a flag, a config.json key) depends on the command, so the
// message carries no hint; the app adds one.
type ListenError struct {
	Port int
	Err  error
}

func (e *ListenError) Error() string {
	return fmt.Sprintf("could not start browser surface on port %d: %v", e.Port, e.Err)
}

func (e *ListenError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrPortInUse) true when the port was taken.
func (e *ListenError) Is(target error) bool {
	return target == ErrPortInUse && errors.Is(e.Err, syscall.EADDRINUSE)
}
