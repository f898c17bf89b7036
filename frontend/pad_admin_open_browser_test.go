package frontend_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/lets-app/lets/backend/surface/web"
	"github.com/lets-app/lets/backend/testenv/browsertest"
)

// Issue #10: `lets pad daemon --web` hands the desktop browser a one-time
// link instead of the admin URL (whose token any local user could read in
// the opener's command line). In a real browser the link opens the admin
// panel once, leaves no token in the address bar, and a second visit gets
// a friendly page instead of the admin page.
func TestPadOneTimeAdminLinkOpensTheAdminPanelOnce(t *testing.T) {
	rig := startPadRig(t, web.Options{})
	link, err := rig.srv.AdminOpenURL()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(link, adminToken) {
		t.Fatalf("the one-time link carries the admin token: %s", link)
	}

	ctx := browsertest.New(t, browsertest.Options{Width: 1280, Height: 860})
	var href string
	if err := chromedp.Run(ctx,
		chromedp.Navigate(link),
		chromedp.WaitVisible(`#pad-screen`, chromedp.ByID),
		chromedp.WaitVisible(`#admin`, chromedp.ByID),
		chromedp.Location(&href),
	); err != nil {
		t.Fatal(err)
	}
	if href != rig.base()+"/" {
		t.Errorf("after the one-time link the address bar shows %s, want %s/", href, rig.base())
	}

	// A second visit, in a fresh browser without the stored admin token,
	// gets the "already used" page.
	other := browsertest.New(t, browsertest.Options{Width: 1280, Height: 860})
	var title, text string
	if err := chromedp.Run(other,
		chromedp.Navigate(link),
		chromedp.WaitVisible(`h1`, chromedp.ByQuery),
		chromedp.Title(&title),
		chromedp.Text(`main`, &text, chromedp.ByQuery),
	); err != nil {
		t.Fatal(err)
	}
	if title != "This admin link was already used" || !strings.Contains(text, "works once") || !strings.Contains(text, "Open the pad") {
		t.Fatalf("second visit: title %q, text %q; want the friendly already-used page", title, text)
	}
	if strings.Contains(text, adminToken) {
		t.Fatal("the already-used page shows the admin token")
	}
	var adminShown bool
	if err := chromedp.Run(other, chromedp.Evaluate(`!!document.getElementById('admin')`, &adminShown)); err != nil {
		t.Fatal(err)
	}
	if adminShown {
		t.Fatal("the second visit reached the admin page")
	}
	browsertest.Screenshot(t, other, "pad-admin-link-used.png")
}
