package claudehook_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lets-app/lets/backend/claudehook"
	"github.com/lets-app/lets/backend/control"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/backend/wire"
	"github.com/lets-app/lets/backend/wireclient"
)

// running is one PermissionRequest hook in the background.
type running struct {
	out  *bytes.Buffer
	done chan error
}

func startApproval(t *testing.T, o claudehook.Options) *running {
	t.Helper()
	r := &running{out: &bytes.Buffer{}, done: make(chan error, 1)}
	stdin := stdinOf(t, claudehook.EventPermissionRequest)
	ctx := testCtx(t)
	go func() {
		r.done <- claudehook.Run(ctx, o, claudehook.EventPermissionRequest, bytes.NewReader(stdin), r.out)
	}()
	return r
}

// wait waits for the hook to return.
func (r *running) wait(t *testing.T) []byte {
	t.Helper()
	if err := testutil.Wait(t, "the PermissionRequest hook to return", r.done); err != nil {
		t.Fatalf("Run: %v", err)
	}
	return r.out.Bytes()
}

// waitAvailable waits until the surface lights exactly want.
func waitAvailable(t *testing.T, td *testDaemon, want ...wire.Action) {
	t.Helper()
	if _, err := td.surface.WaitView(testutil.EventuallyTimeout, func(v control.View) bool { return slices.Equal(v.Available, want) }); err != nil {
		t.Fatal(err)
	}
}

// The three answers, each a real surface press on the real daemon
// (claude-integration §3): the decision line byte for byte, the states the
// daemon holds before and after, the host reports.
func TestPermissionRequestAnsweredByPress(t *testing.T) {
	cases := []struct {
		name   string
		action wire.Action
		golden string
		after  wire.State
	}{
		{"approve", wire.ActionApprove, "PermissionRequest", wire.StateRunning},
		{"reject", wire.ActionReject, "PermissionRequest-reject", wire.StateRunning},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			td := startDaemon(t)
			host := newFakeHost(t)
			r := startApproval(t, options(td, host, nil))

			// Approve and Reject light only once the state and the
			// subscription are both in place.
			waitAvailable(t, td, wire.ActionApprove, wire.ActionReject)
			td.waitState(t, wire.StateWaitingForApproval)
			opening := host.waitReports(t, 1)[0]
			want := claudehook.Report{PID: claudePID, SessionID: sessionID, Label: label, State: "waiting_for_approval",
				RequestID: requestID, Tool: "Bash", Summary: "touch made-by-bash && exit 3", About: "Touch and fail"}
			if opening != want {
				t.Fatalf("opening host report %+v, want %+v", opening, want)
			}
			td.surface.Press(c.action)
			out := r.wait(t)
			checkGolden(t, c.golden, out)

			td.waitState(t, c.after)
			waitAvailable(t, td) // the one-shot subscription is gone
			reports := host.waitReports(t, 2)
			closing := claudehook.Report{PID: claudePID, SessionID: sessionID, Label: label, State: string(c.after)}
			if len(reports) != 2 || reports[1] != closing {
				t.Fatalf("host reports %+v, want the closing %+v", reports, closing)
			}
		})
	}
}

// gatedWire holds the waiting_for_approval report until release is closed.
type gatedWire struct {
	claudehook.WireClient
	release chan struct{}
}

