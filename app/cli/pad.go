package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/lets-app/lets/backend/textsafe"

	"github.com/lets-app/lets/backend/wire"
	"github.com/lets-app/lets/backend/wireclient"
)

// `lets pad …` talks to the pad daemon over Wire Protocol 1 (spec
// wire-protocol-1.md). `lets pad daemon` is runPadDaemon in pad_daemon.go;
// it shares padFlags and parsePad with the commands here.

// padCommand is one `lets pad <name>` subcommand.
type padCommand struct {
	name    string
	usage   string
	summary string
	run     func(ctx context.Context, env *Env, args []string) error
}

// padCommands is the sub-subcommand table.
func padCommands() []padCommand {
	return []padCommand{
		{name: "status", usage: "[--json] [--socket PATH]", summary: "show the agent sessions on the pad", run: runPadStatus},
		{name: "ping", usage: "[--socket PATH]", summary: "check that the pad daemon answers", run: runPadPing},
		{name: "state", usage: "<state> [--backend NAME] [--session ID] [--label TEXT] [--reply] [--socket PATH]", summary: "report an agent state (" + joinStates() + ")", run: runPadState},
		{name: "end", usage: "[--backend NAME] [--session ID] [--socket PATH]", summary: "end an agent session", run: runPadEnd},
		{name: "watch", usage: "[--backend NAME] [--session ID] [--actions LIST] [--socket PATH]", summary: "print pad actions (approve, reject, stop, retry) until Ctrl+C", run: runPadWatch},
		{name: "symbols", usage: "[--hold SECONDS] [--socket PATH]", summary: "preview the seven state symbols on the pad, one after another", run: runPadSymbols},
		{name: "lease", usage: "[--lease-id ID] [--backend NAME --session ID] [--label TEXT] [--cwd DIR] [--socket PATH]", summary: "hold a session lease until Ctrl+C (the session ends when it is released)", run: runPadLease},
		{name: "pair", usage: "[--new] [--png FILE] [--no-qr] [--admin-url URL]", summary: "pair a phone or tablet with the browser pad: LAN URL, QR code and PIN", run: runPadPair},
		{name: "daemon", usage: "[--midi [--profile ID] [--input NAME --output NAME] [--no-greeting]] [flags]", summary: "run the pad daemon in the foreground (--midi: on a MIDI pad)", run: runPadDaemon},
		{name: "demo", usage: "[--surface midi|web|both] [--audio] [--no-greeting] [device and browser flags]", summary: "a guided tour of the pad with pretend agents (on a Launchpad, or from the browser pad's admin page)", run: runPadDemo},
		{name: "show", usage: "[--surface midi|web|both] [--tempo FACTOR] [--audio] [device and browser flags]", summary: "play the light show \"A Spark Among Friends\" on a Launchpad or the browser pad", run: runPadShow},
		{name: "devices", usage: "", summary: "list MIDI ports and the pad profiles that match them", run: runPadDevices},
		{name: "profile-check", usage: "FILE", summary: "check a custom device profile (JSON) without opening any port", run: runPadProfileCheck},
		{name: "test-profile", usage: "(--profile ID | --profile-file FILE) --report FILE [--input NAME] [--output NAME]", summary: "guided test of a pad: see each symbol, press each button, get a report", run: runPadTestProfile},
	}
}

func joinStates() string {
	names := make([]string, 0, 7)
	for _, s := range wire.States() {
		names = append(names, string(s))
	}
	return strings.Join(names, ", ")
}

