package chatdriver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/lets-app/lets/backend/config"
	"github.com/lets-app/lets/backend/daemon"
	"github.com/lets-app/lets/backend/daemon/daemontest"
	"github.com/lets-app/lets/backend/testenv/testutil"
	"github.com/lets-app/lets/backend/wire"
	"github.com/lets-app/lets/backend/wireclient"
)

// startPadDaemon runs a Wire daemon and names its socket in the test
// host's host.json, as `lets serve` does.
func startPadDaemon(t *testing.T, h *testHost) *daemon.Daemon {
	t.Helper()
	d, sock := runPadDaemon(t)
	info, err := config.ReadHostInfo(h.paths)
	if err != nil {
		t.Fatal(err)
	}
	info.WireSocket = sock
	if err := config.WriteHostInfo(h.paths, info); err != nil {
		t.Fatal(err)
	}
	return d
}

// runPadDaemon runs a Wire daemon on a socket of its own.
func runPadDaemon(t *testing.T) (*daemon.Daemon, string) {
	t.Helper()
	dir, err := os.MkdirTemp("", "cd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "pad.sock")
	d, err := daemon.Listen(daemon.Options{SocketPath: sock, Surface: daemontest.NewSurface()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Error("the pad daemon did not stop")
		}
	})
	return d, sock
}

