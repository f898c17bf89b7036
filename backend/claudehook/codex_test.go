package claudehook_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/claudehook"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/backend/wire"
)

// codexStdin is a Codex 0.169 hook input: the members it writes (issue
// #25), a shell call seen as Bash.
func codexStdin(event string) []byte {
	return fmt.Appendf(nil, `{"session_id":"0199a213-81c0-7800-8aa1-bbab2a035a53","turn_id":"1","cwd":"/home/ana/garden","hook_event_name":%q,"model":"gpt-5-codex","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"rm -r build","description":"clean the build"}}`, event)
}

// codexSession waits until the daemon holds the Codex session in state s.
func codexSession(t *testing.T, td *testDaemon, s wire.State) {
	t.Helper()
	testutil.EventuallyNoError(t, "the Codex session's state", func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		st, err := td.client.Status(ctx)
		if err != nil {
			return err
		}
		for _, x := range st.Sessions {
			if x.Backend == claudehook.CodexBackend && x.SessionID == "0199a213-81c0-7800-8aa1-bbab2a035a53" && x.Label == "garden" {
				if x.State != s {
					return fmt.Errorf("state %s, want %s", x.State, s)
				}
				return nil
			}
		}
		return fmt.Errorf("no Codex session in %+v", st.Sessions)
	})
}

// Codex's hooks (issue #25): its session lives on the pads under the codex
// backend; a press on the pad answers its PermissionRequest with the
// decision Codex reads (Stop as a denial: Codex refuses "interrupt").
func TestCodexPermissionRequestAnsweredByPress(t *testing.T) {
	for _, c := range []struct {
		press wire.Action
		line  string
	}{
		{wire.ActionApprove, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}` + "\n"},
		{wire.ActionReject, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"Rejected from Lets"}}}` + "\n"},
	} {
		t.Run(string(c.press), func(t *testing.T) {
			td := startDaemon(t)
			o := options(td, nil, nil)
			o.Agent = claudehook.Codex
			out := &bytes.Buffer{}
			done := make(chan error, 1)
			ctx := testCtx(t)
			go func() {
				done <- claudehook.Run(ctx, o, claudehook.EventPermissionRequest, bytes.NewReader(codexStdin(claudehook.EventPermissionRequest)), out)
			}()
			waitAvailable(t, td, wire.ActionApprove, wire.ActionReject)
			codexSession(t, td, wire.StateWaitingForApproval)
			td.surface.Press(c.press)
			if err := testutil.Wait(t, "the Codex hook to return", done); err != nil {
				t.Fatal(err)
			}
			if out.String() != c.line {
				t.Errorf("printed %q, want %q", out.String(), c.line)
			}
			codexSession(t, td, wire.StateRunning)
		})
	}
}

// The other events set the states the issue lists; Claude-only events are
// not Codex's, and Codex's Interrupt is not Claude's.
func TestCodexEvents(t *testing.T) {
	td := startDaemon(t)
	o := options(td, nil, nil)
	o.Agent = claudehook.Codex
	for _, c := range []struct {
		event string
		state wire.State
	}{
		{claudehook.EventSessionStart, wire.StateWaitingForReply},
		{claudehook.EventUserPromptSubmit, wire.StateRunning},
		{claudehook.EventPostToolUse, wire.StateRunning},
		{claudehook.EventStop, wire.StateSuccess},
		{claudehook.EventUserPromptSubmit, wire.StateRunning},
		{claudehook.EventInterrupt, wire.StateCancelled},
	} {
		out := &bytes.Buffer{}
		if err := claudehook.Run(testCtx(t), o, c.event, bytes.NewReader(codexStdin(c.event)), out); err != nil {
			t.Fatalf("%s: %v", c.event, err)
		}
		if out.Len() != 0 {
			t.Errorf("%s printed %q; Codex reads nothing from it", c.event, out)
		}
		codexSession(t, td, c.state)
	}
	if err := claudehook.Run(testCtx(t), o, "Notification", bytes.NewReader(codexStdin("Notification")), &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "Notification") {
		t.Errorf("a Claude-only event for Codex: %v", err)
	}
	if claudehook.ClaudeCode.Known(claudehook.EventInterrupt) || !claudehook.Codex.Known(claudehook.EventInterrupt) {
		t.Error("Interrupt is Codex's event only")
	}
	if line, after, ok := claudehook.Codex.Decision(wire.ActionStop); !ok || after != wire.StateRunning || strings.Contains(line, "interrupt") || !strings.Contains(line, `"behavior":"deny"`) {
		t.Errorf("Codex Stop decision %q %s %v", line, after, ok)
	}
}

