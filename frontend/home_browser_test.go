package frontend_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/claudesetup"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/lets-app/lets/backend/claudefind"
	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/host"
	"github.com/lets-app/lets/backend/sessions"
	"github.com/lets-app/lets/backend/testenv/browsertest"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/frontend"
)

const testToken = "home-test-host-token-0123456789abcdef"

// homeHost runs a host with a data folder (the built-in uniques, hello
// among them) whose OnOpen records the windows it would start natively.
type homeHost struct {
	*host.Server
	mu       sync.Mutex
	launched []host.WindowLaunch
}

func startHomeHost(t *testing.T, opts host.Options) *homeHost {
	t.Helper()
	return startHomeHostNative(t, opts, true)
}

// startHomeHostNative runs the host with (native) or without a window
// launcher: without one, as `lets serve`, the open answer carries the URL.
func startHomeHostNative(t *testing.T, opts host.Options, native bool) *homeHost {
	t.Helper()
	pages, err := frontend.Pages()
	if err != nil {
		t.Fatal(err)
	}
	h := &homeHost{}
	opts.Token, opts.Version, opts.Pages = testToken, "1.2.3-test", pages
	if opts.DataDir == "" {
		opts.DataDir = t.TempDir()
	}
	if native {
		opts.OnOpen = h.record
	}
	srv, err := host.Listen(opts)
	if err != nil {
		t.Fatal(err)
	}
	h.Server = srv
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return h
}

func (h *homeHost) record(l host.WindowLaunch) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.launched = append(h.launched, l)
	return nil
}

