package lets

import (
	"context"
	"log/slog"
	"time"

	"github.com/lets-app/lets/backend/codexsetup"
	"github.com/lets-app/lets/backend/host"
	"github.com/lets-app/lets/backend/surface/web"
)

// The home page's own "Pair a phone" and "Set up Claude" (#21): on a
// desktop without a tray host the home window is Lets' main window, so
// the page offers what the tray's "Pair a phone…" and "Set up Claude…"
// do, by the same code. A headless Lets (lets serve, no display) offers
// neither: nothing there could show the pairing page.

// homeActionOptions adds the desktop's actions to the home options.
func homeActionOptions(o host.HomeOptions, env *Env, log *slog.Logger, pads *PadParts, desk *Desktop) host.HomeOptions {
	if desk == nil || desk.Headless {
		return o
	}
	var padWeb *web.Server
	if pads != nil {
		padWeb = pads.web
	}
	o.PairPhone = func(context.Context) error {
		// The tray's own "Pair a phone…" (pair_tray.go): phone access
		// switchable live, a fresh code, the pairing view in the browser.
		src := &traySource{parts: trayParts{web: padWeb, env: env, log: log.With("part", "home")}}
		return src.pairPhone()
	}
	o.SetupClaude = func(ctx context.Context) host.HomeSetupResult {
		return homeSetupClaude(ctx, desk.SetupClaude, env, log)
	}
	if desk.SetupCodex != nil {
		o.SetupCodex = func(ctx context.Context, remove bool) host.HomeSetupResult {
			return homeSetupCodex(ctx, desk.SetupCodex, env, log, remove)
		}
	}
	return o
}

// homeSetupClaude runs `lets setup claude` in this process, as the tray's
// "Set up Claude…" does, and says how it went in the tray note's words.
func homeSetupClaude(ctx context.Context, setupClaude ClaudeSetup, env *Env, log *slog.Logger) host.HomeSetupResult {
	if setupClaude == nil {
		return host.HomeSetupResult{Text: "Claude set-up did not fully work", Detail: errNoClaudeSetup.Error()}
	}
	cctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	out, manual, err := setupClaude(cctx, env)
	log.Info("lets setup claude (from Home)", "output", out)
	note := ClaudeTrayNote(out, manual, err)
	return host.HomeSetupResult{Done: err == nil, Text: note.Text, Detail: note.Tooltip}
}

// homeSetupCodex runs `lets setup codex [--uninstall]` in this process
// for Home's Codex card, and says how it went.
func homeSetupCodex(ctx context.Context, setupCodex CodexSetup, env *Env, log *slog.Logger, remove bool) host.HomeSetupResult {
	cctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	out, err := setupCodex(cctx, env, remove)
	log.Info("lets setup codex (from Home)", "remove", remove, "output", out, "err", err)
	switch {
	case remove && err != nil:
		return host.HomeSetupResult{Text: "Lets could not take its tools out of Codex", Detail: err.Error()}
	case remove:
		return host.HomeSetupResult{Done: true, Text: "Codex no longer has Lets' tools", Detail: "Lets took its lines out of Codex's settings; the rest of them is as it was"}
	case err != nil:
		return host.HomeSetupResult{Text: "Codex could not be set up", Detail: err.Error()}
	case codexsetup.FindCodex(env.Getenv) == "":
		return host.HomeSetupResult{Done: true, Text: "Almost there: install Codex",
			Detail: "Lets' tools are in Codex's settings. Install Codex with `" + codexsetup.InstallHint + "`, then start it with `lets codex`"}
	}
	return host.HomeSetupResult{Done: true, Text: "Codex is connected to Lets",
		Detail: "Codex can use Lets' tools now. Start it with `lets codex` to follow it on the pads and phones"}
}
