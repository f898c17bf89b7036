package frontend_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/lets-app/lets/backend/codexsetup"
	"github.com/lets-app/lets/backend/host"
	"github.com/lets-app/lets/backend/testenv/axe"
	"github.com/lets-app/lets/backend/testenv/browsertest"
	"github.com/lets-app/lets/backend/testenv/testutil"
)

// TestBrowserHomeSetsUpCodex (issue #25): the Codex card beside Claude's
// says Codex is installed but not connected, with a labelled "Set up
// Codex" button; Enter on it runs the app's set-up (here: the real
// config.toml merge) and the card says Codex is set up, the keyboard
// moving on to "Remove from Codex"; Enter on that takes Lets' tools out
// again and "Set up Codex" comes back. Every state passes axe-core and
// the word list in light, dark and at 200 %. Without the app's set-up
// the card has no buttons and the command sits behind "Details".
func TestBrowserHomeSetsUpCodex(t *testing.T) {
	codexHome, bin := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "codex"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	lets := filepath.Join(bin, "lets")
	if err := os.WriteFile(lets, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(codexHome, "config.toml")
	var setups, removes atomic.Int32
	o := noClaude(t, host.Options{})
	claudeEnv := o.Getenv
	o.Getenv = func(k string) string {
		switch k {
		case "CODEX_HOME":
			return codexHome
		case "PATH":
			return bin
		}
		return claudeEnv(k)
	}
	o.Home.SetupCodex = func(_ context.Context, remove bool) host.HomeSetupResult {
		cfg, _ := os.ReadFile(file)
		var out []byte
		var err error
		if remove {
			removes.Add(1)
			out, _, err = codexsetup.Uninstall(cfg)
		} else {
			setups.Add(1)
			out, _, err = codexsetup.Install(cfg, codexsetup.Server{Command: lets, Args: []string{"mcp"}})
		}
		if err == nil {
			err = os.WriteFile(file, out, 0o600)
		}
		if err != nil {
			return host.HomeSetupResult{Text: "Codex could not be set up", Detail: err.Error()}
		}
		if remove {
			return host.HomeSetupResult{Done: true, Text: "Codex no longer has Lets' tools"}
		}
		return host.HomeSetupResult{Done: true, Text: "Codex is connected to Lets", Detail: "Start it with `lets codex` to follow it on the pads and phones"}
	}
	h := startHomeHost(t, o)
	poll := func(expr string) chromedp.Action {
		return chromedp.Poll(expr, nil, chromedp.WithPollingTimeout(testutil.EventuallyTimeout))
	}
	for _, m := range axe.Modes {
		t.Run(m.Name, func(t *testing.T) {
			_ = os.Remove(file)
			ctx := browsertest.New(t, browsertest.Options{Width: 1000, Height: 900})
			axe.Preload(t, ctx)
			var card, setupName, removeName, focused, note string
			var setupLabelled bool
			if err := chromedp.Run(ctx,
				m.Apply(1000, 900),
				chromedp.Navigate(h.link(t)),
				chromedp.WaitVisible(`#setup-codex`, chromedp.ByQuery),
				chromedp.Text(`#codex`, &card, chromedp.ByQuery),
				chromedp.Evaluate(`document.getElementById('setup-codex').textContent`, &setupName),
				chromedp.Evaluate(`document.getElementById('setup-codex').closest('section').getAttribute('aria-labelledby') === 'codex-title'`, &setupLabelled),
			); err != nil {
				t.Fatalf("the Codex card did not come up: %v", err)
			}
			if !strings.Contains(card, "Codex is installed, but it does not know Lets' tools yet") || !strings.Contains(card, "press “Set up Codex” below") {
				t.Errorf("the Codex card says %q", card)
			}
			if setupName != "Set up Codex" || !setupLabelled {
				t.Errorf("button %q, in the card labelled Codex: %v", setupName, setupLabelled)
			}
			checkState(t, ctx, m.Name+" codex not set up")

			if err := chromedp.Run(ctx,
				chromedp.Focus(`#setup-codex`, chromedp.ByQuery),
				chromedp.KeyEvent("\r"),
				poll(`document.getElementById('codex').dataset.state === 'ready' && document.getElementById('setup-codex').getClientRects().length === 0`),
				chromedp.Text(`#codex`, &card, chromedp.ByQuery),
				chromedp.Text(`#setup-codex-note`, &note, chromedp.ByQuery),
				poll(`document.activeElement && document.activeElement.id === 'remove-codex'`),
				chromedp.Evaluate(`document.activeElement.id`, &focused),
				chromedp.Evaluate(`document.getElementById('remove-codex').textContent`, &removeName),
			); err != nil {
				t.Fatalf("Enter on Set up Codex: %v (card %q, note %q)", err, card, note)
			}
			if !strings.Contains(card, "Codex is set up") || !strings.Contains(note, "Codex is connected to Lets") || removeName != "Remove from Codex" {
				t.Errorf("after Set up Codex: card %q, note %q, button %q", card, note, removeName)
			}
			if cfg, err := os.ReadFile(file); err != nil || !strings.Contains(string(cfg), "[mcp_servers.lets]") {
				t.Errorf("config after Set up Codex: %v %s", err, cfg)
			}
			checkState(t, ctx, m.Name+" codex set up")
			browsertest.Screenshot(t, ctx, "home-codex-"+m.Name+".png")

			if err := chromedp.Run(ctx,
				chromedp.KeyEvent("\r"),
				poll(`document.getElementById('codex').dataset.state === 'partial' && document.getElementById('remove-codex').getClientRects().length === 0`),
				poll(`document.activeElement && document.activeElement.id === 'setup-codex'`),
				chromedp.Text(`#setup-codex-note`, &note, chromedp.ByQuery),
			); err != nil {
				t.Fatalf("Enter on Remove from Codex: %v (note %q)", err, note)
			}
			if !strings.Contains(note, "no longer has Lets' tools") {
				t.Errorf("after Remove: note %q", note)
			}
			if cfg, _ := os.ReadFile(file); len(cfg) != 0 {
				t.Errorf("config after Remove: %q, want empty", cfg)
			}
			checkState(t, ctx, m.Name+" codex removed")
		})
	}
	if setups.Load() != int32(len(axe.Modes)) || removes.Load() != int32(len(axe.Modes)) {
		t.Errorf("%d set-ups and %d removes in %d modes", setups.Load(), removes.Load(), len(axe.Modes))
	}

	// Lets with no desktop: no buttons, the command behind "Details".
	bare := noClaude(t, host.Options{})
	bare.Getenv = o.Getenv
	hb := startHomeHost(t, bare)
	ctx := browsertest.New(t, browsertest.Options{})
	var visible, buttons bool
	var all string
	if err := chromedp.Run(ctx,
		chromedp.Navigate(hb.link(t)),
		poll(`document.getElementById('codex').dataset.state === 'partial'`),
		chromedp.Evaluate(`document.getElementById('codex').innerText.includes('lets setup codex')`, &visible),
		chromedp.Evaluate(`[...document.querySelectorAll('#setup-codex, #remove-codex')].some(b => b.offsetParent !== null)`, &buttons),
		chromedp.Evaluate(`document.getElementById('codex').textContent`, &all),
	); err != nil {
		t.Fatal(err)
	}
	if visible || buttons || !strings.Contains(all, "lets setup codex") || !strings.Contains(all, "run the command under “Details”") {
		t.Errorf("without the set-up: command shown %v, buttons %v, card %q", visible, buttons, all)
	}
}
