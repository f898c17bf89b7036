package shell_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/lets-app/lets/backend/host"
	"github.com/lets-app/lets/backend/testenv/axe"
	"github.com/lets-app/lets/backend/testenv/browsertest"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/uniques"
)

// The rig of the shell's accessibility and plain-words tests (issue #26):
// a real host with the built-in uniques, one tab per window with axe-core
// preloaded (so the unique's frame carries it too), and the states a
// person meets: a toast, the chat open, the companion's menu, an approval
// card from Claude and the allow dialog of an app.

// a11yBuiltins are the built-in uniques as shipped, except that each may
// ask to run Python: none of them asks by itself, and the allow dialog is
// drawn over each of them here.
func a11yBuiltins(t *testing.T) fstest.MapFS {
	t.Helper()
	out := fstest.MapFS{}
	err := fs.WalkDir(uniques.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(uniques.FS(), p)
		if strings.Count(p, "/") == 1 && strings.HasSuffix(p, "/unique.json") {
			patched := bytes.Replace(data, []byte(`"exec": []`), []byte(`"exec": ["python"]`), 1)
			if bytes.Equal(patched, data) {
				return fmt.Errorf("%s: no empty permissions.exec to widen", p)
			}
			data = patched
		}
		out[p] = &fstest.MapFile{Data: data, Mode: 0o644}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// startA11yHost runs a host with a11yBuiltins.
func startA11yHost(t *testing.T) *host.Server {
	t.Helper()
	s, err := host.Listen(host.Options{Token: rigToken, Version: "0.1.0", DataDir: t.TempDir(), Builtin: a11yBuiltins(t), OnOpen: rigLaunches.Take})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		_ = testutil.Wait(t, "the host stops", done)
	})
	return s
}

// openA11yWin opens unique in a fresh tab seen in mode (w×h window px),
// with axe-core in the shell page and the unique's frame.
func openA11yWin(t *testing.T, s *host.Server, unique string, m axe.Mode, w, h int) *win {
	t.Helper()
	var o struct {
		Window string `json:"window"`
	}
	if err := json.Unmarshal(api(t, s, "POST", "/lip/open", map[string]any{"unique": unique}), &o); err != nil {
		t.Fatal(err)
	}
	url := rigLaunches.URL(t, s.URL(), o.Window)
	ctx := browsertest.New(t, browsertest.Options{Width: w, Height: h, Timeout: 180 * time.Second})
	x := &win{t: t, s: s, ctx: ctx, id: o.Window, worlds: map[string]string{}}
	chromedp.ListenTarget(ctx, func(ev any) {
		if e, ok := ev.(*runtime.EventExecutionContextCreated); ok {
			var aux struct {
				IsDefault bool `json:"isDefault"`
			}
			_ = json.Unmarshal(e.Context.AuxData, &aux)
			if aux.IsDefault {
				x.mu.Lock()
				x.worlds[e.Context.Origin] = e.Context.UniqueID
				x.mu.Unlock()
			}
		}
	})
	axe.Preload(t, ctx)
	x.run(
		m.Apply(w, h),
		emulation.SetFocusEmulationEnabled(true),
		chromedp.Navigate(url),
		chromedp.WaitVisible(`#lets-shell[data-state="online"]`, chromedp.ByQuery),
		chromedp.Evaluate(`new URL(document.getElementById("lets-unique").src).origin`, &x.origin),
	)
	x.pollU(`window.lip && document.readyState === "complete"`)
	// axe-core reaches the unique's frame too: its findings count.
	var inFrame bool
	x.evalU(`typeof window.axe === "object" && typeof window.axe.run === "function"`, &inFrame)
	if !inFrame {
		t.Fatalf("axe-core is not in the %s window's frame", unique)
	}
	return x
}

// calm waits until no animation that ends is still running (a toast
// rising, the chat sliding in): contrast is measured on the final colours.
func (x *win) calm() {
	x.t.Helper()
	x.poll(`document.getAnimations().every(a => a.playState !== "running" || a.effect.getComputedTiming().iterations === Infinity)`)
}

