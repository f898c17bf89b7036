// Package axe runs the axe-core accessibility engine (npm `axe-core`,
// pinned in the Makefile and installed into build/tools by `make tools`)
// inside pages a test opened with browsertest, and checks a page the way
// issue #26 asks: WCAG 2.1 A/AA and best practices, in light, dark and at
// 200 % zoom, with no serious or critical violation and every remaining
// finding explained by the test. It also checks reflow (usable at 320 CSS
// px) and plain words (no developer jargon outside "Details"). Tests only.
package axe

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/backend/textsafe"
)

// Dir is where `make tools` installs axe-core, relative to the repository
// root; $LETS_AXE_JS points at another axe.min.js.
const (
	Dir    = "build/tools/node_modules/axe-core"
	JSEnv  = "LETS_AXE_JS"
	hint   = "run `make tools` (`make deps-test` does), which npm-installs the pinned axe-core into build/tools"
	tags   = `["wcag2a","wcag2aa","wcag21a","wcag21aa","best-practice"]`
	jsFile = "axe.min.js"
)

var (
	srcOnce sync.Once
	src     string
	srcErr  error
)

// Source returns axe-core's script. Without it the test skips loudly, or
// fails under LETS_REQUIRE_TOOLS=1 (as in `make test`).
func Source(tb testing.TB) string {
	tb.Helper()
	srcOnce.Do(func() {
		p := os.Getenv(JSEnv)
		if p == "" {
			root, err := testutil.RepoRoot()
			if err != nil {
				srcErr = err
				return
			}
			p = filepath.Join(root, filepath.FromSlash(Dir), jsFile)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			srcErr = fmt.Errorf("axe-core is not installed (%w)", err)
			return
		}
		src = string(b)
	})
	if srcErr != nil {
		testutil.Missing(tb, testutil.RequireToolsEnv, srcErr.Error(), hint)
		return ""
	}
	return src
}

// Preload makes every document the tab loads from now on, frames
// included, carry axe-core (before the page's own scripts, outside its
// Content-Security-Policy). Call it before navigating.
func Preload(tb testing.TB, ctx context.Context) {
	tb.Helper()
	s := Source(tb)
	if s == "" {
		return
	}
	if err := chromedp.Run(ctx, chromedp.ActionFunc(func(ctx context.Context) error {
		_, err := page.AddScriptToEvaluateOnNewDocument(s).Do(ctx)
		return err
	})); err != nil {
		tb.Fatalf("preload axe-core: %v", err)
	}
}

// Inject evaluates axe-core in the tab's top document when it is not
// there yet (for a page loaded before Preload). Frames loaded earlier are
// not reached; Preload before navigating reaches them.
func Inject(tb testing.TB, ctx context.Context) {
	tb.Helper()
	s := Source(tb)
	if s == "" {
		return
	}
	var has bool
	if err := chromedp.Run(ctx, chromedp.Evaluate(`typeof window.axe === "object"`, &has)); err != nil {
		tb.Fatalf("look for axe-core in the page: %v", err)
	}
	if has {
		return
	}
	if err := chromedp.Run(ctx, chromedp.Evaluate(s+"\n;true", nil)); err != nil {
		tb.Fatalf("inject axe-core: %v", err)
	}
}

// Node is one element a rule flagged.
type Node struct {
	Target  []any  `json:"target"`
	HTML    string `json:"html"`
	Summary string `json:"failureSummary"`
}

// Finding is one axe-core rule that failed on the page.
type Finding struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []Node `json:"nodes"`
}

func (f Finding) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s): %s", f.ID, f.Impact, f.Help)
	for i, n := range f.Nodes {
		if i == 4 {
			fmt.Fprintf(&b, "\n    … and %d more", len(f.Nodes)-i)
			break
		}
		fmt.Fprintf(&b, "\n    at %v: %s\n      %s", n.Target, textsafe.ClipBytes(n.HTML, 160), strings.ReplaceAll(textsafe.ClipBytes(n.Summary, 400), "\n", "\n      "))
	}
	return b.String()
}

// Serious reports whether the finding is of impact serious or critical.
func (f Finding) Serious() bool { return f.Impact == "serious" || f.Impact == "critical" }

// Run runs axe-core over the tab's top document and every frame that
// carries axe-core, and returns the failing rules.
func Run(tb testing.TB, ctx context.Context) []Finding {
	tb.Helper()
	Settle(tb, ctx)
	Inject(tb, ctx)
	js := `(async () => {
  const r = await axe.run(document, {runOnly: {type: "tag", values: ` + tags + `}, resultTypes: ["violations"], iframes: true, frameWaitTime: 5000});
  return JSON.stringify(r.violations);
})()`
	var out string
	if err := chromedp.Run(ctx, chromedp.Evaluate(js, &out, func(p *runtime.EvaluateParams) *runtime.EvaluateParams {
		return p.WithAwaitPromise(true)
	})); err != nil {
		tb.Fatalf("run axe-core: %v", err)
	}
	var fs []Finding
	if err := json.Unmarshal([]byte(out), &fs); err != nil {
		tb.Fatalf("read axe-core's answer: %v", err)
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i].ID < fs[j].ID })
	return fs
}

