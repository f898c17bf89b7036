package mcpserver

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lets-app/lets/backend/hostapi"
)

// Input limits (the host checks them too; here they give a clear answer
// before the request).
const (
	maxTTL      = 86_400_000
	maxCommands = 100
	maxNameLen  = 128
)

type noInput struct{}

type openInput struct {
	Unique string `json:"unique" jsonschema:"the name of an installed unique, e.g. hello (the uniques tool lists them)"`
	Resume string `json:"resume,omitempty" jsonschema:"bring back a saved session: \"last\" or a session id from the sessions tool; leave out for a fresh window"`
}

type sendCommand struct {
	Window string         `json:"window,omitempty" jsonschema:"the window to send to, e.g. w1; defaults to the top-level window"`
	Type   string         `json:"type" jsonschema:"the command type: one the unique declared (see the open result) or a core command such as ui.toast"`
	Data   map[string]any `json:"data,omitempty" jsonschema:"the command's data, a JSON object (default {})"`
	TTL    int64          `json:"ttl,omitempty" jsonschema:"drop the command if the window has not taken it within this many milliseconds"`
	Re     string         `json:"re,omitempty" jsonschema:"the id of the event this command answers"`
}

type sendInput struct {
	Window   string         `json:"window,omitempty" jsonschema:"the window to send to, e.g. w1 (from open or status)"`
	Type     string         `json:"type,omitempty" jsonschema:"the command type: one the unique declared (see the open result) or a core command such as ui.toast"`
	Data     map[string]any `json:"data,omitempty" jsonschema:"the command's data, a JSON object (default {})"`
	TTL      int64          `json:"ttl,omitempty" jsonschema:"drop the command if the window has not taken it within this many milliseconds"`
	Re       string         `json:"re,omitempty" jsonschema:"the id of the event this command answers"`
	Commands []sendCommand  `json:"commands,omitempty" jsonschema:"several commands at once, sent in order; use instead of type/data"`
}

type closeInput struct {
	Window string `json:"window" jsonschema:"the window to close, e.g. w1"`
}

type sessionsInput struct {
	Unique string `json:"unique,omitempty" jsonschema:"only this unique's sessions; leave out for all"`
}

// uniques lists the installed uniques.
func (s *server) uniques(ctx context.Context, _ noInput) *mcp.CallToolResult {
	ans, err := s.host.Uniques(ctx)
	if err != nil {
		return s.hostError(err)
	}
	var b strings.Builder
	if len(ans.Uniques) == 0 {
		b.WriteString("No uniques are installed.\n")
	} else {
		fmt.Fprintf(&b, "%d unique(s) installed:\n", len(ans.Uniques))
	}
	for _, u := range ans.Uniques {
		fmt.Fprintf(&b, "- %s: %s", u.Name, oneLine(u.Title, 120))
		if u.Description != "" {
			fmt.Fprintf(&b, " — %s", oneLine(u.Description, 300))
		}
		fmt.Fprintf(&b, " (sends: %s; takes: %s)\n", keyList(u.Events), keyList(u.Commands))
	}
	b.WriteString("Open one with the open tool, e.g. {\"unique\": \"hello\"}.")
	return s.result(b.String(), encodeJSON(ans))
}