// runPad dispatches `lets pad <command> …`.
func runPad(ctx context.Context, env *Env, args []string) error {
	if len(args) == 0 {
		return &UsageError{Msg: "missing pad command (one of: " + padCommandNames() + "; see `lets pad -h`)"}
	}
	name, rest := args[0], args[1:]
	switch name {
	case "-h", "-help", "--help", "help":
		printPadUsage(env.Stdout)
		return flag.ErrHelp
	}
	for _, c := range padCommands() {
		if c.name == name {
			return c.run(ctx, env, rest)
		}
	}
	msg := fmt.Sprintf("unknown pad command %q (one of: %s)", name, padCommandNames())
	if strings.HasPrefix(name, "-") {
		msg = fmt.Sprintf("unknown flag %q (flags go after the pad command, e.g. `lets pad status --json`)", name)
	} else if s := suggestPad(name); s != "" {
		msg += fmt.Sprintf(" — did you mean %q?", s)
	}
	return &UsageError{Msg: msg}
}

func padCommandNames() string {
	var names []string
	for _, c := range padCommands() {
		names = append(names, c.name)
	}
	return strings.Join(names, ", ")
}

func suggestPad(name string) string {
	best, bestD := "", 3
	for _, c := range padCommands() {
		if d := editDistance(name, c.name); d < bestD {
			best, bestD = c.name, d
		}
	}
	return best
}

func printPadUsage(w io.Writer) {
	fmt.Fprintln(w, "Usage: lets pad <command> [flags]")
	fmt.Fprintln(w, "  Talk to the pad daemon (Wire Protocol 1, Pad-Lattice compatible).")
	fmt.Fprintln(w, "\nCommands:")
	for _, c := range padCommands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun `lets pad <command> -h` for its flags.")
}

func lookupPad(name string) padCommand {
	for _, c := range padCommands() {
		if c.name == name {
			return c
		}
	}
	return padCommand{name: name}
}

// padFlags makes a pad command's flag set with the common --socket flag.
func padFlags(env *Env, name string) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet("lets pad "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	socket := fs.String("socket", defaultPadSocket(env), "the pad daemon's Unix socket (default from $PAD_LATTICE_SOCKET, $XDG_RUNTIME_DIR or /tmp)")
	return fs, socket
}

func defaultPadSocket(env *Env) string {
	getenv := env.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	return wire.ResolveSocketPath(getenv, os.Getuid())
}

// parsePad parses flags that may be mixed with positional arguments
// (`lets pad state running --reply`), returning the positionals. -h prints
// the command's usage; mistakes become usage errors naming the bad token.
func parsePad(env *Env, name string, fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				printPadCommandUsage(env.Stdout, lookupPad(name), fs)
				return nil, flag.ErrHelp
			}
			msg := err.Error()
			if bad, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
				msg = "unknown flag " + bad
			}
			return nil, &UsageError{Msg: name + ": " + msg, flags: fs}
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

func printPadCommandUsage(w io.Writer, c padCommand, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage: lets pad %s %s\n", c.name, c.usage)
	if c.summary != "" {
		fmt.Fprintf(w, "  %s\n", c.summary)
	}
	if fs != nil && hasFlags(fs) {
		fmt.Fprintln(w, "\nFlags:")
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
}

func padNoArgs(name string, fs *flag.FlagSet, pos []string) error {
	if len(pos) > 0 {
		return &UsageError{Msg: fmt.Sprintf("%s: unexpected argument %q", name, pos[0]), flags: fs}
	}
	return nil
}

// padNotRunningError is the kind message for a missing daemon.
type padNotRunningError struct {
	path string
	err  error
}

func (e *padNotRunningError) Error() string {
	return fmt.Sprintf("The pad daemon is not running at %s. Start Lets, or run `lets pad daemon`.", e.path)
}

func (e *padNotRunningError) Unwrap() error { return e.err }

// padError turns client errors into messages that say what to do.
func padError(socket string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, wireclient.ErrDaemonNotRunning) {
		return &padNotRunningError{path: socket, err: err}
	}
	if errors.Is(err, wireclient.ErrForeignSocket) {
		return withHint("pad", err)
	}
	var pe *wire.ProtocolError
	if errors.As(err, &pe) {
		switch pe.Code {
		case wire.CodePreviewConflict:
			return fmt.Errorf("another preview is showing on the pad right now (%s); wait for it to finish and try again: %w", pe.Text, err)
		case wire.CodeUnexpectedMessageType, wire.CodeUnsupportedProtocol:
			return fmt.Errorf("the program at %s does not answer like a pad daemon (%s); check --socket: %w", socket, pe.Text, err)
		}
		return fmt.Errorf("the pad daemon refused the request (%s: %s): %w", pe.Code, pe.Text, err)
	}
	if errors.Is(err, os.ErrPermission) {
		return fmt.Errorf("no permission to use the pad daemon socket %s (it belongs to another user?): %w", socket, err)
	}
	return err
}