// A Codex PermissionRequest puts up the window card (issue #25): the host
// gets the opening report for the Codex process with "backend": "codex"
// (so the card names Codex and its answer goes to the Codex session), and
// the card's answer — the host passes it to the daemon as Answer does —
// prints Codex's decision. Codex's other hooks still print nothing, and
// SessionStart lists no windows for it.
func TestCodexPermissionRequestAnsweredByWindowCard(t *testing.T) {
	for _, c := range []struct {
		press wire.Action
		line  string
	}{
		{wire.ActionApprove, claudehook.CodexDecisionAllow},
		{wire.ActionReject, claudehook.CodexDecisionDeny},
	} {
		t.Run(string(c.press), func(t *testing.T) {
			td := startDaemon(t)
			host := &listingHost{fakeHost: newFakeHost(t)}
			o := options(td, host, nil)
			o.Agent = claudehook.Codex
			ctx := testCtx(t)

			out := &bytes.Buffer{}
			if err := claudehook.Run(ctx, o, claudehook.EventSessionStart, bytes.NewReader(codexStdin(claudehook.EventSessionStart)), out); err != nil {
				t.Fatal(err)
			}
			if out.Len() != 0 || host.listed() {
				t.Fatalf("Codex's SessionStart printed %q (windows listed: %v); Codex reads nothing from it", out, host.listed())
			}
			started := host.waitReports(t, 1)[0]
			if started.Backend != claudehook.CodexBackend || started.PID != claudePID || started.State != string(wire.StateWaitingForReply) {
				t.Fatalf("SessionStart host report %+v: want the Codex process's, backend codex", started)
			}

			out.Reset()
			done := make(chan error, 1)
			go func() {
				done <- claudehook.Run(ctx, o, claudehook.EventPermissionRequest, bytes.NewReader(codexStdin(claudehook.EventPermissionRequest)), out)
			}()
			waitAvailable(t, td, wire.ActionApprove, wire.ActionReject)
			opening := host.waitReports(t, 2)[1]
			want := claudehook.Report{PID: claudePID, SessionID: "0199a213-81c0-7800-8aa1-bbab2a035a53", Label: "garden", State: string(wire.StateWaitingForApproval),
				RequestID: requestID, Tool: "Bash", Summary: opening.Summary, About: opening.About, Backend: claudehook.CodexBackend}
			if opening != want || !strings.Contains(opening.Summary, "rm -r build") {
				t.Fatalf("opening host report %+v, want a card request %+v", opening, want)
			}
			// The card's press, as the host passes it on.
			if err := td.d.Answer(ctx, wire.Identity{Backend: opening.Backend, SessionID: opening.SessionID}, opening.RequestID, c.press); err != nil {
				t.Fatalf("the card's answer: %v", err)
			}
			if err := testutil.Wait(t, "the Codex hook to return", done); err != nil {
				t.Fatal(err)
			}
			if out.String() != c.line {
				t.Errorf("printed %q, want %q", out.String(), c.line)
			}
			closing := host.waitReports(t, 3)[2]
			if closing.Backend != claudehook.CodexBackend || closing.RequestID != "" || closing.State != string(wire.StateRunning) {
				t.Errorf("closing host report %+v: want running, no card", closing)
			}
		})
	}
}

// listingHost is a fakeHost that is also a WindowLister and records
// whether the hook listed the windows.
type listingHost struct {
	*fakeHost
	mu   sync.Mutex
	list bool
}

func (h *listingHost) Windows(ctx context.Context) ([]claudehook.OpenWindow, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.list = true
	return []claudehook.OpenWindow{{Window: "w1", Unique: "board", Title: "Board", Connected: true}}, nil
}

func (h *listingHost) listed() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.list
}