// approveAsk posts an approval request for the window as Claude's chat
// does, with Claude's own words for it if about is given; the answer
// comes on the channel once the person answers.
func (x *win) approveAsk(tool, summary string, about ...string) <-chan string {
	x.t.Helper()
	out := make(chan string, 1)
	req := map[string]any{"window": x.id, "tool": tool, "summary": summary}
	if len(about) > 0 {
		req["about"] = about[0]
	}
	body, _ := json.Marshal(req)
	go func() {
		req, err := http.NewRequest("POST", x.s.URL()+"/lip/approve", bytes.NewReader(body))
		if err != nil {
			out <- err.Error()
			return
		}
		req.Header.Set("Authorization", "Bearer "+rigToken)
		req.Header.Set("Content-Type", "application/json")
		resp, err := (&http.Client{Timeout: testutil.EventuallyTimeout * 2}).Do(req)
		if err != nil {
			out <- err.Error()
			return
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		out <- string(raw)
	}()
	return out
}

// shellStep is one state of the window a person meets.
type shellStep struct {
	// Name says where, in failures.
	Name string
	// Raw is text that must stay behind Details in this state (a
	// command, a path, a tool's name).
	Raw []string
	// Details is what the prompt's Details part holds.
	Details []string
}

// walkShell brings the window of unique through every state of the
// shell's own chrome and calls at in each: the window as opened with a
// toast, the chat open, the companion's menu, two approval cards (a
// command; a file, with Details open) and the allow dialog. Prompts open
// with the focus on Deny and are answered with Escape (Deny).
func walkShell(x *win, unique string, at func(shellStep)) {
	t := x.t
	t.Helper()
	x.controlsKnown(0)
	x.send(map[string]any{"type": "ui.toast", "data": map[string]any{"text": "Your notes are saved.", "level": "ok", "ttl": 600000}})
	x.poll(`document.querySelector("#lets-toasts .toast")`)
	x.calm()
	at(shellStep{Name: "toast"})

	// A part of a kind the window cannot draw: what Claude sent is raw.
	x.send(map[string]any{"type": "component.create", "data": map[string]any{"id": "holo", "type": "hologram", "props": map[string]any{"beam": 3, "path": "/home/me/Lets/beam.json"}, "slot": "dock"}})
	x.poll(`document.querySelector('[data-component="holo"]')`)
	x.calm()
	at(shellStep{Name: "a part it cannot draw", Raw: []string{"hologram", "/home/me/Lets/beam.json"}, Details: []string{"hologram", "/home/me/Lets/beam.json"}})
	x.send(map[string]any{"type": "component.remove", "data": map[string]any{"id": "holo"}})
	x.poll(`!document.querySelector('[data-component="holo"]')`)

	if unique != "chat" {
		x.eval(`document.getElementById("lets-chat-toggle").click(), true`, nil)
	}
	x.poll(`document.querySelector(".chat-panel:not([hidden])")`)
	x.send(map[string]any{"type": "chat.say", "data": map[string]any{"text": "Here is what I found in your notes."}})
	x.calm()
	at(shellStep{Name: "chat open"})

	x.send(map[string]any{"type": "entity.suggest", "data": map[string]any{"items": []map[string]any{{"id": "tidy", "label": "Tidy up", "hint": "Sorts your notes by date"}}}})
	// A press with the keyboard (a click of detail 0) opens the menu on
	// its first item, highlighted.
	x.eval(`document.querySelector(".lets-companion-body").focus(), document.querySelector(".lets-companion-body").click(), true`, nil)
	x.poll(`!document.getElementById("lets-companion-menu").hidden && document.querySelector('#lets-companion-menu [data-id="tidy"]')`)
	// Claude's suggestion may land after the menu opened and draw it
	// afresh: the highlight goes back on the first item.
	x.eval(`document.activeElement.closest("#lets-companion-menu") || document.querySelector("#lets-companion-menu [role=menuitem]").focus(), true`, nil)
	x.poll(`document.activeElement.matches("#lets-companion-menu [role=menuitem]:focus-visible")`)
	x.calm()
	at(shellStep{Name: "companion menu"})
	x.key(kb.Escape)
	x.poll(`document.getElementById("lets-companion-menu").hidden`)

	for _, c := range []struct{ tool, summary, name string }{
		{"Bash", "npm test --prefix ~/Lets", "approval card (command)"},
		{"Edit", "/home/me/Lets/notes.txt", "approval card (file, Details open)"},
	} {
		answer := x.approveAsk(c.tool, c.summary)
		x.poll(`document.querySelector("dialog.prompt.k-approval[open]")`)
		var focus string
		x.eval(`document.activeElement.dataset.choice || document.activeElement.outerHTML.slice(0, 80)`, &focus)
		if focus != "deny" {
			t.Errorf("%s: opened with the focus on %q, not Deny", c.name, focus)
		}
		if strings.Contains(c.name, "Details open") {
			x.eval(`document.querySelector("dialog.prompt details").open = true`, nil)
		}
		x.calm()
		at(shellStep{Name: c.name, Raw: []string{c.tool, c.summary}, Details: []string{c.tool, c.summary}})
		x.key(kb.Escape)
		a := testutil.Wait(t, "the approval is answered", answer)
		if !strings.Contains(a, `"choice":"deny"`) {
			t.Errorf("%s: Escape answered %s", c.name, a)
		}
		x.poll(`!document.querySelector("dialog.prompt")`)
	}

	x.evalU(`window.__ran = null, lip.run("python", "print(1)").then(r => window.__ran = r, e => window.__ran = {error: e.code}), true`, nil)
	x.poll(`document.querySelector("dialog.prompt.k-exec[open]")`)
	var focus string
	x.eval(`document.activeElement.dataset.choice || ""`, &focus)
	if focus != "deny" {
		t.Errorf("allow dialog: opened with the focus on %q, not Deny", focus)
	}
	x.calm()
	at(shellStep{Name: "allow dialog", Details: []string{"python"}})
	x.key(kb.Escape)
	x.pollU(`window.__ran`)
	var ran map[string]any
	x.evalU(`window.__ran`, &ran)
	if ran["error"] != "exec_denied" {
		t.Errorf("allow dialog: Escape gave %v, not a refusal", ran)
	}
	x.poll(`!document.querySelector("dialog.prompt")`)
}

// firstRun is the chat window of a computer without Claude Code: the
// install screen its driver shows (installScreen).
func firstRun(x *win) {
	x.t.Helper()
	x.poll(`document.querySelector('.chat-panel[data-docked="true"]')`)
	x.send(installScreen()...)
	x.poll(`(() => { const b = document.querySelector(` + "`" + checkAgain + "`" + `); return b && b.getBoundingClientRect().height > 0; })()`)
	x.calm()
}
