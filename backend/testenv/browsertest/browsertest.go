// Package browsertest starts headless Chromium (Debian's `chromium`) through
// chromedp for tests of pages the app serves. It is used only by tests.
package browsertest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/lets-app/lets/backend/testenv/testutil"
)

// Options tune the browser.
type Options struct {
	// Width and Height of the window; 0 means 1280×800.
	Width, Height int
	// Timeout bounds the whole browser session. 0 means the test's own
	// deadline (go test -timeout) less a minute, so the test reports
	// where it stood before the test binary panics: a fixed budget for the
	// whole session adds up every step, so a long test under load ran out
	// of it while each step was in time (CI k1). Each wait still has its
	// own bound (testutil.EventuallyTimeout).
	Timeout time.Duration
	// HostResolverRules maps test host names to loopback addresses
	// (Chromium's --host-resolver-rules, e.g. "MAP pad-host.test 127.0.0.3").
	HostResolverRules string
}

// New opens a fresh tab for the test in a headless browser its package
// shares, and returns a context for chromedp actions. The tab has a browser
// context of its own (like a new incognito profile: no cookies, storage or
// cache from other tests) and a window of the asked size; it is closed when
// the test ends. One Chromium per package and resolver rules, not one per
// test: starting Chromium is the slow part (issue #20). Without Chromium the
// test skips loudly, or fails when LETS_REQUIRE_TOOLS=1 (as in `make test`,
// which installs it): see testutil.Command.
func New(tb testing.TB, o Options) context.Context {
	tb.Helper()
	bin := testutil.Command(tb, "chromium", "chromium-browser", "google-chrome")
	if o.Width == 0 {
		o.Width, o.Height = 1280, 800
	}
	root, err := shared.browser(bin, o.HostResolverRules)
	if err != nil {
		tb.Fatalf("start Chromium %s: %v", bin, err)
	}
	tab, cancelTab, err := openTab(root, o.Width, o.Height)
	if err != nil {
		tb.Fatalf("open a %d×%d tab in Chromium: %v", o.Width, o.Height, err)
	}
	ctx, cancelTimeout := context.WithDeadline(tab, sessionDeadline(tb, o.Timeout, time.Now()))
	tb.Cleanup(func() {
		cancelTimeout()
		cancelTab()
	})
	if err := chromedp.Run(ctx, sizeWindow(o.Width, o.Height)); err != nil {
		tb.Fatalf("open a %d×%d tab in Chromium: %v", o.Width, o.Height, err)
	}
	return ctx
}

