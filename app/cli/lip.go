package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/hostapi"
	"github.com/lets-app/lets/backend/hostclient"
	"github.com/lets-app/lets/backend/lip"
	"github.com/lets-app/lets/backend/textsafe"
)

// LIP commands: `lets open`, `lets windows`, `lets sessions`, `lets
// close`, `lets listen`, `lets send`. They talk to the running host's
// privileged API with the host token from host.json, and their errors
// point to these commands, never to API paths.

// parseWithArgs parses flags that may come before, between or after the
// positional arguments (`lets open board --json`).
func parseWithArgs(env *Env, name string, fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parseFlags(env, name, fs, args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		rest := fs.Args()
		if rest[0] == "--" {
			return append(pos, rest[1:]...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// lipClient is a host client for the LIP commands.
func lipClient(env *Env) (*hostClient, error) {
	return lipClientWithin(env, hostCLITimeout)
}

// lipClientWithin is lipClient whose requests are bounded by timeout (a
// listen gets its wait on top).
func lipClientWithin(env *Env, timeout time.Duration) (*hostClient, error) {
	home, err := config.ResolveHome(env.Getenv)
	if err != nil {
		return nil, err
	}
	c, err := newHostClientWithin(config.Paths{Home: home}, timeout)
	if errors.Is(err, config.ErrHostNotRunning) {
		return nil, fmt.Errorf("Lets is not running; start it with `lets` (desktop) or `lets serve` (headless)")
	}
	return c, err
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// openReport is `lets open --json`: the host's answer and the unique.
type openReport struct {
	hostapi.OpenAnswer
	Unique string `json:"unique"`
}

func runOpen(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("open")
	resume := fs.String("resume", "", `restore a saved session: "last" or an id that "lets sessions <unique>" lists`)
	title := fs.String("title", "", "window title (default: the unique's title)")
	noBrowser := fs.Bool("no-browser", false, "no longer used: Lets itself shows the window, or keeps it waiting for you on its home page")
	asJSON := fs.Bool("json", false, "print the window, where it is and what the unique sends and takes as JSON")
	pos, err := parseWithArgs(env, "open", fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return &UsageError{Msg: "name one unique to open, e.g. `lets open hello` (`lets uniques` lists them)", flags: fs}
	}
	name := pos[0]
	if *noBrowser {
		return &UsageError{Msg: "--no-browser is gone: `lets open` no longer opens anything itself. Lets shows the window on your screen, or keeps it waiting for you on its home page", flags: fs}
	}
	c, err := lipClient(env)
	if err != nil {
		return err
	}
	a, err := c.c.Open(ctx, hostapi.OpenRequest{Unique: name, Resume: *resume, Title: *title})
	if err != nil {
		switch {
		case refusedWith(err, lip.CodeUnknownUnique):
			return fmt.Errorf("there is no unique called %q; `lets uniques` lists the ones you can open, and `lets install <git url or folder>` adds one", name)
		case refusedWith(err, hostapi.CodeUnknownSession):
			return fmt.Errorf("%s has no saved session %q; `lets sessions %s` lists the ones you can resume", name, *resume, name)
		}
		return cliHostError(err)
	}
	if *asJSON {
		return printJSON(env.Stdout, openReport{OpenAnswer: a, Unique: name})
	}
	out := env.Stdout
	fmt.Fprintf(out, "Opened %s as window %s.\n", name, a.Window)
	fmt.Fprintln(out, shownWords(a.Shown, a.Home))
	if a.Session != nil {
		fmt.Fprintf(out, "Resumed session %s: %s\n", a.Session.ID, a.Session.Summary)
	}
	fmt.Fprintf(out, "Events it sends: %s\nCommands it takes: %s\n", keysOf(a.Events), keysOf(a.Commands))
	fmt.Fprintf(out, "Next: `lets listen --window %s` to hear it, `lets send %s <type> '{…}'` to talk to it, `lets close %s` when you are done; `lets windows` lists the open ones.\n", a.Window, a.Window, a.Window)
	return nil
}

func keysOf(m map[string]string) string {
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

// listenSlack is how long `lets listen` waits for the host beyond --wait.
const listenSlack = 10 * time.Second

func runListen(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("listen")
	cursor := fs.String("cursor", "claude", "named cursor to read from and advance")
	wait := fs.Duration("wait", 25*time.Second, "how long to wait when nothing is pending (0 to 50s)")
	types := fs.String("types", "", "only these event types, comma-separated")
	window := fs.String("window", "", "only events from this window, e.g. w1")
	max := fs.Int("max", 100, "at most this many events (1 to 2000)")
	asJSON := fs.Bool("json", false, "print the whole answer as JSON")
	if err := parseFlags(env, "listen", fs, args); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	if *wait < 0 || *wait > 50*time.Second {
		return &UsageError{Msg: fmt.Sprintf("--wait %s is out of range (0 to 50s)", *wait), flags: fs}
	}
	if *max < 1 || *max > 2000 {
		return &UsageError{Msg: fmt.Sprintf("--max %d is out of range (1 to 2000)", *max), flags: fs}
	}
	// The host answers within --wait; 10 s more before giving up.
	c, err := lipClientWithin(env, listenSlack)
	if err != nil {
		return err
	}
	q := hostclient.ListenQuery{Cursor: *cursor, Wait: *wait, Max: *max, Window: *window}
	if *types != "" {
		q.Types = []string{*types}
	}
	a, err := c.c.Listen(ctx, q)
	if err != nil {
		return cliHostError(err)
	}
	if *asJSON {
		return printJSON(env.Stdout, a)
	}
	if a.Gap != nil {
		fmt.Fprintf(env.Stderr, "Missed %d event(s) (seq %d–%d) that left the buffer before this cursor read them.\n", a.Gap.Lost, a.Gap.From, a.Gap.To)
	}
	for _, raw := range a.Events {
		var e struct {
			Seq  uint64          `json:"seq"`
			Win  string          `json:"win"`
			From string          `json:"from"`
			Type string          `json:"type"`
			Data json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(raw, &e); err != nil {
			continue
		}
		win := e.Win
		if win == "" {
			win = "-"
		}
		fmt.Fprintf(env.Stdout, "%d\t%s\t%s\t%s\t%s\n", e.Seq, win, e.Type, e.From, compactJSON(e.Data))
	}
	if len(a.Events) == 0 {
		fmt.Fprintf(env.Stderr, "No new events (cursor %s at %d).\n", a.Cursor, a.Seq)
	}
	return nil
}

// compactJSON is raw on one line for a terminal. JSON strings may hold
// characters a terminal acts on — C1 controls such as NEL (U+0085, a new
// line on some terminals), DEL, the line and paragraph separators, the
// bidi controls — so those are written as \u escapes
// (textsafe.EscapeJSONControls), which keeps the JSON the same value and
// what a unique sent unable to forge lines.
func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return printable(string(raw))
	}
	return string(textsafe.EscapeJSONControls(b.Bytes()))
}

func runSend(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("send")
	ttl := fs.Duration("ttl", 0, "drop the command if the window has not received it within this time")
	re := fs.String("re", "", "id of the event this command answers")
	asJSON := fs.Bool("json", false, "print the whole answer as JSON")
	pos, err := parseWithArgs(env, "send", fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 2 || len(pos) > 3 {
		return &UsageError{Msg: "give a window, a type and optionally JSON data, e.g. `lets send w1 ui.toast '{\"text\":\"hi\"}'`", flags: fs}
	}
	data := json.RawMessage("{}")
	if len(pos) == 3 {
		text := pos[2]
		if text == "-" {
			b, err := io.ReadAll(io.LimitReader(os.Stdin, 1<<20))
			if err != nil {
				return fmt.Errorf("read data from standard input: %w", err)
			}
			text = string(b)
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal([]byte(text), &obj); err != nil || obj == nil {
			return &UsageError{Msg: "the data must be a JSON object, like '{\"text\":\"hi\"}'", flags: fs}
		}
		data = json.RawMessage(text)
	}
	env0 := map[string]any{"lip": 1, "win": pos[0], "type": pos[1], "data": data}
	if *ttl > 0 {
		env0["ttl"] = ttl.Milliseconds()
	}
	if *re != "" {
		env0["re"] = *re
	}
	c, err := lipClient(env)
	if err != nil {
		return err
	}
	a, err := c.c.Send(ctx, env0)
	if err != nil {
		return cliHostError(err)
	}
	for i := range a.Rejected {
		// The hint is worded into the message, as the terminal says it.
		a.Rejected[i].Message += cliHint(a.Rejected[i].Hint)
		a.Rejected[i].Hint = ""
	}
	if *asJSON {
		if err := printJSON(env.Stdout, a); err != nil {
			return err
		}
	}
	if len(a.Rejected) > 0 {
		if !*asJSON {
			r := a.Rejected[0]
			msg := r.Message
			if r.Code == lip.CodeUnknownWindow {
				msg = fmt.Sprintf("window %s is not open; `lets windows` lists the open ones, `lets open <unique>` opens one", pos[0])
			}
			fmt.Fprintf(env.Stderr, "Refused: %s (%s)\n", msg, r.Code)
		}
		return exitError{code: 1}
	}
	if !*asJSON && len(a.Accepted) > 0 {
		fmt.Fprintf(env.Stdout, "Queued %s for %s.\n", a.Accepted[0], pos[0])
	}
	return nil
}
