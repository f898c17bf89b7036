package frontend_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/lets-app/lets/backend/claudefind"
	"github.com/lets-app/lets/backend/claudeinstall"
	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/host"
	"github.com/lets-app/lets/backend/sessions"
	"github.com/lets-app/lets/backend/testenv/axe"
	"github.com/lets-app/lets/backend/testenv/browsertest"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/backend/trust"
)

// homeExplained is every axe-core finding the home window keeps, with why
// (none today: a new one fails the test until it is fixed or explained).
var homeExplained = map[string]string{}

// homeWords are banned on the home window besides axe.Jargon: it speaks of
// chats, apps and folders (#26), never of a full path in the person's home.
var homeWords = []string{"conversations", "/home/", "commit", "Resume", "Revoke", "git address"}

// fullHome is a home window with everything it can show at once: chats
// (one open), a saved chat and a saved app, a waiting window Claude
// opened, a trusted folder, a paired phone and Claude not set up; Lets
// runs without a desktop (the page's own "Pair" and "Set up" buttons are
// not offered, so the commands sit behind "Details").
type fullHome struct {
	*homeHost
	chats   *pageChats
	trusted string
	addable string // a folder holding an app to add
}

func startFullHome(t *testing.T) *fullHome {
	t.Helper()
	data := t.TempDir()
	store := sessions.NewStore(config.Paths{Home: data}.SessionsDir(), sessions.Options{})
	now := time.Now()
	for _, s := range []struct{ unique, typ, data string }{
		{"chat", "talk.export", `{"summary":"Plan the vegetable garden","text":"Plan the vegetable garden","messages":[]}`},
		{"hello", "hello.export", `{"notes":[{"text":"buy milk","at":1}],"summary":"One note about milk"}`},
	} {
		env := fmt.Sprintf(`{"lip":1,"type":%q,"ts":%d,"data":%s}`, s.typ, now.UnixMilli(), s.data)
		if _, err := store.Save(s.unique, "", sessions.Export, []byte(env), now); err != nil {
			t.Fatal(err)
		}
	}
	trustedDir := filepath.Join(t.TempDir(), "garden")
	if err := os.MkdirAll(trustedDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := trust.New(trust.Options{File: trust.File(config.Paths{Home: data})}).Add(trustedDir); err != nil {
		t.Fatal(err)
	}
	pc := seededChats()
	o := noClaude(t, host.Options{DataDir: data, Chats: pc})
	home := t.TempDir()
	for _, d := range []string{"Documents", "Pictures"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	getenv := o.Getenv
	o.Getenv = func(k string) string {
		if k == "HOME" {
			return home
		}
		return getenv(k)
	}
	o.Home.Devices = func() []host.PairedDevice {
		return []host.PairedDevice{{Name: "Ada's phone", PairedAt: now.Add(-3 * time.Hour), Connected: 1}}
	}
	h := startHomeHostNative(t, o, false)
	agentOpens(t, h, "hello")
	return &fullHome{homeHost: h, chats: pc, trusted: trustedDir, addable: appFolder(t)}
}

// appFolder makes a folder holding a small app, to add from the page.
func appFolder(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "sketch")
	files := map[string]string{
		"unique.json": `{"lip": 1, "name": "sketch", "version": "1.0.0", "title": "Sketch pad",
 "description": "Draw together with Claude.", "entry": "index.html", "domains": ["sketch"],
 "events": {"sketch.export": {"summary": "the drawing"}}, "permissions": {"exec": []}}`,
		"index.html": "<!doctype html><title>Sketch</title><p>Sketch</p>\n",
		"GUIDE.md":   "# Sketch\nDraw.\n",
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// homeShows is what the full home shows once every card is drawn.
var homeShows = []string{
	`#chats li[data-chat="` + gardenChat + `"]`,
	`#waiting button.open`,
	`#trusted button.revoke`,
	`li.unique[data-unique="hello"] .windows`,
	`#sessions li button`,
	`#claude details`,
}

// homeReady waits until every card of the full home shows, and says
// which did not when one never does.
func homeReady(t *testing.T) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		js := `(() => { const sels = ` + mustJSON(homeShows) + `; return sels.filter(s => { const e = document.querySelector(s); return !e || e.getClientRects().length === 0; }); })()`
		err := chromedp.Poll(`(`+js+`).length === 0`, nil, chromedp.WithPollingTimeout(testutil.EventuallyTimeout)).Do(ctx)
		if err != nil {
			var missing []string
			_ = chromedp.Evaluate(js, &missing).Do(ctx)
			return fmt.Errorf("the home never showed %v: %w", missing, err)
		}
		return nil
	})
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// checkState runs axe-core and the word list over the page as it is.
func checkState(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	axe.Check(t, ctx, name, homeExplained)
	if words := axe.Words(t, ctx, homeWords...); len(words) > 0 {
		t.Errorf("%s: developer words on the home window:\n  %s", name, strings.Join(words, "\n  "))
	}
}

func reducedMotion() chromedp.Action {
	return emulation.SetEmulatedMedia().WithFeatures([]*emulation.MediaFeature{{Name: "prefers-reduced-motion", Value: "reduce"}})
}

// TestBrowserHomeAccessible (issue #26): the home window in every state a
// person meets it — locked (no link), first run with the welcome, windows
// open, a window waiting, chats, saved work, a trusted folder, a phone,
// Claude not set up, an inline "Yes, delete" asking, an error shown, an
// app being asked "Yes, remove" — in light, dark and at 200 % zoom: no
// serious or critical axe-core finding and none unexplained, and none of
// the developer words outside "Details". The chat saved by the chat window
// is listed once (as a chat), and no empty chat piles up.
func TestBrowserHomeAccessible(t *testing.T) {
	h := startFullHome(t)
	for _, m := range axe.Modes {
		t.Run(m.Name, func(t *testing.T) {
			ctx := browsertest.New(t, browsertest.Options{Width: 1000, Height: 900})
			axe.Preload(t, ctx)
			// Apply sets the colour scheme (a later SetEmulatedMedia would
			// replace it).
			if err := chromedp.Run(ctx,
				m.Apply(1000, 900),
				chromedp.Navigate(h.URL()+"/"),
				chromedp.WaitVisible(`#locked`, chromedp.ByQuery),
				chromedp.WaitVisible(`#status[data-state="ok"]`, chromedp.ByQuery),
			); err != nil {
				t.Fatalf("locked home: %v", err)
			}
			checkState(t, ctx, m.Name+" locked")

			if err := chromedp.Run(ctx,
				// Away first: from "/" the link (/#k=…) would only move
				// to a fragment of the same page.
				chromedp.Navigate("about:blank"),
				chromedp.Navigate(h.link(t)+"&welcome=1"),
				chromedp.WaitVisible(`#welcome`, chromedp.ByQuery),
				homeReady(t),
			); err != nil {
				t.Fatalf("full home: %v", err)
			}
			var saved, chats []string
			var h1s, mains int
			if err := chromedp.Run(ctx,
				chromedp.Evaluate(`[...document.querySelectorAll('#sessions li')].map(li => li.textContent)`, &saved),
				chromedp.Evaluate(`[...document.querySelectorAll('#chats li strong')].map(s => s.textContent)`, &chats),
				chromedp.Evaluate(`document.querySelectorAll('h1').length`, &h1s),
				chromedp.Evaluate(`document.querySelectorAll('main, [role=main]').length`, &mains),
			); err != nil {
				t.Fatal(err)
			}
			if h1s != 1 || mains != 1 {
				t.Errorf("%d main headings and %d main regions, want one of each", h1s, mains)
			}
			if len(saved) != 1 || !strings.Contains(saved[0], "One note about milk") {
				t.Errorf("saved work lists %q: want hello's only (the chat's own save is listed with the chats)", saved)
			}
			if strings.Join(chats, "|") != "Plan the vegetable garden|Letter to the council about the bus stop" {
				t.Errorf("chats listed %q", chats)
			}
			checkState(t, ctx, m.Name+" welcome and everything")
			browsertest.Screenshot(t, ctx, "home-a11y-"+m.Name+".png")

			// The folder chooser of "New chat in a folder…" open.
			if err := chromedp.Run(ctx,
				chromedp.Click(`#chat-folder`, chromedp.ByQuery),
				chromedp.WaitVisible(`#folder-start`, chromedp.ByQuery),
				chromedp.WaitVisible(`#folders button[aria-label="Open Documents"]`, chromedp.ByQuery),
			); err != nil {
				t.Fatalf("the folder chooser: %v", err)
			}
			checkState(t, ctx, m.Name+" folder chooser")
			if err := chromedp.Run(ctx, chromedp.Click(`#folder-cancel`, chromedp.ByQuery), chromedp.WaitNotVisible(`#folder-picker`, chromedp.ByQuery)); err != nil {
				t.Fatal(err)
			}

			// An inline "Yes, delete" asking.
			if err := chromedp.Run(ctx,
				chromedp.Click(`#chats li[data-chat="`+gardenChat+`"] button.delete`, chromedp.ByQuery),
				chromedp.WaitVisible(`#c-`+gardenChat+`-note[data-state="ask"]`, chromedp.ByQuery),
			); err != nil {
				t.Fatalf("delete (ask): %v", err)
			}
			checkState(t, ctx, m.Name+" Yes, delete")

			// An error shown: an app that cannot be added.
			if err := chromedp.Run(ctx,
				chromedp.SetValue(`#install-source`, "http://127.0.0.1:1/missing", chromedp.ByQuery),
				chromedp.Click(`#install-button`, chromedp.ByQuery),
				chromedp.WaitVisible(`#install-error:not([hidden])`, chromedp.ByQuery),
			); err != nil {
				t.Fatalf("add from a bad address: %v", err)
			}
			checkState(t, ctx, m.Name+" an error")

			// The welcome closed, an app added and asked "Yes, remove".
			if err := chromedp.Run(ctx,
				chromedp.Click(`#welcome-close`, chromedp.ByQuery),
				chromedp.WaitNotPresent(`#welcome`, chromedp.ByQuery),
				chromedp.SetValue(`#install-source`, h.addable, chromedp.ByQuery),
				chromedp.Click(`#install-button`, chromedp.ByQuery),
				chromedp.WaitVisible(`li.unique[data-unique="sketch"] button.remove`, chromedp.ByQuery),
				chromedp.Click(`li.unique[data-unique="sketch"] button.remove`, chromedp.ByQuery),
				chromedp.WaitVisible(`#u-sketch-note[data-state="ask"]`, chromedp.ByQuery),
			); err != nil {
				t.Fatalf("add and remove an app: %v", err)
			}
			checkState(t, ctx, m.Name+" app added, Yes, remove")
			if err := chromedp.Run(ctx,
				chromedp.Click(`li.unique[data-unique="sketch"] button.remove`, chromedp.ByQuery),
				chromedp.WaitNotPresent(`li.unique[data-unique="sketch"]`, chromedp.ByQuery),
			); err != nil {
				t.Fatalf("remove the app again: %v", err)
			}
		})
	}
}

// focusRing is, for the focused element, its tag and name and how its
// focus outline measures against what is behind it: the outline's colour
// against the first opaque background of its parents (the outline sits
// outside the control, over them), as WCAG's contrast ratio; a see-through
// outline is measured as it is seen, mixed with that background.
const focusRing = `(() => {
  const e = document.activeElement;
  if (!e || e === document.body) return {what: "BODY", ratio: 0, width: 0, style: "none"};
  const rgb = (c) => { const m = c.match(/rgba?\(([^)]+)\)/); if (!m) return null; const p = m[1].split(/[ ,\/]+/).filter(Boolean).map(Number); return {r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1}; };
  const lum = (c) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); }; return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b); };
  const cs = getComputedStyle(e);
  let bg = null;
  for (let p = e.parentElement; p; p = p.parentElement) { const c = rgb(getComputedStyle(p).backgroundColor); if (c && c.a === 1) { bg = c; break; } }
  if (!bg) bg = rgb(getComputedStyle(document.documentElement).backgroundColor) || {r: 255, g: 255, b: 255, a: 1};
  const o = rgb(cs.outlineColor);
  let ratio = 0;
  if (o) {
    // A see-through outline is seen mixed with what is behind it.
    const mix = {r: o.a * o.r + (1 - o.a) * bg.r, g: o.a * o.g + (1 - o.a) * bg.g, b: o.a * o.b + (1 - o.a) * bg.b};
    const a = lum(mix), b = lum(bg);
    ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
  }
  const name = (e.getAttribute("aria-label") || e.textContent || e.id || "").trim().slice(0, 40);
  return {what: e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + " " + JSON.stringify(name), ratio: Math.round(ratio * 100) / 100, width: parseFloat(cs.outlineWidth), style: cs.outlineStyle, outline: cs.outlineColor, bg: "rgb(" + bg.r + ", " + bg.g + ", " + bg.b + ")"};
})()`

type ring struct {
	What    string  `json:"what"`
	Ratio   float64 `json:"ratio"`
	Width   float64 `json:"width"`
	Style   string  `json:"style"`
	Outline string  `json:"outline"`
	BG      string  `json:"bg"`
}

// TestBrowserHomeFocusOutlinesContrast (issue #26): Tab goes through every
// control of the full home window, and each one's focus outline is drawn
// (2 px or more) in a colour that measures 3 : 1 or more against the
// background around the control, in light and in dark. Before, the ring
// was a see-through blue of 1.7–2.9 : 1.
func TestBrowserHomeFocusOutlinesContrast(t *testing.T) {
	h := startFullHome(t)
	for _, scheme := range []string{"light", "dark"} {
		t.Run(scheme, func(t *testing.T) {
			ctx := browsertest.New(t, browsertest.Options{Width: 1000, Height: 900})
			if err := chromedp.Run(ctx,
				emulation.SetEmulatedMedia().WithFeatures([]*emulation.MediaFeature{
					{Name: "prefers-color-scheme", Value: scheme}, {Name: "prefers-reduced-motion", Value: "reduce"}}),
				chromedp.Navigate(h.link(t)+"&welcome=1"),
				chromedp.WaitVisible(`#welcome`, chromedp.ByQuery),
				homeReady(t),
				// A "Details" opened, so its contents are reached too.
				chromedp.Evaluate(`document.querySelector('#claude details').open = true`, nil),
			); err != nil {
				t.Fatalf("full home: %v", err)
			}
			seen := map[string]bool{}
			var first string
			for i := 0; i < 120; i++ {
				var r ring
				if err := chromedp.Run(ctx, chromedp.KeyEvent("\t"), chromedp.Evaluate(focusRing, &r)); err != nil {
					t.Fatal(err)
				}
				if r.What == "BODY" {
					continue
				}
				if r.What == first {
					break
				}
				if first == "" {
					first = r.What
				}
				seen[r.What] = true
				if r.Style == "none" || r.Width < 2 || r.Ratio < 3 {
					t.Errorf("%s: focus outline %s %.0fpx %s on %s measures %.2f : 1, want a 2 px outline of 3 : 1 or more", r.What, r.Style, r.Width, r.Outline, r.BG, r.Ratio)
				}
			}
			if len(seen) < 20 {
				t.Fatalf("Tab reached only %d controls: %v", len(seen), seen)
			}
			t.Logf("%s: %d controls measured", scheme, len(seen))
		})
	}
}

// activeKey says where the keyboard is: the focused element's focus key,
// id or tag ("BODY" when nothing has it).
const activeKey = `(() => { const e = document.activeElement; if (!e || e === document.body) return "BODY"; return e.dataset.focusKey || e.id || e.tagName; })()`

// TestBrowserHomeKeyboardAfterDismissals (issue #26): Escape takes back an
// inline "Yes, delete" and "Yes, remove" and the keyboard stays on the
// button that asked; after deleting a chat, removing an app, stopping to
// trust a folder or closing the welcome, the keyboard goes to a sensible
// next control, never to the page's body.
func TestBrowserHomeKeyboardAfterDismissals(t *testing.T) {
	h := startFullHome(t)
	ctx := browsertest.New(t, browsertest.Options{Width: 1000, Height: 900})
	if err := chromedp.Run(ctx,
		reducedMotion(),
		chromedp.Navigate(h.link(t)+"&welcome=1"),
		chromedp.WaitVisible(`#welcome`, chromedp.ByQuery),
		homeReady(t),
	); err != nil {
		t.Fatalf("full home: %v", err)
	}
	step := func(name string, actions ...chromedp.Action) string {
		t.Helper()
		var at string
		if err := chromedp.Run(ctx, append(actions, chromedp.Evaluate(activeKey, &at))...); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return at
	}
	press := func(sel string) chromedp.Action {
		return chromedp.Tasks{chromedp.Focus(sel, chromedp.ByQuery), chromedp.KeyEvent("\r")}
	}

	// The welcome's "Got it": the keyboard goes to "Start a new chat".
	if at := step("close the welcome", press(`#welcome-close`), chromedp.WaitNotPresent(`#welcome`, chromedp.ByQuery)); at != "chat-new" {
		t.Errorf("after closing the welcome the keyboard is on %q, want Start a new chat", at)
	}

	// Delete, then Escape: nothing deleted, the question gone, the
	// keyboard on Delete (which reads Delete again).
	del := `#chats li[data-chat="` + gardenChat + `"] button.delete`
	var label, note string
	at := step("Escape a delete",
		press(del),
		chromedp.WaitVisible(`#c-`+gardenChat+`-note[data-state="ask"]`, chromedp.ByQuery),
		chromedp.KeyEvent("\x1b"),
		chromedp.WaitNotPresent(`#c-`+gardenChat+`-note[data-state="ask"]`, chromedp.ByQuery),
		chromedp.TextContent(del, &label, chromedp.ByQuery),
		chromedp.TextContent(`#c-`+gardenChat+`-note`, &note, chromedp.ByQuery),
	)
	if _, deleted := h.chats.calls(); len(deleted) != 0 || at != "chat-delete:"+gardenChat || label != "Delete" || note != "" {
		t.Errorf("after Escape: deleted %v, keyboard on %q, button %q, note %q", deleted, at, label, note)
	}
	// Escape with the keyboard moved to Continue in the same row: back to Delete.
	at = step("Escape from the row",
		press(del),
		chromedp.WaitVisible(`#c-`+gardenChat+`-note[data-state="ask"]`, chromedp.ByQuery),
		chromedp.Focus(`#chats li[data-chat="`+gardenChat+`"] button.continue`, chromedp.ByQuery),
		chromedp.KeyEvent("\x1b"),
		chromedp.WaitNotPresent(`#c-`+gardenChat+`-note[data-state="ask"]`, chromedp.ByQuery),
	)
	if at != "chat-delete:"+gardenChat {
		t.Errorf("Escape elsewhere in the row left the keyboard on %q, want the Delete that asked", at)
	}

	// A redraw while Delete asks (the list changed meanwhile) draws the
	// button afresh, unasked, and its question goes with it: the words
	// never say "Press Yes, delete" beside a plain Delete.
	at = step("a redraw while asking",
		press(del),
		chromedp.WaitVisible(`#c-`+gardenChat+`-note[data-state="ask"]`, chromedp.ByQuery),
		chromedp.ActionFunc(func(context.Context) error {
			h.chats.mu.Lock()
			h.chats.list[1].Turns = 2
			h.chats.mu.Unlock()
			return nil
		}),
		chromedp.Evaluate(`document.dispatchEvent(new Event('visibilitychange'))`, nil),
		chromedp.Poll(`document.querySelector('#chats li[data-chat="`+lettersChat+`"] .when').textContent.includes('2 messages')`, nil, chromedp.WithPollingTimeout(testutil.EventuallyTimeout)),
		chromedp.TextContent(del, &label, chromedp.ByQuery),
		chromedp.TextContent(`#c-`+gardenChat+`-note`, &note, chromedp.ByQuery),
	)
	if at != "chat-delete:"+gardenChat || label != "Delete" || note != "" {
		t.Errorf("after a redraw while asking: keyboard on %q, button %q, note %q", at, label, note)
	}

	// Delete for good: the next chat's Continue; the last one: Start a new chat.
	at = step("delete the first chat",
		press(del), chromedp.WaitVisible(`#c-`+gardenChat+`-note[data-state="ask"]`, chromedp.ByQuery),
		press(del), chromedp.WaitNotPresent(`#chats li[data-chat="`+gardenChat+`"]`, chromedp.ByQuery),
	)
	if at != "chat-continue:"+lettersChat {
		t.Errorf("after deleting a chat the keyboard is on %q, want the next chat's Continue", at)
	}
	del = `#chats li[data-chat="` + lettersChat + `"] button.delete`
	at = step("delete the last chat",
		press(del), chromedp.WaitVisible(`#c-`+lettersChat+`-note[data-state="ask"]`, chromedp.ByQuery),
		press(del), chromedp.WaitNotPresent(`#chats li[data-chat="`+lettersChat+`"]`, chromedp.ByQuery),
	)
	if at != "chat-new" {
		t.Errorf("after deleting the last chat the keyboard is on %q, want Start a new chat", at)
	}

	// An app: added, Remove then Escape, then removed for good.
	rm := `li.unique[data-unique="sketch"] button.remove`
	at = step("Escape a remove",
		chromedp.SetValue(`#install-source`, h.addable, chromedp.ByQuery),
		chromedp.Click(`#install-button`, chromedp.ByQuery),
		chromedp.WaitVisible(rm, chromedp.ByQuery),
		press(rm),
		chromedp.WaitVisible(`#u-sketch-note[data-state="ask"]`, chromedp.ByQuery),
		chromedp.KeyEvent("\x1b"),
		chromedp.WaitNotPresent(`#u-sketch-note[data-state="ask"]`, chromedp.ByQuery),
		chromedp.TextContent(rm, &label, chromedp.ByQuery),
	)
	if at != "remove:sketch" || label != "Remove" {
		t.Errorf("after Escape on Yes, remove the keyboard is on %q and the button reads %q", at, label)
	}
	at = step("remove the app",
		press(rm), chromedp.WaitVisible(`#u-sketch-note[data-state="ask"]`, chromedp.ByQuery),
		press(rm), chromedp.WaitNotPresent(`li.unique[data-unique="sketch"]`, chromedp.ByQuery),
	)
	if at == "BODY" || !strings.HasPrefix(at, "open:") && at != "install-source" {
		t.Errorf("after removing an app the keyboard is on %q, want a neighbour's Open (or the add field)", at)
	}

	// The last trusted folder: the keyboard stays in its card.
	at = step("stop trusting",
		press(`#trusted button.revoke`),
		chromedp.WaitNotPresent(`#trusted button.revoke`, chromedp.ByQuery),
	)
	testutil.Eventually(t, "the keyboard settles after Stop trusting", func() bool {
		_ = chromedp.Run(ctx, chromedp.Evaluate(activeKey, &at))
		return at != "BODY"
	})
	if at != "trusted-title" {
		t.Errorf("after stopping to trust the last folder the keyboard is on %q, want the card's title", at)
	}
}

// TestBrowserHomeReflows (issue #26, WCAG 1.4.10): at 320 CSS px wide the
// full home window (welcome, chats, the folder chooser open, an error
// shown) does not scroll sideways, and every control is on screen or
// reached by scrolling down, uncovered; light and dark.
func TestBrowserHomeReflows(t *testing.T) {
	h := startFullHome(t)
	for _, scheme := range []string{"light", "dark"} {
		t.Run(scheme, func(t *testing.T) {
			ctx := browsertest.New(t, browsertest.Options{Width: 1000, Height: 900})
			if err := chromedp.Run(ctx,
				emulation.SetEmulatedMedia().WithFeatures([]*emulation.MediaFeature{
					{Name: "prefers-color-scheme", Value: scheme}, {Name: "prefers-reduced-motion", Value: "reduce"}}),
				axe.ReflowAt(axe.ReflowWidth, 640),
				chromedp.Navigate(h.link(t)+"&welcome=1"),
				chromedp.WaitVisible(`#welcome`, chromedp.ByQuery),
				homeReady(t),
				chromedp.Click(`#chat-folder`, chromedp.ByQuery),
				chromedp.WaitVisible(`#folder-start`, chromedp.ByQuery),
				chromedp.SetValue(`#install-source`, "http://127.0.0.1:1/missing", chromedp.ByQuery),
				chromedp.Click(`#install-button`, chromedp.ByQuery),
				chromedp.WaitVisible(`#install-error:not([hidden])`, chromedp.ByQuery),
				chromedp.Evaluate(`document.querySelectorAll('details').forEach(d => d.open = true)`, nil),
			); err != nil {
				t.Fatalf("full home at 320 px: %v", err)
			}
			browsertest.Screenshot(t, ctx, "home-320-"+scheme+".png")
			if over, items := axe.Overflow(t, ctx); over > 0 || len(items) > 0 {
				t.Errorf("at 320 px the home window scrolls sideways by %d px: %v", over, items)
			}
			var n int
			if err := chromedp.Run(ctx, chromedp.Evaluate(`(() => {
				let n = 0;
				for (const e of document.querySelectorAll('button, input, a[href], summary, select, textarea')) {
					if (e.classList.contains('skip') || e.getClientRects().length === 0) continue;
					e.dataset.reach = String(n++);
				}
				return n;
			})()`, &n)); err != nil {
				t.Fatal(err)
			}
			if n < 20 {
				t.Fatalf("only %d controls shown", n)
			}
			for i := range n {
				if ok, why := axe.Reachable(t, ctx, fmt.Sprintf(`[data-reach="%d"]`, i)); !ok {
					var what string
					_ = chromedp.Run(ctx, chromedp.Evaluate(fmt.Sprintf(`document.querySelector('[data-reach="%d"]').outerHTML.slice(0, 120)`, i), &what))
					t.Errorf("at 320 px %s %s", what, why)
				}
			}
		})
	}
}

// TestBrowserHomeAccessibleWithActions (issue #26): a Lets on a desktop
// offers the page's own "Pair a phone", "Set up Claude" and "Install
// Claude Code" buttons; the Phones and Claude cards with them, after
// Set up Claude answered and after an install that failed, pass axe-core
// and the word list in light, dark and at 200 %.
func TestBrowserHomeAccessibleWithActions(t *testing.T) {
	o := noClaude(t, host.Options{})
	o.Home.Devices = func() []host.PairedDevice { return nil }
	o.Home.PairPhone = func(context.Context) error { return nil }
	o.Home.SetupClaude = func(context.Context) host.HomeSetupResult {
		return host.HomeSetupResult{Done: false, Text: "Almost there: install Claude Code, then set up again"}
	}
	o.Home.InstallClaude = func(context.Context, func(claudeinstall.Progress)) (claudefind.Found, error) {
		return claudefind.Found{}, errors.New("Node.js is missing on this computer")
	}
	h := startHomeHost(t, o)
	for _, m := range axe.Modes {
		t.Run(m.Name, func(t *testing.T) {
			ctx := browsertest.New(t, browsertest.Options{Width: 1000, Height: 900})
			axe.Preload(t, ctx)
			if err := chromedp.Run(ctx,
				m.Apply(1000, 900),
				chromedp.Navigate(h.link(t)),
				chromedp.WaitVisible(`#pair-phone`, chromedp.ByQuery),
				chromedp.WaitVisible(`#setup-claude`, chromedp.ByQuery),
				chromedp.WaitVisible(`#install-claude`, chromedp.ByQuery),
			); err != nil {
				t.Fatalf("home with the desktop's actions: %v", err)
			}
			checkState(t, ctx, m.Name+" actions")
			if err := chromedp.Run(ctx,
				chromedp.Click(`#setup-claude`, chromedp.ByQuery),
				chromedp.Poll(`document.getElementById('setup-claude-note').textContent.includes('Almost there')`, nil, chromedp.WithPollingTimeout(testutil.EventuallyTimeout)),
				chromedp.Click(`#install-claude`, chromedp.ByQuery),
				chromedp.WaitVisible(`#install-claude-note[data-state="error"]`, chromedp.ByQuery),
			); err != nil {
				t.Fatalf("set up and install: %v", err)
			}
			checkState(t, ctx, m.Name+" set up answered, install failed")
		})
	}
}

// askClock replaces the page's 8-second timers (the inline question's
// quiet seconds) with ones the test fires: askTimers() counts those
// waiting, passAskTime() fires them. Every other timer is the real one.
const askClock = `(() => {
  const real = window.setTimeout.bind(window), realClear = window.clearTimeout.bind(window);
  const asks = new Map();
  let next = 1e9;
  window.setTimeout = (fn, ms, ...args) => {
    if (ms !== 8000) return real(fn, ms, ...args);
    asks.set(++next, fn);
    return next;
  };
  window.clearTimeout = (id) => { if (!asks.delete(id)) realClear(id); };
  window.askTimers = () => asks.size;
  window.passAskTime = () => { const fns = [...asks.values()]; asks.clear(); fns.forEach((f) => f()); return fns.length; };
})()`

// TestBrowserHomeAskWaitsWhileHeld (issue #26, WCAG 2.2.1; CI k2): the
// inline "Yes, delete" does not go away while the keyboard is on it,
// however long the person takes; once the keyboard leaves it, its quiet
// seconds start and then it takes the question back. Before, it went
// after 8 s whatever the person did (and a slow check in between made
// the next press ask again instead of deleting).
func TestBrowserHomeAskWaitsWhileHeld(t *testing.T) {
	h := startFullHome(t)
	ctx := browsertest.New(t, browsertest.Options{Width: 1000, Height: 900})
	del := `#chats li[data-chat="` + gardenChat + `"] button.delete`
	note := `#c-` + gardenChat + `-note`
	if err := chromedp.Run(ctx,
		chromedp.ActionFunc(func(ctx context.Context) error {
			_, err := page.AddScriptToEvaluateOnNewDocument(askClock).Do(ctx)
			return err
		}),
		chromedp.Navigate(h.link(t)),
		homeReady(t),
		chromedp.Focus(del, chromedp.ByQuery),
		chromedp.KeyEvent("\r"),
		chromedp.WaitVisible(note+`[data-state="ask"]`, chromedp.ByQuery),
	); err != nil {
		t.Fatalf("ask to delete: %v", err)
	}
	var fired int
	var state, label string
	read := chromedp.Tasks{
		chromedp.Evaluate(`document.querySelector('`+note+`').dataset.state`, &state),
		chromedp.TextContent(del, &label, chromedp.ByQuery),
	}
	if err := chromedp.Run(ctx, chromedp.Evaluate(`passAskTime()`, &fired), read); err != nil {
		t.Fatal(err)
	}
	if state != "ask" || label != "Yes, delete" {
		t.Fatalf("with the keyboard on it and its time passed (%d timers), the question reads %q and the button %q: it went away", fired, state, label)
	}
	var waiting int
	if err := chromedp.Run(ctx,
		chromedp.Focus(`#chat-new`, chromedp.ByQuery),
		chromedp.Evaluate(`askTimers()`, &waiting),
		chromedp.Evaluate(`passAskTime()`, &fired),
		read,
	); err != nil {
		t.Fatal(err)
	}
	if waiting != 1 || state != "" || label != "Delete" {
		t.Errorf("after the keyboard left (%d quiet timers) and the time passed: question %q, button %q; want it taken back", waiting, state, label)
	}
	if _, deleted := h.chats.calls(); len(deleted) != 0 {
		t.Errorf("deleted %v, want nothing", deleted)
	}
}