// open opens a window.
func (s *server) open(ctx context.Context, in openInput) *mcp.CallToolResult {
	if in.Unique == "" {
		return s.inputError(`give "unique": the name of an installed unique (the uniques tool lists them)`)
	}
	if len(in.Unique) > maxNameLen || len(in.Resume) > maxNameLen {
		return s.inputError("the unique name or session id is too long")
	}
	ans, err := s.host.Open(ctx, hostapi.OpenRequest{Unique: in.Unique, Resume: in.Resume})
	if err != nil {
		return s.hostError(err)
	}
	// An older host answered with the window's one-time link. Whoever
	// loads it becomes the window's person, so it never reaches Claude
	// (issue #23): only the person opens a window.
	ans.URL = ""
	var b strings.Builder
	fmt.Fprintf(&b, "Opened %s as window %s.\n", in.Unique, ans.Window)
	switch {
	case ans.Shown == hostapi.ShownWaiting:
		where := "their Lets home page"
		if ans.Home != "" {
			where += " (" + ans.Home + ")"
		}
		fmt.Fprintf(&b, "No window could be shown on the screen here, so it is waiting for the person on %s: tell them it is there, under \"Waiting for you\". Only the person can open it; you get no link to it.\n", where)
	case ans.Shown == hostapi.ShownWindow:
		b.WriteString("It is on the person's screen now.\n")
	}
	if ans.Session != nil {
		fmt.Fprintf(&b, "Resumed session %s: %s\n", ans.Session.ID, oneLine(ans.Session.Summary, 300))
	}
	fmt.Fprintf(&b, "Commands it takes (send): %s\n", summaryList(ans.Commands))
	fmt.Fprintf(&b, "Events it sends (listen): %s\n", summaryList(ans.Events))
	fmt.Fprintf(&b, "Next: listen to hear the person, send to act in %s, close when you are done.\n", ans.Window)
	// The note is the text without the guide, which the JSON holds.
	note := b.String()
	if g := strings.TrimSpace(ans.Guide); g != "" {
		// The guide is the unique's own text: it tells how to use the
		// window, in the unique's words.
		g, _ = cutText(g, s.maxChars/4)
		fmt.Fprintf(&b, "\nThe unique's GUIDE (follow it while %s is open):\n%s\n", ans.Window, g)
		note += fmt.Sprintf("Follow the unique's guide (the guide member) while %s is open.\n", ans.Window)
	}
	return s.resultNote(b.String(), note, encodeJSON(ans))
}

// send sends one command or a batch.
func (s *server) send(ctx context.Context, in sendInput) *mcp.CallToolResult {
	var cmds []sendCommand
	switch {
	case len(in.Commands) > 0 && in.Type != "":
		return s.inputError(`give either type (one command) or commands (several), not both`)
	case len(in.Commands) > 0:
		if len(in.Commands) > maxCommands {
			return s.inputError(fmt.Sprintf("at most %d commands at once", maxCommands))
		}
		for _, c := range in.Commands {
			if c.Window == "" {
				c.Window = in.Window
			}
			cmds = append(cmds, c)
		}
	case in.Type != "":
		cmds = []sendCommand{{Window: in.Window, Type: in.Type, Data: in.Data, TTL: in.TTL, Re: in.Re}}
	default:
		return s.inputError(`give "window" and "type" (and "data"), or "commands": [{window, type, data}, …]`)
	}
	envs := make([]map[string]any, 0, len(cmds))
	for i, c := range cmds {
		switch {
		case c.Window == "":
			return s.inputError(fmt.Sprintf("command %d has no window: give \"window\" (e.g. w1; the status tool lists the open windows)", i+1))
		case c.Type == "":
			return s.inputError(fmt.Sprintf("command %d has no type", i+1))
		case c.TTL < 0 || c.TTL > maxTTL:
			return s.inputError(fmt.Sprintf("command %d: ttl must be 1 to %d milliseconds", i+1, maxTTL))
		}
		env := map[string]any{"lip": 1, "win": c.Window, "type": c.Type, "data": c.Data}
		if c.Data == nil {
			env["data"] = map[string]any{}
		}
		if c.TTL > 0 {
			env["ttl"] = c.TTL
		}
		if c.Re != "" {
			env["re"] = c.Re
		}
		envs = append(envs, env)
	}
	var body any = envs
	if len(envs) == 1 && len(in.Commands) == 0 {
		body = envs[0]
	}
	ans, err := s.host.Send(ctx, body)
	if err != nil {
		return s.hostError(err)
	}
	if ans.Accepted == nil {
		ans.Accepted = []string{}
	}
	if ans.Rejected == nil {
		ans.Rejected = []hostapi.Rejection{}
	}
	var b strings.Builder
	if n := len(ans.Accepted); n > 0 {
		fmt.Fprintf(&b, "Sent %d command(s): %s. Listen for the person's answer.\n", n, strings.Join(ans.Accepted, ", "))
	}
	for i := range ans.Rejected {
		r := &ans.Rejected[i]
		label := r.ID
		if label == "" {
			label = fmt.Sprintf("command %d", r.Index+1)
		}
		fmt.Fprintf(&b, "Refused %s (%s): %s%s\n", label, r.Code, r.Message, hintSuffix(r.Hint, string(r.Code)))
	}
	res := s.result(strings.TrimRight(b.String(), "\n"), encodeJSON(ans))
	res.IsError = len(ans.Accepted) == 0 && len(ans.Rejected) > 0
	return res
}

