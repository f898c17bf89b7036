package hostclient

import (
	"fmt"
	"time"

	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/hostapi"
)

// ErrNotRunning means there is no host.json, so no host runs (and none was
// started). errors.Is(err, config.ErrHostNotRunning) holds for it too.
var ErrNotRunning = fmt.Errorf("hostclient: %w", config.ErrHostNotRunning)

// APIError is a refusal by the host: its HTTP status and the
// {"error": {"code", "message", "hint"?}} body (hostapi.ErrorBody). Code
// is a LIP error code such as "unknown_window" (empty when the body had
// none); Hint names what helps, for the caller to say in its own words.
type APIError struct {
	Status  int
	Code    string
	Message string
	Hint    hostapi.Hint
}

func (e *APIError) Error() string {
	switch {
	case e.Code != "" && e.Message != "" && e.Hint.Route() != "":
		return fmt.Sprintf("the Lets host refused the request (%s): %s (see %s)", e.Code, e.Message, e.Hint.Route())
	case e.Code != "" && e.Message != "":
		return fmt.Sprintf("the Lets host refused the request (%s): %s", e.Code, e.Message)
	case e.Code != "":
		return fmt.Sprintf("the Lets host refused the request (%s, HTTP %d)", e.Code, e.Status)
	}
	return fmt.Sprintf("the Lets host answered HTTP %d", e.Status)
}

// UnreachableError means host.json names a host that did not answer: it
// refused the connection (Dial: it is gone, e.g. it crashed), broke off the
// connection, or did not answer in time (TimedOut).
type UnreachableError struct {
	URL      string
	PID      int
	Dial     bool
	TimedOut bool
	Err      error
}

func (e *UnreachableError) Error() string {
	if e.TimedOut {
		return fmt.Sprintf("the Lets host (pid %d, %s) did not answer in time: %v", e.PID, e.URL, e.Err)
	}
	return fmt.Sprintf("the Lets host (pid %d) should be listening on %s but does not answer; it may have stopped: %v", e.PID, e.URL, e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// StartError means no host answered, Options.Start was called, and either
// it failed or the host it started did not answer within Waited.
type StartError struct {
	Waited time.Duration
	Err    error
}

func (e *StartError) Error() string {
	if e.Waited > 0 {
		return fmt.Sprintf("Lets was started but did not answer within %s: %v", e.Waited, e.Err)
	}
	return fmt.Sprintf("Lets is not running and could not be started: %v", e.Err)
}

// Unwrap gives the cause and ErrNotRunning, so errors.Is(err,
// ErrNotRunning) holds for a host that could not be started.
func (e *StartError) Unwrap() []error { return []error{e.Err, ErrNotRunning} }

// HostFileError means host.json exists but cannot be used (unreadable,
// readable by others, damaged).
type HostFileError struct {
	Path string
	Err  error
}

func (e *HostFileError) Error() string { return e.Err.Error() }
func (e *HostFileError) Unwrap() error { return e.Err }

// DecodeError means the host answered 200 with JSON the client could not
// read: a host of another version, most likely.
type DecodeError struct {
	Path string
	Err  error
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("the Lets host's answer to %s could not be read: %v", e.Path, e.Err)
}
func (e *DecodeError) Unwrap() error { return e.Err }