func padClient(socket string) *wireclient.Client { return wireclient.New(socket) }

// identityFlags adds --backend and --session with the default agent.
func identityFlags(fs *flag.FlagSet) (*string, *string) {
	b := fs.String("backend", wire.DefaultBackend, "the agent's backend (for example codex)")
	s := fs.String("session", wire.DefaultSessionID, "the agent's session id")
	return b, s
}

func identityFrom(name string, fs *flag.FlagSet, backend, session string) (wire.Identity, error) {
	if backend == "" || session == "" {
		return wire.Identity{}, &UsageError{Msg: name + ": --backend and --session must not be empty", flags: fs}
	}
	return wire.Identity{Backend: backend, SessionID: session}, nil
}

// ---- status ----

func runPadStatus(ctx context.Context, env *Env, args []string) error {
	fs, socket := padFlags(env, "status")
	asJSON := fs.Bool("json", false, "print the daemon's status message as JSON")
	pos, err := parsePad(env, "status", fs, args)
	if err != nil {
		return err
	}
	if err := padNoArgs("status", fs, pos); err != nil {
		return err
	}
	st, err := padClient(*socket).Status(ctx)
	if err != nil {
		return padError(*socket, err)
	}
	if *asJSON {
		line, err := st.Encode()
		if err != nil {
			return fmt.Errorf("the status is too large to print as one message: %w", err)
		}
		_, err = env.Stdout.Write(line)
		return err
	}
	printPadStatus(env.Stdout, *socket, st)
	return nil
}

// printPadStatus prints the human-readable status (case 130).
func printPadStatus(w io.Writer, socket string, st wire.Status) {
	fmt.Fprintf(w, "Pad daemon at %s\n", socket)
	var surfaces []string
	for _, s := range st.Surfaces {
		surfaces = append(surfaces, s.Kind+":"+s.Profile)
	}
	if len(surfaces) == 0 {
		surfaces = []string{st.Profile}
	}
	fmt.Fprintf(w, "  Surfaces:  %s\n", strings.Join(surfaces, ", "))
	if st.Selected != nil {
		sel := st.Selected.String()
		for _, s := range st.Sessions {
			if s.Identity() == *st.Selected && s.Slot >= 0 {
				sel = fmt.Sprintf("S%d %s (%s)", s.Scene(), printable(s.Label), printable(sel))
			}
		}
		fmt.Fprintf(w, "  Selected:  %s\n", printable(sel))
	} else {
		fmt.Fprintln(w, "  Selected:  none (press an agent's Scene button to select it)")
	}
	if st.SessionTTL > 0 {
		fmt.Fprintf(w, "  Expiry:    idle sessions end after %s (leased sessions never expire)\n", formatSeconds(st.SessionTTL))
	} else {
		fmt.Fprintln(w, "  Expiry:    off")
	}
	if st.PreviewActive {
		fmt.Fprintln(w, "  Preview:   showing a preview right now")
	}
	if st.Experience != "" {
		fmt.Fprintf(w, "  Running:   %s\n", st.Experience)
	}
	if len(st.Sessions) == 0 {
		fmt.Fprintln(w, "\nNo agent sessions yet. Agents appear here when they report a state.")
		return
	}
	fmt.Fprintf(w, "\n%d session(s)", len(st.Sessions))
	if st.OverflowCount > 0 {
		fmt.Fprintf(w, ", %d without a free Scene button (overflow)", st.OverflowCount)
	}
	fmt.Fprintln(w, ":")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "   SCENE\tACCENT\tLABEL\tFOLDER\tLEASE\tSTATE\tAGENT")
	for _, s := range st.Sessions {
		mark := " "
		if s.Selected {
			mark = "*"
		}
		scene := "--"
		if s.Slot >= 0 {
			scene = "S" + strconv.Itoa(s.Scene())
		}
		lease := "-"
		if s.Leased {
			lease = "live"
		}
		fmt.Fprintf(tw, " %s %s\t%s\t%s\t%s\t%s\t%s\t%s\n", mark, scene, orDash(s.Accent), orDash(printable(s.Label)),
			orDash(printable(cwdName(s.Metadata))), lease, s.State, printable(s.Identity().String()))
	}
	tw.Flush()
}

