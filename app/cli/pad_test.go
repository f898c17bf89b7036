package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/backend/wire"
	"github.com/lets-app/lets/backend/wireclient/wiretest"
)

type padEnv struct {
	env            *Env
	stdout, stderr *syncBuffer
}

func newPadEnv(socket string) *padEnv {
	out, errb := &syncBuffer{}, &syncBuffer{}
	vars := map[string]string{wire.EnvSocket: socket}
	return &padEnv{
		env:    &Env{Stdout: out, Stderr: errb, Getenv: func(k string) string { return vars[k] }},
		stdout: out, stderr: errb,
	}
}

// runPadCLI runs `lets pad <args>` in-process through Run when the lead
// has registered the command, else through runPad and the same report().
func runPadCLI(ctx context.Context, e *padEnv, args ...string) int {
	if _, ok := lookup("pad"); ok {
		return Run(ctx, e.env, append([]string{"pad"}, args...))
	}
	cmd := command{name: "pad", usage: "<command> [flags]", summary: "talk to the pad daemon", run: runPad}
	return report(e.env, cmd, runPad(ctx, e.env, args))
}

func padCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// case130Status has a session in slot 1, leased, with cwd and label, on a
// browser + MIDI composite surface.
func case130Status() wire.Status {
	sel := wire.Identity{Backend: "codex", SessionID: "019f28ff-aaaa"}
	return wire.Status{
		Profile: "virtual/browser+novation/launchpad/pro-mk3", VisualProtocol: 1,
		Input: "Browser controls; Launchpad Pro MK3", Output: "Browser display; Launchpad Pro MK3",
		Surfaces: []wire.SurfaceDescriptor{
			{Kind: "web", Profile: "virtual/browser", VisualProtocol: 1, Input: "Browser controls (8123)", Output: "Browser display (8123)"},
			{Kind: "midi", Profile: "novation/launchpad/pro-mk3", VisualProtocol: 1, Input: "Launchpad Pro MK3", Output: "Launchpad Pro MK3"},
		},
		Selected: &sel, OverflowCount: 1, SessionTTL: wire.DefaultSessionTTL,
		Sessions: []wire.StatusSession{
			{Backend: "codex", SessionID: "019f28ff-aaaa", State: wire.StateRunning, Slot: 0, Accent: "cyan", Selected: true, Label: "lets", Metadata: wire.MetadataOf("cwd", "/home/u/lets")},
			{Backend: "codex", SessionID: "5b2e91c0", State: wire.StateWaitingForApproval, Slot: 1, Accent: "magenta", Leased: true, Label: "docs",
				Metadata: wire.MetadataOf("cwd", "/home/u/pad-lattice", "label", "docs")},
			{Backend: "codex-exec", SessionID: "d41d8cd98f00b204", State: wire.StateRunning, Slot: wire.NoSlot, Label: "d41d8cd9"},
		},
	}
}

func padAck() wire.StateAck {
	return wire.StateAck{State: wire.StateRunning, Slot: 0, Accent: "cyan", Selected: true, Label: "docs"}
}

func TestPadCase130_StatusPrintsSceneAccentLabelFolderLease(t *testing.T) {
	srv := wiretest.Start(t, wiretest.Canned(case130Status(), padAck()))
	e := newPadEnv(srv.Path)
	if code := runPadCLI(padCtx(t), e, "status"); code != 0 {
		t.Fatalf("exit %d: %s", code, e.stderr)
	}
	out := e.stdout.String()
	var row string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "5b2e91c0") {
			row = l
		}
	}
	fields := strings.Fields(row)
	want := []string{"S2", "magenta", "docs", "pad-lattice", "live", "waiting_for_approval", "codex/5b2e91c0"}
	if strings.Join(fields, " ") != strings.Join(want, " ") {
		t.Fatalf("row %q, want fields %v\n%s", row, want, out)
	}
	for _, s := range []string{"web:virtual/browser", "midi:novation/launchpad/pro-mk3", "Selected:  S1 lets (codex/019f28ff-aaaa)", "* S1", "24h", "1 without a free Scene button"} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "d41d8cd98f00b204") {
			if got := strings.Join(strings.Fields(l), " "); got != "-- - d41d8cd9 - - running codex-exec/d41d8cd98f00b204" {
				t.Errorf("overflow row %q", got)
			}
		}
	}
}

