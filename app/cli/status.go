package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/hostapi"
	"github.com/lets-app/lets/backend/hostclient"
	"github.com/lets-app/lets/backend/lip"
)

// hostClient is the command line's way to the running host's privileged
// API: backend/hostclient (host.json read again when the host restarted,
// the host token), with its errors worded for a person at the terminal.
type hostClient struct {
	c *hostclient.Client
}

// hostCLITimeout bounds one request of a command unless it says otherwise.
const hostCLITimeout = 3 * time.Second

// newHostClient is a client for the host whose host.json lies in paths; it
// fails with config.ErrHostNotRunning (or why host.json cannot be used)
// when no host runs, so a command can say so before doing anything.
func newHostClient(paths config.Paths) (*hostClient, error) {
	return newHostClientWithin(paths, hostCLITimeout)
}

// newHostClientWithin is newHostClient whose requests are bounded by
// timeout (a listen gets its wait on top).
func newHostClientWithin(paths config.Paths, timeout time.Duration) (*hostClient, error) {
	c := hostclient.New(paths, hostclient.Options{Timeout: timeout})
	if err := c.Check(); err != nil {
		return nil, hostFileError(err)
	}
	return &hostClient{c: c}, nil
}

// hostFileError is how hostclient.Check's error reads: why host.json
// cannot be used as it stands, or config.ErrHostNotRunning.
func hostFileError(err error) error {
	var he *hostclient.HostFileError
	if errors.As(err, &he) {
		return he.Err
	}
	return err
}

// hostRefusal is a host's refusal worded for the terminal: the message
// with the host's hint said as the command to run (cliHint) and the LIP
// code. errors.As finds the *hostclient.APIError inside.
type hostRefusal struct {
	err *hostclient.APIError
}

func (r *hostRefusal) Error() string {
	if r.err.Code != "" {
		return fmt.Sprintf("%s (%s)", r.err.Message+cliHint(r.err.Hint), r.err.Code)
	}
	return fmt.Sprintf("host answered HTTP %d", r.err.Status)
}

func (r *hostRefusal) Unwrap() error { return r.err }

// refusal is the host's refusal inside err, or nil.
func refusal(err error) *hostclient.APIError {
	var ae *hostclient.APIError
	if errors.As(err, &ae) {
		return ae
	}
	return nil
}

// refusedWith says whether err is the host's refusal with code.
func refusedWith(err error, code lip.Code) bool {
	ae := refusal(err)
	return ae != nil && ae.Code == string(code)
}

// cliHint words the host's hint as the command a person at the terminal
// runs ("" when there is none).
func cliHint(h hostapi.Hint) string {
	switch h {
	case hostapi.HintWindows:
		return "; see `lets windows`"
	case hostapi.HintSessions:
		return "; see `lets sessions`"
	case hostapi.HintUniques:
		return "; see `lets uniques`"
	}
	return ""
}

// cliHostError words hostclient's errors for the terminal: a refusal keeps
// its LIP code with the host's hint worded as a command (hostRefusal), a
// host that does not answer says how to start it again.
func cliHostError(err error) error {
	var ae *hostclient.APIError
	var ue *hostclient.UnreachableError
	var de *hostclient.DecodeError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, hostclient.ErrForeignHost):
		return fmt.Errorf("Lets is not running: its last address is now used by another user's program, so nothing was sent there — start Lets again with `lets` (it picks a new address): %w", err)
	case errors.As(err, &ae):
		return &hostRefusal{err: ae}
	case errors.As(err, &ue) && ue.TimedOut:
		return fmt.Errorf("Lets (pid %d, %s) did not answer in time; it may be busy or stuck — try again, or restart it with `lets`: %w", ue.PID, ue.URL, ue.Err)
	case errors.As(err, &ue):
		return fmt.Errorf("Lets (pid %d) should be listening on %s but does not answer; it may have crashed — start it again with `lets`: %w", ue.PID, ue.URL, ue.Err)
	case errors.As(err, &de):
		return fmt.Errorf("host sent an answer Lets could not read (is this lets the same version as the running Lets?): %w", de.Err)
	}
	return err
}

func runStatus(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("status")
	asJSON := fs.Bool("json", false, "print the status as JSON")
	if err := parseFlags(env, "status", fs, args); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	home, err := config.ResolveHome(env.Getenv)
	if err != nil {
		return err
	}
	c, err := newHostClient(config.Paths{Home: home})
	if errors.Is(err, config.ErrHostNotRunning) {
		fmt.Fprintf(env.Stdout, "Lets is not running (data folder %s).\nStart it with `lets` (desktop) or `lets serve` (headless).\n", home)
		return exitError{code: 1}
	}
	if err != nil {
		return err
	}
	st, err := c.c.Status(ctx)
	if err != nil {
		return cliHostError(err)
	}
	if *asJSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(st)
	}
	fmt.Fprintf(env.Stdout, "Lets %s is running (pid %d, up %s).\n", st.Version, st.PID, (time.Duration(st.UptimeSec) * time.Second).String())
	fmt.Fprintf(env.Stdout, "  Listening on: %s\n  Data folder:  %s\n  Services:     %v\n", st.URL, st.DataDir, st.Services)
	if st.WireSocket != "" {
		fmt.Fprintf(env.Stdout, "  Pad daemon:   %s\n", st.WireSocket)
	}
	return nil
}
