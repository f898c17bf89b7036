package claudehook_test

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lets-app/lets/backend/claudehook"
	"github.com/lets-app/lets/backend/wire"
	"github.com/lets-app/lets/backend/wireclient"
)

// Every event but PermissionRequest against a real daemon and a fake host:
// stdout byte for byte, the daemon's view of the session and the host
// report (claude-integration §2).
func TestGoldenEvents(t *testing.T) {
	cases := []struct {
		event string
		state wire.State // "" for SessionEnd
		host  string
	}{
		{claudehook.EventSessionStart, wire.StateWaitingForReply, "waiting_for_reply"},
		{claudehook.EventUserPromptSubmit, wire.StateRunning, "running"},
		{claudehook.EventPreToolUse, wire.StateRunning, "running"},
		{claudehook.EventPostToolUse, wire.StateRunning, "running"},
		{claudehook.EventPostToolUseFailure, wire.StateRunning, "running"},
		{claudehook.EventNotification, wire.StateWaitingForReply, "waiting_for_reply"},
		{claudehook.EventStop, wire.StateSuccess, "success"},
		{claudehook.EventStopFailure, wire.StateError, "error"},
		{claudehook.EventSessionEnd, "", "ended"},
	}
	for _, c := range cases {
		t.Run(c.event, func(t *testing.T) {
			td := startDaemon(t)
			host := newFakeHost(t)
			ctx := testCtx(t)
			if c.event == claudehook.EventSessionEnd {
				// A session to end.
				if err := claudehook.Run(ctx, options(td, host, nil), claudehook.EventStop, bytes.NewReader(stdinOf(t, claudehook.EventStop)), &bytes.Buffer{}); err != nil {
					t.Fatal(err)
				}
				td.waitState(t, wire.StateSuccess)
				host.waitReports(t, 1)
			}
			before := len(host.Reports())
			var out bytes.Buffer
			// How long it takes is BenchmarkHookEvents'.
			if err := claudehook.Run(ctx, options(td, host, nil), c.event, bytes.NewReader(stdinOf(t, c.event)), &out); err != nil {
				t.Fatalf("Run: %v", err)
			}
			checkGolden(t, c.event, out.Bytes())
			if c.state == "" {
				td.session(t, func(_ wire.StatusSession, found bool) bool { return !found })
			} else {
				s := td.waitState(t, c.state)
				if v, _ := s.Metadata.Get("label"); v != label {
					t.Errorf("metadata %+v, want label %q", s.Metadata, label)
				}
			}
			reports := host.Reports()[before:]
			want := claudehook.Report{PID: claudePID, SessionID: sessionID, Label: label, State: c.host}
			if len(reports) != 1 || reports[0] != want {
				t.Fatalf("host reports %+v, want [%+v]", reports, want)
			}
		})
	}
}

// The prompt hook reads with the hook cursor beyond the claude one; with
// nothing new it prints nothing.
func TestPromptWithNothingPendingPrintsNothing(t *testing.T) {
	for _, event := range []string{claudehook.EventSessionStart, claudehook.EventUserPromptSubmit} {
		host := newFakeHost(t)
		host.pending = claudehook.PendingEvents{Cursor: "hook"}
		var out bytes.Buffer
		if err := claudehook.Run(testCtx(t), options(nil, host, nil), event, bytes.NewReader(stdinOf(t, event)), &out); err != nil {
			t.Fatal(err)
		}
		if out.Len() != 0 {
			t.Fatalf("%s printed %q with nothing pending", event, out.String())
		}
		if host.reads != 1 {
			t.Fatalf("%s read pending events %d times", event, host.reads)
		}
	}
}