// #23: an agent's label cannot rewrite the terminal, fake a line of Lets'
// own output or reorder what follows it — in the Selected line (printed
// raw before) and in the table.
func TestPadStatusCleansHostileLabels(t *testing.T) {
	st := case130Status()
	hostile := "evil\x1b[2J\a\nSelected:  S9 fake\u202Eevorppa"
	st.Sessions[0].Label = hostile
	st.Sessions[1].Label = hostile
	srv := wiretest.Start(t, wiretest.Canned(st, padAck()))
	e := newPadEnv(srv.Path)
	if code := runPadCLI(padCtx(t), e, "status"); code != 0 {
		t.Fatalf("exit %d: %s", code, e.stderr)
	}
	out := e.stdout.String()
	for _, bad := range []string{"\x1b", "\a", "\u202E"} {
		if strings.Contains(out, bad) {
			t.Errorf("output holds %q:\n%q", bad, out)
		}
	}
	starts := 0
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "Selected:") {
			starts++
		}
	}
	if starts != 1 {
		t.Errorf("the label started a line of its own (%d lines start with Selected:):\n%s", starts, out)
	}
	if !strings.Contains(out, "Selected:  S1 evil\uFFFD[2J\uFFFD Selected: S9 fakeevorppa (codex/019f28ff-aaaa)") {
		t.Errorf("selected line:\n%s", out)
	}
}

func TestPadStatusJSONAndEmpty(t *testing.T) {
	st := wire.Status{Profile: "test/grid/device", VisualProtocol: 1, Input: "Test input", Output: "Test output",
		Surfaces: []wire.SurfaceDescriptor{{Kind: "midi", Profile: "test/grid/device", VisualProtocol: 1, Input: "Test input", Output: "Test output"}}, SessionTTL: wire.DefaultSessionTTL}
	srv := wiretest.Start(t, wiretest.Canned(st, padAck()))
	e := newPadEnv(srv.Path)
	if code := runPadCLI(padCtx(t), e, "status", "--json"); code != 0 {
		t.Fatalf("exit %d: %s", code, e.stderr)
	}
	want := `{"protocol":1,"type":"status","profile":"test/grid/device","visual_protocol":1,"input":"Test input","output":"Test output","surfaces":[{"kind":"midi","profile":"test/grid/device","visual_protocol":1,"input":"Test input","output":"Test output"}],"selected":null,"overflow_count":0,"activity_motion":false,"audio_feedback":false,"experience":null,"preview_active":false,"session_ttl":86400.0,"sessions":[]}` + "\n"
	if got := e.stdout.String(); got != want {
		t.Fatalf("json %s", got)
	}
	e2 := newPadEnv(srv.Path)
	if code := runPadCLI(padCtx(t), e2, "status"); code != 0 || !strings.Contains(e2.stdout.String(), "No agent sessions yet") {
		t.Fatalf("exit %d:\n%s", code, e2.stdout)
	}
}

func TestPadPing(t *testing.T) {
	srv := wiretest.Start(t, wiretest.Canned(case130Status(), padAck()))
	e := newPadEnv(srv.Path)
	if code := runPadCLI(padCtx(t), e, "ping", "--socket", srv.Path); code != 0 || !strings.HasPrefix(e.stdout.String(), "pong from "+srv.Path) {
		t.Fatalf("exit %d: %s %s", code, e.stdout, e.stderr)
	}
}

func TestPadStateAndEnd(t *testing.T) {
	srv := wiretest.Start(t, wiretest.Canned(case130Status(), padAck()))
	ctx := padCtx(t)
	e := newPadEnv(srv.Path)
	if code := runPadCLI(ctx, e, "state", "--backend", "codex", "running", "--session", "s1", "--label", "docs"); code != 0 {
		t.Fatalf("exit %d: %s", code, e.stderr)
	}
	if !srv.Wait(5*time.Second, func(l []wiretest.Line, _ []int) bool { return len(l) == 1 }) {
		t.Fatal("no line")
	}
	if got := srv.Lines()[0].Text; got != `{"protocol":1,"type":"state","state":"running","agent":{"backend":"codex","session_id":"s1","label":"docs"}}` {
		t.Fatalf("sent %s", got)
	}
	e = newPadEnv(srv.Path)
	if code := runPadCLI(ctx, e, "state", "waiting_for_approval", "--reply"); code != 0 {
		t.Fatalf("exit %d: %s", code, e.stderr)
	}
	if got := e.stdout.String(); got != "local/default is waiting_for_approval: S1 cyan \"docs\", selected\n" {
		t.Fatalf("reply output %q", got)
	}
	e = newPadEnv(srv.Path)
	if code := runPadCLI(ctx, e, "end", "--backend", "codex", "--session", "s1"); code != 0 {
		t.Fatalf("exit %d: %s", code, e.stderr)
	}
	if !srv.Wait(5*time.Second, func(l []wiretest.Line, _ []int) bool { return len(l) == 3 }) {
		t.Fatal("no end line")
	}
	if got := srv.Lines()[2].Text; got != `{"protocol":1,"type":"session_end","agent":{"backend":"codex","session_id":"s1"}}` {
		t.Fatalf("sent %s", got)
	}
}