// TestPermissionPadsFromOptions: the pad daemon's socket comes in
// through Options.WireSocket (the composition root's), not host.json:
// the question reaches the pads and a Reject press there answers it.
func TestPermissionPadsFromOptions(t *testing.T) {
	d, sock := runPadDaemon(t)
	r := newRig(t, func(o *Options) { o.WireSocket = func() string { return sock } })
	if info, err := config.ReadHostInfo(r.h.paths); err != nil || info.WireSocket != "" {
		t.Fatalf("host.json names a pad daemon (%q, %v): the test must not rely on it", info.WireSocket, err)
	}
	win := r.open(t, "")
	a := r.agents.next(t)
	sh := dialShell(t, r.h, win)
	sh.emit("chat.message", "shell", map[string]any{"text": "make a file"})
	testutil.Wait(t, "the message to reach the agent", a.sent)
	a.emit(t, ControlRequest{RequestID: "req-opt", Subtype: SubtypeCanUseTool, ToolName: "Bash", Input: json.RawMessage(`{"command":"ls"}`)})
	sh.next("shell.ask", 5*time.Second, nil)
	waitPadState(t, sock, a.SessionID(), wire.StateWaitingForApproval)
	id := wire.Identity{Backend: "claude", SessionID: a.SessionID()}
	testutil.Eventually(t, "Reject is lit for req-opt", func() bool {
		acts, err := d.Answerable(context.Background(), id, "req-opt")
		return err == nil && slices.Contains(acts, wire.ActionReject)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := d.Answer(ctx, id, "req-opt", wire.ActionReject); err != nil {
		t.Fatalf("press Reject: %v", err)
	}
	if ans := testutil.Wait(t, "the pad's Reject to reach Claude", a.answers); ans.RequestID != "req-opt" || ans.Allow {
		t.Fatalf("answer %+v", ans)
	}
	waitPadState(t, sock, a.SessionID(), wire.StateRunning)
}

// waitPadState waits until the daemon's status shows the chat's session in
// state, labelled as the chat.
func waitPadState(t *testing.T, sock, session string, want wire.State) {
	t.Helper()
	c := wireclient.New(sock)
	var label string
	testutil.Eventually(t, "session "+session+" is "+string(want)+" on the pads", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		st, err := c.Status(ctx)
		if err != nil {
			return false
		}
		for _, s := range st.Sessions {
			if s.Backend == "claude" && s.SessionID == session && s.State == want {
				label = s.Label
				return true
			}
		}
		return false
	})
	if label != Label {
		t.Errorf("the chat shows on the pads as %q, want %q", label, Label)
	}
}

// TestPermissionFromThePads: a can_use_tool question is asked in the
// window and on the pads at once; an Approve press on a pad answers it,
// the card in the window goes down, and the pads show Claude running
// again (issue #15: first answer wins, the others are withdrawn).
func TestPermissionFromThePads(t *testing.T) {
	r := newRig(t, nil)
	d := startPadDaemon(t, r.h)
	win := r.open(t, "")
	a := r.agents.next(t)
	sh := dialShell(t, r.h, win)
	sh.emit("chat.message", "shell", map[string]any{"text": "make a file"})
	testutil.Wait(t, "the message to reach the agent", a.sent)
	input := json.RawMessage(`{"command":"touch notes.txt"}`)
	a.emit(t, ControlRequest{RequestID: "req-pad", Subtype: SubtypeCanUseTool, ToolName: "Bash", Input: input})
	ask := dataMap(sh.next("shell.ask", 5*time.Second, nil))
	info, _ := config.ReadHostInfo(r.h.paths)
	waitPadState(t, info.WireSocket, a.SessionID(), wire.StateWaitingForApproval)
	// The question's subscription and its state report travel on two
	// connections (Wire acknowledges no subscribe_actions), so the pads may
	// show the wait a moment before Approve lights up; a person presses a
	// lit pad. (CI r1 pressed in between: "the agent's request is over".)
	id := wire.Identity{Backend: "claude", SessionID: a.SessionID()}
	testutil.Eventually(t, "Approve is lit for req-pad", func() bool {
		acts, err := d.Answerable(context.Background(), id, "req-pad")
		return err == nil && slices.Contains(acts, wire.ActionApprove)
	})

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := d.Answer(ctx, id, "req-pad", wire.ActionApprove); err != nil {
		t.Fatalf("press Approve: %v", err)
	}
	if ans := testutil.Wait(t, "the pad's Approve to reach Claude", a.answers); ans.RequestID != "req-pad" || !ans.Allow || string(ans.Input) != string(input) {
		t.Fatalf("answer %+v", ans)
	}
	if dis := dataMap(sh.next("shell.dismiss", 5*time.Second, nil)); dis["id"] != ask["id"] {
		t.Fatalf("dismissed %v, want the card %v", dis["id"], ask["id"])
	}
	waitPadState(t, info.WireSocket, a.SessionID(), wire.StateRunning)

	// Answered in the window instead: the pads stop waiting.
	a.emit(t, ControlRequest{RequestID: "req-win", Subtype: SubtypeCanUseTool, ToolName: "Bash", Input: input})
	ask = dataMap(sh.next("shell.ask", 5*time.Second, nil))
	waitPadState(t, info.WireSocket, a.SessionID(), wire.StateWaitingForApproval)
	sh.emit("shell.answer", "shell", map[string]any{"id": ask["id"], "choice": "deny"})
	if ans := testutil.Wait(t, "the window's Deny to reach Claude", a.answers); ans.RequestID != "req-win" || ans.Allow {
		t.Fatalf("answer %+v", ans)
	}
	waitPadState(t, info.WireSocket, a.SessionID(), wire.StateRunning)
	if err := d.Answer(ctx, wire.Identity{Backend: "claude", SessionID: a.SessionID()}, "req-win", wire.ActionApprove); err == nil {
		t.Fatal("a pad could still answer a question the window answered")
	}
}

// TestPermissionWithdrawnByClaude: when claude withdraws its question
// (control_cancel_request: a hook of the person's own answered first),
// the card goes down and Lets sends no answer.
func TestPermissionWithdrawnByClaude(t *testing.T) {
	r := newRig(t, nil)
	win := r.open(t, "")
	a := r.agents.next(t)
	sh := dialShell(t, r.h, win)
	sh.emit("chat.message", "shell", map[string]any{"text": "make a file"})
	testutil.Wait(t, "the message to reach the agent", a.sent)
	a.emit(t, ControlRequest{RequestID: "req-x", Subtype: SubtypeCanUseTool, ToolName: "Bash", Input: json.RawMessage(`{"command":"touch x"}`)})
	ask := dataMap(sh.next("shell.ask", 5*time.Second, nil))
	a.emit(t, ControlCancel{RequestID: "req-x"})
	// The host takes the card down and the question's goroutine calms the
	// companion once it has decided, in either order; had it answered,
	// the answer would be in before its mood.
	var dismissed, calmed bool
	for !dismissed || !calmed {
		f := sh.nextWhere("the card down and the companion busy", 5*time.Second, func(f frame) bool {
			return f.Type == "shell.dismiss" || (f.Type == "entity.mood" && moodIs("busy")(f))
		})
		if f.Type == "entity.mood" {
			calmed = true
			continue
		}
		if dis := dataMap(f); dis["id"] != ask["id"] {
			t.Fatalf("dismissed %v, want %v", dis["id"], ask["id"])
		}
		dismissed = true
	}
	select {
	case ans := <-a.answers:
		t.Fatalf("answered a withdrawn question: %+v", ans)
	default:
	}
}

// TestPermissionAnswerNotHeldByAnotherQuestion: a question of the same
// session still pending elsewhere (as the PermissionRequest hook of the
// person's own set-up was, before the chat's Claude kept it out) no
// longer holds the chat's answer back: Allow in the window reaches Claude
// (target ≤ 200 ms, logged), the other question is withdrawn and the pads
// show running. Before, done() re-reported running 20 x 50 ms first (~1 s).
func TestPermissionAnswerNotHeldByAnotherQuestion(t *testing.T) {
	r := newRig(t, nil)
	startPadDaemon(t, r.h)
	win := r.open(t, "")
	a := r.agents.next(t)
	sh := dialShell(t, r.h, win)
	sh.emit("chat.message", "shell", map[string]any{"text": "make a file"})
	testutil.Wait(t, "the message to reach the agent", a.sent)
	info, _ := config.ReadHostInfo(r.h.paths)
	c := wireclient.New(info.WireSocket)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	other, err := c.Subscribe(ctx, wire.SubscribeActionsCommand{Agent: wire.Identity{Backend: "claude", SessionID: a.SessionID()},
		Actions: []wire.Action{wire.ActionApprove, wire.ActionReject}, RequestID: "hook-question", OneShot: true})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	input := json.RawMessage(`{"command":"touch notes.txt"}`)
	a.emit(t, ControlRequest{RequestID: "req-1", Subtype: SubtypeCanUseTool, ToolName: "Bash", Input: input})
	ask := dataMap(sh.next("shell.ask", 5*time.Second, nil))
	waitPadState(t, info.WireSocket, a.SessionID(), wire.StateWaitingForApproval)
	pressed := time.Now()
	sh.emit("shell.answer", "shell", map[string]any{"id": ask["id"], "choice": "allow"})
	ans := testutil.Wait(t, "the window's Allow to reach Claude", a.answers)
	// The 200 ms target is a speed, logged and reported in the session
	// note, not asserted: a loaded CI runner must not fail a correct Lets
	// (the old 20 x 50 ms retries showed as ~1 s here).
	t.Logf("Allow reached Claude %v after the press (target ≤ 200 ms)", time.Since(pressed))
	if ans.RequestID != "req-1" || !ans.Allow {
		t.Fatalf("answer %+v", ans)
	}
	waitPadState(t, info.WireSocket, a.SessionID(), wire.StateRunning)
	if _, err := other.Receive(ctx); err == nil {
		t.Fatal("the other question was not withdrawn")
	}
}
