// Package browsertest starts headless Chromium (Debian's `chromium`) through
// chromedp for tests of pages the app serves. It is used only by tests.
package browsertest

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/lets-app/lets/backend/testenv/testutil"
)

// Options tune the browser.
type Options struct {
	// Width and Height of the window; 0 means 1280×800.
	Width, Height int
	// Timeout bounds the whole browser session; 0 means 60 s.
	Timeout time.Duration
	// HostResolverRules maps test host names to loopback addresses
	// (Chromium's --host-resolver-rules, e.g. "MAP pad-host.test 127.0.0.3").
	HostResolverRules string
}

// New starts a fresh headless browser with its own profile and returns a
// context for chromedp actions. The browser is stopped when the test ends.
// Without Chromium the test skips loudly, or fails when LETS_REQUIRE_TOOLS=1
// (as in `make test`, which installs it): see testutil.Command.
func New(tb testing.TB, o Options) context.Context {
	tb.Helper()
	bin := testutil.Command(tb, "chromium", "chromium-browser", "google-chrome")
	if o.Width == 0 {
		o.Width, o.Height = 1280, 800
	}
	if o.Timeout == 0 {
		o.Timeout = 60 * time.Second
	}
	// Not t.TempDir: Chromium's helper processes may still write to the
	// profile for a moment after the browser exits, which would fail the
	// test's own cleanup. Remove it with a few retries instead.
	profile, err := os.MkdirTemp("", "lets-chromium-")
	if err != nil {
		tb.Fatalf("make a browser profile folder: %v", err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin),
		chromedp.UserDataDir(profile),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.WindowSize(o.Width, o.Height),
		// The machine has no network beyond loopback: keep Chromium from
		// trying to phone home at start.
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("metrics-recording-only", true),
		chromedp.Flag("no-proxy-server", true),
	}
	if o.HostResolverRules != "" {
		opts = append(opts, chromedp.Flag("host-resolver-rules", o.HostResolverRules))
	}
	parent, cancelTimeout := context.WithTimeout(context.Background(), o.Timeout)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(parent, opts...)
	ctx, cancelCtx := chromedp.NewContext(allocCtx)
	if err := chromedp.Run(ctx); err != nil {
		cancelCtx()
		cancelAlloc()
		cancelTimeout()
		_ = os.RemoveAll(profile)
		tb.Fatalf("start Chromium %s: %v", bin, err)
	}
	tb.Cleanup(func() {
		cancelCtx()
		cancelAlloc()
		cancelTimeout()
		for range 20 {
			if os.RemoveAll(profile) == nil {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
	return ctx
}

// ScreenshotDir is where Screenshot writes: $LETS_SCREENSHOTS when set (for
// people to look at, e.g. docs/screenshots), else a test temp folder.
func ScreenshotDir(tb testing.TB) string {
	if d := os.Getenv("LETS_SCREENSHOTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err == nil {
			return d
		}
	}
	return tb.TempDir()
}

// Screenshot saves a PNG of the current page as name and returns its path.
func Screenshot(tb testing.TB, ctx context.Context, name string) string {
	tb.Helper()
	var png []byte
	if err := chromedp.Run(ctx, chromedp.FullScreenshot(&png, 100)); err != nil {
		tb.Fatalf("screenshot %s: %v", name, err)
	}
	path := filepath.Join(ScreenshotDir(tb), name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		tb.Fatalf("save screenshot: %v", err)
	}
	return path
}

// Media emulates CSS media features, e.g. Media("prefers-color-scheme",
// "dark") or Media("prefers-reduced-motion", "reduce").
func Media(name, value string) chromedp.Action {
	return emulation.SetEmulatedMedia().WithFeatures([]*emulation.MediaFeature{{Name: name, Value: value}})
}