// sessionDeadline is when a browser session started at now ends: after
// timeout, or with none, a minute before the test's deadline (at least
// a minute from now), or in ten minutes for a test without a deadline.
func sessionDeadline(tb testing.TB, timeout time.Duration, now time.Time) time.Time {
	if timeout > 0 {
		return now.Add(timeout)
	}
	if t, ok := tb.(interface{ Deadline() (time.Time, bool) }); ok {
		if d, ok := t.Deadline(); ok {
			return later(d.Add(-time.Minute), now.Add(time.Minute))
		}
	}
	return now.Add(10 * time.Minute)
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// openTab makes a browser context of its own (no cookies or storage shared
// with other tests) with one window of the given size, and attaches to its
// tab. Closing the tab disposes of the browser context. (chromedp's own
// WithNewBrowserContext asks for a tab without a window, which headless
// Chromium refuses: "no browser is open".)
func openTab(root context.Context, w, h int) (context.Context, context.CancelFunc, error) {
	c := chromedp.FromContext(root)
	exec := cdp.WithExecutor(root, c.Browser)
	bctx, err := target.CreateBrowserContext().WithDisposeOnDetach(true).Do(exec)
	if err != nil {
		return nil, nil, fmt.Errorf("make a browser context: %w", err)
	}
	dispose := func() { _ = target.DisposeBrowserContext(bctx).Do(exec) }
	id, err := target.CreateTarget("about:blank").
		WithBrowserContextID(bctx).
		WithNewWindow(true).
		WithWidth(int64(w)).WithHeight(int64(h)).
		Do(exec)
	if err != nil {
		dispose()
		return nil, nil, fmt.Errorf("make a window: %w", err)
	}
	tab, cancel := chromedp.NewContext(root, chromedp.WithTargetID(id))
	return tab, func() {
		cancel()
		_ = target.CloseTarget(id).Do(exec)
		dispose()
	}, nil
}

// sizeWindow makes the tab's viewport exactly w×h CSS pixels, as the page
// of a w×h window would have it: a headless window keeps some height for
// browser chrome it does not draw, so the window is grown by the
// difference.
func sizeWindow(w, h int) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		id, _, err := browser.GetWindowForTarget().Do(ctx)
		if err != nil {
			return fmt.Errorf("find the tab's window: %w", err)
		}
		var inner []int
		if err := chromedp.Evaluate(`[innerWidth, innerHeight]`, &inner).Do(ctx); err != nil || len(inner) != 2 {
			return fmt.Errorf("read the tab's viewport: %v", err)
		}
		if inner[0] == w && inner[1] == h {
			return nil
		}
		bounds, err := browser.GetWindowBounds(id).Do(ctx)
		if err != nil {
			return fmt.Errorf("read the tab's window size: %w", err)
		}
		b := &browser.Bounds{
			Width:       bounds.Width + int64(w-inner[0]),
			Height:      bounds.Height + int64(h-inner[1]),
			WindowState: browser.WindowStateNormal,
		}
		if err := browser.SetWindowBounds(id, b).Do(ctx); err != nil {
			return fmt.Errorf("size the tab's window: %w", err)
		}
		return nil
	})
}

// browsers are the package's running Chromiums, one per set of resolver
// rules. They live as long as the test binary: chromedp starts Chromium
// with a parent-death signal, so it ends with the process.
type browsers struct {
	mu      sync.Mutex
	running map[string]context.Context
}

// shared is the test binary's set of browsers. A test helper package's one
// piece of process-wide state: its whole point is to outlive a test.
var shared = &browsers{running: map[string]context.Context{}}

func (s *browsers) browser(bin, rules string) (context.Context, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ctx, ok := s.running[rules]; ok && ctx.Err() == nil {
		return ctx, nil
	}
	removeStaleProfiles()
	profile, err := os.MkdirTemp("", fmt.Sprintf("lets-chromium-%d-", os.Getpid()))
	if err != nil {
		return nil, fmt.Errorf("make a browser profile folder: %w", err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin),
		chromedp.UserDataDir(profile),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.WindowSize(1280, 800),
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
	if rules != "" {
		opts = append(opts, chromedp.Flag("host-resolver-rules", rules))
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(alloc)
	// The first Run starts Chromium and ties it to the context it is given,
	// so it gets the browser's own, and the start is bounded from outside.
	started := make(chan error, 1)
	go func() { started <- chromedp.Run(ctx) }()
	limit := time.NewTimer(60 * time.Second)
	defer limit.Stop()
	select {
	case err = <-started:
	case <-limit.C:
		err = fmt.Errorf("Chromium did not start within 60 s")
	}
	if err != nil {
		cancel()
		cancelAlloc()
		_ = os.RemoveAll(profile)
		return nil, err
	}
	s.running[rules] = ctx
	return ctx, nil
}

// removeStaleProfiles removes profile folders left by test binaries that
// have ended (their Chromium died with them; the folder stays behind).
func removeStaleProfiles() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "lets-chromium-*"))
	for _, d := range dirs {
		var pid int
		if _, err := fmt.Sscanf(filepath.Base(d), "lets-chromium-%d-", &pid); err != nil || pid <= 0 {
			continue
		}
		if pid == os.Getpid() {
			continue
		}
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil {
			continue
		}
		_ = os.RemoveAll(d)
	}
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