// A Notification that is not about waiting for the person changes nothing.
func TestNotificationOtherThanIdleReportsNothing(t *testing.T) {
	host := newFakeHost(t)
	stdin := `{"session_id":"` + sessionID + `","cwd":"/home/user/project","hook_event_name":"Notification","message":"Claude needs your permission to use Bash","notification_type":"permission_prompt"}`
	var out bytes.Buffer
	if err := claudehook.Run(testCtx(t), options(nil, host, nil), claudehook.EventNotification, strings.NewReader(stdin), &out); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 || len(host.Reports()) != 0 {
		t.Fatalf("printed %q, reported %+v", out.String(), host.Reports())
	}
}

// With the daemon and the host down every hook returns, printing nothing
// (PermissionRequest included: nothing can answer it), within its budget
// on synctest's clock: nothing it does waits for time to pass.
func TestDaemonAndHostDownEveryEventQuietAndQuick(t *testing.T) {
	missing := filepath.Join(shortDir(t), "none.sock")
	for _, event := range claudehook.Events() {
		synctest.Test(t, func(t *testing.T) {
			host := newFakeHost(t)
			host.err = errors.New("connection refused")
			logs := &logBuffer{}
			o := options(nil, host, logs)
			o.Wire = claudehook.WireClient{C: wireclient.New(missing)}
			var out bytes.Buffer
			start := time.Now()
			if err := claudehook.Run(t.Context(), o, event, bytes.NewReader(stdinOf(t, event)), &out); err != nil {
				t.Fatalf("%s: %v", event, err)
			}
			if took := time.Since(start); took != 0 {
				t.Errorf("%s waited %v with everything down, want no wait", event, took)
			}
			if out.Len() != 0 {
				t.Errorf("%s printed %q with everything down", event, out.String())
			}
			if !strings.Contains(logs.String(), "level=WARN") {
				t.Errorf("%s logged no warning: %q", event, logs.String())
			}
		})
	}
}

// A host that accepts connections but never answers holds a hook exactly
// its budget, no longer (the clock is synctest's).
func TestHungHostEveryQuickEventWithinBudget(t *testing.T) {
	for _, event := range claudehook.Events() {
		if event == claudehook.EventPermissionRequest {
			continue
		}
		synctest.Test(t, func(t *testing.T) {
			host := newFakeHost(t)
			host.hang = true
			o := options(nil, host, nil)
			o.Wire = &fakeWire{}
			var out bytes.Buffer
			start := time.Now()
			if err := claudehook.Run(t.Context(), o, event, bytes.NewReader(stdinOf(t, event)), &out); err != nil {
				t.Fatalf("%s: %v", event, err)
			}
			if took := time.Since(start); took != claudehook.QuickBudget {
				t.Errorf("%s returned after %v with a hung host, want the %v budget", event, took, claudehook.QuickBudget)
			}
			if out.Len() != 0 {
				t.Errorf("%s printed %q with a hung host", event, out.String())
			}
		})
	}
}

// Malformed stdin: a typed error (the caller logs it in one line), nothing
// printed, nothing reported.
func TestMalformedStdin(t *testing.T) {
	huge := `{"session_id":"x","tool_input":"` + strings.Repeat("a", claudehook.MaxStdinBytes) + `"}`
	cases := []struct {
		name, stdin string
		problem     claudehook.InputProblem
	}{
		{"empty", "", claudehook.ProblemEmpty},
		{"blank", " \n\t", claudehook.ProblemEmpty},
		{"not JSON", "session_id=1", claudehook.ProblemNotObject},
		{"array", `[{"session_id":"x"}]`, claudehook.ProblemNotObject},
		{"null", `null`, claudehook.ProblemNotObject},
		{"truncated", `{"session_id":"x"`, claudehook.ProblemNotObject},
		{"no session", `{"cwd":"/home/user/project","hook_event_name":"Stop"}`, claudehook.ProblemNoSession},
		{"session not a string", `{"session_id":42}`, claudehook.ProblemNoSession},
		{"too large", huge, claudehook.ProblemTooLarge},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			host := newFakeHost(t)
			fw := &fakeWire{}
			o := options(nil, host, nil)
			o.Wire = fw
			var out bytes.Buffer
			err := claudehook.Run(testCtx(t), o, claudehook.EventUserPromptSubmit, strings.NewReader(c.stdin), &out)
			var ie *claudehook.InputError
			if !errors.As(err, &ie) || ie.Problem != c.problem {
				t.Fatalf("err %v, want InputError %s", err, c.problem)
			}
			if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, "nothing was reported") {
				t.Errorf("error is not one helpful line: %q", msg)
			}
			if out.Len() != 0 || len(host.Reports()) != 0 || host.reads != 0 || len(fw.Calls()) != 0 {
				t.Fatalf("printed %q, host %+v, wire %v", out.String(), host.Reports(), fw.Calls())
			}
		})
	}
}

