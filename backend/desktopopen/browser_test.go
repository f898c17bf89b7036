package desktopopen

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/lets-app/lets/backend/clock"
	"github.com/lets-app/lets/backend/testenv/browsertest"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// Point: a real browser given the page's file:// address, as xdg-open
// hands it over, lands on the address with its key.
func TestBrowserFollowsThePageToTheAddress(t *testing.T) {
	record := fakeOpener(t)
	got := make(chan string, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/w/w7/" {
			got <- r.URL.RawQuery
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte("<!doctype html><title>window</title><h1 id=ok>window</h1>"))
	}))
	t.Cleanup(srv.Close)
	target := srv.URL + "/w/w7/?t=one-time-key-for-the-browser"

	o := &Opener{Dirs: []string{filepath.Join(privateRuntimeDir(t), "lets", "open")}, Clock: clock.NewFake(time.Unix(1_800_000_000, 0))}
	if err := o.Open(context.Background(), target); err != nil {
		t.Fatal(err)
	}
	args := recordedArgs(t, record)
	ctx := browsertest.New(t, browsertest.Options{})
	if err := chromedp.Run(ctx, chromedp.Navigate(args[len(args)-1])); err != nil {
		t.Fatalf("load the page %s: %v", args[len(args)-1], err)
	}
	if q := testutil.Wait(t, "the browser reached the address", got); q != "t=one-time-key-for-the-browser" {
		t.Fatalf("the browser arrived with %q, want the key", q)
	}
	testutil.Eventually(t, "the tab shows the address's page", func() bool {
		var title string
		return chromedp.Run(ctx, chromedp.Title(&title)) == nil && title == "window"
	})
}
