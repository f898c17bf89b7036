package cli

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/lets-app/lets/backend/hostapi"
	"github.com/lets-app/lets/backend/lip"
	"github.com/lets-app/lets/backend/sessions"
	"github.com/lets-app/lets/backend/textsafe"
)

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
	a, err := c.c.Windows(ctx)
	if err != nil {
		return cliHostError(err)
	}
	if a.Windows == nil {
		a.Windows = []hostapi.Window{}
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
	a, err := c.c.Sessions(ctx, unique)
	if err != nil {
		return cliHostError(err)
	}
	if a.Sessions == nil {
		a.Sessions = []sessions.Info{}
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", s.ID, s.Unique, ago(time.UnixMilli(s.TS)), kind, textsafe.OneLine(s.Summary, 60))
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
	if _, err := c.c.Close(ctx, pos[0]); err != nil {
		if refusedWith(err, lip.CodeUnknownWindow) {
			return fmt.Errorf("window %s is not open; `lets windows` lists the open ones", pos[0])
		}
		return cliHostError(err)
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
