package cli

import (
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/lets-app/lets/backend/hostapi"
	"github.com/lets-app/lets/backend/hostclient"
)

// The command line words hostclient's errors for a person at a terminal.
func TestCLIHostErrorWords(t *testing.T) {
	cause := errors.New("connection refused")
	cases := []struct {
		in   error
		want []string
	}{
		{&hostclient.APIError{Status: 404, Code: "unknown_window", Message: "no window w9", Hint: hostapi.HintWindows}, []string{"no window w9; see `lets windows`", "(unknown_window)"}},
		{&hostclient.UnreachableError{URL: "http://127.0.0.1:4000", PID: 42, Dial: true, Err: cause}, []string{"pid 42", "http://127.0.0.1:4000", "start it again with `lets`", "connection refused"}},
		{&hostclient.UnreachableError{URL: "http://127.0.0.1:4000", PID: 42, TimedOut: true, Err: cause}, []string{"did not answer in time", "try again"}},
		{&hostclient.DecodeError{Path: "/lip/status", Err: cause}, []string{"could not read", "same version"}},
		{&hostclient.UnreachableError{URL: "http://127.0.0.1:4000", PID: 42, Dial: true, Err: &net.OpError{Op: "dial", Err: &hostclient.ForeignHostError{Addr: "127.0.0.1:4000", UID: 1001}}},
			[]string{"another user's program", "nothing was sent", "start Lets again with `lets`", "user 1001"}},
	}
	for _, c := range cases {
		got := cliHostError(c.in)
		for _, w := range c.want {
			if got == nil || !strings.Contains(got.Error(), w) {
				t.Errorf("%T: %v, want it to say %q", c.in, got, w)
			}
		}
		if !errors.Is(got, cause) && !errors.As(got, new(*hostclient.APIError)) && !errors.Is(got, hostclient.ErrForeignHost) {
			t.Errorf("%T: the cause is lost: %v", c.in, got)
		}
	}
	if cliHostError(nil) != nil {
		t.Error("nil became an error")
	}
	if err := cliHostError(hostclient.ErrNotRunning); !errors.Is(err, hostclient.ErrNotRunning) {
		t.Errorf("not running: %v", err)
	}
}
