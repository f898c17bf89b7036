package host

import (
	"net/url"
	"testing"

	"github.com/lets-app/lets/backend/testenv/axe"
)

// TestLinkPagesAccessibleInPlainWords (issue #26): every page the host
// shows outside a window — a spent, closed, incomplete or wrong window
// link, and a unique's own address visited outside its window (directly,
// or with an expired link) — passes axe-core in light, dark and at 200 %,
// reflows at 320 px, and speaks of apps and windows, with the terminal
// commands behind a Details toggle.
func TestLinkPagesAccessibleInPlainWords(t *testing.T) {
	th := startLIPHost(t)
	win := th.open(t, "board", "") // spends the link: w1
	fresh := th.openOnly(t, "coder", "")
	u, err := url.Parse(fresh.URL)
	if err != nil {
		t.Fatal(err)
	}
	o, ok := th.origins.get("board")
	if !ok {
		t.Fatal("board has no origin after its window opened")
	}
	// The app's address answers under its origin's CSP sandbox, which
	// stops every script, axe-core's too: bypassed for those two.
	pages := []struct {
		name, url string
		sandboxed bool
	}{
		{"link-used", win.URL, false},
		{"link-closed", th.URL() + "/w/w9/", false},
		{"link-host-key", th.URL() + "/w/w1/?t=" + url.QueryEscape(testHostToken), false},
		{"link-bad-key", th.URL() + u.Path + "?t=not-the-key", false},
		{"app-address-direct", o.url() + "/", true},
		{"app-address-expired", o.url() + "/?t=expired", true},
	}
	for _, p := range pages {
		t.Run(p.name, func(t *testing.T) {
			axe.PersonPage(t, p.name, p.url, axe.PageOptions{BypassCSP: p.sandboxed})
		})
	}
}
