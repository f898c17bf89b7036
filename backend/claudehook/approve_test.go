package claudehook_test

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/claudehook"
	"github.com/lets-app/lets/backend/control"
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

// wait waits for the hook to return, at most limit.
func (r *running) wait(t *testing.T, limit time.Duration) []byte {
	t.Helper()
	select {
	case err := <-r.done:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(limit):
		t.Fatalf("the PermissionRequest hook did not return within %v", limit)
	}
	return r.out.Bytes()
}

// waitAvailable waits until the surface lights exactly want.
func waitAvailable(t *testing.T, td *testDaemon, want ...wire.Action) {
	t.Helper()
	if _, err := td.surface.WaitView(3*time.Second, func(v control.View) bool { return slices.Equal(v.Available, want) }); err != nil {
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
				RequestID: requestID, Tool: "Bash", Summary: "touch made-by-bash && exit 3"}
			if opening != want {
				t.Fatalf("opening host report %+v, want %+v", opening, want)
			}
			td.surface.Press(c.action)
			out := r.wait(t, 3*time.Second)
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

func (g gatedWire) ReportState(ctx context.Context, cmd wire.StateCommand) error {
	if cmd.State == wire.StateWaitingForApproval {
		select {
		case <-g.release:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return g.WireClient.ReportState(ctx, cmd)
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
	out := r.wait(t, 3*time.Second)
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
	o.ApprovalTimeout = 300 * time.Millisecond
	start := time.Now()
	r := startApproval(t, o)
	out := r.wait(t, 3*time.Second)
	if took := time.Since(start); took < 300*time.Millisecond || took > time.Second {
		t.Errorf("returned after %v, want the 300 ms deadline", took)
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
// once and prints nothing.
func TestPermissionRequestDaemonGoneMidWait(t *testing.T) {
	td := startDaemon(t)
	host := newFakeHost(t)
	logs := &logBuffer{}
	r := startApproval(t, options(td, host, logs))
	waitAvailable(t, td, wire.ActionApprove, wire.ActionReject)
	stopped := time.Now()
	td.stop()
	out := r.wait(t, 2*time.Second)
	if took := time.Since(stopped); took > time.Second {
		t.Errorf("returned %v after the daemon stopped, want < 1 s", took)
	}
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
	out := startApproval(t, o).wait(t, 3*time.Second)
	if string(out) != claudehook.DecisionDeny {
		t.Fatalf("printed %q", out)
	}
	want := []string{
		"subscribe claude/" + sessionID + " approve,reject,stop " + requestID + " one_shot",
		"state waiting_for_approval",
		"state running",
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
	start := time.Now()
	out := startApproval(t, o).wait(t, 2*time.Second)
	if len(out) != 0 || time.Since(start) > time.Second {
		t.Fatalf("printed %q after %v", out, time.Since(start))
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
	deadline := time.Now().Add(3 * time.Second)
	for {
		acts, err := td.d.Answerable(testCtx(t), id, opening.RequestID)
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(acts, wire.ActionApprove) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the request never became answerable: %v", acts)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := td.d.Answer(testCtx(t), id, opening.RequestID, wire.ActionApprove); err != nil {
		t.Fatal(err)
	}
	if out := r.wait(t, 3*time.Second); string(out) != claudehook.DecisionAllow {
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