func TestUnknownEvent(t *testing.T) {
	host := newFakeHost(t)
	var out bytes.Buffer
	err := claudehook.Run(testCtx(t), options(nil, host, nil), "PreCompact", bytes.NewReader(stdinOf(t, claudehook.EventStop)), &out)
	var ue *claudehook.UnknownEventError
	if !errors.As(err, &ue) || ue.Name != "PreCompact" {
		t.Fatalf("err %v", err)
	}
	if out.Len() != 0 || len(host.Reports()) != 0 {
		t.Fatalf("printed %q, reported %+v", out.String(), host.Reports())
	}
}

// Unknown members, odd types and a byte-order mark do not stop a hook.
func TestDecodeEventTolerant(t *testing.T) {
	in := "\xef\xbb\xbf" + `{"session_id":"s1","cwd":7,"tool_name":"Bash","tool_input":{"command":"ls"},"future":{"x":[1]},"error":{"type":"x"},"hook_event_name":"PostToolUseFailure"}`
	ev, err := claudehook.DecodeEvent(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if ev.SessionID != "s1" || ev.Cwd != "" || ev.ToolName != "Bash" || string(ev.ToolInput) != `{"command":"ls"}` || ev.Error != "" || ev.HookEventName != "PostToolUseFailure" {
		t.Fatalf("%+v", ev)
	}
	ev, err = claudehook.DecodeEvent(bytes.NewReader(stdinOf(t, claudehook.EventPermissionRequest)))
	if err != nil {
		t.Fatal(err)
	}
	if ev.SessionID != sessionID || ev.Cwd != "/home/user/project" || ev.PermissionMode != "default" || ev.ToolName != "Bash" {
		t.Fatalf("%+v", ev)
	}
}

// The hook obeys its caller's context too.
func TestCancelledContextQuiet(t *testing.T) {
	td := startDaemon(t)
	host := newFakeHost(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out bytes.Buffer
	if err := claudehook.Run(ctx, options(td, host, nil), claudehook.EventUserPromptSubmit, bytes.NewReader(stdinOf(t, claudehook.EventUserPromptSubmit)), &out); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 {
		t.Fatalf("printed %q", out.String())
	}
}

// The Wire lines each event sends, byte for byte (testdata/golden/<Event>.wire):
// backend claude, the session id from stdin, the label from cwd; for
// PermissionRequest the subscription, then the state, then (approved)
// running.
func TestGoldenWireLines(t *testing.T) {
	for _, event := range claudehook.Events() {
		t.Run(event, func(t *testing.T) {
			fw := &fakeWire{events: make(chan wire.ActionEvent, 1)}
			fw.events <- wire.ActionEvent{Action: wire.ActionApprove, Agent: wire.Identity{Backend: claudehook.Backend, SessionID: sessionID}, RequestID: requestID}
			o := options(nil, newFakeHost(t), nil)
			o.Wire = fw
			o.Seq = 1796171036561967870 // the hook's start in ns, fixed here
			if err := claudehook.Run(testCtx(t), o, event, bytes.NewReader(stdinOf(t, event)), &bytes.Buffer{}); err != nil {
				t.Fatal(err)
			}
			checkGoldenFile(t, event+".wire", fw.Lines())
		})
	}
}
