package chatdriver

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// The first-run screens, drawn in the chat window with the shell's
// components (lip-1 §components) above the input.

// Component ids of the first-run screens.
const (
	idSetupNote     = "lets-setup-note"
	idSetupProgress = "lets-setup-progress"
	idSetupCheck    = "lets-setup-check"
	idSignInOpen    = "lets-signin-open"
	idSignInLink    = "lets-signin-link"
	idSignInForm    = "lets-signin-code"
)

// How long the sign-in link and the sign-in itself may take.
const (
	loginURLWait = 30 * time.Second
	loginWait    = 60 * time.Second
)

var setupIDs = []string{idSetupNote, idSetupProgress, idSetupCheck, idSignInOpen, idSignInLink, idSignInForm}

// component draws one card of a first-run screen in the dock slot.
// The steps stay until Claude is ready (issue #26): the cards carry
// dismissible: false, so the shell draws no × on them and a person cannot
// close the install steps or "Check again" away for good. The sign-in link
// is shown only when asked for, and may be put away (asked for again, it
// comes back).
func (d *driver) component(ctx context.Context, id, typ string, props map[string]any) {
	if id != idSignInLink {
		props["dismissible"] = false
	}
	d.send(ctx, "component.create", map[string]any{"id": id, "type": typ, "props": props, "slot": "dock"}, "")
}

func (d *driver) clearSetup(ctx context.Context) {
	for _, id := range setupIDs {
		d.send(ctx, "component.remove", map[string]string{"id": id}, "")
	}
	d.screen = ""
}

// showInstall: Claude Code is not installed. With an installer the screen
// offers the Install Claude Code button (installing into Lets' own
// folder: no terminal, no password); without one, only Check again.
func (d *driver) showInstall(ctx context.Context) {
	d.clearSetup(ctx)
	d.screen = "install"
	d.status(ctx, statusMissing)
	d.send(ctx, "talk.welcome", map[string]any{"text": "Let's get Claude ready. It takes a minute or two, once."}, "")
	text := "Lets talks to Claude through Claude Code, Anthropic's program for working with Claude (you sign in with your Claude account afterwards). Lets can install it for you: it goes into Lets' own folder, so no password is needed."
	items := []map[string]string{{"id": "install", "label": "Install Claude Code"}, {"id": "check", "label": "Check again", "hint": "If you installed it yourself"}}
	if d.m.opts.InstallClaude == nil {
		text = "Lets talks to Claude through Claude Code, Anthropic's program for working with Claude. This Lets cannot install it by itself: ask whoever looks after this computer to install Claude Code, then press “Check again”."
		items = items[1:]
	}
	d.component(ctx, idSetupNote, "note", map[string]any{"title": "Claude Code is not on this computer yet", "text": text, "tone": "info"})
	d.component(ctx, idSetupCheck, "options", map[string]any{"label": "Get Claude Code:", "items": items})
	d.setMood(ctx, "curious")
}

// The chat window's status line (talk.agent's status) at each first-run
// step, so the band never says Claude is there while it is not.
const (
	statusMissing    = "Claude is not ready yet: Claude Code is missing."
	statusInstalling = "Installing Claude Code…"
	statusFailed     = "Claude Code could not be installed yet."
	statusSignIn     = "Claude is installed. Sign in to start."
	statusReady      = "Claude is here. Say hello!"
)

// status sets the chat window's status line.
func (d *driver) status(ctx context.Context, text string) {
	d.send(ctx, "talk.agent", map[string]any{"working": false, "folder": d.conv.Dir, "status": text}, "")
}