func TestPadWatchPrintsActionsUntilCancelled(t *testing.T) {
	srv := wiretest.Start(t, func(c *wiretest.Conn, line []byte) {
		if strings.Contains(string(line), `"subscribe_actions"`) {
			_ = c.Send(wire.ActionEvent{Action: wire.ActionStop, Agent: wire.Identity{Backend: "codex", SessionID: "a"}})
			_ = c.Send(wire.ActionEvent{Action: wire.ActionApprove, Agent: wire.Identity{Backend: "codex", SessionID: "a"}, RequestID: "r1"})
		}
	})
	ctx, cancel := context.WithCancel(padCtx(t))
	defer cancel()
	e := newPadEnv(srv.Path)
	done := make(chan int, 1)
	go func() {
		done <- runPadCLI(ctx, e, "watch", "--backend", "codex", "--session", "a", "--actions", "stop,approve")
	}()
	testutil.Eventually(t, "watch prints the approve", func() bool { return strings.Contains(e.stdout.String(), "approve codex/a request_id=r1") })
	cancel()
	if code := testutil.Wait(t, "watch stops on cancel", done); code != 0 {
		t.Fatalf("exit %d: %s", code, e.stderr)
	}
	if got := e.stdout.String(); got != "stop codex/a\napprove codex/a request_id=r1\n" {
		t.Fatalf("output %q", got)
	}
	if got := srv.Lines()[0].Text; got != `{"protocol":1,"type":"subscribe_actions","agent":{"backend":"codex","session_id":"a"},"actions":["stop","approve"]}` {
		t.Fatalf("sent %s", got)
	}
	// The daemon going away ends watch with an error.
	srv2 := wiretest.Start(t, func(c *wiretest.Conn, _ []byte) { c.Close() })
	e2 := newPadEnv(srv2.Path)
	if code := runPadCLI(padCtx(t), e2, "watch"); code != 1 || !strings.Contains(e2.stderr.String(), "closed the connection") {
		t.Fatalf("exit %d: %s", code, e2.stderr)
	}
}

func TestPadCase124_SymbolsSevenPreviewsThenEnd(t *testing.T) {
	srv := wiretest.Start(t, wiretest.Canned(case130Status(), padAck()))
	e := newPadEnv(srv.Path)
	if code := runPadCLI(padCtx(t), e, "symbols", "--hold", "0.001"); code != 0 {
		t.Fatalf("exit %d: %s", code, e.stderr)
	}
	lines := srv.Lines()
	if len(lines) != 8 {
		t.Fatalf("lines %v", lines)
	}
	var id string
	for i, l := range lines {
		cmd, perr := wire.DecodeLine([]byte(l.Text))
		if perr != nil {
			t.Fatal(perr)
		}
		if i < 7 {
			p := cmd.(wire.PreviewCommand)
			if p.State != wire.States()[i] || (id != "" && p.PreviewID != id) {
				t.Fatalf("preview %d: %#v", i, p)
			}
			id = p.PreviewID
		} else if cmd.(wire.PreviewEndCommand).PreviewID != id {
			t.Fatalf("end %#v", cmd)
		}
	}
	for _, s := range wire.States() {
		if !strings.Contains(e.stdout.String(), "  "+string(s)+"\n") {
			t.Errorf("output lacks %s:\n%s", s, e.stdout)
		}
	}
}

func TestPadLeaseHoldsUntilCancelled(t *testing.T) {
	srv := wiretest.Start(t, func(c *wiretest.Conn, line []byte) {
		if strings.Contains(string(line), `"session_lease"`) {
			_ = c.SendRaw(`{"protocol":1,"type":"session_lease_ack","lease_id":"L1"}`)
			_ = c.Send(wire.SessionLeaseBound{LeaseID: "L1", Session: wire.StateAck{Backend: "codex", SessionID: "abc", State: wire.StateWaitingForReply, Slot: 0, Accent: "cyan", Selected: true, Leased: true, Label: "docs"}})
		}
	})
	ctx, cancel := context.WithCancel(padCtx(t))
	defer cancel()
	e := newPadEnv(srv.Path)
	done := make(chan int, 1)
	go func() {
		done <- runPadCLI(ctx, e, "lease", "--lease-id", "L1", "--label", "docs", "--cwd", "/home/u/docs")
	}()
	testutil.Eventually(t, "lease says it is bound", func() bool { return strings.Contains(e.stdout.String(), "Bound to codex/abc") })
	cancel()
	if code := testutil.Wait(t, "lease stops on cancel", done); code != 0 {
		t.Fatalf("exit %d: %s", code, e.stderr)
	}
	if got := srv.Lines()[0].Text; got != `{"protocol":1,"type":"session_lease","lease_id":"L1","metadata":{"cwd":"/home/u/docs","label":"docs"}}` {
		t.Fatalf("sent %s", got)
	}
	if !strings.Contains(e.stdout.String(), "Released the lease.") {
		t.Fatalf("output %q", e.stdout)
	}
	if !srv.Wait(5*time.Second, func(_ []wiretest.Line, closed []int) bool { return len(closed) == 1 }) {
		t.Fatal("lease connection not closed")
	}
}