func (g gatedWire) ApplyState(ctx context.Context, cmd wire.StateCommand) error {
	if cmd.State == wire.StateWaitingForApproval {
		select {
		case <-g.release:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return g.WireClient.ApplyState(ctx, cmd)
}

func (g gatedWire) ApplyStateAck(ctx context.Context, cmd wire.StateCommand) (wire.StateAck, error) {
	if cmd.State == wire.StateWaitingForApproval {
		select {
		case <-g.release:
		case <-ctx.Done():
			return wire.StateAck{}, ctx.Err()
		}
	}
	return g.WireClient.ApplyStateAck(ctx, cmd)
}

// Stop is for a running session (wire-protocol-1 §5.2), and a pending
// approval forces waiting_for_approval (§9.5), so a stop press reaches the
// hook only between its subscription and its state report, while Claude
// is still shown running. The answer is deny plus interrupt, then
// cancelled (held 2 s, then waiting_for_reply).
func TestPermissionRequestStopPress(t *testing.T) {
	td := startDaemon(t)
	host := newFakeHost(t)
	if err := claudehook.Run(testCtx(t), options(td, host, nil), claudehook.EventUserPromptSubmit, bytes.NewReader(stdinOf(t, claudehook.EventUserPromptSubmit)), &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	td.waitState(t, wire.StateRunning)
	g := gatedWire{WireClient: claudehook.WireClient{C: td.client}, release: make(chan struct{})}
	o := options(td, host, nil)
	o.Wire = g
	r := startApproval(t, o)
	waitAvailable(t, td, wire.ActionStop)
	td.surface.Press(wire.ActionStop)
	waitAvailable(t, td) // delivered: the one-shot subscription is spent
	close(g.release)
	out := r.wait(t)
	checkGolden(t, "PermissionRequest-stop", out)
	td.session(t, func(s wire.StatusSession, found bool) bool {
		return found && (s.State == wire.StateCancelled || s.State == wire.StateWaitingForReply)
	})
	reports := host.Reports()
	if last := reports[len(reports)-1]; last.State != string(wire.StateCancelled) || last.RequestID != "" {
		t.Fatalf("closing host report %+v", last)
	}
}

// No press before the deadline: nothing printed (Claude asks in its
// terminal), the daemon still shows the session waiting for approval,
// the host drops the card.
func TestPermissionRequestDeadlinePrintsNothing(t *testing.T) {
	td := startDaemon(t)
	host := newFakeHost(t)
	o := options(td, host, nil)
	// The whole set-up (subscribe, two reports) happens inside the
	// deadline, so it is long enough for a loaded machine.
	o.ApprovalTimeout = time.Second
	start := time.Now()
	r := startApproval(t, o)
	out := r.wait(t)
	// Not before the deadline; that it returns at it, and not later, is
	// TestPermissionRequestDeadlineExact's, on a clock the test owns.
	if took := time.Since(start); took < o.ApprovalTimeout {
		t.Errorf("returned after %v, before the %v deadline", took, o.ApprovalTimeout)
	}
	if len(out) != 0 {
		t.Fatalf("printed %q after the deadline", out)
	}
	td.waitState(t, wire.StateWaitingForApproval)
	waitAvailable(t, td)
	reports := host.waitReports(t, 2)
	last := claudehook.Report{PID: claudePID, SessionID: sessionID, Label: label, State: "waiting_for_approval"}
	if len(reports) != 2 || reports[1] != last {
		t.Fatalf("host reports %+v, want the card dropped with %+v", reports, last)
	}
}

// The daemon stops (or restarts) while the hook waits: it gives up at
// once and prints nothing. The approval deadline is far beyond the test's
// wait, so only giving up on the lost subscription returns in time.
func TestPermissionRequestDaemonGoneMidWait(t *testing.T) {
	td := startDaemon(t)
	host := newFakeHost(t)
	logs := &logBuffer{}
	o := options(td, host, logs)
	o.ApprovalTimeout = time.Hour
	r := startApproval(t, o)
	waitAvailable(t, td, wire.ActionApprove, wire.ActionReject)
	td.stop()
	out := r.wait(t)
	if len(out) != 0 {
		t.Fatalf("printed %q", out)
	}
	if !strings.Contains(logs.String(), "stopped waiting for an approval") {
		t.Errorf("no log line: %q", logs.String())
	}
}

// fakeWire records calls in order; Subscribe returns fakeActions that
// deliver the queued events.
type fakeWire struct {
	mu     sync.Mutex
	calls  []string
	lines  []byte // every command as the daemon would receive it
	events chan wire.ActionEvent
	subErr error
}

func (w *fakeWire) record(s string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls = append(w.calls, s)
}

func (w *fakeWire) Calls() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.calls...)
}

func (w *fakeWire) line(m wire.Message) error {
	b, err := m.Encode()
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lines = append(w.lines, b...)
	return nil
}

func (w *fakeWire) Lines() []byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]byte(nil), w.lines...)
}

func (w *fakeWire) ReportState(_ context.Context, cmd wire.StateCommand) error {
	w.record("state " + string(cmd.State))
	return w.line(cmd)
}

func (w *fakeWire) ApplyState(_ context.Context, cmd wire.StateCommand) error {
	cmd.Reply = true
	w.record("state " + string(cmd.State) + " applied")
	return w.line(cmd)
}

func (w *fakeWire) EndSession(_ context.Context, id wire.Identity) error {
	w.record("session_end " + id.String())
	return w.line(wire.SessionEndCommand{Agent: id})
}

func (w *fakeWire) Subscribe(_ context.Context, cmd wire.SubscribeActionsCommand) (claudehook.Actions, error) {
	acts := make([]string, len(cmd.Actions))
	for i, a := range cmd.Actions {
		acts[i] = string(a)
	}
	w.record("subscribe " + cmd.Agent.String() + " " + strings.Join(acts, ",") + " " + cmd.RequestID + map[bool]string{true: " one_shot", false: ""}[cmd.OneShot])
	if w.subErr != nil {
		return nil, w.subErr
	}
	if err := w.line(cmd); err != nil {
		return nil, err
	}
	return fakeActions{events: w.events}, nil
}