// close closes a window.
func (s *server) close(ctx context.Context, in closeInput) *mcp.CallToolResult {
	if in.Window == "" || len(in.Window) > maxNameLen {
		return s.inputError(`give "window": the id of an open window, e.g. w1 (the status tool lists them)`)
	}
	ans, err := s.host.Close(ctx, in.Window)
	if err != nil {
		return s.hostError(err)
	}
	return s.result(fmt.Sprintf("Asked window %s to close; the unique gets session.close and may save its session first (the sessions tool lists saved ones).", in.Window), encodeJSON(ans))
}

// sessions lists saved sessions.
func (s *server) sessions(ctx context.Context, in sessionsInput) *mcp.CallToolResult {
	if len(in.Unique) > maxNameLen {
		return s.inputError("the unique name is too long")
	}
	ans, err := s.host.Sessions(ctx, in.Unique)
	if err != nil {
		return s.hostError(err)
	}
	var b strings.Builder
	switch {
	case len(ans.Sessions) == 0 && in.Unique != "":
		fmt.Fprintf(&b, "%s has no saved sessions.", in.Unique)
	case len(ans.Sessions) == 0:
		b.WriteString("There are no saved sessions.")
	default:
		fmt.Fprintf(&b, "%d saved session(s), newest first:\n", len(ans.Sessions))
		for _, ss := range ans.Sessions {
			when := ""
			if ss.TS > 0 {
				when = ", " + time.UnixMilli(ss.TS).UTC().Format("2006-01-02 15:04 UTC")
			}
			kind := ""
			if ss.Handoff {
				kind = ", handed over"
			}
			fmt.Fprintf(&b, "- %s (%s%s%s): %s\n", ss.ID, ss.Unique, when, kind, oneLine(ss.Summary, 200))
		}
		b.WriteString("Bring one back with open {\"unique\": …, \"resume\": id} (or \"last\").")
	}
	return s.result(b.String(), encodeJSON(ans))
}

// status shows the host's status.
func (s *server) status(ctx context.Context, _ noInput) *mcp.CallToolResult {
	st, err := s.host.Status(ctx)
	if err != nil {
		return s.hostError(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Lets %s is running (pid %d, up %s) with %d unique(s) installed.\n", st.Version, st.PID, (time.Duration(st.UptimeSec) * time.Second).String(), st.Uniques)
	if len(st.Windows) == 0 {
		b.WriteString("No windows are open; open one with the open tool.")
	} else {
		fmt.Fprintf(&b, "%d window(s) open:\n", len(st.Windows))
		for _, w := range st.Windows {
			state := "shown"
			if !w.Connected {
				state = "not connected (the page has not loaded, or it was closed)"
			}
			fmt.Fprintf(&b, "- %s: %s, %s\n", w.Window, w.Unique, state)
		}
	}
	return s.result(strings.TrimRight(b.String(), "\n"), encodeJSON(st))
}

// keyList lists a map's keys, sorted.
func keyList[V any](m map[string]V) string {
	if len(m) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ", ")
}

// summaryList lists "type (summary)" pairs, sorted.
func summaryList(m map[string]string) string {
	if len(m) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		if m[k] == "" {
			parts[i] = k
			continue
		}
		parts[i] = k + " (" + oneLine(m[k], 160) + ")"
	}
	return strings.Join(parts, "; ")
}

// oneLine folds whitespace and cuts s to max characters.
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	out, _ := cutText(s, max)
	return out
}

// cutText cuts s to max characters with the truncation marker.
func cutText(s string, max int) (string, bool) {
	v, n := cutString(s, max)
	return v.(string), n > 0
}
