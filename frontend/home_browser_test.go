package frontend_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/lets-app/lets/backend/browsertest"
	"github.com/lets-app/lets/backend/host"
	"github.com/lets-app/lets/frontend"
)

func startHost(t *testing.T) *host.Server {
	t.Helper()
	pages, err := frontend.Pages()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := host.Listen(host.Options{Token: "test-token", Version: "1.2.3-test", Pages: pages})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return srv
}

// TestHomePageInChromium loads the home page in a real browser and checks
// that its script asked the host and shows that Lets is running, in light
// and dark mode, and that the button is reachable from the keyboard.
func TestHomePageInChromium(t *testing.T) {
	srv := startHost(t)
	for _, scheme := range []string{"light", "dark"} {
		t.Run(scheme, func(t *testing.T) {
			ctx := browsertest.New(t, browsertest.Options{Width: 800, Height: 640})
			var status, version, bg, focused string
			err := chromedp.Run(ctx,
				browsertest.Media("prefers-color-scheme", scheme),
				chromedp.Navigate(srv.URL()+"/"),
				chromedp.WaitVisible(`#status[data-state="ok"]`, chromedp.ByQuery),
				chromedp.Text(`#status-text`, &status, chromedp.ByQuery),
				chromedp.Text(`#version`, &version, chromedp.ByQuery),
				chromedp.Evaluate(`getComputedStyle(document.body).backgroundColor`, &bg),
				chromedp.KeyEvent("\t"),
				chromedp.Evaluate(`document.activeElement && document.activeElement.id`, &focused),
			)
			if err != nil {
				t.Fatalf("home page: %v", err)
			}
			if !strings.Contains(status, "running") || version != "1.2.3-test" {
				t.Fatalf("status %q, version %q", status, version)
			}
			want := map[string]string{"light": "rgb(246, 245, 242)", "dark": "rgb(18, 19, 22)"}[scheme]
			if bg != want {
				t.Errorf("%s mode background = %s, want %s", scheme, bg, want)
			}
			if focused != "refresh" {
				t.Errorf("Tab should reach the Check again button, focused %q", focused)
			}
			browsertest.Screenshot(t, ctx, "home-"+scheme+".png")
		})
	}
}

// TestHomePageShowsWhenHostIsGone: the page stays useful when Lets stops.
func TestHomePageShowsWhenHostIsGone(t *testing.T) {
	pages, err := frontend.Pages()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := host.Listen(host.Options{Token: "t", Version: "x", Pages: pages})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(runCtx) }()
	ctx := browsertest.New(t, browsertest.Options{})
	if err := chromedp.Run(ctx,
		chromedp.Navigate(srv.URL()+"/"),
		chromedp.WaitVisible(`#status[data-state="ok"]`, chromedp.ByQuery),
	); err != nil {
		t.Fatal(err)
	}
	cancel()
	<-done
	var status string
	waitCtx, stop := context.WithTimeout(ctx, 15*time.Second)
	defer stop()
	if err := chromedp.Run(waitCtx,
		chromedp.Click(`#refresh`, chromedp.ByQuery),
		chromedp.WaitVisible(`#status[data-state="down"]`, chromedp.ByQuery),
		chromedp.Text(`#status-text`, &status, chromedp.ByQuery),
	); err != nil {
		t.Fatalf("after the host stopped: %v", err)
	}
	if !strings.Contains(status, "not answering") {
		t.Fatalf("status %q", status)
	}
}