func (h *homeHost) link(t *testing.T) string {
	t.Helper()
	l, err := h.HomeLink()
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// windows is what `lets windows` shows: GET /lip/windows with the host token.
func (h *homeHost) windows(t *testing.T) []map[string]any {
	t.Helper()
	req, _ := http.NewRequest("GET", h.URL()+"/lip/windows", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Windows []map[string]any `json:"windows"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	return body.Windows
}

// uniqueNames is what `lets uniques` lists: GET /lip/uniques.
func (h *homeHost) uniqueNames(t *testing.T) []string {
	t.Helper()
	req, _ := http.NewRequest("GET", h.URL()+"/lip/uniques", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Uniques []struct {
			Name string `json:"name"`
		} `json:"uniques"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, u := range body.Uniques {
		names = append(names, u.Name)
	}
	return names
}

// bareUnique makes a unique "sketch" in a git repository and returns a
// bare clone of it, as someone would publish one.
func bareUnique(t *testing.T) string {
	t.Helper()
	git := testutil.Command(t, "git")
	work := t.TempDir()
	files := map[string]string{
		"unique.json": `{"lip": 1, "name": "sketch", "version": "1.0.0", "title": "Sketch pad",
 "description": "Draw together with Claude.", "entry": "index.html", "domains": ["sketch"],
 "events": {"sketch.export": {"summary": "the drawing"}}, "permissions": {"exec": []}}`,
		"index.html": "<!doctype html><title>Sketch</title><p>Sketch</p>\n",
		"GUIDE.md":   "# Sketch\nDraw.\n",
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(work, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bare := filepath.Join(t.TempDir(), "sketch.git")
	for _, args := range [][]string{
		{"-C", work, "init", "-q", "-b", "main"},
		{"-C", work, "add", "."},
		{"-C", work, "-c", "user.name=Test", "-c", "user.email=test@localhost", "commit", "-q", "-m", "sketch"},
		{"clone", "-q", "--bare", work, bare},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		out, err := exec.CommandContext(ctx, git, args...).CombinedOutput()
		cancel()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return bare
}

// Point (issue 12, home window): the page Lets opens lists the hello unique
// with its icon and description; Open (reached with the keyboard) goes
// through the host's own open, so a window appears in `lets windows` and
// the app is asked to start it; installing from a local bare git repository
// shows each step and adds the unique; a bad URL shows a clear error. In
// light and dark, with screenshots.
func TestBrowserHomeListsOpensAndInstalls(t *testing.T) {
	h := startHomeHost(t, host.Options{})
	bare := bareUnique(t)
	for _, scheme := range []string{"light", "dark"} {
		t.Run(scheme, func(t *testing.T) {
			ctx := browsertest.New(t, browsertest.Options{Width: 1000, Height: 900})
			var desc string
			var iconWidth int
			var iconSrc, token string
			var addr, bg, anim string
			err := chromedp.Run(ctx,
				// One call: each SetEmulatedMedia replaces the features before.
				emulation.SetEmulatedMedia().WithFeatures([]*emulation.MediaFeature{
					{Name: "prefers-color-scheme", Value: scheme}, {Name: "prefers-reduced-motion", Value: "reduce"}}),
				chromedp.Navigate(h.link(t)),
				chromedp.WaitVisible(`li.unique[data-unique="hello"]`, chromedp.ByQuery),
				chromedp.Text(`li.unique[data-unique="hello"] p`, &desc, chromedp.ByQuery),
				chromedp.Poll(`(document.querySelector('li.unique[data-unique="hello"] img') || {}).naturalWidth > 0`, nil, chromedp.WithPollingTimeout(testutil.EventuallyTimeout)),
				chromedp.Evaluate(`document.querySelector('li.unique[data-unique="hello"] img').naturalWidth`, &iconWidth),
				chromedp.Evaluate(`document.querySelector('li.unique[data-unique="hello"] img').src`, &iconSrc),
				chromedp.Evaluate(`sessionStorage.getItem("lets-home-token") || ""`, &token),
				chromedp.Evaluate(`location.href`, &addr),
				chromedp.Evaluate(`getComputedStyle(document.body).backgroundColor`, &bg),
				chromedp.Evaluate(`getComputedStyle(document.querySelector('.status .dot')).animationName`, &anim),
			)
			if err != nil {
				t.Fatalf("home page: %v", err)
			}
			if !strings.Contains(desc, "smallest app") || iconWidth == 0 {
				t.Errorf("hello shows description %q, icon width %d", desc, iconWidth)
			}
			// #23: the icon comes from an object URL; the home token never
			// goes in an address (the host refuses it there).
			if !strings.HasPrefix(iconSrc, "blob:") || token == "" || strings.Contains(iconSrc, token) {
				t.Errorf("the icon's address is %q (home token %q), want a blob: URL without the token", iconSrc, token)
			}
			if want := map[string]string{"light": "rgb(246, 245, 242)", "dark": "rgb(18, 19, 22)"}[scheme]; bg != want {
				t.Errorf("%s background %s, want %s", scheme, bg, want)
			}
			if anim != "none" {
				t.Errorf("with reduced motion the status dot still animates (%q)", anim)
			}
			if strings.Contains(addr, "#k=") {
				t.Errorf("the one-time key stays in the address bar: %s", addr)
			}

			// Open hello from the keyboard.
			before := len(h.windows(t))
			var note string
			// Find and focus the button in one step: a refresh of the
			// overview may redraw the list at any moment (chromedp.Focus
			// finds the node, then focuses it, and can miss it in between).
			// A redraw keeps the focus on the same button (data-focus-key).
			var focused bool
			err = chromedp.Run(ctx, chromedp.Evaluate(`(() => { const b = document.querySelector('li.unique[data-unique="hello"] button.open'); b?.focus(); return !!b && document.activeElement === b; })()`, &focused))
			if err == nil && !focused {
				t.Fatal("the hello's Open button is not there to focus")
			}
			if err == nil {
				err = chromedp.Run(ctx,
					chromedp.KeyEvent("\r"),
					chromedp.WaitVisible(`#u-hello-note[data-state="ok"]`, chromedp.ByQuery),
					chromedp.Text(`#u-hello-note`, &note, chromedp.ByQuery),
				)
			}
			if err != nil {
				t.Fatalf("open hello: %v", err)
			}
			var count, focusedKey string
			if err := chromedp.Run(ctx,
				chromedp.WaitVisible(`li.unique[data-unique="hello"] .windows`, chromedp.ByQuery),
				chromedp.Text(`li.unique[data-unique="hello"] .windows`, &count, chromedp.ByQuery),
				chromedp.Evaluate(`document.activeElement && document.activeElement.dataset.focusKey || ""`, &focusedKey),
			); err != nil {
				t.Fatalf("window count: %v", err)
			}
			if !strings.HasSuffix(count, "open") || focusedKey != "open:hello" {
				t.Errorf("hello shows %q; focus after the redraw is on %q, want the Open button still", count, focusedKey)
			}
			wins := h.windows(t)
			if len(wins) != before+1 || wins[len(wins)-1]["unique"] != "hello" {
				t.Errorf("after Open, lets windows shows %v", wins)
			}
			h.mu.Lock()
			n := len(h.launched)
			last := h.launched[n-1]
			h.mu.Unlock()
			if last.Unique != "hello" || !strings.Contains(last.URL, "/w/") || !strings.Contains(note, "own window") {
				t.Errorf("launch %+v, note %q", last, note)
			}

			// A bad URL: a clear error in plain words, the field marked; the
			// raw reason (an address, git's words) behind "Details" (#26).
			var errText, errAll, invalid string
			err = chromedp.Run(ctx,
				chromedp.SetValue(`#install-source`, "http://127.0.0.1:1/missing.git", chromedp.ByQuery),
				chromedp.Click(`#install-button`, chromedp.ByQuery),
				chromedp.WaitVisible(`#install-error:not([hidden])`, chromedp.ByQuery),
				chromedp.Text(`#install-error`, &errText, chromedp.ByQuery),
				chromedp.TextContent(`#install-error`, &errAll, chromedp.ByQuery),
				chromedp.AttributeValue(`#install-source`, "aria-invalid", &invalid, nil, chromedp.ByQuery),
			)
			if err != nil {
				t.Fatalf("install from a bad URL: %v", err)
			}
			if !strings.Contains(errText, "could not be added") || strings.Contains(errText, "127.0.0.1:1") || !strings.Contains(errText, "Details") ||
				!strings.Contains(errAll, "127.0.0.1:1") || invalid != "true" {
				t.Errorf("bad URL error %q (with its details %q, aria-invalid %q)", errText, errAll, invalid)
			}
			if scheme == "dark" {
				// The error as a person sees it.
				browsertest.Screenshot(t, ctx, "home-install-error-dark.png")
			}

			// A local bare git repository: each step shows, then the unique.
			var steps []string
			var done string
			err = chromedp.Run(ctx,
				chromedp.SetValue(`#install-source`, bare, chromedp.ByQuery),
				chromedp.Click(`#install-button`, chromedp.ByQuery),
				chromedp.WaitVisible(`#install-done:not([hidden])`, chromedp.ByQuery),
				chromedp.Evaluate(`Array.from(document.querySelectorAll('#install-progress li')).map(li => li.textContent)`, &steps),
				chromedp.Text(`#install-done`, &done, chromedp.ByQuery),
				chromedp.WaitVisible(`li.unique[data-unique="sketch"]`, chromedp.ByQuery),
			)
			if err != nil {
				t.Fatalf("install from a bare repository: %v", err)
			}
			if len(steps) < 3 || !strings.Contains(steps[0], "Fetching") || !strings.Contains(done, "Sketch pad 1.0.0 is added to your apps") {
				t.Errorf("install steps %q, done %q", steps, done)
			}
			browsertest.Screenshot(t, ctx, "home-"+scheme+".png")

			// Remove it again, for the other colour scheme's run.
			// Remove asks first, on the page; the second press removes.
			var ask string
			err = chromedp.Run(ctx,
				chromedp.Click(`li.unique[data-unique="sketch"] button.remove`, chromedp.ByQuery),
				chromedp.WaitVisible(`#u-sketch-note[data-state="ask"]`, chromedp.ByQuery),
				chromedp.Text(`#u-sketch-note`, &ask, chromedp.ByQuery),
			)
			if err != nil {
				t.Fatalf("remove sketch (ask): %v", err)
			}
			if !strings.Contains(ask, "Remove Sketch pad?") {
				t.Errorf("the question reads %q", ask)
			}
			if len(h.uniqueNames(t)) == 0 || !slices.Contains(h.uniqueNames(t), "sketch") {
				t.Fatal("the first press removed sketch without asking")
			}
			err = chromedp.Run(ctx,
				chromedp.Click(`li.unique[data-unique="sketch"] button.remove`, chromedp.ByQuery),
				chromedp.WaitNotPresent(`li.unique[data-unique="sketch"]`, chromedp.ByQuery),
			)
			if err != nil {
				t.Fatalf("remove sketch: %v", err)
			}
			if slices.Contains(h.uniqueNames(t), "sketch") {
				t.Error("sketch is still installed after Remove")
			}
		})
	}
}

// Point: the home page without Lets' link (an address typed by hand, a
// bookmark) shows only that Lets runs and how to open Home; a used link
// says it was used. Keyboard: the first Tab reaches the skip link.
func TestBrowserHomeWithoutLinkIsLocked(t *testing.T) {
	h := startHomeHost(t, host.Options{})
	for _, scheme := range []string{"light", "dark"} {
		t.Run(scheme, func(t *testing.T) {
			ctx := browsertest.New(t, browsertest.Options{Width: 800, Height: 640})
			var status, version, bg, focused, locked string
			var uniquesShown bool
			err := chromedp.Run(ctx,
				browsertest.Media("prefers-color-scheme", scheme),
				chromedp.Navigate(h.URL()+"/"),
				chromedp.WaitVisible(`#status[data-state="ok"]`, chromedp.ByQuery),
				chromedp.Text(`#status-text`, &status, chromedp.ByQuery),
				chromedp.Text(`#version`, &version, chromedp.ByQuery),
				chromedp.WaitVisible(`#locked`, chromedp.ByQuery),
				chromedp.Text(`#locked-text`, &locked, chromedp.ByQuery),
				chromedp.Evaluate(`getComputedStyle(document.body).backgroundColor`, &bg),
				chromedp.Evaluate(`getComputedStyle(document.getElementById('uniques')).display !== 'none' && document.getElementById('uniques').offsetParent !== null`, &uniquesShown),
				chromedp.KeyEvent("\t"),
				chromedp.Evaluate(`document.activeElement && document.activeElement.className`, &focused),
			)
			if err != nil {
				t.Fatalf("home page: %v", err)
			}
			if !strings.Contains(status, "running") || version != "1.2.3-test" {
				t.Fatalf("status %q, version %q", status, version)
			}
			if !strings.Contains(locked, "tray menu") || uniquesShown {
				t.Errorf("locked text %q, uniques shown %v", locked, uniquesShown)
			}
			want := map[string]string{"light": "rgb(246, 245, 242)", "dark": "rgb(18, 19, 22)"}[scheme]
			if bg != want {
				t.Errorf("%s mode background = %s, want %s", scheme, bg, want)
			}
			if focused != "skip" {
				t.Errorf("Tab should reach the skip link first, focused %q", focused)
			}
		})
	}

	// A link used once already.
	link := h.link(t)
	ctx := browsertest.New(t, browsertest.Options{})
	var text string
	if err := chromedp.Run(ctx,
		chromedp.Navigate(link),
		chromedp.WaitVisible(`li.unique[data-unique="hello"]`, chromedp.ByQuery),
	); err != nil {
		t.Fatal(err)
	}
	other := browsertest.New(t, browsertest.Options{})
	if err := chromedp.Run(other,
		chromedp.Navigate(link),
		chromedp.WaitVisible(`#locked`, chromedp.ByQuery),
		chromedp.Text(`#locked-text`, &text, chromedp.ByQuery),
	); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "already used") {
		t.Errorf("a second browser with the same link reads %q", text)
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
	waitCtx, stop := context.WithTimeout(ctx, testutil.EventuallyTimeout)
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

// Point: saved sessions are listed (newest first, with their summary) and
// Resume opens the unique with that session through the host's own open:
// the window in `lets windows` carries the session id.
func TestBrowserHomeResumesASavedSession(t *testing.T) {
	data := t.TempDir()
	store := sessions.NewStore(config.Paths{Home: data}.SessionsDir(), sessions.Options{})
	env := `{"lip":1,"type":"hello.export","ts":1767225600000,"data":{"notes":[{"text":"buy milk","at":1}],"summary":"One note about milk"}}`
	saved, err := store.Save("hello", "", sessions.Export, []byte(env), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	// Claude set up (claude on PATH, `lets hook` in its settings) and a
	// paired phone, so the page shows them as a person with both sees it.
	fakeHome := t.TempDir()
	if err := os.MkdirAll(filepath.Join(fakeHome, ".claude"), 0o700); err != nil {
		t.Fatal(err)
	}
	hooks, _, err := claudesetup.Merge(nil, claudesetup.Hooks("/usr/bin/lets", 2*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(fakeHome, ".claude", "settings.json"), hooks, 0o600); err != nil {
		t.Fatal(err)
	}
	h := startHomeHost(t, host.Options{
		DataDir: data,
		Getenv: func(k string) string {
			if k == "HOME" {
				return fakeHome
			}
			return os.Getenv(k)
		},
		Home: host.HomeOptions{
			FindClaude: func(context.Context) (claudefind.Found, error) {
				return claudefind.Found{Path: "/usr/local/bin/claude", Source: claudefind.SourcePath, Version: claudefind.TestedVersion}, nil
			},
			Devices: func() []host.PairedDevice {
				return []host.PairedDevice{{Name: "Ada's phone", PairedAt: time.Now().Add(-3 * time.Hour), Connected: 1}}
			},
		},
	})
	ctx := browsertest.New(t, browsertest.Options{Width: 1000, Height: 900})
	var item, claude, claudeState, devices string
	var hasResume bool
	err = chromedp.Run(ctx,
		browsertest.Media("prefers-color-scheme", "light"),
		chromedp.Navigate(h.link(t)),
		chromedp.WaitVisible(`#sessions li button`, chromedp.ByQuery),
		chromedp.Text(`#sessions li`, &item, chromedp.ByQuery),
		chromedp.Text(`#claude`, &claude, chromedp.ByQuery),
		chromedp.AttributeValue(`#claude`, "data-state", &claudeState, nil, chromedp.ByQuery),
		chromedp.Text(`#devices`, &devices, chromedp.ByQuery),
		chromedp.Evaluate(`!!document.querySelector('li.unique[data-unique="hello"] button.resume')`, &hasResume),
		chromedp.Click(`#sessions li button`, chromedp.ByQuery),
		chromedp.WaitVisible(`#sessions li .open-note[data-state="ok"]`, chromedp.ByQuery),
	)
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	if !strings.Contains(item, "Hello") || !strings.Contains(item, "One note about milk") || !hasResume {
		t.Errorf("session item %q, hello has Resume last session: %v", item, hasResume)
	}
	if claudeState != "ready" || !strings.Contains(claude, "Claude is set up") {
		t.Errorf("claude %q (%s), want set up", claude, claudeState)
	}
	if !strings.Contains(devices, "Ada's phone") || !strings.Contains(devices, "paired 3 h ago, connected") {
		t.Errorf("devices %q", devices)
	}
	browsertest.Screenshot(t, ctx, "home-sessions-light.png")
	wins := h.windows(t)
	if len(wins) != 1 || wins[0]["unique"] != "hello" || wins[0]["session"] != saved.ID {
		t.Errorf("windows after Resume: %v, want hello with session %s", wins, saved.ID)
	}
}

// Point: with no native windows (a headless `lets serve`), Open shows the
// window's shell page in a new browser tab, and the shell connects: the
// window in `lets windows` becomes connected.
func TestBrowserHomeOpensATabWhenHeadless(t *testing.T) {
	h := startHomeHostNative(t, host.Options{}, false)
	ctx := browsertest.New(t, browsertest.Options{})
	var note string
	err := chromedp.Run(ctx,
		chromedp.Navigate(h.link(t)),
		chromedp.Click(`li.unique[data-unique="hello"] button.open`, chromedp.ByQuery),
		chromedp.WaitVisible(`#u-hello-note[data-state="ok"]`, chromedp.ByQuery),
		chromedp.Text(`#u-hello-note`, &note, chromedp.ByQuery),
	)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	if !strings.Contains(note, "new tab") {
		t.Errorf("note %q, want it to say the window opened in a new tab", note)
	}
	testutil.Eventually(t, "the shell page in the new tab connects", func() bool {
		wins := h.windows(t)
		return len(wins) == 1 && wins[0]["unique"] == "hello" && wins[0]["connected"] == true
	})
}

// Point: every control has a name a screen reader can say: buttons have
// text or aria-label, the input has its label, the live regions are there.
func TestBrowserHomeControlsAreLabelled(t *testing.T) {
	h := startHomeHost(t, host.Options{})
	ctx := browsertest.New(t, browsertest.Options{})
	var unnamed []string
	err := chromedp.Run(ctx,
		chromedp.Navigate(h.link(t)),
		chromedp.WaitVisible(`li.unique[data-unique="hello"]`, chromedp.ByQuery),
		chromedp.Evaluate(`(() => {
			const out = [];
			for (const b of document.querySelectorAll('button, a[href]')) {
				if (!(b.getAttribute('aria-label') || b.textContent).trim()) out.push(b.outerHTML);
			}
			for (const i of document.querySelectorAll('input')) {
				if (!(i.labels && i.labels.length) && !i.getAttribute('aria-label')) out.push(i.outerHTML);
			}
			for (const id of ['status', 'install-progress', 'install-working', 'install-error', 'problems']) {
				const el = document.getElementById(id);
				if (!el || !(el.getAttribute('role') || el.getAttribute('aria-live'))) out.push('#' + id + ' is not a live region');
			}
			return out;
		})()`, &unnamed),
	)
	if err != nil {
		t.Fatal(err)
	}
	if len(unnamed) > 0 {
		t.Errorf("controls without a name: %v", unnamed)
	}
}