func TestPadDaemonNotRunningIsExplained(t *testing.T) {
	dir, err := os.MkdirTemp("", "lw")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "none.sock")
	for _, args := range [][]string{{"status"}, {"ping"}, {"state", "running"}, {"end"}, {"watch"}, {"symbols"}, {"lease", "--cwd", "/x"}} {
		e := newPadEnv(path)
		code := runPadCLI(padCtx(t), e, args...)
		want := "The pad daemon is not running at " + path + ". Start Lets, or run `lets pad daemon`."
		if code != 1 || !strings.Contains(e.stderr.String(), want) {
			t.Errorf("%v: exit %d, stderr %q", args, code, e.stderr)
		}
	}
}

func TestPadUsageErrorsNameTheBadToken(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{nil, "missing pad command"},
		{[]string{"bogus"}, `"bogus"`},
		{[]string{"stauts"}, `did you mean "status"`},
		{[]string{"--json"}, `"--json"`},
		{[]string{"status", "--bogus"}, "-bogus"},
		{[]string{"status", "extra"}, `"extra"`},
		{[]string{"state"}, "missing the state"},
		{[]string{"state", "thinking"}, `"thinking"`},
		{[]string{"state", "running", "again"}, `"again"`},
		{[]string{"state", "running", "--backend", ""}, "--backend and --session must not be empty"},
		{[]string{"watch", "--actions", "stop,merge"}, `"merge"`},
		{[]string{"symbols", "--hold", "40"}, "--hold must be more than 0 and less than 30"},
		{[]string{"symbols", "--hold", "-1"}, "--hold"},
		// Visual Protocol V42: 0 and 30 are both rejected.
		{[]string{"symbols", "--hold", "0"}, "--hold must be more than 0"},
		{[]string{"symbols", "--hold", "30"}, "less than 30"},
		{[]string{"lease", "--backend", "codex"}, "both --backend and --session"},
		{[]string{"ping", "--timeout", "3"}, "-timeout"},
	}
	for _, c := range cases {
		e := newPadEnv("/nonexistent/pad.sock")
		code := runPadCLI(padCtx(t), e, c.args...)
		if code != 2 || !strings.Contains(e.stderr.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q (want %q)", c.args, code, e.stderr, c.want)
		}
	}
}

func TestPadHelp(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"help"}, {"status", "-h"}, {"state", "--help"}} {
		e := newPadEnv("/nonexistent/pad.sock")
		if code := runPadCLI(padCtx(t), e, args...); code != 0 || !strings.Contains(e.stdout.String(), "Usage: lets pad") {
			t.Errorf("%v: exit %d: %q", args, code, e.stdout)
		}
	}
	e := newPadEnv("/x")
	runPadCLI(padCtx(t), e, "-h")
	for _, c := range padCommands() {
		if !strings.Contains(e.stdout.String(), "  "+c.name) {
			t.Errorf("help lacks %s", c.name)
		}
	}
}

func TestPadFormatSeconds(t *testing.T) {
	for in, want := range map[float64]string{86400: "24h", 90: "1m30s", 10.5: "10.5s", 5400: "1h30m", 3600: "1h", 600: "10m"} {
		if got := formatSeconds(in); got != want {
			t.Errorf("formatSeconds(%v) = %s, want %s", in, got, want)
		}
	}
	if got := cwdName(wire.MetadataOf("cwd", "/home/u/pad-lattice/")); got != "pad-lattice" {
		t.Errorf("cwdName = %s", got)
	}
	if got := cwdName(wire.MetadataOf("cwd", "/")); got != "/" {
		t.Errorf("cwdName(/) = %s", got)
	}
	if got := printable("a\x1b[2Jb"); got != "a\uFFFD[2Jb" {
		t.Errorf("printable = %q", got)
	}
}