// stillJS is true when no finite animation or transition runs in the
// page or in any frame the page can reach (endless ones, such as a
// breathing companion, never end and are part of the page's look).
const stillJS = `(() => {
  const busy = (d) => d.getAnimations().some((a) => a.playState === "running" && a.effect && a.effect.getComputedTiming().iterations !== Infinity);
  const docs = [document];
  for (const f of document.querySelectorAll("iframe")) {
    try { if (f.contentDocument) docs.push(f.contentDocument); } catch (e) { /* another origin: its own axe run settles it */ }
  }
  return !docs.some(busy);
})()`

// Settle waits until the page is still: every finite CSS transition and
// animation has ended. Colours measured mid-transition are a mix of the
// two ends (CI k4 measured a button between its two blues), so every
// measurement of a page waits for this first.
func Settle(tb testing.TB, ctx context.Context) {
	tb.Helper()
	testutil.Eventually(tb, "the page's transitions and animations have ended", func() bool {
		var still bool
		if err := chromedp.Run(ctx, chromedp.Evaluate(stillJS, &still)); err != nil {
			tb.Fatalf("ask the page whether it is still: %v", err)
		}
		return still
	})
}

// Check runs axe-core and fails the test on any serious or critical
// violation, and on any other finding whose rule id is not in explained
// (rule id → why it stays). The page name says where in the failure.
func Check(tb testing.TB, ctx context.Context, name string, explained map[string]string) {
	tb.Helper()
	for _, f := range Run(tb, ctx) {
		why, ok := explained[f.ID]
		switch {
		case f.Serious():
			tb.Errorf("%s: accessibility violation %s", name, f)
		case !ok:
			tb.Errorf("%s: accessibility finding with no explanation in the test %s", name, f)
		default:
			tb.Logf("%s: known finding %s (%s): %s", name, f.ID, f.Impact, why)
		}
	}
}

// Mode is one way a person sees a page.
type Mode struct {
	Name string
	// Scheme is the prefers-color-scheme to emulate.
	Scheme string
	// Zoom is the browser zoom in percent (100 or 200).
	Zoom int
}

// Modes are the three the issue asks for: light, dark and 200 % zoom.
var Modes = []Mode{{"light", "light", 100}, {"dark", "dark", 100}, {"zoom-200", "light", 200}}

// Apply emulates the mode in a tab of width×height window pixels: the
// colour scheme, and zoom as a browser does it (the layout viewport shrinks
// to width/zoom CSS px, each CSS px drawn as zoom/100 device px).
func (m Mode) Apply(width, height int) chromedp.Action {
	z := m.Zoom
	if z == 0 {
		z = 100
	}
	return chromedp.Tasks{
		emulation.SetEmulatedMedia().WithFeatures([]*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: m.Scheme}}),
		emulation.SetDeviceMetricsOverride(int64(width*100/z), int64(height*100/z), float64(z)/100, false),
	}
}

// ReflowWidth is a viewport width in CSS px for reflow checks: WCAG 1.4.10 asks
// that content be usable at 320 CSS px wide (1280 px at 400 %).
const ReflowWidth = 320

// ReflowAt emulates a viewport width CSS px wide and height tall.
func ReflowAt(width, height int) chromedp.Action {
	return emulation.SetDeviceMetricsOverride(int64(width), int64(height), 1, false)
}

// Overflow reports what scrolls sideways in the top document: the page's
// own horizontal overflow in CSS px (0 when none) and up to five visible
// elements whose right edge is past the viewport.
func Overflow(tb testing.TB, ctx context.Context) (int, []string) {
	tb.Helper()
	var r struct {
		Over  int      `json:"over"`
		Items []string `json:"items"`
	}
	js := `(() => {
  const el = document.scrollingElement || document.documentElement;
  const vw = document.documentElement.clientWidth;
  const items = [];
  for (const e of document.querySelectorAll("body *")) {
    const b = e.getBoundingClientRect();
    if (b.width === 0 || b.height === 0) continue;
    const cs = getComputedStyle(e);
    if (cs.visibility === "hidden" || cs.position === "fixed" && b.left >= vw) continue;
    if (b.right > vw + 1) items.push(e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + (e.className && typeof e.className === "string" ? "." + e.className.trim().split(/\s+/).join(".") : "") + " right=" + Math.round(b.right));
    if (items.length >= 5) break;
  }
  return JSON.stringify({over: Math.max(0, el.scrollWidth - el.clientWidth), items});
})()`
	var out string
	if err := chromedp.Run(ctx, chromedp.Evaluate(js, &out)); err != nil {
		tb.Fatalf("measure sideways overflow: %v", err)
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		tb.Fatalf("read the overflow measure: %v", err)
	}
	return r.Over, r.Items
}