// startInstall runs the installer and shows its progress, with Cancel.
func (d *driver) startInstall(ctx context.Context) {
	if d.m.opts.InstallClaude == nil || d.screen == "installing" {
		return
	}
	d.clearSetup(ctx)
	d.screen = "installing"
	d.status(ctx, statusInstalling)
	d.component(ctx, idSetupNote, "note", map[string]any{"title": "Installing Claude Code", "text": "This takes a minute or two. You can keep this window open; Lets tells you when it is done.", "tone": "info"})
	d.component(ctx, idSetupProgress, "progress", map[string]any{"title": "Getting ready…", "max": 100})
	d.component(ctx, idSetupCheck, "options", map[string]any{"label": "Changed your mind?", "items": []map[string]string{{"id": "cancel", "label": "Cancel"}}})
	d.setMood(ctx, "thinking")
	ictx, cancel := context.WithCancel(d.life)
	d.m.setInstall(d, cancel)
	go func() {
		last := -2
		err := d.m.opts.InstallClaude(ictx, func(p InstallProgress) {
			if p.Percent == last {
				return
			}
			last = p.Percent
			d.post(func(ctx context.Context) {
				if d.screen != "installing" {
					return
				}
				props := map[string]any{"title": p.Text}
				if p.Percent >= 0 {
					props["value"] = p.Percent
				}
				d.send(ctx, "component.update", map[string]any{"id": idSetupProgress, "props": props}, "")
			})
		})
		cancelled := ictx.Err() != nil
		cancel()
		d.post(func(ctx context.Context) {
			d.m.setInstall(d, nil)
			d.installDone(ctx, err, cancelled)
		})
	}()
}

// installDone: the installer ended.
func (d *driver) installDone(ctx context.Context, err error, cancelled bool) {
	switch {
	case err == nil:
		d.send(ctx, "ui.toast", map[string]any{"text": "Claude Code is installed.", "level": "info"}, "")
		d.recheck(ctx)
	case cancelled || errors.Is(err, context.Canceled):
		d.showInstall(ctx)
		d.send(ctx, "ui.toast", map[string]any{"text": "Stopped installing. Nothing was changed.", "level": "info"}, "")
	default:
		d.log.Warn("chat: installing Claude Code failed", "err", err)
		d.clearSetup(ctx)
		d.screen = "install"
		d.status(ctx, statusFailed)
		d.component(ctx, idSetupNote, "note", map[string]any{"title": "Claude Code could not be installed", "text": err.Error(), "tone": "error"})
		d.component(ctx, idSetupCheck, "options", map[string]any{"label": "What next?", "items": []map[string]string{{"id": "install", "label": "Try again"}, {"id": "check", "label": "Check again", "hint": "If you installed it yourself"}}})
		d.setMood(ctx, "alert")
	}
}

// showSignIn: Claude Code is installed but nobody is signed in. It starts
// `claude auth login` and shows its link and a field for the code.
func (d *driver) showSignIn(ctx context.Context) {
	d.clearSetup(ctx)
	d.screen = "signin"
	d.status(ctx, statusSignIn)
	url := ""
	if d.m.opts.Login != nil {
		if d.login != nil {
			d.login.Cancel()
			d.login = nil
		}
		// claude auth login lives as long as the driver, not the request
		// that drew this screen.
		l, err := d.m.opts.Login(d.life)
		if err == nil {
			uctx, cancel := context.WithTimeout(ctx, loginURLWait)
			url, err = l.URL(uctx)
			cancel()
			if err != nil {
				l.Cancel()
			} else {
				d.login, d.loginURL = l, url
			}
		}
		if err != nil {
			d.log.Warn("chat: starting the sign-in failed", "err", err)
			url = ""
		}
	}
	if url == "" {
		d.send(ctx, "talk.welcome", map[string]any{"text": "Almost there: sign in to Claude once, and we can talk."}, "")
		d.component(ctx, idSetupNote, "note", map[string]any{
			"title": "Sign in to Claude",
			"text":  "Claude needs you to sign in once with your Claude account, and Lets could not start the sign-in by itself. Press “Check again” to try once more.",
			"tone":  "warn",
		})
		d.component(ctx, idSetupCheck, "options", map[string]any{"label": "When you are ready:", "items": []map[string]string{{"id": "check", "label": "Check again"}}})
		d.setMood(ctx, "alert")
		return
	}
	// Three small parts, so they fit above the input of a small window;
	// the companion's welcome line says what they are for.
	d.send(ctx, "talk.welcome", map[string]any{"text": "Almost there: sign in to Claude once with your Claude account, then paste the code it shows you below."}, "")
	items := []map[string]string{{"id": "open", "label": "Open the sign-in page", "hint": "In your web browser"}, {"id": "link", "label": "Show the link to copy"}}
	d.component(ctx, idSignInOpen, "options", map[string]any{"label": "Step 1: sign in", "items": items})
	d.component(ctx, idSignInForm, "form", map[string]any{
		"title":  "Step 2: paste your code",
		"fields": []map[string]any{{"name": "code", "label": "Sign-in code", "kind": "text", "placeholder": "Paste the code here", "required": true}},
		"submit": "Sign in",
	})
	d.setMood(ctx, "curious")
}

