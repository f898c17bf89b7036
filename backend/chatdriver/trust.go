package chatdriver

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/lets-app/lets/backend/agent"
	"github.com/lets-app/lets/backend/textsafe"
	"github.com/lets-app/lets/backend/trust"
)

// A folder's own Claude settings (.claude/settings.json and
// settings.local.json: hooks; .mcp.json: MCP servers) can run programs the
// moment Claude Code starts there, and `claude -p` does not ask the
// workspace-trust question Claude Code asks in a terminal. So the chat's
// Claude starts without them (agent.Options.OnlyLetsSettings) unless the
// person trusts the folder; a folder that has such files asks once, in the
// window, and Trust restarts Claude with them.

// FolderTrust is which folders' own settings the chat's Claude may load.
type FolderTrust struct {
	// Store remembers the trusted folders (shared with the home page,
	// where they can be revoked).
	Store *trust.Store
	// DefaultDir is Lets' own working folder (~/Lets): its Claude never
	// loads the folder's settings and it never asks, since nothing the
	// person brought in is there.
	DefaultDir string
}

// Component ids of the trust question.
const (
	idTrustNote   = "lets-trust-note"
	idTrustChoice = "lets-trust-choice"
)

// TrustQuestion is the question the window asks about a folder's own
// settings.
const TrustQuestion = "This folder has its own Claude settings that can run programs. Trust it?"

// Where the trust question stands in one window.
const (
	trustNotAsked = iota
	trustAsking
	trustDeclined // "Not now": not asked again in this window
)

// folderTrusted reports whether the conversation's folder is trusted.
func (d *driver) folderTrusted() bool {
	ft := d.m.opts.Trust
	if ft == nil || ft.Store == nil || d.isDefaultDir() {
		return false
	}
	ok, err := ft.Store.Trusted(d.conv.Dir)
	if err != nil {
		d.log.Warn("chat: cannot tell whether the folder is trusted; its own settings stay off", "dir", d.conv.Dir, "err", err)
	}
	return ok
}

func (d *driver) isDefaultDir() bool {
	ft := d.m.opts.Trust
	if ft == nil || ft.DefaultDir == "" {
		return false
	}
	a, _ := trust.Canonical(ft.DefaultDir)
	b, _ := trust.Canonical(d.conv.Dir)
	return a != "" && a == b
}

// agentTrust sets o for the conversation's folder and, when the folder
// has settings of its own that stay off, has the window ask about them.
func (d *driver) agentTrust(o *AgentOptions) {
	o.OnlyLetsSettings = !d.folderTrusted()
	if !o.OnlyLetsSettings || d.trust == trustDeclined || d.m.opts.Trust == nil || d.m.opts.Trust.Store == nil || d.isDefaultDir() {
		return
	}
	own := trust.OwnSettings(d.conv.Dir)
	if len(own) == 0 {
		return
	}
	d.log.Info("chat: the folder has its own Claude settings; they stay off until the person trusts it", "dir", d.conv.Dir, "files", own)
	// After the window (re)opens: the caller opens or binds it next.
	d.post(func(ctx context.Context) { d.showTrust(ctx, own) })
}

// showTrust asks about the folder's own settings in the window.
func (d *driver) showTrust(ctx context.Context, own []string) {
	if d.trust == trustDeclined || d.agent == nil {
		return
	}
	d.trust = trustAsking
	d.removeTrust(ctx)
	d.component(ctx, idTrustNote, "note", map[string]any{
		"title": "This folder has its own settings for Claude",
		"text": "“" + filepath.Base(d.conv.Dir) + "” has its own Claude settings (" + strings.Join(own, ", ") + "). They can run programs on this computer as soon as Claude starts. " +
			"Claude works here without them for now. Trust this folder only if you know where it came from. You can take the trust back on the Home window.",
		"tone": "warn",
	})
	d.component(ctx, idTrustChoice, "options", map[string]any{
		"label": TrustQuestion,
		"items": []map[string]string{
			{"id": "trust", "label": "Trust", "hint": "Use this folder's settings from now on"},
			{"id": "later", "label": "Not now", "hint": "Keep them switched off"},
		},
	})
}

func (d *driver) removeTrust(ctx context.Context) {
	d.send(ctx, "component.remove", map[string]string{"id": idTrustNote}, "")
	d.send(ctx, "component.remove", map[string]string{"id": idTrustChoice}, "")
}

// isTrustAction reports whether a component.action is an answer to the
// trust question.
func isTrustAction(raw json.RawMessage) bool {
	var a struct {
		ID string `json:"id"`
	}
	return json.Unmarshal(raw, &a) == nil && (a.ID == idTrustChoice || a.ID == idTrustNote)
}

// onTrustAction: the person answered the trust question (only the shell
// page speaks for the person; a unique cannot answer it).
func (d *driver) onTrustAction(ctx context.Context, from string, raw json.RawMessage) {
	if !strings.HasPrefix(from, "shell:") {
		d.log.Warn("chat: an answer to the trust question not from the shell was ignored", "from", from)
		return
	}
	var a struct {
		ID     string          `json:"id"`
		Action string          `json:"action"`
		Value  json.RawMessage `json:"value"`
	}
	var which string
	if json.Unmarshal(raw, &a) != nil || a.ID != idTrustChoice || a.Action != "select" || json.Unmarshal(a.Value, &which) != nil || d.trust != trustAsking {
		return
	}
	switch which {
	case "later":
		d.trust = trustDeclined
		d.removeTrust(ctx)
		d.send(ctx, "ui.toast", map[string]any{"text": "Okay. Claude keeps working here without this folder's own settings.", "level": "info"}, "")
	case "trust":
		d.trustFolder(ctx)
	}
}

// trustFolder remembers the folder and starts Claude again with its
// settings.
func (d *driver) trustFolder(ctx context.Context) {
	ft := d.m.opts.Trust
	if ft == nil || ft.Store == nil {
		return
	}
	if _, err := ft.Store.Add(d.conv.Dir); err != nil {
		d.log.Warn("chat: trusting the folder failed", "dir", d.conv.Dir, "err", err)
		d.send(ctx, "ui.toast", map[string]any{"text": "Lets could not remember this folder as trusted: " + textsafe.Clip(err.Error(), 300), "level": "error", "ttl": 10000}, "")
		return
	}
	d.log.Info("chat: the person trusted the folder; starting Claude again with its settings", "dir", d.conv.Dir)
	d.trust = trustNotAsked
	d.removeTrust(ctx)
	if d.agent == nil {
		return // a first-run screen: Claude starts with the settings once ready
	}
	for len(d.turns) > 0 {
		d.finish(ctx, Result{IsError: true, Error: agent.ErrCodeCrashed})
	}
	_ = d.agent.Close()
	d.agent = nil
	if err := d.startAgent(ctx); err != nil {
		d.log.Warn("chat: starting Claude with the folder's settings failed", "err", err)
		d.send(ctx, "ui.toast", map[string]any{"text": "Claude could not start again. Close this window and open the chat again.", "level": "error", "ttl": 15000}, "")
		d.setMood(ctx, "alert")
		return
	}
	// The new claude has a new pid: its hooks' reports and approval cards
	// must reach this window.
	d.rebind(ctx)
	d.send(ctx, "ui.toast", map[string]any{"text": "This folder is trusted now: Claude uses its own settings.", "level": "info"}, "")
}
