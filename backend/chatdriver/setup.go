package chatdriver

import (
	"context"
	"encoding/json"
	"time"
)

// The first-run screens, drawn in the chat window with the shell's
// components (lip-1 §components) above the input.

// InstallCommand installs Claude Code.
const InstallCommand = "npm install -g @anthropic-ai/claude-code"

// Component ids of the first-run screens.
const (
	idSetupNote  = "lets-setup-note"
	idSetupCode  = "lets-setup-command"
	idSetupCheck = "lets-setup-check"
	idSignInOpen = "lets-signin-open"
	idSignInLink = "lets-signin-link"
	idSignInForm = "lets-signin-code"
)

// How long the sign-in link and the sign-in itself may take.
const (
	loginURLWait = 30 * time.Second
	loginWait    = 60 * time.Second
)

var setupIDs = []string{idSetupNote, idSetupCode, idSetupCheck, idSignInOpen, idSignInLink, idSignInForm}

func (d *driver) component(ctx context.Context, id, typ string, props map[string]any) {
	d.send(ctx, "component.create", map[string]any{"id": id, "type": typ, "props": props, "slot": "dock"}, "")
}

func (d *driver) clearSetup(ctx context.Context) {
	for _, id := range setupIDs {
		d.send(ctx, "component.remove", map[string]string{"id": id}, "")
	}
	d.screen = ""
}

// showInstall: Claude Code is not installed.
func (d *driver) showInstall(ctx context.Context) {
	d.clearSetup(ctx)
	d.screen = "install"
	d.send(ctx, "talk.welcome", map[string]any{"text": "Let's get Claude ready. It takes a few minutes, once."}, "")
	d.component(ctx, idSetupNote, "note", map[string]any{
		"title": "Claude Code is not on this computer yet",
		"text":  "Lets talks to Claude through Claude Code, Anthropic's program for working with Claude (you sign in with your Claude account). To install it, open a terminal once (on a Mac: Terminal; on Windows: PowerShell), paste the command below and press Enter. It needs Node.js from nodejs.org. When it is done, press “Check again”.",
		"tone":  "info",
	})
	d.component(ctx, idSetupCode, "code", map[string]any{"title": "Install command", "code": InstallCommand, "language": "sh"})
	d.component(ctx, idSetupCheck, "options", map[string]any{"label": "When it is installed:", "items": []map[string]string{{"id": "check", "label": "Check again"}}})
	d.setMood(ctx, "curious")
}

// showSignIn: Claude Code is installed but nobody is signed in. It starts
// `claude auth login` and shows its link and a field for the code.
func (d *driver) showSignIn(ctx context.Context) {
	d.clearSetup(ctx)
	d.screen = "signin"
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
		d.recheck(ctx)
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
		d.send(ctx, "ui.toast", map[string]any{"text": "Claude Code is not there yet. Run the install command, then check again.", "level": "warn", "ttl": 8000}, "")
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
	d.send(ctx, "talk.welcome", map[string]any{"text": "You're all set! Ask Claude anything you like."}, "")
	d.setMood(ctx, "happy")
}