// onSetupAction handles a press on a first-run screen.
func (d *driver) onSetupAction(ctx context.Context, raw json.RawMessage) {
	var a struct {
		ID     string          `json:"id"`
		Action string          `json:"action"`
		Value  json.RawMessage `json:"value"`
	}
	if json.Unmarshal(raw, &a) != nil || d.screen == "" {
		return
	}
	switch {
	case a.ID == idSetupCheck && a.Action == "select":
		var which string
		_ = json.Unmarshal(a.Value, &which)
		switch which {
		case "install":
			d.startInstall(ctx)
		case "cancel":
			d.m.cancelInstall(d)
		default:
			if d.screen != "installing" {
				d.recheck(ctx)
			}
		}
	case a.ID == idSignInOpen && a.Action == "select" && d.login != nil:
		var which string
		_ = json.Unmarshal(a.Value, &which)
		if which == "open" && d.m.opts.OpenURL != nil {
			if err := d.m.opts.OpenURL(d.loginURL); err == nil {
				return
			}
			d.send(ctx, "ui.toast", map[string]any{"text": "Lets could not open your browser. Copy the link below into it instead.", "level": "warn"}, "")
		}
		// The link itself, only when asked for: the steps stay small.
		d.component(ctx, idSignInLink, "code", map[string]any{"title": "Copy this link into your web browser", "code": d.loginURL})
	case a.ID == idSignInForm && a.Action == "submit":
		var v struct {
			Code string `json:"code"`
		}
		_ = json.Unmarshal(a.Value, &v)
		if v.Code == "" || d.login == nil {
			d.send(ctx, "ui.toast", map[string]any{"text": "Paste the code from the sign-in page first.", "level": "warn"}, "")
			return
		}
		l := d.login
		d.send(ctx, "ui.toast", map[string]any{"text": "Signing in…", "level": "info"}, "")
		d.setMood(ctx, "thinking")
		go func() {
			err := l.SubmitCode(v.Code)
			if err == nil {
				wctx, cancel := context.WithTimeout(ctx, loginWait)
				err = l.Wait(wctx)
				cancel()
			}
			d.post(func(ctx context.Context) {
				if err != nil {
					d.log.Warn("chat: sign-in failed", "err", err)
					d.send(ctx, "ui.toast", map[string]any{"text": "That code did not work. Open the sign-in page again and copy the newest code.", "level": "error", "ttl": 10000}, "")
					d.showSignIn(ctx)
					return
				}
				d.recheck(ctx)
			})
		}()
	}
}

// recheck asks Claude Code again and moves on when it is ready.
func (d *driver) recheck(ctx context.Context) {
	switch d.authState(ctx) {
	case NotInstalled:
		d.send(ctx, "ui.toast", map[string]any{"text": "Claude Code is not there yet. Press “Install Claude Code” to get it.", "level": "warn", "ttl": 8000}, "")
		if d.screen != "install" {
			d.showInstall(ctx)
		}
	case LoggedOut:
		if d.screen != "signin" {
			d.showSignIn(ctx)
		} else {
			d.send(ctx, "ui.toast", map[string]any{"text": "You are not signed in yet.", "level": "warn"}, "")
		}
	case LoggedIn:
		d.ready(ctx)
	}
}

// ready: Claude Code works now; start the agent in a window bound to it.
func (d *driver) ready(ctx context.Context) {
	if d.login != nil {
		d.login.Cancel()
		d.login = nil
	}
	d.clearSetup(ctx)
	if err := d.startAgent(ctx); err != nil {
		d.log.Warn("chat: starting Claude failed", "err", err)
		d.send(ctx, "ui.toast", map[string]any{"text": "Claude could not start. Close this window and open the chat again.", "level": "error", "ttl": 15000}, "")
		d.setMood(ctx, "alert")
		return
	}
	// A window opened before the agent is not bound to its pid: bind it so
	// approvals and moods from its hooks reach it.
	d.rebind(ctx)
	d.status(ctx, statusReady)
	d.send(ctx, "talk.welcome", map[string]any{"text": "You're all set! Ask Claude anything you like."}, "")
	d.setMood(ctx, "happy")
}
