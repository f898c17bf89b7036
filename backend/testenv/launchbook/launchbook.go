// Package launchbook keeps the window launches a test host's OnOpen got.
// The open answer never carries a window's one-time URL (issue #23): only
// the native window does, through OnOpen. A test that opens windows through
// the host API and loads them in a browser is that native window: it hands
// a Book's Take to host.Options.OnOpen and asks URL for each window. It is
// used only by tests.
package launchbook

import (
	"strings"
	"sync"
	"testing"

	"github.com/lets-app/lets/backend/host"
)

// Book keeps launches by "<host URL>/w/<window>/", so one Book may serve
// every host of a test package. The zero value is ready.
type Book struct{ m sync.Map }

// Take is a host.Options.OnOpen that keeps the launch and says the window
// is shown.
func (b *Book) Take(l host.WindowLaunch) error {
	base, _, _ := strings.Cut(l.URL, "?")
	b.m.Store(base, l.URL)
	return nil
}

// URL is the one-time URL of window on the host at hostURL; the test fails
// when no launch of it reached Take.
func (b *Book) URL(tb testing.TB, hostURL, window string) string {
	tb.Helper()
	u, ok := b.m.Load(hostURL + "/w/" + window + "/")
	if !ok {
		tb.Fatalf("no launch of window %s reached OnOpen", window)
	}
	return u.(string)
}
