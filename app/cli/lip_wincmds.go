package cli

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"text/tabwriter"
	"time"
)

// windowRow is one entry of GET /lip/windows.
type windowRow struct {
	Window    string `json:"window"`
	Unique    string `json:"unique"`
	Title     string `json:"title"`
	Connected bool   `json:"connected"`
	Queued    int    `json:"queued"`
	Session   string `json:"session,omitempty"`
	Opened    int64  `json:"opened"`
}

func runWindows(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("windows")
	asJSON := fs.Bool("json", false, "print the windows as JSON")
	if err := parseFlags(env, "windows", fs, args); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	c, err := lipClient(env)
	if err != nil {
		return err
	}
	var a struct {
		Windows []windowRow `json:"windows"`
	}
	if err := c.do(ctx, http.MethodGet, "/lip/windows", nil, &a, 0); err != nil {
		return err
	}
	if a.Windows == nil {
		a.Windows = []windowRow{}
	}
	if *asJSON {
		return printJSON(env.Stdout, a.Windows)
	}
	if len(a.Windows) == 0 {
		fmt.Fprintln(env.Stdout, "No windows are open. `lets open <unique>` opens one; `lets uniques` lists what you can open.")
		return nil
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "WINDOW\tUNIQUE\tTITLE\tSTATE\tQUEUED\tOPENED")
	for _, w := range a.Windows {
		state := "waiting for its page"
		if w.Connected {
			state = "connected"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", w.Window, w.Unique, w.Title, state, w.Queued, ago(time.UnixMilli(w.Opened)))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout, "\n`lets send <window> <type> '{…}'` talks to one, `lets close <window>` closes it.")
	return nil
}

// sessionRow is one entry of GET /lip/sessions.
type sessionRow struct {
	ID      string `json:"id"`
	Unique  string `json:"unique"`
	Handoff bool   `json:"handoff"`
	Summary string `json:"summary"`
	Type    string `json:"type,omitempty"`
	Window  string `json:"window,omitempty"`
	TS      int64  `json:"ts"`
}

func runSessions(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("sessions")
	asJSON := fs.Bool("json", false, "print the sessions as JSON")
	pos, err := parseWithArgs(env, "sessions", fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return &UsageError{Msg: "name at most one unique, e.g. `lets sessions hello`", flags: fs}
	}
	unique := ""
	if len(pos) == 1 {
		unique = pos[0]
	}
	c, err := lipClient(env)
	if err != nil {
		return err
	}
	path := "/lip/sessions"
	if unique != "" {
		path += "?" + url.Values{"unique": {unique}}.Encode()
	}
	var a struct {
		Sessions []sessionRow `json:"sessions"`
	}
	if err := c.do(ctx, http.MethodGet, path, nil, &a, 0); err != nil {
		return err
	}
	if a.Sessions == nil {
		a.Sessions = []sessionRow{}
	}
	if *asJSON {
		return printJSON(env.Stdout, a.Sessions)
	}
	if len(a.Sessions) == 0 {
		if unique != "" {
			fmt.Fprintf(env.Stdout, "%s has no saved sessions yet. A unique saves one when you hand its work to Claude, or as you go.\n", unique)
		} else {
			fmt.Fprintln(env.Stdout, "No saved sessions yet. A unique saves one when you hand its work to Claude, or as you go.")
		}
		return nil
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tUNIQUE\tSAVED\tKIND\tSUMMARY")
	for _, s := range a.Sessions {
		kind := "snapshot"
		if s.Handoff {
			kind = "handed to Claude"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", s.ID, s.Unique, ago(time.UnixMilli(s.TS)), kind, oneLineSummary(s.Summary, 60))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	example := "<unique>"
	if unique != "" {
		example = unique
	}
	fmt.Fprintf(env.Stdout, "\nResume one with `lets open %s --resume <session>` (or `--resume last`).\n", example)
	return nil
}

func runClose(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("close")
	pos, err := parseWithArgs(env, "close", fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return &UsageError{Msg: "name the window to close, e.g. `lets close w1` (`lets windows` lists them)", flags: fs}
	}
	c, err := lipClient(env)
	if err != nil {
		return err
	}
	if err := c.do(ctx, http.MethodPost, "/lip/close", map[string]string{"window": pos[0]}, nil, 0); err != nil {
		var ae *apiError
		if errors.As(err, &ae) && ae.Code == "unknown_window" {
			return fmt.Errorf("window %s is not open; `lets windows` lists the open ones", pos[0])
		}
		return err
	}
	fmt.Fprintf(env.Stdout, "Asked window %s to close; its unique gets a moment to save its work.\n", pos[0])
	return nil
}

// ago says how long ago t was, roughly.
func ago(t time.Time) string {
	d := time.Since(t)
	switch {
	case t.IsZero() || t.UnixMilli() <= 0:
		return "-"
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%d h ago", int(d.Hours()))
	}
	return t.Local().Format("2006-01-02 15:04")
}

func oneLineSummary(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}