type fakeActions struct{ events chan wire.ActionEvent }

func (a fakeActions) Receive(ctx context.Context) (wire.ActionEvent, error) {
	select {
	case ev, ok := <-a.events:
		if !ok {
			return wire.ActionEvent{}, wireclient.ErrSubscriptionEnded
		}
		return ev, nil
	case <-ctx.Done():
		return wire.ActionEvent{}, ctx.Err()
	}
}

func (fakeActions) Close() error { return nil }

// The subscription is opened before waiting_for_approval is reported, so
// a press accepted by the daemon cannot miss the hook; actions for
// another request (or retry) are ignored.
func TestPermissionRequestOrderAndForeignActions(t *testing.T) {
	fw := &fakeWire{events: make(chan wire.ActionEvent, 4)}
	id := wire.Identity{Backend: claudehook.Backend, SessionID: sessionID}
	fw.events <- wire.ActionEvent{Action: wire.ActionApprove, Agent: id, RequestID: "someone-else"}
	fw.events <- wire.ActionEvent{Action: wire.ActionRetry, Agent: id, RequestID: requestID}
	fw.events <- wire.ActionEvent{Action: wire.ActionReject, Agent: id, RequestID: requestID}
	host := newFakeHost(t)
	o := options(nil, host, nil)
	o.Wire = fw
	out := startApproval(t, o).wait(t)
	if string(out) != claudehook.DecisionDeny {
		t.Fatalf("printed %q", out)
	}
	want := []string{
		"subscribe claude/" + sessionID + " approve,reject,stop " + requestID + " one_shot",
		"state waiting_for_approval applied",
		"state running applied",
	}
	if got := fw.Calls(); !slices.Equal(got, want) {
		t.Fatalf("wire calls %q, want %q", got, want)
	}
}

// A subscription the daemon refuses: nothing can answer, so the hook
// returns at once, prints nothing, and the host shows no card.
func TestPermissionRequestSubscribeFails(t *testing.T) {
	fw := &fakeWire{subErr: errors.New("boom")}
	host := newFakeHost(t)
	o := options(nil, host, nil)
	o.Wire = fw
	o.ApprovalTimeout = time.Hour // only returning at once passes the test's wait
	out := startApproval(t, o).wait(t)
	if len(out) != 0 {
		t.Fatalf("printed %q", out)
	}
	if got := fw.Calls(); len(got) != 1 || !strings.HasPrefix(got[0], "subscribe ") {
		t.Fatalf("wire calls %q", got)
	}
	reports := host.Reports()
	if len(reports) != 1 || reports[0].RequestID != "" || reports[0].State != "waiting_for_approval" {
		t.Fatalf("host reports %+v", reports)
	}
}

// A window's approval card answers through the daemon's Answer (what the
// host does for Allow / Deny): the same request-scoped subscription gets
// it, whatever is selected on the pads.
func TestPermissionRequestAnsweredFromWindow(t *testing.T) {
	td := startDaemon(t)
	host := newFakeHost(t)
	// Another session holds the pads' selection.
	other := wire.Identity{Backend: "codex", SessionID: "other"}
	if err := td.client.ReportState(testCtx(t), wire.StateCommand{State: wire.StateRunning, Agent: other}); err != nil {
		t.Fatal(err)
	}
	td.session(t, func(_ wire.StatusSession, _ bool) bool { return true })
	r := startApproval(t, options(td, host, nil))
	td.waitState(t, wire.StateWaitingForApproval)
	opening := host.waitReports(t, 1)[0]
	id := wire.Identity{Backend: claudehook.Backend, SessionID: opening.SessionID}
	testutil.EventuallyNoError(t, "the request is answerable with Approve", func() error {
		acts, err := td.d.Answerable(testCtx(t), id, opening.RequestID)
		if err == nil && !slices.Contains(acts, wire.ActionApprove) {
			err = fmt.Errorf("answerable with %v", acts)
		}
		return err
	})
	if err := td.d.Answer(testCtx(t), id, opening.RequestID, wire.ActionApprove); err != nil {
		t.Fatal(err)
	}
	if out := r.wait(t); string(out) != claudehook.DecisionAllow {
		t.Fatalf("printed %q", out)
	}
	td.waitState(t, wire.StateRunning)
}

