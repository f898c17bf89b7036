package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/lets-app/lets/app/lets"
	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// Issue #21: the desktop `lets` no longer writes the browser pad's secret
// admin link (its admin token) to its output, which a desktop session
// keeps in its log, nor to lets.log; a plain line without the token says
// where the pad is. The token stays in state/web-surface.json (0600) for
// `lets pad pair`.
func TestDesktopStartDoesNotPrintTheAdminLink(t *testing.T) {
	testutil.ProcFS(t)
	ds := startDesktopSession(t)
	_, _ = startWatcher(t, ds.busAddr)
	home, sock, xdg := letsDesktopEnv(t, ds)
	l := startDesktopLets(t, ds, home, sock, xdg)
	if !testutil.Poll(testutil.EventuallyTimeout, func() bool { return strings.Contains(l.out.String(), "Press Ctrl+C") }) {
		t.Fatalf("lets did not start:\n%s", l.out.String())
	}
	var info lets.WebSurfaceInfo
	testutil.EventuallyNoError(t, "state/web-surface.json", func() error {
		var err error
		info, err = lets.ReadWebSurfaceInfo(config.Paths{Home: home})
		return err
	})
	_, token, ok := strings.Cut(info.AdminURL, "#admin=")
	if !ok || token == "" {
		t.Fatalf("web-surface.json has no admin link: %+v", info)
	}
	out := l.out.String()
	if strings.Contains(out, token) || strings.Contains(out, "#admin=") {
		t.Errorf("lets printed the admin token:\n%s", out)
	}
	if !strings.Contains(out, "Browser pad:  "+lets.PadPageURL(info.Port)+" (open it from the tray") {
		t.Errorf("no plain browser pad line in:\n%s", out)
	}
	log, err := os.ReadFile(config.Paths{Home: home}.LogFile())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(log), token) {
		t.Errorf("lets.log has the admin token")
	}
}