// cwdName is the last path element of metadata cwd (like the session label
// rule of spec §9.13), or "".
func cwdName(md wire.Metadata) string {
	cwd, ok := md.Get("cwd")
	if !ok || cwd == "" {
		return ""
	}
	clean := path.Clean(cwd)
	if clean == "/" {
		return "/"
	}
	return clean[strings.LastIndexByte(clean, '/')+1:]
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// printable replaces control characters so agent-provided text cannot
// rewrite the terminal.
func printable(s string) string { return textsafe.Line(s, 0) }

// formatSeconds renders 86400 as 24h, 90 as 1m30s, 10.5 as 10.5s.
func formatSeconds(sec float64) string {
	if math.IsInf(sec, 0) || sec > 1e9 {
		return wire.PythonFloat(sec) + "s"
	}
	s := time.Duration(sec * float64(time.Second)).String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// ---- ping ----

func runPadPing(ctx context.Context, env *Env, args []string) error {
	fs, socket := padFlags(env, "ping")
	pos, err := parsePad(env, "ping", fs, args)
	if err != nil {
		return err
	}
	if err := padNoArgs("ping", fs, pos); err != nil {
		return err
	}
	start := time.Now()
	if err := padClient(*socket).Ping(ctx); err != nil {
		return padError(*socket, err)
	}
	fmt.Fprintf(env.Stdout, "pong from %s (%.1f ms)\n", *socket, float64(time.Since(start).Microseconds())/1000)
	return nil
}

// ---- state ----

func runPadState(ctx context.Context, env *Env, args []string) error {
	fs, socket := padFlags(env, "state")
	backend, session := identityFlags(fs)
	label := fs.String("label", "", "a display label for the session")
	reply := fs.Bool("reply", false, "wait for the daemon's answer and print the session's Scene, accent and label")
	pos, err := parsePad(env, "state", fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		if len(pos) == 0 {
			return &UsageError{Msg: "state: missing the state (one of: " + joinStates() + ")", flags: fs}
		}
		return &UsageError{Msg: fmt.Sprintf("state: unexpected argument %q", pos[1]), flags: fs}
	}
	st, ok := wire.ParseState(pos[0])
	if !ok {
		return &UsageError{Msg: fmt.Sprintf("state: unknown state %q (one of: %s)", pos[0], joinStates()), flags: fs}
	}
	id, err := identityFrom("state", fs, *backend, *session)
	if err != nil {
		return err
	}
	cmd := wire.StateCommand{State: st, Agent: id}
	if *label != "" {
		cmd.Metadata = wire.MetadataOf("label", *label)
	}
	c := padClient(*socket)
	if !*reply {
		if err := c.ReportState(ctx, cmd); err != nil {
			return padError(*socket, err)
		}
		fmt.Fprintf(env.Stdout, "Reported %s for %s.\n", st, printable(id.String()))
		return nil
	}
	ack, err := c.ReportStateReply(ctx, cmd)
	if err != nil {
		return padError(*socket, err)
	}
	fmt.Fprintf(env.Stdout, "%s is %s: %s\n", printable(ack.Identity().String()), ack.State, describeAck(ack))
	return nil
}

// describeAck renders a session snapshot: `S1 cyan "label", selected, live`.
func describeAck(a wire.StateAck) string {
	var parts []string
	if a.Slot >= 0 {
		parts = append(parts, fmt.Sprintf("S%d %s %q", a.Scene(), orDash(a.Accent), printable(a.Label)))
	} else {
		parts = append(parts, fmt.Sprintf("no free Scene button (overflow) %q", printable(a.Label)))
	}
	if a.Selected {
		parts = append(parts, "selected")
	}
	if a.Leased {
		parts = append(parts, "live")
	}
	return strings.Join(parts, ", ")
}

// ---- end ----

func runPadEnd(ctx context.Context, env *Env, args []string) error {
	fs, socket := padFlags(env, "end")
	backend, session := identityFlags(fs)
	pos, err := parsePad(env, "end", fs, args)
	if err != nil {
		return err
	}
	if err := padNoArgs("end", fs, pos); err != nil {
		return err
	}
	id, err := identityFrom("end", fs, *backend, *session)
	if err != nil {
		return err
	}
	if err := padClient(*socket).EndSession(ctx, id); err != nil {
		return padError(*socket, err)
	}
	fmt.Fprintf(env.Stdout, "Ended %s (if the daemon knew it).\n", printable(id.String()))
	return nil
}

// ---- watch ----

func runPadWatch(ctx context.Context, env *Env, args []string) error {
	fs, socket := padFlags(env, "watch")
	backend, session := identityFlags(fs)
	actionsFlag := fs.String("actions", "approve,reject,stop,retry", "comma-separated actions to offer on the pad")
	pos, err := parsePad(env, "watch", fs, args)
	if err != nil {
		return err
	}
	if err := padNoArgs("watch", fs, pos); err != nil {
		return err
	}
	id, err := identityFrom("watch", fs, *backend, *session)
	if err != nil {
		return err
	}
	var actions []wire.Action
	for _, name := range strings.Split(*actionsFlag, ",") {
		name = strings.TrimSpace(name)
		a, ok := wire.ParseAction(name)
		if !ok {
			return &UsageError{Msg: fmt.Sprintf("watch: unknown action %q in --actions (use approve, reject, stop, retry)", name), flags: fs}
		}
		actions = append(actions, a)
	}
	sub, err := padClient(*socket).Subscribe(ctx, wire.SubscribeActionsCommand{Agent: id, Actions: actions})
	if err != nil {
		return padError(*socket, err)
	}
	defer sub.Close()
	fmt.Fprintf(env.Stderr, "Watching pad actions for %s (%s). Press Ctrl+C to stop.\n", printable(id.String()), *actionsFlag)
	for ev := range sub.Actions() {
		line := fmt.Sprintf("%s %s", ev.Action, printable(ev.Agent.String()))
		if ev.RequestID != "" {
			line += " request_id=" + printable(ev.RequestID)
		}
		fmt.Fprintln(env.Stdout, line)
	}
	err = sub.Err()
	if err == nil || errors.Is(err, context.Canceled) {
		return nil
	}
	if errors.Is(err, wireclient.ErrSubscriptionEnded) {
		return fmt.Errorf("the pad daemon closed the connection (it may have stopped); run `lets pad watch` again once it is back: %w", err)
	}
	return padError(*socket, err)
}

// ---- symbols ----

func runPadSymbols(ctx context.Context, env *Env, args []string) error {
	fs, socket := padFlags(env, "symbols")
	hold := fs.Float64("hold", wire.SymbolsDefaultHold, "seconds to show each state")
	pos, err := parsePad(env, "symbols", fs, args)
	if err != nil {
		return err
	}
	if err := padNoArgs("symbols", fs, pos); err != nil {
		return err
	}
	if math.IsNaN(*hold) || *hold <= 0 || *hold >= wire.MaxPreviewTTL {
		return &UsageError{Msg: fmt.Sprintf("symbols: --hold must be more than 0 and less than %g seconds", wire.MaxPreviewTTL), flags: fs}
	}
	fmt.Fprintf(env.Stdout, "Showing the seven states on the pad, %gs each:\n", *hold)
	each := func(st wire.State) { fmt.Fprintf(env.Stdout, "  %s\n", st) }
	err = padClient(*socket).Symbols(ctx, time.Duration(*hold*float64(time.Second)), each)
	if errors.Is(err, context.Canceled) {
		fmt.Fprintln(env.Stdout, "Stopped; the pad shows the real state again.")
		return nil
	}
	if err != nil {
		return padError(*socket, err)
	}
	fmt.Fprintln(env.Stdout, "Done; the pad shows the real state again.")
	return nil
}

// ---- lease ----

func runPadLease(ctx context.Context, env *Env, args []string) error {
	fs, socket := padFlags(env, "lease")
	leaseID := fs.String("lease-id", "", "the lease id (default: a new random id)")
	backend := fs.String("backend", "", "bind the lease to this agent's backend now (with --session)")
	session := fs.String("session", "", "bind the lease to this agent's session id now (with --backend)")
	label := fs.String("label", "", "a display label for the session")
	cwd := fs.String("cwd", "", "the working directory to show (default: the current directory)")
	pos, err := parsePad(env, "lease", fs, args)
	if err != nil {
		return err
	}
	if err := padNoArgs("lease", fs, pos); err != nil {
		return err
	}
	if (*backend == "") != (*session == "") {
		return &UsageError{Msg: "lease: give both --backend and --session, or neither", flags: fs}
	}
	id := *leaseID
	if id == "" {
		id = wireclient.NewID()
	}
	dir := *cwd
	if dir == "" {
		if wd, err := os.Getwd(); err == nil {
			dir = wd
		}
	}
	var md wire.Metadata
	if dir != "" {
		md.Set("cwd", dir)
	}
	if *label != "" {
		md.Set("label", *label)
	}
	cmd := wire.SessionLeaseCommand{LeaseID: id, Agent: wire.Identity{Backend: *backend, SessionID: *session}, Metadata: md}
	l, ack, err := padClient(*socket).Lease(ctx, cmd)
	if err != nil {
		return padError(*socket, err)
	}
	defer l.Close()
	fmt.Fprintf(env.Stdout, "Holding lease %s. Report states with this lease id to bind it; press Ctrl+C to release it.\n", id)
	if ack.Session != nil {
		fmt.Fprintf(env.Stdout, "Bound to %s: %s\n", printable(ack.Session.Identity().String()), describeAck(*ack.Session))
	}
	for u := range l.Updates() {
		switch u.Type {
		case wire.TypeSessionLeaseAck:
			// The first acknowledgement was printed above; later ones
			// follow a reconnection and are reported there.
		case wire.TypeSessionLeaseBound:
			if u.Session != nil {
				fmt.Fprintf(env.Stdout, "Bound to %s: %s is %s\n", printable(u.Identity.String()), describeAck(*u.Session), u.Session.State)
			} else {
				fmt.Fprintf(env.Stdout, "Bound to %s\n", printable(u.Identity.String()))
			}
		case "disconnected":
			fmt.Fprintf(env.Stderr, "Lost the pad daemon (%v); reconnecting every %v…\n", u.Err, wire.LeaseReconnectInterval)
		case "reconnected":
			fmt.Fprintln(env.Stderr, "Reconnected; the lease is registered again.")
		}
	}
	if err := l.Err(); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	fmt.Fprintln(env.Stdout, "Released the lease.")
	return nil
}