// Without the claude pid nothing goes to the host (it could bind no
// window); the Wire report and the prompt context still work.
func TestNoClaudePIDNoHostReport(t *testing.T) {
	td := startDaemon(t)
	host := newFakeHost(t)
	o := options(td, host, nil)
	o.ClaudePID = 0
	var out bytes.Buffer
	if err := claudehook.Run(testCtx(t), o, claudehook.EventUserPromptSubmit, bytes.NewReader(stdinOf(t, claudehook.EventUserPromptSubmit)), &out); err != nil {
		t.Fatal(err)
	}
	td.waitState(t, wire.StateRunning)
	if out.Len() == 0 || len(host.Reports()) != 0 {
		t.Fatalf("printed %q, reported %+v", out.String(), host.Reports())
	}
}

// daemonModel is a Wire that models the daemon's ordering (wire-protocol-1
// §4: lines are ordered per connection only): an applied report
// (ApplyState) takes effect before the call returns; each fire-and-forget
// report travels on a connection of its own, so it stays in flight until
// the test delivers it, in whatever order the test picks.
type daemonModel struct {
	mu       sync.Mutex
	state    wire.State
	inFlight []wire.State
	events   chan wire.ActionEvent
}

func (m *daemonModel) ReportState(_ context.Context, cmd wire.StateCommand) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.inFlight = append(m.inFlight, cmd.State)
	return nil
}

func (m *daemonModel) ApplyState(_ context.Context, cmd wire.StateCommand) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.state = cmd.State
	return nil
}

func (m *daemonModel) EndSession(context.Context, wire.Identity) error { return nil }

func (m *daemonModel) Subscribe(context.Context, wire.SubscribeActionsCommand) (claudehook.Actions, error) {
	return fakeActions{events: m.events}, nil
}

// deliverLastFirst lets the daemon read the reports still in flight, the
// newest first (the worst order separate connections allow), and returns
// the state the session ends in.
func (m *daemonModel) deliverLastFirst() wire.State {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := len(m.inFlight) - 1; i >= 0; i-- {
		m.state = m.inFlight[i]
	}
	m.inFlight = nil
	return m.state
}

// A Stop press can reach the hook before its waiting_for_approval report
// lands (Stop is lit while the session runs). The closing cancelled report
// must not be overtaken by it, whatever order the daemon reads its
// connections in: the session ends cancelled, not waiting_for_approval
// with no one waiting (the CI flake of TestPermissionRequestStopPress:
// both reports were fire-and-forget, each on its own connection).
func TestPermissionRequestStopReportsCannotBeOvertaken(t *testing.T) {
	m := &daemonModel{state: wire.StateRunning, events: make(chan wire.ActionEvent, 1)}
	m.events <- wire.ActionEvent{Action: wire.ActionStop, Agent: wire.Identity{Backend: claudehook.Backend, SessionID: sessionID}, RequestID: requestID}
	o := options(nil, newFakeHost(t), nil)
	o.Wire = m
	out := startApproval(t, o).wait(t)
	checkGolden(t, "PermissionRequest-stop", out)
	if got := m.deliverLastFirst(); got != wire.StateCancelled {
		t.Fatalf("the session ends %s, want cancelled", got)
	}
}

// No press: the hook returns exactly at its approval deadline (the clock
// is synctest's), prints nothing, leaves the Wire state waiting_for_approval
// (Claude asks in its terminal) and drops the host's card.
func TestPermissionRequestDeadlineExact(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fw := &fakeWire{events: make(chan wire.ActionEvent)}
		host := newFakeHost(t)
		o := options(nil, host, nil)
		o.Wire = fw
		o.ApprovalTimeout = 300 * time.Millisecond
		var out bytes.Buffer
		start := time.Now()
		if err := claudehook.Run(t.Context(), o, claudehook.EventPermissionRequest, bytes.NewReader(stdinOf(t, claudehook.EventPermissionRequest)), &out); err != nil {
			t.Fatal(err)
		}
		if took := time.Since(start); took != o.ApprovalTimeout {
			t.Errorf("returned after %v, want exactly the %v deadline", took, o.ApprovalTimeout)
		}
		if out.Len() != 0 {
			t.Fatalf("printed %q after the deadline", out.String())
		}
		want := []string{
			"subscribe claude/" + sessionID + " approve,reject,stop " + requestID + " one_shot",
			"state waiting_for_approval applied",
		}
		if got := fw.Calls(); !slices.Equal(got, want) {
			t.Fatalf("wire calls %q, want %q", got, want)
		}
		reports := host.Reports()
		last := claudehook.Report{PID: claudePID, SessionID: sessionID, Label: label, State: "waiting_for_approval"}
		if len(reports) != 2 || reports[1] != last {
			t.Fatalf("host reports %+v, want the card dropped with %+v", reports, last)
		}
	})
}