// Reachable reports whether the element sel is on screen (inside the
// viewport, or reachable by scrolling the page) and not covered at its
// centre by another element.
func Reachable(tb testing.TB, ctx context.Context, sel string) (bool, string) {
	tb.Helper()
	js := `((sel) => {
  const e = document.querySelector(sel);
  if (!e) return "missing";
  e.scrollIntoView({block: "center", inline: "center"});
  const b = e.getBoundingClientRect();
  if (b.width === 0 || b.height === 0) return "has no size";
  const vw = document.documentElement.clientWidth, vh = document.documentElement.clientHeight;
  if (b.right <= 0 || b.bottom <= 0 || b.left >= vw || b.top >= vh) return "is outside the viewport at " + Math.round(b.left) + "," + Math.round(b.top);
  // A link wrapped over two lines: its box's centre may fall between
  // them, on the paragraph; the centre of its first line is on the link.
  const rs = e.getClientRects(), f = rs.length > 1 ? rs[0] : b;
  const x = Math.min(Math.max(f.left + f.width / 2, 0), vw - 1), y = Math.min(Math.max(f.top + f.height / 2, 0), vh - 1);
  const at = document.elementFromPoint(x, y);
  if (at && at !== e && !e.contains(at)) return "is covered by " + at.tagName.toLowerCase() + (at.id ? "#" + at.id : "");
  return "";
})(` + jsString(sel) + `)`
	var out string
	if err := chromedp.Run(ctx, chromedp.Evaluate(js, &out)); err != nil {
		tb.Fatalf("look at %s: %v", sel, err)
	}
	return out == "", out
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Jargon is the developer words a person-facing page must not show
// outside a "Details" part (a <details> element or an element marked
// data-details). Matched as whole words, case-insensitively.
var Jargon = []string{
	"unique", "uniques", "unique.json", "session", "sessions", "git", "repo", "repository",
	"stdin", "stdout", "stderr", "argv", "JSON", "MCP", "CLI", "PID", "localhost", "127.0.0.1",
	"--resume", "--lan", "lets pad pair", "lets open", "$HOME", "~/.", "exit code", "token",
	"with your user's rights", "daemon", "hook", "payload", "endpoint", "stack trace",
}

// Words returns the banned words (of Jargon and extra) that the tab's
// visible text shows outside Details parts, each with a short excerpt.
// Text inside frames is not read: a unique's own page is its author's.
// A phrase is matched within one block of text (a paragraph, a button,
// with its inline parts such as <code> or <strong>), never across two:
// "comes with Lets" ending one line and an "Open" button after it are not
// "lets open". The excerpt marks such a boundary with "¦".
func Words(tb testing.TB, ctx context.Context, extra ...string) []string {
	tb.Helper()
	words := append(append([]string{}, Jargon...), extra...)
	js := `((words) => {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const parts = [];
  const blockOf = (el) => { for (let e = el; e; e = e.parentElement) if (getComputedStyle(e).display !== "inline") return e; return document.body; };
  let last = null;
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!el || el.closest("[data-details], script, style, noscript, template")) continue;
    const d = el.closest("details");
    if (d && !el.closest("summary")) continue;
    const r = el.getClientRects();
    const cs = getComputedStyle(el);
    if (r.length === 0 || cs.visibility === "hidden" || cs.display === "none") continue;
    const b = blockOf(el);
    if (last !== null && b !== last) parts.push("¦");
    last = b;
    parts.push(n.nodeValue);
  }
  for (const el of document.querySelectorAll("[aria-label],[title],input[placeholder],textarea[placeholder]")) {
    if (el.closest("details, [data-details]")) continue;
    for (const a of ["aria-label", "title", "placeholder"]) { const v = el.getAttribute(a); if (v) parts.push("¦", v); }
  }
  const text = parts.join(" ").replace(/\s+/g, " ");
  for (const w of words) {
    const esc = w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const re = new RegExp("(^|[^\\p{L}\\p{N}_-])" + esc + "(?![\\p{L}\\p{N}_])", "iu");
    const m = re.exec(text);
    if (m) out.push(w + ": …" + text.slice(Math.max(0, m.index - 40), m.index + w.length + 41) + "…");
  }
  return out;
})(` + mustJSON(words) + `)`
	var out []string
	if err := chromedp.Run(ctx, chromedp.Evaluate(js, &out)); err != nil {
		tb.Fatalf("read the page's words: %v", err)
	}
	return out
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
