package web

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/lets-app/lets/backend/testenv/axe"
	"github.com/lets-app/lets/backend/testenv/browsertest"
)

// TestAdminLinkPagesAccessibleInPlainWords (issue #26): the three pages a
// one-time admin link answers instead of the pad (opened on a phone, by
// another account, already used), as writeHTML writes them, pass axe-core
// in light, dark and at 200 %, reflow at 320 px and keep the terminal's
// "Local admin" link behind Details.
func TestAdminLinkPagesAccessibleInPlainWords(t *testing.T) {
	pages := map[string]htmlPage{
		"admin-link-elsewhere":     adminLinkElsewhere,
		"admin-link-other-account": adminLinkOtherAccount,
		"admin-link-used":          adminLinkUsed,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := pages[r.URL.Path[1:]]
		if !ok {
			http.NotFound(w, r)
			return
		}
		p.write(w)
	}))
	t.Cleanup(srv.Close)
	for name := range pages {
		t.Run(name, func(t *testing.T) {
			axe.PersonPage(t, name, srv.URL+"/"+name, axe.PageOptions{Words: []string{"terminal"}})
		})
	}
	// The style is allowed by its hash: the page is dark in dark mode.
	ctx := browsertest.New(t, browsertest.Options{Width: 800, Height: 600})
	var bg string
	if err := chromedp.Run(ctx,
		browsertest.Media("prefers-color-scheme", "dark"),
		chromedp.Navigate(srv.URL+"/admin-link-used"),
		chromedp.WaitVisible("h1", chromedp.ByQuery),
		chromedp.Evaluate(`getComputedStyle(document.documentElement).backgroundColor`, &bg),
	); err != nil {
		t.Fatal(err)
	}
	if bg != "rgb(18, 19, 22)" {
		t.Errorf("in dark mode the page's background is %s: its style was blocked", bg)
	}
}
